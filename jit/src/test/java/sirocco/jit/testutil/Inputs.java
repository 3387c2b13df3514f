package sirocco.jit.testutil;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Map;
import java.util.Random;

/**
 * Deterministic inputs for the test kernels: every array gets {@link #LENGTH} elements mixing edge
 * values (0, ±1, MIN/MAX, NaN, infinities, ±0, subnormals, values near overflow thresholds) with
 * random ones; int parameters named {@code n}, {@code chunks} or {@code rows} get {@link #THREADS},
 * {@code cols} gets 128; other scalars get edge-ish values; {@code @Specialize} parameters take the
 * given values. The same seed gives the same inputs, so a CPU run and a GPU run can be compared
 * element by element.
 */
public final class Inputs {
  private Inputs() {}

  /** Threads launched per test kernel (and the value of n / chunks). */
  public static final int THREADS = 64;

  /** Block size of test launches. */
  public static final int BLOCK = 32;

  /** Elements per array argument. */
  public static final int LENGTH = 8192;

  static final int[] INTS = {
    0,
    1,
    -1,
    2,
    3,
    7,
    -7,
    31,
    32,
    33,
    63,
    64,
    65,
    1000,
    -1000,
    1 << 20,
    Integer.MIN_VALUE,
    Integer.MAX_VALUE,
    Integer.MIN_VALUE + 1,
    0x7F,
    0x80,
    0xFF,
    0xFFFF,
    0x8000
  };
  static final long[] LONGS = {
    0,
    1,
    -1,
    2,
    63,
    64,
    65,
    1L << 32,
    -(1L << 32),
    Long.MIN_VALUE,
    Long.MAX_VALUE,
    Integer.MIN_VALUE,
    Integer.MAX_VALUE,
    0xFFFFFFFFL
  };
  static final float[] FLOATS = {
    0f,
    -0f,
    1f,
    -1f,
    0.5f,
    -0.5f,
    1.5f,
    2.5f,
    -2.5f,
    Float.NaN,
    Float.POSITIVE_INFINITY,
    Float.NEGATIVE_INFINITY,
    Float.MIN_VALUE,
    -Float.MIN_VALUE,
    Float.MIN_NORMAL,
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    1e-40f,
    65504f,
    65520f,
    65519.99f,
    6.0e-8f,
    3e9f,
    -3e9f,
    1e19f,
    -1e19f,
    88.72f,
    88.73f,
    -103.9f,
    -104f,
    100f,
    2147483647f,
    Float.intBitsToFloat(0x7FA00001),
    Float.intBitsToFloat(0xFFC00010)
  };
  static final double[] DOUBLES = {
    0d,
    -0d,
    1d,
    -1d,
    0.5,
    -2.5,
    Double.NaN,
    Double.POSITIVE_INFINITY,
    Double.NEGATIVE_INFINITY,
    Double.MIN_VALUE,
    Double.MAX_VALUE,
    -Double.MAX_VALUE,
    1e-310,
    3e9,
    -3e9,
    1e19,
    -1e19,
    9.3e18,
    -9.3e18,
    2147483647.5,
    -2147483648.5,
    1e300
  };

  /** Values of size parameters, by name. */
  static final Map<String, Integer> SIZES =
      Map.of("n", THREADS, "chunks", THREADS, "rows", THREADS, "cols", 128);

  /** Arguments for {@code m} (index 0, the context, is null). */
  public static Object[] forKernel(Method m, Map<String, Object> specs, long seed) {
    Random r = new Random(seed ^ m.getName().hashCode());
    Parameter[] ps = m.getParameters();
    Object[] args = new Object[ps.length];
    for (int i = 1; i < ps.length; i++) {
      Parameter p = ps[i];
      Class<?> t = p.getType();
      if (specs.containsKey(p.getName())) {
        args[i] = specs.get(p.getName());
      } else if (t.isArray()) {
        args[i] = array(t.getComponentType(), r);
      } else if (t == int.class && SIZES.containsKey(p.getName())) {
        args[i] = SIZES.get(p.getName());
      } else {
        args[i] = scalar(t, r);
      }
    }
    return args;
  }

  private static Object scalar(Class<?> t, Random r) {
    if (t == int.class) {
      return INTS[r.nextInt(INTS.length)];
    } else if (t == long.class) {
      return LONGS[r.nextInt(LONGS.length)] ^ r.nextInt(4);
    } else if (t == float.class) {
      return 0.75f;
    } else if (t == double.class) {
      return -12345.5;
    } else if (t == boolean.class) {
      return true;
    } else if (t == byte.class) {
      return (byte) -100;
    } else if (t == short.class) {
      return (short) -30000;
    } else if (t == char.class) {
      return (char) 50000;
    }
    throw new IllegalArgumentException(t.toString());
  }

  private static Object array(Class<?> c, Random r) {
    Object a = Array.newInstance(c, LENGTH);
    for (int i = 0; i < LENGTH; i++) {
      boolean edge = r.nextInt(4) == 0;
      if (c == int.class) {
        Array.setInt(a, i, edge ? INTS[r.nextInt(INTS.length)] : randomInt(r));
      } else if (c == long.class) {
        Array.setLong(a, i, edge ? LONGS[r.nextInt(LONGS.length)] : r.nextLong() >> r.nextInt(64));
      } else if (c == float.class) {
        Array.setFloat(a, i, edge ? FLOATS[r.nextInt(FLOATS.length)] : randomFloat(r));
      } else if (c == double.class) {
        Array.setDouble(
            a,
            i,
            edge ? DOUBLES[r.nextInt(DOUBLES.length)] : randomFloat(r) * (1 + r.nextDouble()));
      } else if (c == byte.class) {
        Array.setByte(a, i, (byte) r.nextInt());
      } else if (c == short.class) {
        Array.setShort(a, i, (short) r.nextInt());
      } else if (c == char.class) {
        Array.setChar(a, i, (char) r.nextInt());
      } else if (c == boolean.class) {
        Array.setBoolean(a, i, r.nextBoolean());
      }
    }
    return a;
  }

  private static int randomInt(Random r) {
    return switch (r.nextInt(3)) {
      case 0 -> r.nextInt(200) - 100;
      case 1 -> r.nextInt(1 << 16);
      default -> r.nextInt();
    };
  }

  private static float randomFloat(Random r) {
    float m = r.nextFloat() * 2 - 1;
    return m * (float) Math.pow(2, r.nextInt(60) - 30);
  }

  /** A deep copy of an argument array (arrays cloned, scalars shared). */
  public static Object[] copy(Object[] args) {
    Object[] c = args.clone();
    for (int i = 0; i < c.length; i++) {
      if (c[i] != null && c[i].getClass().isArray()) {
        int n = Array.getLength(c[i]);
        Object d = Array.newInstance(c[i].getClass().getComponentType(), n);
        System.arraycopy(c[i], 0, d, 0, n);
        c[i] = d;
      }
    }
    return c;
  }
}
