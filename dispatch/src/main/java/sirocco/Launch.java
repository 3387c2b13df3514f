package sirocco;

import java.lang.reflect.Method;
import java.util.Arrays;
import sirocco.api.KernelRef;

/**
 * A launch of a user-written kernel: {@code rt.run(Launch.of(MyKernels::add).grid(n /
 * 256).block(256).args(a, b, n))}. Array parameters take {@link Tensor}s of the matching storage
 * ({@code float[]}: F32, {@code short[]}: BF16/F16, {@code int[]}: U32/I32, {@code byte[]}: U8);
 * the kernel sees the tensor's whole buffer, so pass offsets and strides of views as scalars.
 * Scalars take boxed values. The same launch runs on either backend.
 */
public final class Launch {
  final Method kernel;
  int[] grid = {1, 1, 1};
  int[] block = {1, 1, 1};
  int sharedBytes;
  boolean earlyStart;
  Object[] args = new Object[0];

  private Launch(Method kernel) {
    this.kernel = kernel;
  }

  /**
   * A launch of a kernel given as a {@link Method}: a public static void method taking a
   * KernelContext first.
   */
  public static Launch of(Method kernel) {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel must not be null");
    }
    return new Launch(kernel);
  }

  /** Blocks in the grid (x, then optionally y and z). */
  public Launch grid(int... dims) {
    this.grid = dims("grid", dims);
    return this;
  }

  /** Threads per block (x, then optionally y and z); at most 1024 in all. */
  public Launch block(int... dims) {
    this.block = dims("block", dims);
    return this;
  }

  /**
   * Dynamic shared memory per block, in bytes: reserved on the GPU (fewer blocks per SM), not
   * addressable by the kernel. The kernel's own {@code ctx.allocate*LocalArray} arrays need nothing
   * here, even above 48 KiB in all (they are added to these bytes). Ignored by the Java backend.
   */
  public Launch sharedBytes(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("sharedBytes must be >= 0, got " + bytes);
    }
    this.sharedBytes = bytes;
    return this;
  }

  /**
   * Lets this launch start before the previous kernel in the stream has finished (programmatic
   * dependent launch, sm_90+): the kernel must call {@code ctx.waitForPriorGrids()} before it
   * touches memory the previous kernel uses, and the CUDA backend refuses the launch if it never
   * does. The previous kernel may call {@code ctx.releaseDependentGrids()} to let this one become
   * resident sooner. Elsewhere (before sm_90, the Java backend) the launch runs after the previous
   * one as usual. See docs/RUNTIME.md, early start.
   */
  public Launch earlyStart() {
    this.earlyStart = true;
    return this;
  }

  /**
   * The kernel's arguments after the context: tensors for array parameters, boxed scalars
   * otherwise.
   */
  public Launch args(Object... args) {
    this.args = args == null ? new Object[] {null} : args.clone();
    return this;
  }

  public Method kernel() {
    return kernel;
  }

  private static int[] dims(String name, int[] dims) {
    if (dims == null || dims.length < 1 || dims.length > 3) {
      throw new IllegalArgumentException(name + " must have 1 to 3 dimensions");
    }
    int[] d = {1, 1, 1};
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 1) {
        throw new IllegalArgumentException(
            name + " dimensions must be positive, got " + Arrays.toString(dims));
      }
      d[i] = dims[i];
    }
    return d;
  }

  public static Launch of(KernelRef.K0 kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1> Launch of(KernelRef.K1<A1> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2> Launch of(KernelRef.K2<A1, A2> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3> Launch of(KernelRef.K3<A1, A2, A3> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4> Launch of(KernelRef.K4<A1, A2, A3, A4> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5> Launch of(KernelRef.K5<A1, A2, A3, A4, A5> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6> Launch of(KernelRef.K6<A1, A2, A3, A4, A5, A6> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7> Launch of(
      KernelRef.K7<A1, A2, A3, A4, A5, A6, A7> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8> Launch of(
      KernelRef.K8<A1, A2, A3, A4, A5, A6, A7, A8> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9> Launch of(
      KernelRef.K9<A1, A2, A3, A4, A5, A6, A7, A8, A9> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10> Launch of(
      KernelRef.K10<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11> Launch of(
      KernelRef.K11<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12> Launch of(
      KernelRef.K12<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13> Launch of(
      KernelRef.K13<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14> Launch of(
      KernelRef.K14<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15> Launch of(
      KernelRef.K15<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16> Launch of(
      KernelRef.K16<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16> kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17>
      Launch of(
          KernelRef.K17<A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17>
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18>
      Launch of(
          KernelRef.K18<
                  A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18>
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
          A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19>
      Launch of(
          KernelRef.K19<
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
                  A19>
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
          A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20>
      Launch of(
          KernelRef.K20<
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
                  A20>
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
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
      Launch of(
          KernelRef.K21<
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
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
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
      Launch of(
          KernelRef.K22<
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
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
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
      Launch of(
          KernelRef.K23<
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
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }

  public static <
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
      Launch of(
          KernelRef.K24<
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
              kernel) {
    return new Launch(KernelRef.method(kernel));
  }
}
