package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.jit.testkernels.GoldenKernels;

/**
 * Compile-time measurement in a fresh JVM whose class path has no JCuda (so it also shows that the
 * compiler runs without it). Prints and records the numbers in target/compile-times.txt; asserts
 * nothing about wall time.
 */
class CompileTimeTest {
  private static String location(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  private static String classPathWithoutJcuda() throws Exception {
    return String.join(
        File.pathSeparator,
        location(KernelCompiler.class),
        location(KernelContext.class),
        location(GoldenKernels.class));
  }

  @Test
  void compileTimesInAFreshJvmWithoutJcuda() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(java, "-cp", classPathWithoutJcuda(), CompileBench.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    assertTrue(out.contains("cold_all="), out);
    System.out.println(out);
    Files.writeString(Path.of("target", "compile-times.txt"), out);
  }

  @Test
  void compilerWorksWithoutJcudaOnTheClassPath() throws Exception {
    URL[] urls = {
      Path.of(location(KernelCompiler.class)).toUri().toURL(),
      Path.of(location(KernelContext.class)).toUri().toURL(),
      Path.of(location(GoldenKernels.class)).toUri().toURL()
    };
    try (URLClassLoader l = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      Class<?> compiler = l.loadClass(KernelCompiler.class.getName());
      Class<?> target = l.loadClass(Target.class.getName());
      Class<?> kernels = l.loadClass(GoldenKernels.class.getName());
      Method k = null;
      for (Method m : kernels.getDeclaredMethods()) {
        if (m.getName().equals("mulAdd")) {
          k = m;
        }
      }
      Object sm90 = target.getMethod("sm90").invoke(null);
      Object compiled =
          compiler
              .getMethod("compile", Method.class, Map.class, target)
              .invoke(null, k, Map.of(), sm90);
      String ptx = (String) compiled.getClass().getMethod("ptx").invoke(compiled);
      assertTrue(ptx.contains(".entry GoldenKernels_mulAdd_"), ptx);
      Class<?> validator = l.loadClass(PtxValidator.class.getName());
      assertFalse((Boolean) validator.getMethod("isAvailable").invoke(null));
      assertFalse(List.of(urls).toString().contains("jcuda"));
    }
  }
}
