package sirocco.jit;

import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sirocco.jit.testutil.Geometry;
import sirocco.jit.testutil.Inputs;
import sirocco.jit.testutil.ThreadedContext;

/**
 * Developer aid: writes every test kernel as a GPU check case (PTX for sm_90, inputs, and the
 * outputs the Java kernel produces on the CPU) so that {@code jit/tools/gpu_check.py} can launch
 * the PTX on a GPU and compare element by element. Usage: {@code GpuCaseExporter <dir>}.
 */
public final class GpuCaseExporter {
  private GpuCaseExporter() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    Files.createDirectories(root);
    int n = 0;
    StringBuilder index = new StringBuilder("[\n");
    for (TestKernels.Case c : TestKernels.cases()) {
      String name = String.format("%02d_%s", n++, c.label().replaceAll("[^A-Za-z0-9_.=]", "_"));
      Path dir = root.resolve(name);
      Files.createDirectories(dir);
      export(c, dir);
      index.append(n > 1 ? ",\n" : "").append("  \"").append(name).append('"');
    }
    Files.writeString(root.resolve("cases.json"), index.append("\n]\n").toString());
    System.out.println("exported " + n + " cases to " + root);
  }

  /**
   * The launch each test kernel expects (shared with the IR differential test and the GPU
   * differential test): 1-D blocks of {@link Inputs#BLOCK} threads, {@link Inputs#THREADS} in all,
   * unless listed here.
   */
  static Geometry launch(Method m, Map<String, Object> specs) {
    return switch (m.getName()) {
      case "blockReverse" -> Geometry.oneD(256, 512);
      case "arrayRefs" -> Geometry.oneD(256, 256);
      case "sharedSmallTypes", "sharedVectors" -> Geometry.oneD(64, 64);
      case "blockSum" -> Geometry.oneD(64, 128);
      case "groupSums" ->
          Geometry.oneD((Integer) specs.get("tile"), 2 * (Integer) specs.get("tile"));
      case "mmaBf16", "mmaF16" -> Geometry.oneD(32, 32);
      case "softmax" -> Geometry.oneD(128, Inputs.THREADS * 32);
      case "tiledMatmul" -> {
        int tile = (Integer) specs.get("tile");
        yield Geometry.oneD(tile * tile, Inputs.THREADS * Inputs.THREADS);
      }
      case "contextFields3d" -> new Geometry(4, 3, 2, 3, 2, 4);
      // Written for blocks of 32; 4 blocks (tiles of up to 4 * 7 * 128 ints and 4 * 7 * 64 shorts,
      // or 128 threads' own slices, all within the inputs' 8192 elements).
      case "asyncPipeline", "asyncOwnPipeline" ->
          Geometry.oneD(
              sirocco.jit.testkernels.AsyncCopyKernels.BLOCK,
              4 * sirocco.jit.testkernels.AsyncCopyKernels.BLOCK);
      // 80 KiB of shared arrays (dynamic shared memory); written for blocks of 128, 2 blocks
      // writing 4096 outputs each.
      case "largeShared" ->
          Geometry.oneD(
              sirocco.jit.testkernels.LargeSharedKernels.BLOCK,
              sirocco.jit.testkernels.LargeSharedKernels.BLOCKS
                  * sirocco.jit.testkernels.LargeSharedKernels.BLOCK);
      default -> Geometry.oneD(Inputs.BLOCK, Inputs.THREADS);
    };
  }

  /** Inputs some kernels need in a particular form (atomics, exact mma operands). */
  static void fixInputs(Method m, Object[] a) {
    switch (m.getName()) {
      case "atomics" -> {
        int[] in = (int[]) a[1];
        for (int i = 0; i < in.length; i++) {
          in[i] = i % 100 - 50;
        }
        int[] counters = (int[]) a[2];
        java.util.Arrays.fill(counters, 0);
        counters[2] = Integer.MIN_VALUE;
        counters[3] = Integer.MAX_VALUE;
        java.util.Arrays.fill((float[]) a[3], 0f);
      }
      case "lastBlockSum" -> {
        int[] in = (int[]) a[1];
        for (int i = 0; i < in.length; i++) {
          in[i] = i % 100 - 50;
        }
        java.util.Arrays.fill((int[]) a[3], 0); // the counter starts (and ends) at 0
        java.util.Arrays.fill((int[]) a[4], 0);
      }
      case "mmaBf16", "mmaF16" -> {
        boolean bf = m.getName().equals("mmaBf16");
        java.util.Random r = new java.util.Random(7);
        for (int k : new int[] {1, 2}) {
          short[] s = (short[]) a[k];
          for (int i = 0; i < s.length; i++) {
            float v = r.nextInt(5) - 2;
            s[i] = bf ? (short) (Float.floatToRawIntBits(v) >>> 16) : Float.floatToFloat16(v);
          }
        }
        float[] c = (float[]) a[3];
        for (int i = 0; i < c.length; i++) {
          c[i] = r.nextInt(9) - 4;
        }
      }
      case "waitForFlag" -> {
        // Random inputs make this kernel timing-dependent: with a limit of a few nanoseconds the
        // Java backend's clock has passed it before the first check while the GPU's global timer
        // (coarser) has not, so the two legitimately disagree. A raised flag and a 10 ms limit
        // give one answer (1, flag seen) on both.
        ((int[]) a[1])[0] = 1;
        a[3] = 10_000_000L;
      }
      case "halfPairFma" -> {
        // A quarter stays random bits (NaN, infinities, subnormals, huge exponent gaps); the rest
        // are halves with f16 exponents near 1 so that products and addends overlap and rounding
        // ties occur: with c near them, with c = ±0 (ties of the exact product), and with a tiny c
        // (a tie of the product broken by c's sign).
        java.util.Random r = new java.util.Random(11);
        int[] x = (int[]) a[1];
        int[] y = (int[]) a[2];
        int[] z = (int[]) a[3];
        for (int j = 0; j < x.length; j++) {
          int mode = j & 3;
          if (mode == 0) {
            continue;
          }
          x[j] = halfPair(r, 13, 18);
          y[j] = halfPair(r, 13, 18);
          z[j] =
              mode == 1 ? halfPair(r, 11, 20) : mode == 2 ? r.nextInt(2) << 15 : halfPair(r, 0, 3);
        }
      }
      default -> {}
    }
  }

  /** Two halves with random signs and mantissas and f16 exponent fields in [lo, hi). */
  private static int halfPair(java.util.Random r, int lo, int hi) {
    int h0 = (r.nextInt(2) << 15) | ((lo + r.nextInt(hi - lo)) << 10) | r.nextInt(1024);
    int h1 = (r.nextInt(2) << 15) | ((lo + r.nextInt(hi - lo)) << 10) | r.nextInt(1024);
    return h0 | (h1 << 16);
  }

  /** Comparison rule per argument (see gpu_check.py). */
  private static String rule(Method m, String arg) {
    String k = m.getName();
    if (k.equals("floatMath") && arg.equals("out")) {
      return "{\"ulps\": 1, \"stride\": 20, \"offset\": 11}";
    }
    if (k.equals("floatSqrtDivExp") && arg.equals("out")) {
      return "{\"ulps\": 2}";
    }
    if (k.equals("approx") && arg.equals("out")) {
      return "{\"info\": true}";
    }
    if (k.equals("atomics")) {
      return switch (arg) {
        case "counters" -> "{\"skip\": [5]}";
        case "fsum" -> "{\"ulps\": 0}";
        case "old" -> "{\"sorted\": 64}";
        default -> "{}";
      };
    }
    return "{}";
  }

  private static void export(TestKernels.Case c, Path dir) throws Exception {
    Method m = c.method();
    CompiledKernel k = KernelCompiler.compile(m, c.specs(), Target.sm90());
    Files.writeString(dir.resolve("kernel.ptx"), k.ptx());
    Geometry l = launch(m, c.specs());
    Object[] args = Inputs.forKernel(m, c.specs(), 42);
    fixInputs(m, args);
    Parameter[] ps = m.getParameters();
    List<String> params = new ArrayList<>();
    for (int i = 1; i < ps.length; i++) {
      Object v = args[i];
      String pn = ps[i].getName();
      boolean spec = c.specs().containsKey(pn);
      if (v.getClass().isArray()) {
        write(dir.resolve(pn + ".in.bin"), v);
        params.add(
            "{\"name\": \""
                + pn
                + "\", \"array\": \""
                + dtype(v.getClass().getComponentType())
                + "\", \"rule\": "
                + rule(m, pn)
                + "}");
      } else if (!spec) {
        params.add(
            "{\"name\": \""
                + pn
                + "\", \"scalar\": \""
                + scalarType(v)
                + "\", \"value\": "
                + scalarValue(v)
                + "}");
      }
    }
    Object[] run = Inputs.copy(args);
    ThreadedContext.launch(
        l,
        ctx -> {
          Object[] a = run.clone();
          a[0] = ctx;
          try {
            m.invoke(null, a);
          } catch (InvocationTargetException e) {
            throw new IllegalStateException(e.getCause());
          } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
          }
        });
    for (int i = 1; i < ps.length; i++) {
      if (run[i].getClass().isArray()) {
        write(dir.resolve(ps[i].getName() + ".expected.bin"), run[i]);
      }
    }
    String meta =
        "{\n  \"label\": \""
            + c.label().replace("\"", "'")
            + "\",\n  \"entry\": \""
            + k.entryName()
            + "\",\n  \"block\": ["
            + l.blockX()
            + ", "
            + l.blockY()
            + ", "
            + l.blockZ()
            + "],\n  \"grid\": ["
            + l.gridX()
            + ", "
            + l.gridY()
            + ", "
            + l.gridZ()
            + "]"
            + ",\n  \"dynamicShared\": "
            + k.dynamicSharedBytes()
            + ",\n  \"params\": [\n    "
            + String.join(",\n    ", params)
            + "\n  ]\n}\n";
    Files.writeString(dir.resolve("meta.json"), meta);
  }

  private static String dtype(Class<?> c) {
    return switch (c.getName()) {
      case "int" -> "int32";
      case "long" -> "int64";
      case "float" -> "float32";
      case "double" -> "float64";
      case "byte" -> "int8";
      case "short" -> "int16";
      case "char" -> "uint16";
      case "boolean" -> "uint8";
      default -> throw new IllegalArgumentException(c.getName());
    };
  }

  private static String scalarType(Object v) {
    return switch (v) {
      case Long l -> "int64";
      case Float f -> "float32";
      case Double d -> "float64";
      default -> "int32";
    };
  }

  private static String scalarValue(Object v) {
    return switch (v) {
      case Boolean b -> b ? "1" : "0";
      case Character ch -> Integer.toString(ch);
      case Float f -> Float.toString(f);
      case Double d -> Double.toString(d);
      default -> v.toString();
    };
  }

  private static void write(Path p, Object arr) throws IOException {
    int n = Array.getLength(arr);
    Class<?> c = arr.getClass().getComponentType();
    int size =
        c == long.class || c == double.class
            ? 8
            : c == int.class || c == float.class ? 4 : c == short.class || c == char.class ? 2 : 1;
    ByteBuffer b = ByteBuffer.allocate(n * size).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      switch (arr) {
        case int[] x -> b.putInt(x[i]);
        case long[] x -> b.putLong(x[i]);
        case float[] x -> b.putInt(Float.floatToRawIntBits(x[i]));
        case double[] x -> b.putLong(Double.doubleToRawLongBits(x[i]));
        case short[] x -> b.putShort(x[i]);
        case char[] x -> b.putChar(x[i]);
        case byte[] x -> b.put(x[i]);
        case boolean[] x -> b.put((byte) (x[i] ? 1 : 0));
        default -> throw new IllegalArgumentException();
      }
    }
    Files.write(p, b.array());
  }
}
