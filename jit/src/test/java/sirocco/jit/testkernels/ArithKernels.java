package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Arithmetic of every JVM type with Java semantics. Each kernel is one thread per input element
 * {@code i < n} and writes {@code W} results per element to {@code out[i * W + k]} (W is given per
 * kernel). Inputs are arbitrary (include 0, -1, MIN/MAX values, NaN, infinities, subnormals); the
 * kernels guard integer division by zero themselves, so any input is valid.
 */
public final class ArithKernels {
  private ArithKernels() {}

  /** W = 16: int operators, shifts by the (unmasked) value of b, and fixed large counts. */
  @Kernel
  public static void intOps(KernelContext ctx, int[] a, int[] b, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    int y = b[i];
    int o = i * 16;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = y != 0 ? x / y : 0;
    out[o + 4] = y != 0 ? x % y : 0;
    out[o + 5] = -x;
    out[o + 6] = x & y;
    out[o + 7] = x | y;
    out[o + 8] = x ^ ~y;
    out[o + 9] = x << y;
    out[o + 10] = x >> y;
    out[o + 11] = x >>> y;
    out[o + 12] = x << 33;
    out[o + 13] = x >> 35;
    out[o + 14] = x >>> 63;
    out[o + 15] = (x * 31 + y) / 7 - (x % 5);
  }

  /**
   * W = 12: division and remainder by constant powers of two, which the compiler turns into shifts
   * (Java rounds toward zero: negative dividends, MIN_VALUE and -1 among the inputs), beside a
   * negative power of two and 2^n - 1, which it leaves as divisions, and non-negative dividends.
   */
  @Kernel
  public static void powerOfTwoDivision(KernelContext ctx, int[] a, long[] b, long[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    long y = b[i] ^ ((long) x << 17);
    int o = i * 12;
    out[o] = x / 2;
    out[o + 1] = x % 2;
    out[o + 2] = x / 64;
    out[o + 3] = x % 64;
    out[o + 4] = x / (1 << 30);
    out[o + 5] = x % (1 << 30);
    // Dividends known not to be negative (a thread index): one shift, one mask.
    out[o + 6] = x / -64 + x % 63 + (ctx.localIdx + 5) / 4 + ctx.localIdx % 8;
    out[o + 7] = y / 2;
    out[o + 8] = y % 2;
    out[o + 9] = y / (1L << 40);
    out[o + 10] = y % (1L << 40);
    out[o + 11] = y / (1L << 62) + y % (1L << 62);
  }

  /** W = 14: long operators; shift counts are ints taken from b (Java masks them with 63). */
  @Kernel
  public static void longOps(KernelContext ctx, long[] a, long[] b, long[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    long x = a[i];
    long y = b[i];
    int s = (int) y;
    int o = i * 14;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = y != 0 ? x / y : 0;
    out[o + 4] = y != 0 ? x % y : 0;
    out[o + 5] = -x;
    out[o + 6] = x & y;
    out[o + 7] = x | y;
    out[o + 8] = x ^ y;
    out[o + 9] = x << s;
    out[o + 10] = x >> s;
    out[o + 11] = x >>> s;
    out[o + 12] = x << 65;
    out[o + 13] = x >>> 70;
  }

  /**
   * W = 10: float operators. {@code a * b + c} must be two roundings (no FMA contraction), and
   * {@code Math.fma} one.
   */
  @Kernel
  public static void floatOps(
      KernelContext ctx, float[] a, float[] b, float[] c, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    float x = a[i];
    float y = b[i];
    float z = c[i];
    int o = i * 10;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = x / y;
    out[o + 4] = -x;
    out[o + 5] = x * y + z;
    out[o + 6] = Math.fma(x, y, z);
    out[o + 7] = x * y - z * x;
    out[o + 8] = (x + y) * (x - y);
    out[o + 9] = 1.0f / x + 0.5f;
  }

  /** W = 8: double operators. */
  @Kernel
  public static void doubleOps(
      KernelContext ctx, double[] a, double[] b, double[] c, double[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    double x = a[i];
    double y = b[i];
    double z = c[i];
    int o = i * 8;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = x / y;
    out[o + 4] = -x;
    out[o + 5] = x * y + z;
    out[o + 6] = Math.fma(x, y, z);
    out[o + 7] = Math.sqrt(Math.abs(x));
  }

  /**
   * W = 24: every comparison of floats, doubles, longs and ints as 0/1, including NaN operands
   * (javac's fcmpl/fcmpg choice decides the NaN result).
   */
  @Kernel
  public static void compares(
      KernelContext ctx,
      float[] fa,
      float[] fb,
      double[] da,
      double[] db,
      long[] la,
      long[] lb,
      int[] out,
      int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    float x = fa[i];
    float y = fb[i];
    double u = da[i];
    double v = db[i];
    long p = la[i];
    long q = lb[i];
    int o = i * 24;
    out[o] = x < y ? 1 : 0;
    out[o + 1] = x <= y ? 1 : 0;
    out[o + 2] = x > y ? 1 : 0;
    out[o + 3] = x >= y ? 1 : 0;
    out[o + 4] = x == y ? 1 : 0;
    out[o + 5] = x != y ? 1 : 0;
    out[o + 6] = !(x < y) ? 1 : 0;
    out[o + 7] = !(x >= y) ? 1 : 0;
    out[o + 8] = u < v ? 1 : 0;
    out[o + 9] = u <= v ? 1 : 0;
    out[o + 10] = u > v ? 1 : 0;
    out[o + 11] = u >= v ? 1 : 0;
    out[o + 12] = u == v ? 1 : 0;
    out[o + 13] = u != v ? 1 : 0;
    out[o + 14] = p < q ? 1 : 0;
    out[o + 15] = p <= q ? 1 : 0;
    out[o + 16] = p > q ? 1 : 0;
    out[o + 17] = p >= q ? 1 : 0;
    out[o + 18] = p == q ? 1 : 0;
    out[o + 19] = p != q ? 1 : 0;
    out[o + 20] = Float.compare(x, y);
    out[o + 21] = Double.compare(u, v);
    out[o + 22] = Long.compare(p, q);
    out[o + 23] = Float.isNaN(x) ? 1 : Float.isInfinite(y) ? 2 : 0;
  }

  /** W = 12: byte, short, char and boolean arithmetic (all int on the JVM stack). */
  @Kernel
  public static void smallTypes(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    byte b = (byte) x;
    short s = (short) x;
    char c = (char) x;
    boolean z = (x & 1) != 0;
    int o = i * 12;
    out[o] = b;
    out[o + 1] = s;
    out[o + 2] = c;
    out[o + 3] = (byte) (b * 3 + 1);
    out[o + 4] = (short) (s << 4);
    out[o + 5] = (char) (c + 40000);
    b += 100;
    out[o + 6] = b;
    c--;
    out[o + 7] = c;
    out[o + 8] = z ? 1 : 0;
    out[o + 9] = (z && x > 0) || x < -100 ? 1 : 0;
    out[o + 10] = z ^ (x > 10) ? 1 : 0;
    out[o + 11] = b + s + c;
  }
}
