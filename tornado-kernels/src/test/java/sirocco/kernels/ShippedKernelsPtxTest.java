package sirocco.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import sirocco.api.Kernel;
import sirocco.api.KernelCompileException;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.PtxResources;
import sirocco.jit.PtxValidator;
import sirocco.jit.Target;
import sirocco.kernels.attention.MaskToBias;

/**
 * Every kernel Sirocco ships ({@code @Kernel} methods under {@code sirocco.kernels}), with each of
 * its {@code validateWith} specialization sets, compiled by Sirocco's compiler and then to SASS by
 * NVIDIA's in-process PTX compiler for sm_80 and sm_90. Fails on any compile error, on any spill,
 * and when the PTX compiler (JCuda's natives) cannot be loaded. Prints each kernel's registers and
 * shared memory, and the total compile time.
 */
class ShippedKernelsPtxTest {

  static List<Method> shippedKernels() throws IOException, URISyntaxException {
    Path root =
        Path.of(MaskToBias.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Method> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root.resolve("sirocco/kernels"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        String name = root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
        Class<?> c;
        try {
          c = Class.forName(name, false, MaskToBias.class.getClassLoader());
        } catch (ClassNotFoundException e) {
          throw new IllegalStateException(e);
        }
        for (Method m : c.getDeclaredMethods()) {
          if (m.isAnnotationPresent(Kernel.class)) {
            out.add(m);
          }
        }
      }
    }
    out.sort(Comparator.comparing(m -> m.getDeclaringClass().getName() + "." + m.getName()));
    return out;
  }

  @Test
  void thereAreShippedKernels() throws Exception {
    assertTrue(shippedKernels().size() >= 10, "found " + shippedKernels().size());
  }

  @TestFactory
  Stream<DynamicTest> everyShippedKernelCompilesWithoutSpills() throws Exception {
    // CI validates the shipped PTX here; a missing compiler must fail, not skip silently.
    assertTrue(
        PtxValidator.isAvailable(),
        "JCuda's nvPTXCompiler must load for these tests (NVIDIA's PTX compiler natives)");
    List<DynamicTest> tests = new ArrayList<>();
    long[] compileNanos = {0};
    for (Method m : shippedKernels()) {
      for (Map<String, Object> specs : KernelCompiler.validationSets(m)) {
        for (Target t : List.of(Target.sm80(), Target.sm90())) {
          String label =
              m.getDeclaringClass().getSimpleName() + "." + m.getName() + specs + " " + t.arch();
          tests.add(
              dynamicTest(
                  label,
                  () -> {
                    if (!KernelCompiler.compilesFor(m, t)) {
                      // Built on instructions of other architectures (@Kernel(archs)): the
                      // compiler must refuse it, naming the architecture.
                      KernelCompileException e =
                          assertThrows(
                              KernelCompileException.class,
                              () -> KernelCompiler.compile(m, specs, t));
                      assertTrue(e.getMessage().contains("sm_90"), e.getMessage());
                      return;
                    }
                    long t0 = System.nanoTime();
                    CompiledKernel k = KernelCompiler.compile(m, specs, t);
                    compileNanos[0] += System.nanoTime() - t0;
                    PtxResources r = PtxValidator.validate(k);
                    System.out.printf(
                        "%-70s %3d regs %6d B shared %4d B stack%n",
                        label, r.registers(), r.sharedBytes(), r.stackFrameBytes());
                    assertEquals(0, r.spillStoreBytes(), label + " spills: " + r.log());
                    assertEquals(0, r.spillLoadBytes(), label + " spills: " + r.log());
                  }));
        }
      }
    }
    tests.add(
        dynamicTest(
            "compile time",
            () ->
                System.out.printf(
                    "shipped kernels: Sirocco compile time %.1f ms in total%n",
                    compileNanos[0] / 1e6)));
    return tests.stream();
  }
}
