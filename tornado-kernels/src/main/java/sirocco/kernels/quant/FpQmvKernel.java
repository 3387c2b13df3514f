package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * fp-mode (mxfp4, nvfp4, mxfp8) matrix-vector product on CUDA cores, transposed weights, every
 * activation dtype: the vector path that, following seed finding 4, fp modes keep for 1–7 rows
 * unless a measurement on the H200 shows {@link QmmMmaKernel} winning.
 *
 * <h2>Mapping</h2>
 *
 * As {@link AffineQmvKernel}: {@link #WARPS} warps per block, {@code rowsPerWarp} output features
 * per warp, grid.y = row of x; lanes stride over k in units of one group (32 elements for mx modes,
 * 16 for nvfp4), so each unit has exactly one scale. Per unit: mxfp4 one 16-byte weight load, nvfp4
 * one 8-byte load, mxfp8 two 16-byte loads; x as 16-byte loads, converted once and shared by the
 * warp's rows.
 *
 * <h2>Decoding</h2>
 *
 * A code's bits are moved into a float so that its value is exact up to a power of two: E2M1
 * magnitude bits at 22..24 (subnormal codes land on float subnormals) then times 2<sup>126</sup>;
 * E4M3 magnitude bits at 20..26 then times 2<sup>120</sup>; the sign bit to bit 31. The multiply
 * must happen per element (a product with x at the 2<sup>-126</sup> scale would underflow), so an
 * element costs about 6 instructions (two shifts, two masks, FMUL, FFMA), versus 3 for affine; E4M3
 * also checks for its NaN code. The group scale (E8M0, or E4M3 times the nvfp4 global factor)
 * multiplies the unit's dot product.
 *
 * <h2>Cost (H200, bf16, rowsPerWarp 2): not measured</h2>
 *
 * Bytes: codes once (half a byte or a byte per weight) plus one scale byte per group. Loads in
 * flight per lane: rowsPerWarp weight loads and up to four x loads per iteration; ~60 registers.
 * About 6.5 instructions per fp4 element (versus ~3.5 for affine). Not measured: its affine twin
 * {@link AffineQmvKernel}, measured through the CUDA C mirror, is latency-bound at ~18.7 µs for
 * 4096x12288 (floor 8.7 µs); expect this one at least as slow, and issue-bound on top for mxfp4 and
 * nvfp4.
 */
public final class FpQmvKernel {
  private FpQmvKernel() {}

  public static final int WARPS = 8;

  /** bf16/f16 activations and output. */
  @Kernel(
      validateWith = {
        "mode=1,dtype=0,rowsPerWarp=2",
        "mode=2,dtype=1,rowsPerWarp=2",
        "mode=3,dtype=0,rowsPerWarp=1"
      })
  public static void qmv(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32 codes
      byte[] scales, // [n, k/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int n,
      int k,
      @Specialize int mode,
      @Specialize int dtype,
      @Specialize int rowsPerWarp) {
    int lane = ctx.laneId();
    int n0 = (ctx.groupIdx * WARPS + ctx.warpId()) * rowsPerWarp;
    int m = ctx.groupIdy;
    int unit = Quant.modeGroupSize(mode, 0);
    int units = k / unit;
    int wpr = k * Quant.elementBits(mode, 0) / 32;
    int wpu = unit * Quant.elementBits(mode, 0) / 32; // words per unit
    float gfac = mode == Quant.NVFP4 ? Vec.ldg(globalScale, 0) / (448f * 6f) : 1f;
    int r0 = Math.min(n0, n - 1);
    int r1 = Math.min(n0 + 1, n - 1);
    int r2 = Math.min(n0 + 2, n - 1);
    int r3 = Math.min(n0 + 3, n - 1);
    float a0 = 0f;
    float a1 = 0f;
    float a2 = 0f;
    float a3 = 0f;
    for (int u = lane; u < units; u += 32) {
      int xb = m * k + u * unit;
      Int4 p0 = Vec.ldg4(x, xb);
      Int4 p1 = Vec.ldg4(x, xb + 8);
      Float4 x0 = AffineQmvKernel.lo4(p0, dtype);
      Float4 x1 = AffineQmvKernel.hi4(p0, dtype);
      Float4 x2 = AffineQmvKernel.lo4(p1, dtype);
      Float4 x3 = AffineQmvKernel.hi4(p1, dtype);
      Float4 x4 = x0;
      Float4 x5 = x0;
      Float4 x6 = x0;
      Float4 x7 = x0;
      if (unit == 32) {
        Int4 p2 = Vec.ldg4(x, xb + 16);
        Int4 p3 = Vec.ldg4(x, xb + 24);
        x4 = AffineQmvKernel.lo4(p2, dtype);
        x5 = AffineQmvKernel.hi4(p2, dtype);
        x6 = AffineQmvKernel.lo4(p3, dtype);
        x7 = AffineQmvKernel.hi4(p3, dtype);
      }
      a0 +=
          scale(scales, r0 * units + u, mode, gfac)
              * unitDot(wq, r0 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      if (rowsPerWarp > 1) {
        a1 +=
            scale(scales, r1 * units + u, mode, gfac)
                * unitDot(wq, r1 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      }
      if (rowsPerWarp > 2) {
        a2 +=
            scale(scales, r2 * units + u, mode, gfac)
                * unitDot(wq, r2 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
        a3 +=
            scale(scales, r3 * units + u, mode, gfac)
                * unitDot(wq, r3 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      }
    }
    a0 = AffineQmvKernel.warpSum(ctx, a0);
    if (rowsPerWarp > 1) {
      a1 = AffineQmvKernel.warpSum(ctx, a1);
    }
    if (rowsPerWarp > 2) {
      a2 = AffineQmvKernel.warpSum(ctx, a2);
      a3 = AffineQmvKernel.warpSum(ctx, a3);
    }
    if (lane == 0) {
      int ob = m * n;
      if (n0 < n) {
        out[ob + n0] = QuantMath.floatToHalf(a0, dtype);
      }
      if (rowsPerWarp > 1 && n0 + 1 < n) {
        out[ob + n0 + 1] = QuantMath.floatToHalf(a1, dtype);
      }
      if (rowsPerWarp > 2 && n0 + 2 < n) {
        out[ob + n0 + 2] = QuantMath.floatToHalf(a2, dtype);
      }
      if (rowsPerWarp > 2 && n0 + 3 < n) {
        out[ob + n0 + 3] = QuantMath.floatToHalf(a3, dtype);
      }
    }
  }

  /** float32 activations and output. */
  @Kernel(validateWith = {"mode=1,rowsPerWarp=2", "mode=2,rowsPerWarp=2", "mode=3,rowsPerWarp=2"})
  public static void qmvF32(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32 codes
      byte[] scales, // [n, k/groupSize] U8 scale codes
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      float[] x, // [rows, k]
      float[] out, // [rows, n]
      int n,
      int k,
      @Specialize int mode,
      @Specialize int rowsPerWarp) {
    int lane = ctx.laneId();
    int n0 = (ctx.groupIdx * WARPS + ctx.warpId()) * rowsPerWarp;
    int m = ctx.groupIdy;
    int unit = Quant.modeGroupSize(mode, 0);
    int units = k / unit;
    int wpr = k * Quant.elementBits(mode, 0) / 32;
    int wpu = unit * Quant.elementBits(mode, 0) / 32;
    float gfac = mode == Quant.NVFP4 ? Vec.ldg(globalScale, 0) / (448f * 6f) : 1f;
    int r0 = Math.min(n0, n - 1);
    int r1 = Math.min(n0 + 1, n - 1);
    int r2 = Math.min(n0 + 2, n - 1);
    int r3 = Math.min(n0 + 3, n - 1);
    float a0 = 0f;
    float a1 = 0f;
    float a2 = 0f;
    float a3 = 0f;
    for (int u = lane; u < units; u += 32) {
      int xb = m * k + u * unit;
      Float4 x0 = Vec.ldg4(x, xb);
      Float4 x1 = Vec.ldg4(x, xb + 4);
      Float4 x2 = Vec.ldg4(x, xb + 8);
      Float4 x3 = Vec.ldg4(x, xb + 12);
      Float4 x4 = x0;
      Float4 x5 = x0;
      Float4 x6 = x0;
      Float4 x7 = x0;
      if (unit == 32) {
        x4 = Vec.ldg4(x, xb + 16);
        x5 = Vec.ldg4(x, xb + 20);
        x6 = Vec.ldg4(x, xb + 24);
        x7 = Vec.ldg4(x, xb + 28);
      }
      a0 +=
          scale(scales, r0 * units + u, mode, gfac)
              * unitDot(wq, r0 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      if (rowsPerWarp > 1) {
        a1 +=
            scale(scales, r1 * units + u, mode, gfac)
                * unitDot(wq, r1 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      }
      if (rowsPerWarp > 2) {
        a2 +=
            scale(scales, r2 * units + u, mode, gfac)
                * unitDot(wq, r2 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
        a3 +=
            scale(scales, r3 * units + u, mode, gfac)
                * unitDot(wq, r3 * wpr + u * wpu, mode, x0, x1, x2, x3, x4, x5, x6, x7);
      }
    }
    a0 = AffineQmvKernel.warpSum(ctx, a0);
    if (rowsPerWarp > 1) {
      a1 = AffineQmvKernel.warpSum(ctx, a1);
    }
    if (rowsPerWarp > 2) {
      a2 = AffineQmvKernel.warpSum(ctx, a2);
      a3 = AffineQmvKernel.warpSum(ctx, a3);
    }
    if (lane == 0) {
      int ob = m * n;
      if (n0 < n) {
        out[ob + n0] = a0;
      }
      if (rowsPerWarp > 1 && n0 + 1 < n) {
        out[ob + n0 + 1] = a1;
      }
      if (rowsPerWarp > 2 && n0 + 2 < n) {
        out[ob + n0 + 2] = a2;
      }
      if (rowsPerWarp > 2 && n0 + 3 < n) {
        out[ob + n0 + 3] = a3;
      }
    }
  }

  /** The decoded scale of group {@code gi}: E8M0, or E4M3 times {@code gfac} for nvfp4. */
  static float scale(byte[] scales, int gi, int mode, float gfac) {
    int code = Vec.ldg(scales, gi) & 0xFF;
    if (mode == Quant.NVFP4) {
      return QuantMath.e4m3Decode(code) * gfac;
    }
    return QuantMath.e8m0Decode(code);
  }

  /** {@code sum(value * x)} over one unit (one group) whose words start at {@code wbase}. */
  static float unitDot(
      int[] wq,
      int wbase,
      int mode,
      Float4 x0,
      Float4 x1,
      Float4 x2,
      Float4 x3,
      Float4 x4,
      Float4 x5,
      Float4 x6,
      Float4 x7) {
    if (mode == Quant.NVFP4) {
      Int2 w = Vec.ldg2(wq, wbase);
      float d = fp4Word(w.x(), x0, x1, 0f);
      return fp4Word(w.y(), x2, x3, d);
    }
    if (mode == Quant.MXFP4) {
      Int4 w = Vec.ldg4(wq, wbase);
      float d = fp4Word(w.x(), x0, x1, 0f);
      d = fp4Word(w.y(), x2, x3, d);
      d = fp4Word(w.z(), x4, x5, d);
      return fp4Word(w.w(), x6, x7, d);
    }
    Int4 w = Vec.ldg4(wq, wbase);
    Int4 v = Vec.ldg4(wq, wbase + 4);
    float d = fp8Word(w.x(), x0, 0f);
    d = fp8Word(w.y(), x1, d);
    d = fp8Word(w.z(), x2, d);
    d = fp8Word(w.w(), x3, d);
    d = fp8Word(v.x(), x4, d);
    d = fp8Word(v.y(), x5, d);
    d = fp8Word(v.z(), x6, d);
    return fp8Word(v.w(), x7, d);
  }

  /** E2M1 value from sign bits already at 31 and magnitude bits at 22..24. */
  static float e2m1(int signBits, int magBits) {
    return Float.intBitsToFloat((signBits & 0x80000000) | (magBits & 0x01C00000))
        * QuantMath.E2M1_UNSCALE;
  }

  /** 8 E2M1 codes of one word against x[0..7]. */
  static float fp4Word(int w, Float4 xa, Float4 xb, float d) {
    d = Math.fma(e2m1(w << 28, w << 22), xa.x(), d);
    d = Math.fma(e2m1(w << 24, w << 18), xa.y(), d);
    d = Math.fma(e2m1(w << 20, w << 14), xa.z(), d);
    d = Math.fma(e2m1(w << 16, w << 10), xa.w(), d);
    d = Math.fma(e2m1(w << 12, w << 6), xb.x(), d);
    d = Math.fma(e2m1(w << 8, w << 2), xb.y(), d);
    d = Math.fma(e2m1(w << 4, w >>> 2), xb.z(), d);
    return Math.fma(e2m1(w, w >>> 6), xb.w(), d);
  }

  /** E4M3 value from sign bits at 31 and magnitude bits at 20..26; NaN codes give NaN. */
  static float e4m3(int signBits, int magBits) {
    int mag = magBits & 0x07F00000;
    if (mag == 0x07F00000) {
      return Float.NaN;
    }
    return Float.intBitsToFloat((signBits & 0x80000000) | mag) * QuantMath.E4M3_UNSCALE;
  }

  /** 4 E4M3 codes of one word against x[0..3]. */
  static float fp8Word(int w, Float4 xa, float d) {
    d = Math.fma(e4m3(w << 24, w << 20), xa.x(), d);
    d = Math.fma(e4m3(w << 16, w << 12), xa.y(), d);
    d = Math.fma(e4m3(w << 8, w << 4), xa.z(), d);
    return Math.fma(e4m3(w, w >>> 4), xa.w(), d);
  }

  /** Float64 reference: see {@link QmmReference#fp}. */
  public static QmmReference.Result reference(
      int[] wq, byte[] scales, float globalScale, float[] x, QmmShape s) {
    return QmmReference.fp(wq, scales, globalScale, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.mode() == Quant.AFFINE) {
      return "fp modes only (affine uses AffineQmvKernel)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k]); transpose=false uses FpQvmKernel";
    }
    if (s.rows() > 65535) {
      return "at most 65535 rows (grid.y), got " + s.rows();
    }
    return null;
  }

  public static LaunchPlan plan(QmmShape s) {
    return plan(s, 2);
  }

  /** {@link #WARPS} warps per block, {@code rowsPerWarp} (1, 2, 4) features per warp. */
  public static LaunchPlan plan(QmmShape s, int rowsPerWarp) {
    if (rowsPerWarp != 1 && rowsPerWarp != 2 && rowsPerWarp != 4) {
      throw new IllegalArgumentException("rowsPerWarp must be 1, 2 or 4, got " + rowsPerWarp);
    }
    int perBlock = WARPS * rowsPerWarp;
    Dim3 grid = Dim3.of((s.n() + perBlock - 1) / perBlock, s.rows());
    Dim3 block = Dim3.of(32 * WARPS);
    if (s.dtype() == Quant.F32) {
      return LaunchPlan.of(
          "FpQmvKernel.qmvF32", grid, block, 0, "mode", s.mode(), "rowsPerWarp", rowsPerWarp);
    }
    return LaunchPlan.of(
        "FpQmvKernel.qmv",
        grid,
        block,
        0,
        "mode",
        s.mode(),
        "dtype",
        s.dtype(),
        "rowsPerWarp",
        rowsPerWarp);
  }
}
