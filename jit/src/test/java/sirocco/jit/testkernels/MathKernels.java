package sirocco.jit.testkernels;

import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.api.Intrinsics;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * JDK math and bit methods with a PTX mapping, and the approximate intrinsics. One thread per
 * element {@code i < n}; inputs arbitrary (NaN, ±0, infinities, subnormals welcome).
 */
public final class MathKernels {
  private MathKernels() {}

  /**
   * out[i*20..]: exact float functions. Compare bit for bit, except [i*20+11] ((float) Math.exp,
   * within 1 ulp of the CPU).
   */
  @Kernel
  public static void floatMath(KernelContext ctx, float[] a, float[] b, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    float x = a[i];
    float y = b[i];
    int o = i * 20;
    out[o] = Math.max(x, y);
    out[o + 1] = Math.min(x, y);
    out[o + 2] = Math.abs(x);
    out[o + 3] = (float) Math.sqrt(x);
    out[o + 4] = Math.fma(x, y, 1.0f);
    out[o + 5] = (float) Math.floor(x);
    out[o + 6] = (float) Math.ceil(x);
    out[o + 7] = (float) Math.rint(x);
    out[o + 8] = Float.intBitsToFloat(Float.floatToRawIntBits(x) ^ 0x80000000);
    out[o + 9] = Float.floatToIntBits(x) == Float.floatToIntBits(y) ? 1f : 0f;
    out[o + 10] = Float.float16ToFloat(Float.floatToFloat16(x));
    out[o + 11] = (float) Math.exp(x);
    out[o + 12] = F16.toFloat(F16.fromFloat(y));
    out[o + 13] = Bf16.toFloat(Bf16.fromFloat(x));
    out[o + 14] = Bf16.hi(Bf16.pack(x, y)) + Bf16.lo(Bf16.pack(x, y));
    out[o + 15] = F16.lo(F16.pack(y, x));
    out[o + 16] = Float.min(x, y) + Float.max(x, y);
    out[o + 17] = Float.isFinite(x) ? 1f : 0f;
    out[o + 18] = Intrinsics.fma(x, y, -1.0f);
    out[o + 19] = Float.compare(x, y) + (Float.isInfinite(y) ? 10f : 0f);
  }

  /** outD[i*6..]: double functions (Java results bit for bit). */
  @Kernel
  public static void doubleMath(KernelContext ctx, double[] a, double[] b, double[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    double x = a[i];
    double y = b[i];
    int o = i * 6;
    out[o] = Math.max(x, y);
    out[o + 1] = Math.min(x, y);
    out[o + 2] = Math.abs(x);
    out[o + 3] = Math.sqrt(x);
    out[o + 4] = Math.floor(x) + Math.ceil(y);
    out[o + 5] = Double.longBitsToDouble(Double.doubleToRawLongBits(x) + 1);
  }

  /**
   * outBf[j], outF16[j] for j = r * n + i, r < cols: {@link Bf16#fma2} and {@link F16#fma2} of the
   * same three words (each read as two bf16 and as two f16 halves). Compare bit for bit: both are
   * defined to round once, with a canonical NaN.
   */
  @Kernel
  public static void halfPairFma(
      KernelContext ctx, int[] a, int[] b, int[] c, int[] outBf, int[] outF16, int n, int cols) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    for (int r = 0; r < cols; r++) {
      int j = r * n + i;
      outBf[j] = Bf16.fma2(a[j], b[j], c[j]);
      outF16[j] = F16.fma2(a[j], b[j], c[j]);
    }
  }

  /**
   * out[2i], out[2i+1]: {@link Intrinsics#bytePermute} of a[i], b[i] with the selector c[i]
   * (random: both modes, ignored high bits) and with a constant one (an immediate operand).
   */
  @Kernel
  public static void bytePermute(KernelContext ctx, int[] a, int[] b, int[] c, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    out[2 * i] = Intrinsics.bytePermute(a[i], b[i], c[i]);
    out[2 * i + 1] = Intrinsics.bytePermute(a[i], b[i], 0x9140);
  }

  /** out[i*16..]: int and long bit functions. */
  @Kernel
  public static void bits(
      KernelContext ctx, int[] a, int[] b, long[] l, int[] out, long[] outL, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    int y = b[i];
    long z = l[i];
    int o = i * 16;
    out[o] = Integer.bitCount(x);
    out[o + 1] = Integer.numberOfLeadingZeros(x);
    out[o + 2] = Integer.numberOfTrailingZeros(x);
    out[o + 3] = Integer.reverse(x);
    out[o + 4] = Integer.rotateLeft(x, y);
    out[o + 5] = Integer.rotateRight(x, y);
    out[o + 6] = Long.bitCount(z);
    out[o + 7] = Long.numberOfLeadingZeros(z);
    out[o + 8] = Long.numberOfTrailingZeros(z);
    out[o + 9] = y != 0 ? Integer.divideUnsigned(x, y) : 0;
    out[o + 10] = y != 0 ? Integer.remainderUnsigned(x, y) : 0;
    out[o + 11] = Math.max(x, y) - Math.min(x, y);
    out[o + 12] = Math.abs(x);
    out[o + 13] = y != 0 ? Math.floorMod(x, y) : 0;
    out[o + 14] = Integer.signum(x) + Integer.compare(x, y);
    out[o + 15] = (int) (Math.max(z, (long) y) >> 32);
    outL[i * 3] = Integer.toUnsignedLong(x);
    outL[i * 3 + 1] = Math.abs(z);
    outL[i * 3 + 2] = Math.min(z, -z);
  }

  /**
   * out[i*4..]: approximate intrinsics; compare within their documented bounds (exp2, log2: 2^-22
   * relative; rsqrt: 2^-22.9; fastDivide: 2 ulp).
   */
  @Kernel
  public static void approx(KernelContext ctx, float[] a, float[] b, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    float x = a[i];
    float y = b[i];
    out[i * 4] = Intrinsics.exp2(x);
    out[i * 4 + 1] = Intrinsics.log2(Math.abs(x));
    out[i * 4 + 2] = Intrinsics.rsqrt(Math.abs(y));
    out[i * 4 + 3] = Intrinsics.fastDivide(x, y);
  }
}
