package sirocco.jit;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import sirocco.api.Kernel;
import sirocco.jit.testkernels.ArithKernels;
import sirocco.jit.testkernels.AsyncCopyKernels;
import sirocco.jit.testkernels.AtomicKernels;
import sirocco.jit.testkernels.ControlKernels;
import sirocco.jit.testkernels.ConvKernels;
import sirocco.jit.testkernels.GoldenKernels;
import sirocco.jit.testkernels.LargeSharedKernels;
import sirocco.jit.testkernels.MathKernels;
import sirocco.jit.testkernels.MemoryKernels;
import sirocco.jit.testkernels.MmaKernels;
import sirocco.jit.testkernels.RealisticKernels;
import sirocco.jit.testkernels.RecordKernels;
import sirocco.jit.testkernels.ScalarParamKernels;
import sirocco.jit.testkernels.SpecializeKernels;
import sirocco.jit.testkernels.VectorKernels;
import sirocco.jit.testkernels.WarpKernels;

/** The catalogue of test kernels: every {@code @Kernel} method of the testkernels classes. */
final class TestKernels {
  private TestKernels() {}

  static final List<Class<?>> CLASSES =
      List.of(
          ArithKernels.class,
          ConvKernels.class,
          ControlKernels.class,
          MemoryKernels.class,
          WarpKernels.class,
          AtomicKernels.class,
          AsyncCopyKernels.class,
          LargeSharedKernels.class,
          VectorKernels.class,
          RecordKernels.class,
          MathKernels.class,
          MmaKernels.class,
          SpecializeKernels.class,
          ScalarParamKernels.class,
          GoldenKernels.class,
          RealisticKernels.class);

  /** A kernel with one of its specialization sets. */
  record Case(Method method, Map<String, Object> specs) {
    String label() {
      return method.getDeclaringClass().getSimpleName()
          + "."
          + method.getName()
          + (specs.isEmpty() ? "" : specs.toString());
    }
  }

  static List<Method> kernels() {
    List<Method> out = new ArrayList<>();
    for (Class<?> c : CLASSES) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Kernel.class) && Modifier.isStatic(m.getModifiers())) {
          out.add(m);
        }
      }
    }
    out.sort(Comparator.comparing(m -> m.getDeclaringClass().getSimpleName() + "." + m.getName()));
    return out;
  }

  static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    for (Method m : kernels()) {
      for (Map<String, Object> s : KernelCompiler.validationSets(m)) {
        out.add(new Case(m, s));
      }
    }
    return out;
  }

  static Method method(Class<?> c, String name) {
    for (Method m : c.getDeclaredMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException(c + "." + name);
  }
}
