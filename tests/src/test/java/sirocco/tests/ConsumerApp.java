package sirocco.tests;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The consumer program of {@link ConsumerTest}: its sources, and their compilation against
 * Sirocco's built modules, once as a named module and once for the class path.
 *
 * <p>The GPU machine's bundled JDK has no {@code jdk.compiler} (it would not fit the bundle's size
 * limit), so {@code bin/gpu-bundle} runs {@link #main} here to compile the consumer into {@code
 * .gpu/consumer}, and {@code .gpu/bin/test-gpu} points {@value #DIR_PROPERTY} at it. No JUnit in
 * this class: the bundle script runs it without the test engine.
 */
public final class ConsumerApp {
  /** Where a precompiled consumer lies (the directory {@link #main} wrote). */
  static final String DIR_PROPERTY = "sirocco.consumer.dir";

  private ConsumerApp() {}

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

  /**
   * {@code auto} opens the default backend (CUDA where a device exists, else Java), {@code cuda}
   * requires CUDA. Besides its own kernel the program runs one library op, causal attention in f16
   * with Lq = 16: on CUDA that consults cuDNN, which module {@code sirocco} binds through FFM.
   */
  private static final String MAIN =
      """
      package consumer;

      import consumer.kernels.Kernels;
      import sirocco.Backend;
      import sirocco.Launch;
      import sirocco.Mask;
      import sirocco.Sirocco;
      import sirocco.Tensor;

      public final class Main {
        public static void main(String[] args) {
          String mode = args.length == 0 ? "auto" : args[0];
          Sirocco opened =
              switch (mode) {
                case "auto" -> Sirocco.open();
                case "cuda" -> Sirocco.open(Backend.CUDA);
                default -> throw new IllegalArgumentException("mode must be auto or cuda, got " + mode);
              };
          try (Sirocco rt = opened) {
            System.out.println("opened " + rt.describe() + ": " + rt.backendReason());
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
            attention(rt);
            System.out.println("consumer OK on " + rt.backend());
          }
        }

        private static int seed = 12345;

        // In [-1, 1), rounded to f16 so the reference sees the values the device sees.
        private static short next() {
          seed = seed * 1103515245 + 12345;
          return Float.floatToFloat16(((seed >>> 16) & 0xFF) / 128f - 1f);
        }

        // q [1, 2, 16, 64], k and v [1, 1, 16, 64] (both query heads read the one kv head), causal.
        private static void attention(Sirocco rt) {
          int hq = 2, len = 16, dim = 64;
          float scale = 0.125f;
          short[] q = new short[hq * len * dim];
          short[] k = new short[len * dim];
          short[] v = new short[len * dim];
          for (int i = 0; i < q.length; i++) q[i] = next();
          for (int i = 0; i < k.length; i++) k[i] = next();
          for (int i = 0; i < v.length; i++) v[i] = next();
          Tensor o =
              rt.scaledDotProductAttention(
                  rt.fromF16(q, 1, hq, len, dim),
                  rt.fromF16(k, 1, 1, len, dim),
                  rt.fromF16(v, 1, 1, len, dim),
                  scale,
                  Mask.causal());
          float[] got = rt.toFloats(o);
          double worst = 0;
          for (int h = 0; h < hq; h++) {
            for (int i = 0; i < len; i++) {
              double[] p = new double[i + 1];
              double max = Double.NEGATIVE_INFINITY;
              for (int j = 0; j <= i; j++) {
                double s = 0;
                for (int c = 0; c < dim; c++) {
                  s += (double) Float.float16ToFloat(q[(h * len + i) * dim + c])
                      * Float.float16ToFloat(k[j * dim + c]);
                }
                p[j] = s * scale;
                max = Math.max(max, p[j]);
              }
              double z = 0;
              for (int j = 0; j <= i; j++) {
                p[j] = Math.exp(p[j] - max);
                z += p[j];
              }
              for (int c = 0; c < dim; c++) {
                double want = 0;
                for (int j = 0; j <= i; j++) want += p[j] / z * Float.float16ToFloat(v[j * dim + c]);
                float g = got[(h * len + i) * dim + c];
                double err = Math.abs(g - want);
                worst = Math.max(worst, err);
                // f16 output and f16 probabilities: a few f16 ulps of values below 1.
                if (!(err <= 2e-2)) {
                  throw new AssertionError(
                      "attention [0," + h + "," + i + "," + c + "]: got " + g + ", want " + want);
                }
              }
            }
          }
          System.out.println("attention max |error| " + worst);
        }
      }
      """;

  /** The compiled consumer: an exploded module and a class folder. */
  record Built(Path module, Path classes) {}

  /** Where the classes of Sirocco's library modules were loaded from (jars or class folders). */
  static List<Path> siroccoModules() {
    Set<Path> out = new LinkedHashSet<>();
    for (Class<?> c :
        new Class<?>[] {
          sirocco.api.KernelContext.class,
          sirocco.jit.KernelCompiler.class,
          sirocco.runtime.Device.class,
          sirocco.kernels.attention.MaskToBias.class,
          sirocco.Sirocco.class
        }) {
      try {
        out.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
      } catch (URISyntaxException e) {
        throw new IllegalStateException("code source of " + c.getName(), e);
      }
    }
    return new ArrayList<>(out);
  }

  static String join(List<Path> paths) {
    return String.join(File.pathSeparator, paths.stream().map(Path::toString).toList());
  }

  /**
   * The consumer precompiled at {@value #DIR_PROPERTY} when that is set, else compiled now under
   * {@code scratch}.
   */
  static Built obtain(Path scratch) throws IOException {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir != null && !dir.isBlank()) {
      Built b = layout(Path.of(dir));
      if (!Files.isRegularFile(b.module().resolve("module-info.class"))
          || !Files.isRegularFile(b.classes().resolve("consumer/Main.class"))) {
        throw new IllegalStateException(
            "-D" + DIR_PROPERTY + "=" + dir + " holds no compiled consumer; rerun bin/gpu-bundle");
      }
      return b;
    }
    return build(scratch);
  }

  private static Built layout(Path dir) {
    return new Built(dir.resolve("mods/consumer"), dir.resolve("classes"));
  }

  /** Compiles both forms under {@code dir} (mods/consumer and classes). */
  static Built build(Path dir) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException(
          "this JDK ("
              + System.getProperty("java.home")
              + ") has no javac; precompile the consumer with sirocco.tests.ConsumerApp and pass -D"
              + DIR_PROPERTY);
    }
    Built b = layout(dir);
    List<Path> modules = siroccoModules();

    Path src = dir.resolve("src-module");
    List<String> args =
        new ArrayList<>(List.of("--module-path", join(modules), "-d", b.module().toString()));
    args.add(
        write(
                src,
                "module-info.java",
                "module consumer { requires sirocco; exports consumer.kernels; }")
            .toString());
    args.add(write(src, "consumer/kernels/Kernels.java", KERNELS).toString());
    args.add(write(src, "consumer/Main.java", MAIN).toString());
    compile(javac, args);

    src = dir.resolve("src-classpath");
    args = new ArrayList<>(List.of("-cp", join(modules), "-d", b.classes().toString()));
    args.add(write(src, "consumer/kernels/Kernels.java", KERNELS).toString());
    args.add(write(src, "consumer/Main.java", MAIN).toString());
    compile(javac, args);
    return b;
  }

  private static void compile(JavaCompiler javac, List<String> args) {
    int rc = javac.run(null, null, null, args.toArray(String[]::new));
    if (rc != 0) {
      throw new IllegalStateException("javac failed (" + rc + "): " + args);
    }
  }

  private static Path write(Path root, String relative, String text) throws IOException {
    Path f = root.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
    return f;
  }

  /** Compiles the consumer into {@code args[0]} for a machine whose JDK has no javac. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: ConsumerApp OUTPUT_DIR");
    }
    Built b = build(Path.of(args[0]));
    System.out.println("consumer compiled: " + b.module() + ", " + b.classes());
  }
}
