package sirocco.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer program compiled and run against Sirocco's built jars, both as a named module on the
 * module path and on the class path: it opens Sirocco, round-trips a tensor, and writes and
 * launches its own kernel through the public kernel API. It fails if the program needs anything
 * Sirocco does not export (the Java version of a dependent build that broke on unexported
 * internals), or if the JVM prints any warning.
 */
class ConsumerTest {
  private static final String KERNELS =
      """
      package consumer.kernels;

      import sirocco.api.KernelContext;

      public final class Kernels {
        private Kernels() {}

        public static void saxpy(KernelContext ctx, float[] x, float[] y, float a, int n) {
          int i = ctx.globalIdx;
          if (i < n) {
            y[i] = Math.fma(a, x[i], y[i]);
          }
        }
      }
      """;

  private static final String MAIN =
      """
      package consumer;

      import consumer.kernels.Kernels;
      import sirocco.Launch;
      import sirocco.Sirocco;
      import sirocco.Tensor;

      public final class Main {
        public static void main(String[] args) {
          try (Sirocco rt = Sirocco.open()) {
            float[] x = {1, 2, 3, 4, 5};
            float[] y = {10, 20, 30, 40, 50};
            Tensor tx = rt.fromFloats(x, 5);
            Tensor ty = rt.fromFloats(y, 5);
            float[] back = rt.toFloats(tx);
            for (int i = 0; i < 5; i++) {
              if (back[i] != x[i]) throw new AssertionError("round trip " + i);
            }
            rt.run(Launch.of(Kernels::saxpy).grid(1).block(32).args(tx, ty, 2f, 5));
            float[] out = rt.toFloats(ty);
            for (int i = 0; i < 5; i++) {
              if (out[i] != Math.fma(2f, x[i], y[i])) throw new AssertionError("saxpy " + i);
            }
            System.out.println("consumer OK on " + rt.backend());
          }
        }
      }
      """;

  /** Where the classes of Sirocco's library modules were loaded from (jars or class folders). */
  private static List<Path> siroccoModules() throws URISyntaxException {
    Set<Path> out = new LinkedHashSet<>();
    for (Class<?> c :
        new Class<?>[] {
          sirocco.api.KernelContext.class,
          sirocco.jit.KernelCompiler.class,
          sirocco.runtime.Device.class,
          sirocco.kernels.attention.MaskToBias.class,
          sirocco.Sirocco.class
        }) {
      out.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
    }
    return new ArrayList<>(out);
  }

  private static String join(List<Path> paths) {
    return String.join(File.pathSeparator, paths.stream().map(Path::toString).toList());
  }

  private static void compile(List<String> args) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc = javac.run(null, null, null, args.toArray(String[]::new));
    assertEquals(0, rc, "javac " + args);
  }

  private static String[] run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).start();
    String out = new String(p.getInputStream().readAllBytes());
    String err = new String(p.getErrorStream().readAllBytes());
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "consumer timed out");
    assertEquals(0, p.exitValue(), "consumer failed:\n" + out + err);
    return new String[] {out, err};
  }

  private static Path write(Path root, String relative, String text) throws IOException {
    Path f = root.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
    return f;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Test
  void onTheModulePath(@TempDir Path dir) throws Exception {
    Path src = dir.resolve("src");
    List<String> files = new ArrayList<>();
    files.add(
        write(
                src,
                "module-info.java",
                "module consumer { requires sirocco; exports consumer.kernels; }")
            .toString());
    files.add(write(src, "consumer/kernels/Kernels.java", KERNELS).toString());
    files.add(write(src, "consumer/Main.java", MAIN).toString());
    Path classes = dir.resolve("mods/consumer");
    List<Path> modules = siroccoModules();
    List<String> args =
        new ArrayList<>(List.of("--module-path", join(modules), "-d", classes.toString()));
    args.addAll(files);
    compile(args);
    List<Path> path = new ArrayList<>(modules);
    path.add(classes);
    String[] r =
        run(
            List.of(
                java(),
                "--enable-native-access=sirocco.runtime,sirocco",
                "-Dsirocco.forceJava=true",
                "--module-path",
                join(path),
                "-m",
                "consumer/consumer.Main"));
    assertTrue(r[0].contains("consumer OK on JAVA"), r[0]);
    assertEquals("", r[1].strip(), "no warnings or errors on stderr");
  }

  @Test
  void onTheClassPath(@TempDir Path dir) throws Exception {
    Path src = dir.resolve("src");
    List<String> files =
        List.of(
            write(src, "consumer/kernels/Kernels.java", KERNELS).toString(),
            write(src, "consumer/Main.java", MAIN).toString());
    Path classes = dir.resolve("classes");
    List<Path> jars = siroccoModules();
    List<String> args = new ArrayList<>(List.of("-cp", join(jars), "-d", classes.toString()));
    args.addAll(files);
    compile(args);
    List<Path> cp = new ArrayList<>(jars);
    cp.add(classes);
    String[] r =
        run(
            List.of(
                java(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dsirocco.forceJava=true",
                "-cp",
                join(cp),
                "consumer.Main"));
    assertTrue(r[0].contains("consumer OK on JAVA"), r[0]);
    assertEquals("", r[1].strip(), "no warnings or errors on stderr");
  }
}
