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
 * Affine quantized matrix-vector product on CUDA cores ("qmv", the vector path): {@code out[m, n] =
 * sum_k x[m, k] * (q[n, k] * scale[n, k/g] + bias[n, k/g])} for W stored {@code [n, k]} (MLX's
 * {@code transpose=true}), every bit width 2–8, every group size, and bf16/f16/f32 activations.
 * This is the kernel that takes any shape the format allows; the tensor-core kernel {@link
 * QmmMmaKernel} is faster for the formats it supports.
 *
 * <h2>Mapping</h2>
 *
 * A block is {@link #WARPS} warps; each warp owns {@code rowsPerWarp} consecutive output features;
 * grid.y is the row of x. Lanes stride over k in units of 32 elements: unit u covers k in {@code
 * [32u, 32u + 32)}, which is {@code bits} consecutive u32 words of each weight row (32 elements of
 * b bits = b words) and always lies inside one quantization group. Per unit a lane loads x (four
 * 16-byte loads for bf16/f16, eight for f32), converts it once to 32 floats and sums it, then for
 * each of its rows loads the unit's words (one 16-byte load at 4 bits, two at 8, one 8-byte load at
 * 2, 8-byte or 4-byte loads at 3/5/6 bits) and accumulates. A warp-shuffle reduction ends each row;
 * lane 0 writes it.
 *
 * <h2>Arithmetic: the group-sum trick without integer conversions</h2>
 *
 * A code q becomes the float {@code 1 + q/2^b} by placing its bits at the top of the mantissa of
 * 1.0 (one shift and one masked or: no int-to-float conversion). With {@code d = sum (1 + q/2^b) x}
 * and {@code xs = sum x} over the unit, the unit's contribution is {@code scale * sum q x + bias *
 * xs = S*d + (bias - S)*xs} with {@code S = scale * 2^b}: two FMAs per unit and row instead of a
 * dequantizing FMA per element. Per weight element this costs 3 instructions (shift, lop3, FFMA),
 * plus the x conversion and sum (2 per element) shared by the warp's rows.
 *
 * <h2>Cost (H200, bf16, 4 bits, g64, 4096x12288)</h2>
 *
 * Bytes: exactly the weights, scales and biases once, plus x from L1. Per lane and iteration,
 * {@code rowsPerWarp} 16-byte weight loads and four 16-byte x loads are independent (straight-line
 * code once {@code rowsPerWarp} and {@code bits} are folded). ~3.5 instructions per weight element.
 * Measured through the CUDA C mirror ({@code proto/qmm_proto.cu}, README): 18.7 µs at 1 row with
 * rowsPerWarp 2 (64 registers), 18.4 with 4 (80 registers), against an 8.7–8.9 µs read floor; 15.9
 * µs when a lane issues all of its weight, scale and bias loads before any arithmetic (not done in
 * this Java version). The Java kernel compiled by Sirocco's JIT (jit branch, 21e8302) runs
 * correctly there and takes 19.8 µs at 1 row (56 registers), 81.8 µs at 6 rows. 6 rows (mirror): 75
 * µs (grid.y re-reads weights per row): use {@link QmmMmaKernel} for 2+ rows with bf16/f16 at 4/8
 * bits, and {@link AffineQmvRowsKernel} (this kernel's loads and arithmetic, each weight read once
 * for up to 8 rows) for the other widths and f32. The 9 µs target at 1 row is NOT met; the kernel
 * is latency-bound (1.5–3 waves, a dependent DRAM round trip per unit).
 */
public final class AffineQmvKernel {
  private AffineQmvKernel() {}

  /** Warps per block. */
  public static final int WARPS = 8;

