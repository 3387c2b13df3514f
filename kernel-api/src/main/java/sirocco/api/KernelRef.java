package sirocco.api;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/**
 * Method references to kernels, as TornadoVM takes them: {@code KernelRef.of(MyKernels::add)} names
 * the static method {@code MyKernels.add(KernelContext, …)} without strings. The interfaces exist
 * only so that a method reference of any arity converts to something {@link #method(Serializable)}
 * can resolve; scalar parameters appear boxed in their type arguments ({@code Integer} for {@code
 * int}).
 */
public final class KernelRef {
  private KernelRef() {}

  /** Resolves a method reference to the static kernel method it names. */
  public static Method method(Serializable reference) {
    if (reference == null) {
      throw new IllegalArgumentException(
          "reference must be a method reference such as MyKernels::add, not null");
    }
    SerializedLambda lambda = serializedForm(reference);
    if (lambda == null) {
      throw new IllegalArgumentException(
          "reference must be a method reference such as MyKernels::add, got "
              + reference.getClass().getName());
    }
    if (lambda.getImplMethodKind() != java.lang.invoke.MethodHandleInfo.REF_invokeStatic
        || lambda.getImplMethodName().startsWith("lambda$")) {
      throw new IllegalArgumentException(
          "reference must name a static kernel method (MyKernels::add), not a lambda or instance method: "
              + lambda.getImplClass()
              + "."
              + lambda.getImplMethodName());
    }
    String className = lambda.getImplClass().replace('/', '.');
    try {
      ClassLoader loader = reference.getClass().getClassLoader();
      Class<?> owner = Class.forName(className, false, loader);
      for (Method m : owner.getDeclaredMethods()) {
        if (m.getName().equals(lambda.getImplMethodName())
            && methodDescriptor(m).equals(lambda.getImplMethodSignature())) {
          return m;
        }
      }
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("kernel class " + className + " is not visible", e);
    }
    throw new IllegalArgumentException(
        "kernel method "
            + className
            + "."
            + lambda.getImplMethodName()
            + lambda.getImplMethodSignature()
            + " not found");
  }

  /**
   * The {@link SerializedLambda} of a serializable method reference, captured through
   * serialization's own replacement hook: the stream calls the lambda's private {@code
   * writeReplace} with serialization's privileges, so no {@code setAccessible} is needed and the
   * caller's module need not open its packages.
   */
  private static SerializedLambda serializedForm(Serializable reference) {
    final class Capture extends ObjectOutputStream {
      SerializedLambda lambda;

      Capture() throws IOException {
        super(OutputStream.nullOutputStream());
        enableReplaceObject(true);
      }

      @Override
      protected Object replaceObject(Object obj) {
        if (lambda == null && obj instanceof SerializedLambda s) {
          lambda = s;
        }
        return obj;
      }
    }
    try (Capture c = new Capture()) {
      c.writeObject(reference);
      return c.lambda;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static String methodDescriptor(Method m) {
    StringBuilder sb = new StringBuilder("(");
    for (Class<?> p : m.getParameterTypes()) {
      sb.append(p.descriptorString());
    }
    return sb.append(')').append(m.getReturnType().descriptorString()).toString();
  }

  /** A kernel with no parameter besides the context. */
  @FunctionalInterface
  public interface K0 extends Serializable {
    void run(KernelContext ctx);
  }

  /** A kernel with 1 parameter besides the context. */
  @FunctionalInterface
  public interface K1<A1> extends Serializable {
    void run(KernelContext ctx, A1 a1);
  }

  /** A kernel with 2 parameters besides the context. */
  @FunctionalInterface
  public interface K2<A1, A2> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2);
  }

