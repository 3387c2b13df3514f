package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Affine dequantization ({@code rt.dequantize}) as a kernel: one thread per octet (8 consecutive
 * elements).
 *
 * <p>The packed matrix is one continuous little-endian bit stream (every row is a whole number of
 * words), and an octet's {@code 8 * bits} bits always lie in one 64-bit window of two consecutive
 * words, starting at bit {@code (8o * bits) mod 32} with {@code start + 8 * bits <= 64} for every
 * width 2–8. So each thread does one or two coalesced 4-byte loads, one scale and one bias load
 * (octets never straddle groups), 8 FMAs, and one 16-byte store (bf16/f16) or two (f32). The second
 * word is only read when the octet straddles it, so the last thread never reads past the array.
 *
 * <p>Cost: reads {@code bits} bytes and writes 16 (or 32) bytes per thread; about 30 ALU operations
 * and 20 registers per thread; fully coalesced loads and stores. The output is {@code q * scale +
 * bias} in float ({@code fma}), rounded once to the output dtype.
 */
public final class AffineDequantizeKernel {
  private AffineDequantizeKernel() {}

  public static final int BLOCK = 256;

  /**
   * Dequantizes to bf16/f16.
   *
   * @param octets {@code rows * cols / 8}: one thread each
   */
  @Kernel(validateWith = {"bits=4,groupSize=64,dtype=0", "bits=5,groupSize=32,dtype=1"})
  public static void dequantize(
      KernelContext ctx,
      int[] wq, // [rows, cols*bits/32] packed u32
      short[] scales, // [rows, cols/groupSize] bf16/f16 bits
      short[] biases, // [rows, cols/groupSize] bf16/f16 bits
      short[] out, // [rows, cols] bf16/f16 bits
      int octets,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype) {
    int o = ctx.globalIdx;
    if (o >= octets) {
      return;
    }
    long win = window(wq, o, bits);
    int grp = (o * 8) / groupSize;
    float s = QuantMath.halfToFloat(Vec.ldg(scales, grp), dtype);
    float b = QuantMath.halfToFloat(Vec.ldg(biases, grp), dtype);
    Vec.store4(
        out,
        o * 8,
        new Int4(
            pair(win, 0, s, b, bits, dtype),
            pair(win, 2, s, b, bits, dtype),
            pair(win, 4, s, b, bits, dtype),
            pair(win, 6, s, b, bits, dtype)));
  }

  /** Dequantizes to float32 (scales and biases float32). */
  @Kernel(validateWith = {"bits=4,groupSize=64", "bits=3,groupSize=128"})
  public static void dequantizeF32(
      KernelContext ctx,
      int[] wq, // [rows, cols*bits/32] packed u32
      float[] scales, // [rows, cols/groupSize]
      float[] biases, // [rows, cols/groupSize]
      float[] out, // [rows, cols]
      int octets,
      @Specialize int bits,
      @Specialize int groupSize) {
    int o = ctx.globalIdx;
    if (o >= octets) {
      return;
    }
    long win = window(wq, o, bits);
    int grp = (o * 8) / groupSize;
    float s = Vec.ldg(scales, grp);
    float b = Vec.ldg(biases, grp);
    Vec.store4(
        out,
        o * 8,
        new Float4(
            value(win, 0, s, b, bits),
            value(win, 1, s, b, bits),
            value(win, 2, s, b, bits),
            value(win, 3, s, b, bits)));
    Vec.store4(
        out,
        o * 8 + 4,
        new Float4(
            value(win, 4, s, b, bits),
            value(win, 5, s, b, bits),
            value(win, 6, s, b, bits),
            value(win, 7, s, b, bits)));
  }

  /** The 64-bit window whose low {@code 8 * bits} bits are octet {@code o}'s codes. */
  static long window(int[] wq, int o, int bits) {
    long bit = (long) o * (8 * bits);
    int word = (int) (bit >>> 5);
    int sh = (int) bit & 31;
    long win = Vec.ldg(wq, word) & 0xFFFFFFFFL;
    if (sh + 8 * bits > 32) {
      win = win | ((long) Vec.ldg(wq, word + 1) << 32);
    }
    return win >>> sh;
  }

  private static float value(long win, int i, float s, float b, int bits) {
    int q = (int) (win >>> (i * bits)) & ((1 << bits) - 1);
    return Math.fma((float) q, s, b);
  }

  private static int pair(long win, int i, float s, float b, int bits, int dtype) {
    return (QuantMath.floatToHalf(value(win, i, s, b, bits), dtype) & 0xFFFF)
        | (QuantMath.floatToHalf(value(win, i + 1, s, b, bits), dtype) << 16);
  }

  /** Why this kernel cannot dequantize a {@code rows x cols} matrix, or null. */
  public static String supports(int bits, int groupSize, int dtype, int rows, int cols) {
    return AffineQuantizeKernel.supports(bits, groupSize, dtype, rows, cols);
  }

  /** One thread per octet. */
  public static LaunchPlan plan(int bits, int groupSize, int dtype, int rows, int cols) {
    int octets = rows * (cols / 8);
    Dim3 grid = Dim3.of((octets + BLOCK - 1) / BLOCK);
    if (dtype == Quant.F32) {
      return LaunchPlan.of(
          "AffineDequantizeKernel.dequantizeF32",
          grid,
          Dim3.of(BLOCK),
          0,
          "bits",
          bits,
          "groupSize",
          groupSize);
    }
    return LaunchPlan.of(
        "AffineDequantizeKernel.dequantize",
        grid,
        Dim3.of(BLOCK),
        0,
        "bits",
        bits,
        "groupSize",
        groupSize,
        "dtype",
        dtype);
  }

  /**
   * Float64 reference from the math: {@code w = q * scale + bias} with q read from the MLX bit
   * stream (an independent bit-by-bit reader, not this kernel's windows), evaluated in double.
   */
  public static double[] reference(
      int[] wq, float[] scales, float[] biases, int rows, int cols, int groupSize, int bits) {
    int groups = cols / groupSize;
    int wpr = cols * bits / 32;
    double[] out = new double[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        int q = 0;
        for (int i = 0; i < bits; i++) {
          long bit = (long) k * bits + i;
          int word = wq[r * wpr + (int) (bit / 32)];
          q |= ((word >>> (int) (bit % 32)) & 1) << i;
        }
        int g = r * groups + k / groupSize;
        out[r * cols + k] = (double) q * scales[g] + biases[g];
      }
    }
    return out;
  }
}