  /** bf16/f16 activations, scales, biases and output. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,rowsPerWarp=2",
        "bits=3,groupSize=32,dtype=1,rowsPerWarp=1",
        "bits=8,groupSize=128,dtype=0,rowsPerWarp=4"
      })
  public static void qmv(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int n,
      int k,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int rowsPerWarp) {
    int lane = ctx.laneId();
    int n0 = (ctx.groupIdx * WARPS + ctx.warpId()) * rowsPerWarp;
    int m = ctx.groupIdy;
    int units = k / 32;
    int groups = k / groupSize;
    int wpr = k * bits / 32;
    // Rows past n are clamped for loading (valid memory) and never stored.
    int r0 = Math.min(n0, n - 1);
    int r1 = Math.min(n0 + 1, n - 1);
    int r2 = Math.min(n0 + 2, n - 1);
    int r3 = Math.min(n0 + 3, n - 1);
    float a0 = 0f;
    float a1 = 0f;
    float a2 = 0f;
    float a3 = 0f;
    for (int u = lane; u < units; u += 32) {
      int xb = m * k + u * 32;
      Int4 p0 = Vec.ldg4(x, xb);
      Int4 p1 = Vec.ldg4(x, xb + 8);
      Int4 p2 = Vec.ldg4(x, xb + 16);
      Int4 p3 = Vec.ldg4(x, xb + 24);
      Float4 x0 = lo4(p0, dtype);
      Float4 x1 = hi4(p0, dtype);
      Float4 x2 = lo4(p1, dtype);
      Float4 x3 = hi4(p1, dtype);
      Float4 x4 = lo4(p2, dtype);
      Float4 x5 = hi4(p2, dtype);
      Float4 x6 = lo4(p3, dtype);
      Float4 x7 = hi4(p3, dtype);
      float xs = sum8(x0, x1, x2, x3, x4, x5, x6, x7);
      int gi = (u * 32) / groupSize;
      a0 =
          fold(
              a0,
              unitDot(wq, r0 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
              xs,
              QuantMath.halfToFloat(Vec.ldg(scales, r0 * groups + gi), dtype),
              QuantMath.halfToFloat(Vec.ldg(biases, r0 * groups + gi), dtype),
              bits);
      if (rowsPerWarp > 1) {
        a1 =
            fold(
                a1,
                unitDot(wq, r1 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                QuantMath.halfToFloat(Vec.ldg(scales, r1 * groups + gi), dtype),
                QuantMath.halfToFloat(Vec.ldg(biases, r1 * groups + gi), dtype),
                bits);
      }
      if (rowsPerWarp > 2) {
        a2 =
            fold(
                a2,
                unitDot(wq, r2 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                QuantMath.halfToFloat(Vec.ldg(scales, r2 * groups + gi), dtype),
                QuantMath.halfToFloat(Vec.ldg(biases, r2 * groups + gi), dtype),
                bits);
        a3 =
            fold(
                a3,
                unitDot(wq, r3 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                QuantMath.halfToFloat(Vec.ldg(scales, r3 * groups + gi), dtype),
                QuantMath.halfToFloat(Vec.ldg(biases, r3 * groups + gi), dtype),
                bits);
      }
    }
    a0 = warpSum(ctx, a0);
    if (rowsPerWarp > 1) {
      a1 = warpSum(ctx, a1);
    }
    if (rowsPerWarp > 2) {
      a2 = warpSum(ctx, a2);
      a3 = warpSum(ctx, a3);
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

  /** float32 activations, scales, biases and output. */
  @Kernel(validateWith = {"bits=4,groupSize=64,rowsPerWarp=2", "bits=6,groupSize=32,rowsPerWarp=1"})
  public static void qmvF32(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32
      float[] scales, // [n, k/groupSize]
      float[] biases, // [n, k/groupSize]
      float[] x, // [rows, k]
      float[] out, // [rows, n]
      int n,
      int k,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int rowsPerWarp) {
    int lane = ctx.laneId();
    int n0 = (ctx.groupIdx * WARPS + ctx.warpId()) * rowsPerWarp;
    int m = ctx.groupIdy;
    int units = k / 32;
    int groups = k / groupSize;
    int wpr = k * bits / 32;
    int r0 = Math.min(n0, n - 1);
    int r1 = Math.min(n0 + 1, n - 1);
    int r2 = Math.min(n0 + 2, n - 1);
    int r3 = Math.min(n0 + 3, n - 1);
    float a0 = 0f;
    float a1 = 0f;
    float a2 = 0f;
    float a3 = 0f;
    for (int u = lane; u < units; u += 32) {
      int xb = m * k + u * 32;
      Float4 x0 = Vec.ldg4(x, xb);
      Float4 x1 = Vec.ldg4(x, xb + 4);
      Float4 x2 = Vec.ldg4(x, xb + 8);
      Float4 x3 = Vec.ldg4(x, xb + 12);
      Float4 x4 = Vec.ldg4(x, xb + 16);
      Float4 x5 = Vec.ldg4(x, xb + 20);
      Float4 x6 = Vec.ldg4(x, xb + 24);
      Float4 x7 = Vec.ldg4(x, xb + 28);
      float xs = sum8(x0, x1, x2, x3, x4, x5, x6, x7);
      int gi = (u * 32) / groupSize;
      a0 =
          fold(
              a0,
              unitDot(wq, r0 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
              xs,
              Vec.ldg(scales, r0 * groups + gi),
              Vec.ldg(biases, r0 * groups + gi),
              bits);
      if (rowsPerWarp > 1) {
        a1 =
            fold(
                a1,
                unitDot(wq, r1 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                Vec.ldg(scales, r1 * groups + gi),
                Vec.ldg(biases, r1 * groups + gi),
                bits);
      }
      if (rowsPerWarp > 2) {
        a2 =
            fold(
                a2,
                unitDot(wq, r2 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                Vec.ldg(scales, r2 * groups + gi),
                Vec.ldg(biases, r2 * groups + gi),
                bits);
        a3 =
            fold(
                a3,
                unitDot(wq, r3 * wpr + u * bits, bits, x0, x1, x2, x3, x4, x5, x6, x7),
                xs,
                Vec.ldg(scales, r3 * groups + gi),
                Vec.ldg(biases, r3 * groups + gi),
                bits);
      }
    }
    a0 = warpSum(ctx, a0);
    if (rowsPerWarp > 1) {
      a1 = warpSum(ctx, a1);
    }
    if (rowsPerWarp > 2) {
      a2 = warpSum(ctx, a2);
      a3 = warpSum(ctx, a3);
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

  // ---- shared pieces (also used by the non-transposed and fp kernels) ----

  /** {@code acc + scale * sum(q x) + bias * xs} from {@code d = sum((1 + q/2^b) x)}. */
  static float fold(float acc, float d, float xs, float scale, float bias, int bits) {
    float s = scale * (float) (1 << bits);
    return Math.fma(s, d, Math.fma(bias - s, xs, acc));
  }

  static float warpSum(KernelContext ctx, float v) {
    v += ctx.shuffleXor(v, 16);
    v += ctx.shuffleXor(v, 8);
    v += ctx.shuffleXor(v, 4);
    v += ctx.shuffleXor(v, 2);
    v += ctx.shuffleXor(v, 1);
    return v;
  }

  static float sum8(
      Float4 a, Float4 b, Float4 c, Float4 d, Float4 e, Float4 f, Float4 g, Float4 h) {
    return (sum4(a) + sum4(b)) + (sum4(c) + sum4(d)) + ((sum4(e) + sum4(f)) + (sum4(g) + sum4(h)));
  }

  static float sum4(Float4 v) {
    return (v.x() + v.y()) + (v.z() + v.w());
  }

  /** Elements 0..3 of 8 packed halves. */
  static Float4 lo4(Int4 p, int dtype) {
    return new Float4(
        QuantMath.halfLo(p.x(), dtype),
        QuantMath.halfHi(p.x(), dtype),
        QuantMath.halfLo(p.y(), dtype),
        QuantMath.halfHi(p.y(), dtype));
  }

  /** Elements 4..7 of 8 packed halves. */
  static Float4 hi4(Int4 p, int dtype) {
    return new Float4(
        QuantMath.halfLo(p.z(), dtype),
        QuantMath.halfHi(p.z(), dtype),
        QuantMath.halfLo(p.w(), dtype),
        QuantMath.halfHi(p.w(), dtype));
  }

  /**
   * {@code sum((1 + q/2^b) x)} over the 32 elements of one unit, whose {@code bits} words start at
   * {@code wbase}; {@code x0..x7} hold x[0..3], x[4..7], ... x[28..31].
   */
  static float unitDot(
      int[] wq,
      int wbase,
      int bits,
      Float4 x0,
      Float4 x1,
      Float4 x2,
      Float4 x3,
      Float4 x4,
      Float4 x5,
      Float4 x6,
      Float4 x7) {
    return unitDot(
        unitLo(wq, wbase, bits), unitHi(wq, wbase, bits), bits, x0, x1, x2, x3, x4, x5, x6, x7);
  }

  /**
   * Words 0..3 of the unit whose {@code bits} words start at {@code wbase} (zeros past {@code
   * bits}): one 16-byte load at 4 and 8 bits, one 8-byte load at 2, two at 6 ({@code wbase} is even
   * there: 6u plus an even row base), 4-byte loads at 3 and 5 (only 4-byte alignment is known).
   */
  static Int4 unitLo(int[] wq, int wbase, int bits) {
    if (bits == 4 || bits == 8) {
      return Vec.ldg4(wq, wbase);
    }
    if (bits == 2) {
      Int2 w = Vec.ldg2(wq, wbase);
      return new Int4(w.x(), w.y(), 0, 0);
    }
    if (bits == 6) {
      Int2 a = Vec.ldg2(wq, wbase);
      Int2 b = Vec.ldg2(wq, wbase + 2);
      return new Int4(a.x(), a.y(), b.x(), b.y());
    }
    int w3 = bits == 5 ? Vec.ldg(wq, wbase + 3) : 0;
    return new Int4(Vec.ldg(wq, wbase), Vec.ldg(wq, wbase + 1), Vec.ldg(wq, wbase + 2), w3);
  }

  /** Words 4..7 of the unit (see {@link #unitLo}): 8 bits 4 words, 6 bits 2, 5 bits 1. */
  static Int4 unitHi(int[] wq, int wbase, int bits) {
    if (bits == 8) {
      return Vec.ldg4(wq, wbase + 4);
    }
    if (bits == 6) {
      Int2 c = Vec.ldg2(wq, wbase + 4);
      return new Int4(c.x(), c.y(), 0, 0);
    }
    if (bits == 5) {
      return new Int4(Vec.ldg(wq, wbase + 4), 0, 0, 0);
    }
    return new Int4(0, 0, 0, 0);
  }

  /** Word {@code i} (0..7; 0 beyond) of a unit held as {@code lo} = words 0..3, {@code hi} 4..7. */
  static int unitWord(Int4 lo, Int4 hi, int i) {
    Int4 v = i < 4 ? lo : hi;
    int j = i & 3;
    return i > 7 ? 0 : j == 0 ? v.x() : j == 1 ? v.y() : j == 2 ? v.z() : v.w();
  }

  /**
   * Codes {@code 8j .. 8j+7} of a unit (an <em>octet</em>, {@code j} 0..3) in the low {@code
   * 8·bits} bits of a long: the words holding them, shifted down. Octets of 2- and 4-bit codes lie
   * in one word, so the high word is left 0 there (32-bit shifts only); the others span two words
   * (one funnel shift per code).
   */
  static long octet(Int4 lo, Int4 hi, int bits, int j) {
    int bit = 8 * bits * j;
    int w = bit >>> 5;
    int sh = bit & 31;
    long low = unitWord(lo, hi, w) & 0xFFFFFFFFL;
    long high = sh + 8 * bits > 32 ? (long) unitWord(lo, hi, w + 1) << 32 : 0L;
    return (low | high) >>> sh;
  }

  /**
   * {@link #unitDot(int[], int, int, Float4, Float4, Float4, Float4, Float4, Float4, Float4,
   * Float4)} on words already loaded ({@link #unitLo}, {@link #unitHi}).
   */
  static float unitDot(
      Int4 lo,
      Int4 hi,
      int bits,
      Float4 x0,
      Float4 x1,
      Float4 x2,
      Float4 x3,
      Float4 x4,
      Float4 x5,
      Float4 x6,
      Float4 x7) {
    if (bits == 4) {
      float d = dot4(lo.x(), x0, x1, 0f);
      d = dot4(lo.y(), x2, x3, d);
      d = dot4(lo.z(), x4, x5, d);
      return dot4(lo.w(), x6, x7, d);
    }
    if (bits == 8) {
      float d = dot8(lo.x(), x0, 0f);
      d = dot8(lo.y(), x1, d);
      d = dot8(lo.z(), x2, d);
      d = dot8(lo.w(), x3, d);
      d = dot8(hi.x(), x4, d);
      d = dot8(hi.y(), x5, d);
      d = dot8(hi.z(), x6, d);
      return dot8(hi.w(), x7, d);
    }
    if (bits == 2) {
      float d = dot2(lo.x(), x0, x1, x2, x3, 0f);
      return dot2(lo.y(), x4, x5, x6, x7, d);
    }
    // 3, 5, 6 bits: codes cross word boundaries; each octet from its 64-bit window.
    float d = dotOct(octet(lo, hi, bits, 0), bits, x0, x1, 0f);
    d = dotOct(octet(lo, hi, bits, 1), bits, x2, x3, d);
    d = dotOct(octet(lo, hi, bits, 2), bits, x4, x5, d);
    return dotOct(octet(lo, hi, bits, 3), bits, x6, x7, d);
  }

  /** {@code 1 + q/2^b} from mantissa bits already in place (bits 22.. down). */
  static float one(int mantissa) {
    return Float.intBitsToFloat(mantissa | 0x3F800000);
  }

  /** 8 nibbles of one word against x[0..7]: each nibble moved to mantissa bits 19..22. */
  static float dot4(int w, Float4 xa, Float4 xb, float d) {
    d = Math.fma(one((w << 19) & 0x780000), xa.x(), d);
    d = Math.fma(one((w << 15) & 0x780000), xa.y(), d);
    d = Math.fma(one((w << 11) & 0x780000), xa.z(), d);
    d = Math.fma(one((w << 7) & 0x780000), xa.w(), d);
    d = Math.fma(one((w << 3) & 0x780000), xb.x(), d);
    d = Math.fma(one((w >>> 1) & 0x780000), xb.y(), d);
    d = Math.fma(one((w >>> 5) & 0x780000), xb.z(), d);
    return Math.fma(one((w >>> 9) & 0x780000), xb.w(), d);
  }

  /** 4 bytes of one word against x[0..3]: each byte moved to mantissa bits 15..22. */
  static float dot8(int w, Float4 xa, float d) {
    d = Math.fma(one((w << 15) & 0x7F8000), xa.x(), d);
    d = Math.fma(one((w << 7) & 0x7F8000), xa.y(), d);
    d = Math.fma(one((w >>> 1) & 0x7F8000), xa.z(), d);
    return Math.fma(one((w >>> 9) & 0x7F8000), xa.w(), d);
  }

  /** 16 two-bit codes of one word against x[0..15]: each moved to mantissa bits 21..22. */
  static float dot2(int w, Float4 xa, Float4 xb, Float4 xc, Float4 xd, float d) {
    d = Math.fma(one((w << 21) & 0x600000), xa.x(), d);
    d = Math.fma(one((w << 19) & 0x600000), xa.y(), d);
    d = Math.fma(one((w << 17) & 0x600000), xa.z(), d);
    d = Math.fma(one((w << 15) & 0x600000), xa.w(), d);
    d = Math.fma(one((w << 13) & 0x600000), xb.x(), d);
    d = Math.fma(one((w << 11) & 0x600000), xb.y(), d);
    d = Math.fma(one((w << 9) & 0x600000), xb.z(), d);
    d = Math.fma(one((w << 7) & 0x600000), xb.w(), d);
    d = Math.fma(one((w << 5) & 0x600000), xc.x(), d);
    d = Math.fma(one((w << 3) & 0x600000), xc.y(), d);
    d = Math.fma(one((w << 1) & 0x600000), xc.z(), d);
    d = Math.fma(one((w >>> 1) & 0x600000), xc.w(), d);
    d = Math.fma(one((w >>> 3) & 0x600000), xd.x(), d);
    d = Math.fma(one((w >>> 5) & 0x600000), xd.y(), d);
    d = Math.fma(one((w >>> 7) & 0x600000), xd.z(), d);
    return Math.fma(one((w >>> 9) & 0x600000), xd.w(), d);
  }

  /** 8 codes of {@code bits} (3, 5, 6) from the low bits of {@code win} against x[0..7]. */
  static float dotOct(long win, int bits, Float4 xa, Float4 xb, float d) {
    int mask = (1 << bits) - 1;
    int sh = 23 - bits;
    d = Math.fma(one(((int) win & mask) << sh), xa.x(), d);
    d = Math.fma(one(((int) (win >>> bits) & mask) << sh), xa.y(), d);
    d = Math.fma(one(((int) (win >>> (2 * bits)) & mask) << sh), xa.z(), d);
    d = Math.fma(one(((int) (win >>> (3 * bits)) & mask) << sh), xa.w(), d);
    d = Math.fma(one(((int) (win >>> (4 * bits)) & mask) << sh), xb.x(), d);
    d = Math.fma(one(((int) (win >>> (5 * bits)) & mask) << sh), xb.y(), d);
    d = Math.fma(one(((int) (win >>> (6 * bits)) & mask) << sh), xb.z(), d);
    return Math.fma(one(((int) (win >>> (7 * bits)) & mask) << sh), xb.w(), d);
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.mode() != Quant.AFFINE) {
      return "affine mode only (fp modes use FpQmvKernel)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k]); transpose=false uses QvmKernel";
    }
    if (s.rows() > 65535) {
      return "at most 65535 rows (grid.y), got " + s.rows();
    }
    return null;
  }

  /**
   * {@link #WARPS} warps per block, 2 output features per warp (x is converted once for both, and
   * registers stay near 60; 4 halves the x cost again at ~70 registers, worth measuring), grid.y =
   * rows of x.
   */
  public static LaunchPlan plan(QmmShape s) {
    return plan(s, 2);
  }

  /** A plan with an explicit number of output features per warp (1, 2 or 4). */
  public static LaunchPlan plan(QmmShape s, int rowsPerWarp) {
    if (rowsPerWarp != 1 && rowsPerWarp != 2 && rowsPerWarp != 4) {
      throw new IllegalArgumentException("rowsPerWarp must be 1, 2 or 4, got " + rowsPerWarp);
    }
    int perBlock = WARPS * rowsPerWarp;
    Dim3 grid = Dim3.of((s.n() + perBlock - 1) / perBlock, s.rows());
    Dim3 block = Dim3.of(32 * WARPS);
    if (s.dtype() == Quant.F32) {
      return LaunchPlan.of(
          "AffineQmvKernel.qmvF32",
          grid,
          block,
          0,
          "bits",
          s.bits(),
          "groupSize",
          s.groupSize(),
          "rowsPerWarp",
          rowsPerWarp);
    }
    return LaunchPlan.of(
        "AffineQmvKernel.qmv",
        grid,
        block,
        0,
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "rowsPerWarp",
        rowsPerWarp);
  }
}
