package sirocco.kernels;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.Target;
import sirocco.kernels.attention.SdpaSplitK;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorStaged;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.QmmMmaKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;

/**
 * The kernels the ops may launch with early start (dispatch's {@code SdpaLaunches.earlyStart} and
 * {@code QmmPolicy.earlyStart}) wait for the previous kernel before they touch global memory: in
 * every validated specialization's sm_90 PTX the first {@code griddepcontrol.wait} comes before
 * every global load, store, atomic and asynchronous copy. A read moved above the wait would race
 * with the previous kernel on the GPU while every Java-backend test still passed. On sm_80 the
 * calls emit nothing.
 */
class EarlyStartKernelsTest {
  private static final Pattern GLOBAL_ACCESS =
      Pattern.compile("^\\s*(ld|st|atom|red|cp\\.async)\\S*global");

  static List<Method> earlyLaunched() {
    List<Method> out = new ArrayList<>();
    for (Class<?> c :
        List.of(
            SdpaVector.class,
            SdpaVectorStaged.class,
            SdpaVectorMma.class,
            SdpaSplitK.class,
            QmmMmaSplitKKernel.class,
            QmmMmaKernel.class,
            AffineQmvSplitKKernel.class)) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(sirocco.api.Kernel.class)) {
          out.add(m);
        }
      }
    }
    return out;
  }

  @TestFactory
  Stream<DynamicTest> everyEarlyLaunchedKernelWaitsBeforeItsFirstGlobalAccess() {
    List<DynamicTest> tests = new ArrayList<>();
    List<Method> kernels = earlyLaunched();
    assertTrue(kernels.size() >= 7, "found " + kernels);
    for (Method m : kernels) {
      for (Map<String, Object> specs : KernelCompiler.validationSets(m)) {
        String label = m.getDeclaringClass().getSimpleName() + "." + m.getName() + specs;
        tests.add(
            dynamicTest(
                label,
                () -> {
                  CompiledKernel k = KernelCompiler.compile(m, specs, Target.sm90());
                  List<String> lines = k.ptx().lines().toList();
                  int wait = -1;
                  for (int i = 0; i < lines.size() && wait < 0; i++) {
                    if (lines.get(i).strip().equals("griddepcontrol.wait;")) {
                      wait = i;
                    }
                  }
                  assertTrue(wait >= 0, label + " never waits");
                  for (int i = 0; i < wait; i++) {
                    assertFalse(
                        GLOBAL_ACCESS.matcher(lines.get(i)).find(),
                        label + ": global access before the wait: " + lines.get(i));
                  }
                  String sm80 = KernelCompiler.compile(m, specs, Target.sm80()).ptx();
                  assertFalse(sm80.contains("griddepcontrol"), label + " on sm_80");
                }));
      }
    }
    return tests.stream();
  }
}
