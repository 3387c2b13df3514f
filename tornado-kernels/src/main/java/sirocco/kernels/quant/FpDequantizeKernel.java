package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * fp-mode dequantization (mxfp4, nvfp4, mxfp8; bf16 by default, or f16/f32): one thread per octet
 * of 8 elements: one u32 load (fp4) or two (fp8), one scale byte, 8 decodes and one 16-byte store
 * (two for f32). Octets never straddle a group (groups are 16 or 32).
 *
 * <p>Values are {@code scale * code} with {@code scale = E8M0(s)} or {@code E4M3(s) * g / (448*6)},
 * computed in float (exact for mx modes) and rounded once to the output dtype. E4M3 NaN codes
 * decode to NaN. About 25 ALU operations and 20 registers per thread; fully coalesced.
 */
public final class FpDequantizeKernel {
  private FpDequantizeKernel() {}

  public static final int BLOCK = 256;

  /**
   * Dequantizes to bf16/f16.
   *
   * @param octets rows * cols / 8: one thread each
   */
  @Kernel(validateWith = {"mode=1,dtype=0", "mode=2,dtype=1", "mode=3,dtype=0"})
  public static void dequantize(
      KernelContext ctx,
      int[] wq, // [rows, cols*bits/32] packed u32 codes
      byte[] scales, // [rows, cols/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      short[] out, // [rows, cols] bf16/f16 bits
      int octets,
      @Specialize int mode,
      @Specialize int dtype) {
    int o = ctx.globalIdx;
    if (o >= octets) {
      return;
    }
    int bits = Quant.elementBits(mode, 0);
    float s = scaleOf(scales, globalScale, (o * 8) / Quant.modeGroupSize(mode, 0), mode);
    int w0 = Vec.ldg(wq, o * bits / 4);
    int w1 = bits == 8 ? Vec.ldg(wq, o * 2 + 1) : 0;
    Vec.store4(
        out,
        o * 8,
        new Int4(
            pair(value(w0, w1, 0, mode), value(w0, w1, 1, mode), s, dtype),
            pair(value(w0, w1, 2, mode), value(w0, w1, 3, mode), s, dtype),
            pair(value(w0, w1, 4, mode), value(w0, w1, 5, mode), s, dtype),
            pair(value(w0, w1, 6, mode), value(w0, w1, 7, mode), s, dtype)));
  }

  /** Dequantizes to float32. */
  @Kernel(validateWith = {"mode=1", "mode=2", "mode=3"})
  public static void dequantizeF32(
      KernelContext ctx,
      int[] wq, // [rows, cols*bits/32] packed u32 codes
      byte[] scales, // [rows, cols/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      float[] out, // [rows, cols]
      int octets,
      @Specialize int mode) {
    int o = ctx.globalIdx;
    if (o >= octets) {
      return;
    }
    int bits = Quant.elementBits(mode, 0);
    float s = scaleOf(scales, globalScale, (o * 8) / Quant.modeGroupSize(mode, 0), mode);
    int w0 = Vec.ldg(wq, o * bits / 4);
    int w1 = bits == 8 ? Vec.ldg(wq, o * 2 + 1) : 0;
    Vec.store4(
        out,
        o * 8,
        new Float4(
            s * value(w0, w1, 0, mode),
            s * value(w0, w1, 1, mode),
            s * value(w0, w1, 2, mode),
            s * value(w0, w1, 3, mode)));
    Vec.store4(
        out,
        o * 8 + 4,
        new Float4(
            s * value(w0, w1, 4, mode),
            s * value(w0, w1, 5, mode),
            s * value(w0, w1, 6, mode),
            s * value(w0, w1, 7, mode)));
  }

  /** The decoded scale of group {@code grp}, with nvfp4's global factor. */
  static float scaleOf(byte[] scales, float[] globalScale, int grp, int mode) {
    int code = Vec.ldg(scales, grp) & 0xFF;
    if (mode == Quant.NVFP4) {
      return QuantMath.e4m3Decode(code) * (Vec.ldg(globalScale, 0) / (448f * 6f));
    }
    return QuantMath.e8m0Decode(code);
  }

  /** Value of element {@code i} (0..7) of an octet held in {@code w0} (fp4) or {@code w0, w1}. */
  private static float value(int w0, int w1, int i, int mode) {
    if (mode == Quant.MXFP8) {
      int w = i < 4 ? w0 : w1;
      return QuantMath.e4m3Decode((w >>> (8 * (i & 3))) & 0xFF);
    }
    return QuantMath.e2m1Decode((w0 >>> (4 * i)) & 0xF);
  }

  private static int pair(float lo, float hi, float s, int dtype) {
    return (QuantMath.floatToHalf(s * lo, dtype) & 0xFFFF)
        | (QuantMath.floatToHalf(s * hi, dtype) << 16);
  }

  public static String supports(int mode, int dtype, int rows, int cols) {
    return FpQuantizeKernel.supports(mode, dtype, rows, cols);
  }

  /** One thread per octet. */
  public static LaunchPlan plan(int mode, int dtype, int rows, int cols) {
    int octets = rows * (cols / 8);
    Dim3 grid = Dim3.of((octets + BLOCK - 1) / BLOCK);
    if (dtype == Quant.F32) {
      return LaunchPlan.of(
          "FpDequantizeKernel.dequantizeF32", grid, Dim3.of(BLOCK), 0, "mode", mode);
    }
    return LaunchPlan.of(
        "FpDequantizeKernel.dequantize", grid, Dim3.of(BLOCK), 0, "mode", mode, "dtype", dtype);
  }

  /**
   * Float64 reference from the format definitions: element values from the E2M1 table / the OCP
   * E4M3 formula (via {@code Math.scalb}, independent of the kernel's bit tricks), scales 2^(s-127)
   * or E4M3 times {@code g / 2688}.
   */
  public static double[] reference(
      int[] wq, byte[] scales, int rows, int cols, int mode, float globalScale) {
    int bits = Quant.elementBits(mode, 0);
    int group = Quant.modeGroupSize(mode, 0);
    int wpr = cols * bits / 32;
    double[] out = new double[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        int c = QuantFormats.code(wq, r * wpr, k, bits);
        int s = scales[r * (cols / group) + k / group] & 0xFF;
        double scale =
            mode == Quant.NVFP4
                ? e4m3(s) * ((double) globalScale / 2688.0)
                : (s == 0
                    ? Math.scalb(1.0, -127)
                    : s == 255 ? Double.NaN : Math.scalb(1.0, s - 127));
        out[r * cols + k] = scale * (bits == 4 ? e2m1(c) : e4m3(c));
      }
    }
    return out;
  }

  static double e2m1(int c) {
    double[] mag = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    double v = mag[c & 7];
    return (c & 8) != 0 ? -v : v;
  }

  static double e4m3(int c) {
    int e = (c >> 3) & 15;
    int m = c & 7;
    if (e == 15 && m == 7) {
      return Double.NaN;
    }
    double v = e == 0 ? Math.scalb(m / 8.0, -6) : Math.scalb(1 + m / 8.0, e - 7);
    return (c & 0x80) != 0 ? -v : v;
  }
}
