package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Quantized matmul with non-transposed weights (MLX's {@code transpose=false}): W is stored {@code
 * [k, n]} quantized along n, and {@code out[m, j] = sum_k x[m, k] * W[k, j]}; every mode, bit
 * width, group and dtype. This is the simpler kernel the issue allows: MLX reaches it mainly from
 * the backward pass of a quantized linear layer.
 *
 * <p>One thread per octet of 8 output columns and per {@code rowsPerThread} rows of x (grid.y). For
 * each k the thread reads the octet's codes from one 64-bit window of the row's bit stream (one or
 * two 4-byte loads, coalesced across the warp: consecutive threads read consecutive words), the
 * group's scale and bias (shared by {@code groupSize/8} neighbouring threads), dequantizes 8
 * weights with 8 FMAs and accumulates them against {@code rowsPerThread} broadcast x values: per
 * weight element 1 + rowsPerThread FMAs plus extraction. The k loop is not unrolled, so each thread
 * has only one or two loads in flight: this kernel relies on occupancy (about 40–56 registers) and
 * is expected to run well below the bandwidth floor; it exists for coverage, not speed.
 */
public final class QvmKernel {
  private QvmKernel() {}

  public static final int BLOCK = 128;

  /** bf16/f16 activations and output (and affine scales/biases). */
  @Kernel(
      validateWith = {
        "mode=0,bits=4,groupSize=64,dtype=0,rowsPerThread=4",
        "mode=0,bits=5,groupSize=32,dtype=1,rowsPerThread=1",
        "mode=2,bits=4,groupSize=16,dtype=0,rowsPerThread=2",
        "mode=3,bits=8,groupSize=32,dtype=0,rowsPerThread=4"
      })
  public static void qvm(
      KernelContext ctx,
      int[] wq, // [k, n*bits/32] packed u32 codes
      short[] scales, // [k, n/groupSize] bf16/f16 bits (affine)
      short[] biases, // [k, n/groupSize] bf16/f16 bits (affine)
      byte[] fpScales, // [k, n/groupSize] U8 scale codes (fp modes)
      float[] globalScale, // [1] nvfp4 global scale
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int mode,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int rowsPerThread) {
    int o = ctx.globalIdx;
    if (o >= n / 8) {
      return;
    }
    int m0 = ctx.groupIdy * rowsPerThread;
    int x0 = Math.min(m0, rows - 1) * k;
    int x1 = Math.min(m0 + 1, rows - 1) * k;
    int x2 = Math.min(m0 + 2, rows - 1) * k;
    int x3 = Math.min(m0 + 3, rows - 1) * k;
    int wpr = n * bits / 32;
    int groups = n / groupSize;
    int gi = (o * 8) / groupSize;
    float gfac = mode == Quant.NVFP4 ? Vec.ldg(globalScale, 0) / (448f * 6f) : 1f;
    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    Float4 l0 = zero;
    Float4 h0 = zero;
    Float4 l1 = zero;
    Float4 h1 = zero;
    Float4 l2 = zero;
    Float4 h2 = zero;
    Float4 l3 = zero;
    Float4 h3 = zero;
    for (int kk = 0; kk < k; kk++) {
      long win = window(wq, kk * wpr, o, bits);
      float s;
      float b = 0f;
      if (mode == Quant.AFFINE) {
        s = QuantMath.halfToFloat(Vec.ldg(scales, kk * groups + gi), dtype);
        b = QuantMath.halfToFloat(Vec.ldg(biases, kk * groups + gi), dtype);
      } else {
        s = FpQmvKernel.scale(fpScales, kk * groups + gi, mode, gfac);
      }
      Float4 wl = weights4(win, 0, s, b, mode, bits);
      Float4 wh = weights4(win, 4, s, b, mode, bits);
      float v = QuantMath.halfToFloat(Vec.ldg(x, x0 + kk), dtype);
      l0 = axpy(v, wl, l0);
      h0 = axpy(v, wh, h0);
      if (rowsPerThread > 1) {
        v = QuantMath.halfToFloat(Vec.ldg(x, x1 + kk), dtype);
        l1 = axpy(v, wl, l1);
        h1 = axpy(v, wh, h1);
      }
      if (rowsPerThread > 2) {
        v = QuantMath.halfToFloat(Vec.ldg(x, x2 + kk), dtype);
        l2 = axpy(v, wl, l2);
        h2 = axpy(v, wh, h2);
        v = QuantMath.halfToFloat(Vec.ldg(x, x3 + kk), dtype);
        l3 = axpy(v, wl, l3);
        h3 = axpy(v, wh, h3);
      }
    }
    storeHalf(out, (m0) * n + o * 8, l0, h0, m0 < rows, dtype);
    if (rowsPerThread > 1) {
      storeHalf(out, (m0 + 1) * n + o * 8, l1, h1, m0 + 1 < rows, dtype);
    }
    if (rowsPerThread > 2) {
      storeHalf(out, (m0 + 2) * n + o * 8, l2, h2, m0 + 2 < rows, dtype);
      storeHalf(out, (m0 + 3) * n + o * 8, l3, h3, m0 + 3 < rows, dtype);
    }
  }

