package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * fp-mode quantization (mxfp4, nvfp4, mxfp8) as a kernel: one thread per group (32 elements, 16 for
 * nvfp4), the same mapping as MLX's CUDA {@code fp_quantize_rowwise}.
 *
 * <p>Each thread reads its group with 16-byte loads (2 or 4 for bf16/f16), takes the absolute
 * maximum, encodes the scale ({@link QuantMath#fpScaleCode}: E8M0 rounded up, or E4M3 for nvfp4
 * with the optional global scale {@code 448*6/g}), re-reads the group (L1 hits) and writes the
 * codes: 8 fp4 codes or 4 fp8 codes per u32 word, least significant first, and one U8 scale.
 *
 * <p>The global scale is a one-element device array (as MLX passes it), so it may come from a
 * device-side reduction without a host round trip; {@link Quant#NO_GLOBAL_SCALE} makes nvfp4 behave
 * exactly as without one. mx modes ignore it.
 *
 * <p>Cost per element: about 10 ALU operations (comparisons of the E2M1 encoder, or the E4M3 bit
 * rounding); 30–40 registers; reads {@code 2} bytes and writes half a byte (fp4) or one byte (fp8)
 * plus one scale byte per group.
 */
public final class FpQuantizeKernel {
  private FpQuantizeKernel() {}

  public static final int BLOCK = 128;

  /**
   * Quantizes bf16/f16 values.
   *
   * @param groups rows * cols / groupSize: one thread each
   */
  @Kernel(validateWith = {"mode=1,dtype=0", "mode=2,dtype=1", "mode=3,dtype=0"})
  public static void quantize(
      KernelContext ctx,
      short[] w, // [rows, cols] bf16/f16 bits
      int[] wq, // [rows, cols*bits/32] packed u32 codes
      byte[] scales, // [rows, cols/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      int groups,
      @Specialize int mode,
      @Specialize int dtype) {
    int g = ctx.globalIdx;
    if (g >= groups) {
      return;
    }
    int groupSize = Quant.modeGroupSize(mode, 0);
    int bits = Quant.elementBits(mode, 0);
    int base = g * groupSize;
    float amax = 0f;
    for (int j = 0; j < groupSize; j += 8) {
      Int4 v = Vec.ldg4(w, base + j);
      amax = Math.max(amax, absMaxHalves(v, dtype));
    }
    float enc = mode == Quant.NVFP4 ? (448f * 6f) / Vec.ldg(globalScale, 0) : 1f;
    int s = QuantMath.fpScaleCode(amax, mode, enc);
    float factor = QuantMath.fpEncodeFactor(s, mode, enc);
    scales[g] = (byte) s;
    int out = g * (groupSize * bits / 32);
    for (int j = 0; j < groupSize; j += 8) {
      Int4 v = Vec.ldg4(w, base + j);
      int c0 = QuantMath.fpCode(QuantMath.halfLo(v.x(), dtype), factor, bits);
      int c1 = QuantMath.fpCode(QuantMath.halfHi(v.x(), dtype), factor, bits);
      int c2 = QuantMath.fpCode(QuantMath.halfLo(v.y(), dtype), factor, bits);
      int c3 = QuantMath.fpCode(QuantMath.halfHi(v.y(), dtype), factor, bits);
      int c4 = QuantMath.fpCode(QuantMath.halfLo(v.z(), dtype), factor, bits);
      int c5 = QuantMath.fpCode(QuantMath.halfHi(v.z(), dtype), factor, bits);
      int c6 = QuantMath.fpCode(QuantMath.halfLo(v.w(), dtype), factor, bits);
      int c7 = QuantMath.fpCode(QuantMath.halfHi(v.w(), dtype), factor, bits);
      out = store8(wq, out, c0, c1, c2, c3, c4, c5, c6, c7, bits);
    }
  }

  /** Quantizes float32 values. */
  @Kernel(validateWith = {"mode=1", "mode=2", "mode=3"})
  public static void quantizeF32(
      KernelContext ctx,
      float[] w, // [rows, cols]
      int[] wq, // [rows, cols*bits/32] packed u32 codes
      byte[] scales, // [rows, cols/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      int groups,
      @Specialize int mode) {
    int g = ctx.globalIdx;
    if (g >= groups) {
      return;
    }
    int groupSize = Quant.modeGroupSize(mode, 0);
    int bits = Quant.elementBits(mode, 0);
    int base = g * groupSize;
    float amax = 0f;
    for (int j = 0; j < groupSize; j += 4) {
      Float4 v = Vec.ldg4(w, base + j);
      amax =
          Math.max(
              amax,
              Math.max(
                  Math.max(Math.abs(v.x()), Math.abs(v.y())),
                  Math.max(Math.abs(v.z()), Math.abs(v.w()))));
    }
    float enc = mode == Quant.NVFP4 ? (448f * 6f) / Vec.ldg(globalScale, 0) : 1f;
    int s = QuantMath.fpScaleCode(amax, mode, enc);
    float factor = QuantMath.fpEncodeFactor(s, mode, enc);
    scales[g] = (byte) s;
    int out = g * (groupSize * bits / 32);
    for (int j = 0; j < groupSize; j += 8) {
      Float4 a = Vec.ldg4(w, base + j);
      Float4 b = Vec.ldg4(w, base + j + 4);
      out =
          store8(
              wq,
              out,
              QuantMath.fpCode(a.x(), factor, bits),
              QuantMath.fpCode(a.y(), factor, bits),
              QuantMath.fpCode(a.z(), factor, bits),
              QuantMath.fpCode(a.w(), factor, bits),
              QuantMath.fpCode(b.x(), factor, bits),
              QuantMath.fpCode(b.y(), factor, bits),
              QuantMath.fpCode(b.z(), factor, bits),
              QuantMath.fpCode(b.w(), factor, bits),
              bits);
    }
  }

  /** Stores 8 codes (one word of fp4, two of fp8) at word {@code out}; returns the next word. */
  private static int store8(
      int[] wq, int out, int c0, int c1, int c2, int c3, int c4, int c5, int c6, int c7, int bits) {
    if (bits == 4) {
      wq[out] =
          (c0 & 15)
              | (c1 & 15) << 4
              | (c2 & 15) << 8
              | (c3 & 15) << 12
              | (c4 & 15) << 16
              | (c5 & 15) << 20
              | (c6 & 15) << 24
              | (c7 & 15) << 28;
      return out + 1;
    }
    wq[out] = (c0 & 255) | (c1 & 255) << 8 | (c2 & 255) << 16 | (c3 & 255) << 24;
    wq[out + 1] = (c4 & 255) | (c5 & 255) << 8 | (c6 & 255) << 16 | (c7 & 255) << 24;
    return out + 2;
  }

  private static float absMaxHalves(Int4 v, int dtype) {
    float a =
        Math.max(
            Math.abs(QuantMath.halfLo(v.x(), dtype)), Math.abs(QuantMath.halfHi(v.x(), dtype)));
    float b =
        Math.max(
            Math.abs(QuantMath.halfLo(v.y(), dtype)), Math.abs(QuantMath.halfHi(v.y(), dtype)));
    float c =
        Math.max(
            Math.abs(QuantMath.halfLo(v.z(), dtype)), Math.abs(QuantMath.halfHi(v.z(), dtype)));
    float d =
        Math.max(
            Math.abs(QuantMath.halfLo(v.w(), dtype)), Math.abs(QuantMath.halfHi(v.w(), dtype)));
    return Math.max(Math.max(a, b), Math.max(c, d));
  }

  /** Why this kernel cannot quantize a {@code rows x cols} matrix in {@code mode}, or null. */
  public static String supports(int mode, int dtype, int rows, int cols) {
    if (mode != Quant.MXFP4 && mode != Quant.NVFP4 && mode != Quant.MXFP8) {
      return "mode must be mxfp4, nvfp4 or mxfp8 for this kernel, got " + Quant.modeName(mode);
    }
    if (dtype != Quant.BF16 && dtype != Quant.F16 && dtype != Quant.F32) {
      return "dtype must be bf16, f16 or f32, got " + dtype;
    }
    if (rows <= 0 || cols <= 0) {
      return "rows and cols must be positive, got " + rows + "x" + cols;
    }
    int g = Quant.modeGroupSize(mode, 0);
    if (cols % g != 0) {
      return "the last dimension ("
          + cols
          + ") must be a multiple of the "
          + Quant.modeName(mode)
          + " group size "
          + g;
    }
    if ((long) rows * cols >= Integer.MAX_VALUE) {
      return "rows*cols must be below 2^31 (32-bit indexing)";
    }
    return null;
  }

  /** One thread per group. */
  public static LaunchPlan plan(int mode, int dtype, int rows, int cols) {
    int groups = rows * (cols / Quant.modeGroupSize(mode, 0));
    Dim3 grid = Dim3.of((groups + BLOCK - 1) / BLOCK);
    if (dtype == Quant.F32) {
      return LaunchPlan.of("FpQuantizeKernel.quantizeF32", grid, Dim3.of(BLOCK), 0, "mode", mode);
    }
    return LaunchPlan.of(
        "FpQuantizeKernel.quantize", grid, Dim3.of(BLOCK), 0, "mode", mode, "dtype", dtype);
  }

  /**
   * Reference: MLX's CUDA algorithm, which is defined in float32 (see {@link
   * QuantFormats#quantizeFp}); as with affine quantization, a float64 evaluation would not be the
   * format.
   */
  public static QuantFormats.Fp reference(
      float[] w, int rows, int cols, int mode, float globalScale) {
    return QuantFormats.quantizeFp(w, rows, cols, mode, globalScale);
  }
}
