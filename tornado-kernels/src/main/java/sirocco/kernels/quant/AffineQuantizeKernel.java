package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Affine quantization ({@code rt.quantize} with mode affine) as a kernel: one thread per group.
 *
 * <p>Each thread reads its group with 16-byte read-only loads ({@code groupSize * 2} bytes for
 * bf16/f16: 4 to 16 loads, all independent), finds the minimum and the zero-started maximum,
 * computes MLX's scale and bias in float32 ({@link QuantMath#affineScale}), then reads the group
 * again (L1 hits) and packs the codes into u32 words through a 64-bit bit buffer: eight codes at a
 * time ({@code 8 * bits <= 64}), flushing whole words. Any bit width packs this way, including the
 * 3-, 5- and 6-bit widths whose codes straddle words.
 *
 * <p>Cost: reads {@code 2 * cols} bytes and writes {@code cols * bits / 8 + 4 * cols / groupSize}
 * bytes per row; roughly 6 ALU operations per element (one division per element dominates), about
 * 40 registers. Threads read disjoint 128-byte runs, so a warp's loads are not coalesced into few
 * lines, but every sector is used once fetched; quantization runs once per weight, so this simple
 * mapping was preferred to a warp-per-group reduction.
 */
public final class AffineQuantizeKernel {
  private AffineQuantizeKernel() {}

  /** Threads per block of {@link #plan}. */
  public static final int BLOCK = 128;

  /**
   * Quantizes bf16/f16 weights.
   *
   * @param groups {@code rows * cols / groupSize}: one thread each
   */
  @Kernel(validateWith = {"bits=4,groupSize=64,dtype=0", "bits=3,groupSize=32,dtype=1"})
  public static void quantize(
      KernelContext ctx,
      short[] w, // [rows, cols] bf16/f16 bits
      int[] wq, // [rows, cols*bits/32] packed u32, MLX layout
      short[] scales, // [rows, cols/groupSize] bf16/f16 bits
      short[] biases, // [rows, cols/groupSize] bf16/f16 bits
      int groups,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype) {
    int g = ctx.globalIdx;
    if (g >= groups) {
      return;
    }
    int base = g * groupSize;
    float wmin = Float.MAX_VALUE;
    float wmax = 0f;
    for (int j = 0; j < groupSize; j += 8) {
      Int4 v = Vec.ldg4(w, base + j);
      wmin = Math.min(wmin, minHalves(v, dtype));
      wmax = Math.max(wmax, maxHalves(v, dtype));
    }
    float scale = QuantMath.affineScale(wmin, wmax, bits);
    float bias = QuantMath.affineBias(wmin, wmax, bits);
    scales[g] = QuantMath.floatToHalf(scale, dtype);
    biases[g] = QuantMath.floatToHalf(bias, dtype);

    int out = g * (groupSize * bits / 32);
    long buf = 0L;
    int fill = 0;
    for (int j = 0; j < groupSize; j += 8) {
      Int4 v = Vec.ldg4(w, base + j);
      long oct =
          codes4(
              QuantMath.halfLo(v.x(), dtype),
              QuantMath.halfHi(v.x(), dtype),
              QuantMath.halfLo(v.y(), dtype),
              QuantMath.halfHi(v.y(), dtype),
              scale,
              bias,
              bits);
      oct |=
          codes4(
                  QuantMath.halfLo(v.z(), dtype),
                  QuantMath.halfHi(v.z(), dtype),
                  QuantMath.halfLo(v.w(), dtype),
                  QuantMath.halfHi(v.w(), dtype),
                  scale,
                  bias,
                  bits)
              << (4 * bits);
      // fill + 8*bits <= 64 for every width: see the class comment of QuantFormats.
      buf |= oct << fill;
      fill += 8 * bits;
      while (fill >= 32) {
        wq[out] = (int) buf;
        out++;
        buf = buf >>> 32;
        fill -= 32;
      }
    }
  }

  /** Quantizes float32 weights; scales and biases are float32. */
  @Kernel(validateWith = {"bits=4,groupSize=64", "bits=6,groupSize=128"})
  public static void quantizeF32(
      KernelContext ctx,
      float[] w, // [rows, cols]
      int[] wq, // [rows, cols*bits/32] packed u32, MLX layout
      float[] scales, // [rows, cols/groupSize]
      float[] biases, // [rows, cols/groupSize]
      int groups,
      @Specialize int bits,
      @Specialize int groupSize) {
    int g = ctx.globalIdx;
    if (g >= groups) {
      return;
    }
    int base = g * groupSize;
    float wmin = Float.MAX_VALUE;
    float wmax = 0f;
    for (int j = 0; j < groupSize; j += 4) {
      Float4 v = Vec.ldg4(w, base + j);
      wmin = Math.min(wmin, Math.min(Math.min(v.x(), v.y()), Math.min(v.z(), v.w())));
      wmax = Math.max(wmax, Math.max(Math.max(v.x(), v.y()), Math.max(v.z(), v.w())));
    }
    float scale = QuantMath.affineScale(wmin, wmax, bits);
    float bias = QuantMath.affineBias(wmin, wmax, bits);
    scales[g] = scale;
    biases[g] = bias;

    int out = g * (groupSize * bits / 32);
    long buf = 0L;
    int fill = 0;
    for (int j = 0; j < groupSize; j += 8) {
      Float4 a = Vec.ldg4(w, base + j);
      Float4 b = Vec.ldg4(w, base + j + 4);
      long oct =
          codes4(a.x(), a.y(), a.z(), a.w(), scale, bias, bits)
              | (codes4(b.x(), b.y(), b.z(), b.w(), scale, bias, bits) << (4 * bits));
      buf |= oct << fill;
      fill += 8 * bits;
      while (fill >= 32) {
        wq[out] = (int) buf;
        out++;
        buf = buf >>> 32;
        fill -= 32;
      }
    }
  }