  /** float32 activations and output (and affine scales/biases). */
  @Kernel(
      validateWith = {
        "mode=0,bits=4,groupSize=64,rowsPerThread=4",
        "mode=1,bits=4,groupSize=32,rowsPerThread=1"
      })
  public static void qvmF32(
      KernelContext ctx,
      int[] wq, // [k, n*bits/32] packed u32 codes
      float[] scales, // [k, n/groupSize] (affine)
      float[] biases, // [k, n/groupSize] (affine)
      byte[] fpScales, // [k, n/groupSize] U8 scale codes (fp modes)
      float[] globalScale, // [1] nvfp4 global scale
      float[] x, // [rows, k]
      float[] out, // [rows, n]
      int rows,
      int n,
      int k,
      @Specialize int mode,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int rowsPerThread) {
    int o = ctx.globalIdx;
    if (o >= n / 8) {
      return;
    }
    int m0 = ctx.groupIdy * rowsPerThread;
    int x0 = Math.min(m0, rows - 1) * k;
    int x1 = Math.min(m0 + 1, rows - 1) * k;
    int x2 = Math.min(m0 + 2, rows - 1) * k;
    int x3 = Math.min(m0 + 3, rows - 1) * k;
    int wpr = n * bits / 32;
    int groups = n / groupSize;
    int gi = (o * 8) / groupSize;
    float gfac = mode == Quant.NVFP4 ? Vec.ldg(globalScale, 0) / (448f * 6f) : 1f;
    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    Float4 l0 = zero;
    Float4 h0 = zero;
    Float4 l1 = zero;
    Float4 h1 = zero;
    Float4 l2 = zero;
    Float4 h2 = zero;
    Float4 l3 = zero;
    Float4 h3 = zero;
    for (int kk = 0; kk < k; kk++) {
      long win = window(wq, kk * wpr, o, bits);
      float s;
      float b = 0f;
      if (mode == Quant.AFFINE) {
        s = Vec.ldg(scales, kk * groups + gi);
        b = Vec.ldg(biases, kk * groups + gi);
      } else {
        s = FpQmvKernel.scale(fpScales, kk * groups + gi, mode, gfac);
      }
      Float4 wl = weights4(win, 0, s, b, mode, bits);
      Float4 wh = weights4(win, 4, s, b, mode, bits);
      float v = Vec.ldg(x, x0 + kk);
      l0 = axpy(v, wl, l0);
      h0 = axpy(v, wh, h0);
      if (rowsPerThread > 1) {
        v = Vec.ldg(x, x1 + kk);
        l1 = axpy(v, wl, l1);
        h1 = axpy(v, wh, h1);
      }
      if (rowsPerThread > 2) {
        v = Vec.ldg(x, x2 + kk);
        l2 = axpy(v, wl, l2);
        h2 = axpy(v, wh, h2);
        v = Vec.ldg(x, x3 + kk);
        l3 = axpy(v, wl, l3);
        h3 = axpy(v, wh, h3);
      }
    }
    storeFloat(out, (m0) * n + o * 8, l0, h0, m0 < rows);
    if (rowsPerThread > 1) {
      storeFloat(out, (m0 + 1) * n + o * 8, l1, h1, m0 + 1 < rows);
    }
    if (rowsPerThread > 2) {
      storeFloat(out, (m0 + 2) * n + o * 8, l2, h2, m0 + 2 < rows);
      storeFloat(out, (m0 + 3) * n + o * 8, l3, h3, m0 + 3 < rows);
    }
  }