  /** A kernel with 3 parameters besides the context. */
  @FunctionalInterface
  public interface K3<A1, A2, A3> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3);
  }

  /** A kernel with 4 parameters besides the context. */
  @FunctionalInterface
  public interface K4<A1, A2, A3, A4> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4);
  }

  /** A kernel with 5 parameters besides the context. */
  @FunctionalInterface
  public interface K5<A1, A2, A3, A4, A5> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5);
  }

  /** A kernel with 6 parameters besides the context. */
  @FunctionalInterface
  public interface K6<A1, A2, A3, A4, A5, A6> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6);
  }

  /** A kernel with 7 parameters besides the context. */
  @FunctionalInterface
  public interface K7<A1, A2, A3, A4, A5, A6, A7> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7);
  }

  /** A kernel with 8 parameters besides the context. */
  @FunctionalInterface
  public interface K8<A1, A2, A3, A4, A5, A6, A7, A8> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8);
  }

  /** A kernel with 9 parameters besides the context. */
  @FunctionalInterface
  public interface K9<A1, A2, A3, A4, A5, A6, A7, A8, A9> extends Serializable {
    void run(KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9);
  }

  /** A kernel with 10 parameters besides the context. */
  @FunctionalInterface
  public interface K10<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10> extends Serializable {
    void run(
        KernelContext ctx, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9, A10 a10);
  }

  /** A kernel with 11 parameters besides the context. */
  @FunctionalInterface
  public interface K11<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11> extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11);
  }

  /** A kernel with 12 parameters besides the context. */
  @FunctionalInterface
  public interface K12<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12> extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12);
  }

  /** A kernel with 13 parameters besides the context. */
  @FunctionalInterface
  public interface K13<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13);
  }

  /** A kernel with 14 parameters besides the context. */
  @FunctionalInterface
  public interface K14<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14);
  }

  /** A kernel with 15 parameters besides the context. */
  @FunctionalInterface
  public interface K15<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15);
  }

  /** A kernel with 16 parameters besides the context. */
  @FunctionalInterface
  public interface K16<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16);
  }

  /** A kernel with 17 parameters besides the context. */
  @FunctionalInterface
  public interface K17<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17);
  }

  /** A kernel with 18 parameters besides the context. */
  @FunctionalInterface
  public interface K18<
          A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18);
  }

  /** A kernel with 19 parameters besides the context. */
  @FunctionalInterface
  public interface K19<
          A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19);
  }

  /** A kernel with 20 parameters besides the context. */
  @FunctionalInterface
  public interface K20<
          A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19,
        A20 a20);
  }

  /** A kernel with 21 parameters besides the context. */
  @FunctionalInterface
  public interface K21<
          A1,
          A2,
          A3,
          A4,
          A5,
          A6,
          A7,
          A8,
          A9,
          A10,
          A11,
          A12,
          A13,
          A14,
          A15,
          A16,
          A17,
          A18,
          A19,
          A20,
          A21>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19,
        A20 a20,
        A21 a21);
  }

  /** A kernel with 22 parameters besides the context. */
  @FunctionalInterface
  public interface K22<
          A1,
          A2,
          A3,
          A4,
          A5,
          A6,
          A7,
          A8,
          A9,
          A10,
          A11,
          A12,
          A13,
          A14,
          A15,
          A16,
          A17,
          A18,
          A19,
          A20,
          A21,
          A22>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19,
        A20 a20,
        A21 a21,
        A22 a22);
  }

  /** A kernel with 23 parameters besides the context. */
  @FunctionalInterface
  public interface K23<
          A1,
          A2,
          A3,
          A4,
          A5,
          A6,
          A7,
          A8,
          A9,
          A10,
          A11,
          A12,
          A13,
          A14,
          A15,
          A16,
          A17,
          A18,
          A19,
          A20,
          A21,
          A22,
          A23>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19,
        A20 a20,
        A21 a21,
        A22 a22,
        A23 a23);
  }

  /** A kernel with 24 parameters besides the context. */
  @FunctionalInterface
  public interface K24<
          A1,
          A2,
          A3,
          A4,
          A5,
          A6,
          A7,
          A8,
          A9,
          A10,
          A11,
          A12,
          A13,
          A14,
          A15,
          A16,
          A17,
          A18,
          A19,
          A20,
          A21,
          A22,
          A23,
          A24>
      extends Serializable {
    void run(
        KernelContext ctx,
        A1 a1,
        A2 a2,
        A3 a3,
        A4 a4,
        A5 a5,
        A6 a6,
        A7 a7,
        A8 a8,
        A9 a9,
        A10 a10,
        A11 a11,
        A12 a12,
        A13 a13,
        A14 a14,
        A15 a15,
        A16 a16,
        A17 a17,
        A18 a18,
        A19 a19,
        A20 a20,
        A21 a21,
        A22 a22,
        A23 a23,
        A24 a24);
  }
}