  private static long codes4(
      float a, float b, float c, float d, float scale, float bias, int bits) {
    return (long) QuantMath.affineCode(a, scale, bias, bits)
        | ((long) QuantMath.affineCode(b, scale, bias, bits) << bits)
        | ((long) QuantMath.affineCode(c, scale, bias, bits) << (2 * bits))
        | ((long) QuantMath.affineCode(d, scale, bias, bits) << (3 * bits));
  }

  private static float minHalves(Int4 v, int dtype) {
    float a = Math.min(QuantMath.halfLo(v.x(), dtype), QuantMath.halfHi(v.x(), dtype));
    float b = Math.min(QuantMath.halfLo(v.y(), dtype), QuantMath.halfHi(v.y(), dtype));
    float c = Math.min(QuantMath.halfLo(v.z(), dtype), QuantMath.halfHi(v.z(), dtype));
    float d = Math.min(QuantMath.halfLo(v.w(), dtype), QuantMath.halfHi(v.w(), dtype));
    return Math.min(Math.min(a, b), Math.min(c, d));
  }

  private static float maxHalves(Int4 v, int dtype) {
    float a = Math.max(QuantMath.halfLo(v.x(), dtype), QuantMath.halfHi(v.x(), dtype));
    float b = Math.max(QuantMath.halfLo(v.y(), dtype), QuantMath.halfHi(v.y(), dtype));
    float c = Math.max(QuantMath.halfLo(v.z(), dtype), QuantMath.halfHi(v.z(), dtype));
    float d = Math.max(QuantMath.halfLo(v.w(), dtype), QuantMath.halfHi(v.w(), dtype));
    return Math.max(Math.max(a, b), Math.max(c, d));
  }

  /**
   * Why this kernel cannot quantize a {@code rows x cols} matrix, or null. The dispatch layer
   * checks argument shapes first; this names what the kernel itself needs.
   */
  public static String supports(int bits, int groupSize, int dtype, int rows, int cols) {
    String bad = Quant.checkFormat(Quant.AFFINE, bits, groupSize);
    if (bad != null) {
      return bad;
    }
    if (dtype != Quant.BF16 && dtype != Quant.F16 && dtype != Quant.F32) {
      return "dtype must be bf16, f16 or f32, got " + dtype;
    }
    if (rows <= 0 || cols <= 0) {
      return "rows and cols must be positive, got " + rows + "x" + cols;
    }
    if (cols % groupSize != 0) {
      return "the last dimension (" + cols + ") must be a multiple of groupSize " + groupSize;
    }
    if ((long) rows * cols >= Integer.MAX_VALUE) {
      return "rows*cols must be below 2^31 (32-bit indexing)";
    }
    return null;
  }

  /** One thread per group, {@link #BLOCK} threads per block. */
  public static LaunchPlan plan(int bits, int groupSize, int dtype, int rows, int cols) {
    int groups = rows * (cols / groupSize);
    String name =
        dtype == Quant.F32 ? "AffineQuantizeKernel.quantizeF32" : "AffineQuantizeKernel.quantize";
    Dim3 grid = Dim3.of((groups + BLOCK - 1) / BLOCK);
    if (dtype == Quant.F32) {
      return LaunchPlan.of(name, grid, Dim3.of(BLOCK), 0, "bits", bits, "groupSize", groupSize);
    }
    return LaunchPlan.of(
        name, grid, Dim3.of(BLOCK), 0, "bits", bits, "groupSize", groupSize, "dtype", dtype);
  }

  /**
   * Float64 reference written from MLX's algorithm. Quantization is defined by MLX in float32 (the
   * scale is {@code edge / q0} rounded to float, codes are rounded quotients of float values), so
   * the reference evaluates those steps in float32 too; a float64 evaluation would pick different
   * codes at rounding boundaries and would not be MLX's format. See {@link
   * QuantFormats#quantizeAffine}, which this delegates to.
   */
  public static QuantFormats.Affine reference(
      float[] w, int rows, int cols, int groupSize, int bits, int dtype) {
    return QuantFormats.quantizeAffine(w, rows, cols, groupSize, bits, dtype);
  }
}