  /** Codes of octet {@code o} of the row whose words start at {@code base}, in the low bits. */
  static long window(int[] wq, int base, int o, int bits) {
    int bit = o * 8 * bits;
    int word = base + (bit >>> 5);
    int sh = bit & 31;
    long win = Vec.ldg(wq, word) & 0xFFFFFFFFL;
    if (sh + 8 * bits > 32) {
      win = win | ((long) Vec.ldg(wq, word + 1) << 32);
    }
    return win >>> sh;
  }

  /** Dequantized weights {@code i0 .. i0+3} of an octet window. */
  static Float4 weights4(long win, int i0, float s, float b, int mode, int bits) {
    return new Float4(
        weight(win, i0, s, b, mode, bits),
        weight(win, i0 + 1, s, b, mode, bits),
        weight(win, i0 + 2, s, b, mode, bits),
        weight(win, i0 + 3, s, b, mode, bits));
  }

  static float weight(long win, int i, float s, float b, int mode, int bits) {
    int q = (int) (win >>> (i * bits)) & ((1 << bits) - 1);
    if (mode == Quant.AFFINE) {
      return Math.fma((float) q, s, b);
    }
    return s * (bits == 4 ? QuantMath.e2m1Decode(q) : QuantMath.e4m3Decode(q));
  }

  static Float4 axpy(float v, Float4 w, Float4 acc) {
    return new Float4(
        Math.fma(v, w.x(), acc.x()),
        Math.fma(v, w.y(), acc.y()),
        Math.fma(v, w.z(), acc.z()),
        Math.fma(v, w.w(), acc.w()));
  }

  static void storeHalf(short[] out, int i, Float4 lo, Float4 hi, boolean valid, int dtype) {
    if (valid) {
      out[i] = QuantMath.floatToHalf(lo.x(), dtype);
      out[i + 1] = QuantMath.floatToHalf(lo.y(), dtype);
      out[i + 2] = QuantMath.floatToHalf(lo.z(), dtype);
      out[i + 3] = QuantMath.floatToHalf(lo.w(), dtype);
      out[i + 4] = QuantMath.floatToHalf(hi.x(), dtype);
      out[i + 5] = QuantMath.floatToHalf(hi.y(), dtype);
      out[i + 6] = QuantMath.floatToHalf(hi.z(), dtype);
      out[i + 7] = QuantMath.floatToHalf(hi.w(), dtype);
    }
  }

  static void storeFloat(float[] out, int i, Float4 lo, Float4 hi, boolean valid) {
    if (valid) {
      out[i] = lo.x();
      out[i + 1] = lo.y();
      out[i + 2] = lo.z();
      out[i + 3] = lo.w();
      out[i + 4] = hi.x();
      out[i + 5] = hi.y();
      out[i + 6] = hi.z();
      out[i + 7] = hi.w();
    }
  }

  /** Float64 reference: see {@link QmmReference} (handles {@code transpose=false}). */
  public static QmmReference.Result reference(
      int[] wq,
      float[] scales,
      float[] biases,
      byte[] fpScales,
      float globalScale,
      float[] x,
      QmmShape s) {
    return s.mode() == Quant.AFFINE
        ? QmmReference.affine(wq, scales, biases, x, s)
        : QmmReference.fp(wq, fpScales, globalScale, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.transpose()) {
      return "non-transposed weights only (w [k, n]); transposed weights use the qmv/qmm kernels";
    }
    if ((s.rows() + 3) / 4 > 65535) {
      return "too many rows for grid.y: " + s.rows();
    }
    return null;
  }

  /** One thread per octet of outputs, 4 rows of x per thread (fewer when there are fewer rows). */
  public static LaunchPlan plan(QmmShape s) {
    int r = s.rows() >= 4 ? 4 : s.rows() >= 2 ? 2 : 1;
    Dim3 grid = Dim3.of((s.n() / 8 + BLOCK - 1) / BLOCK, (s.rows() + r - 1) / r);
    if (s.dtype() == Quant.F32) {
      return LaunchPlan.of(
          "QvmKernel.qvmF32",
          grid,
          Dim3.of(BLOCK),
          0,
          "mode",
          s.mode(),
          "bits",
          s.bits(),
          "groupSize",
          s.groupSize(),
          "rowsPerThread",
          r);
    }
    return LaunchPlan.of(
        "QvmKernel.qvm",
        grid,
        Dim3.of(BLOCK),
        0,
        "mode",
        s.mode(),
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "rowsPerThread",
        r);
  }
}
