package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * Pieces shared by the chunked affine qmv variants ({@link AffineQmvWarpKernel}, {@link
 * AffineQmvPersistentKernel}, {@link AffineQmvSplitKKernel}). All are kernel-subset code (static,
 * inlined by the compiler); every {@code bits}/{@code rows}/{@code dtype} argument is a
 * specialization constant at the call sites, so the branches on them fold away and the loops over
 * slots unroll.
 *
 * <h2>Chunks</h2>
 *
 * A <em>chunk</em> is 16 bytes of one packed weight row: 4 u32 words, {@code E = 128/bits} codes
 * (32 at 4 bits, 16 at 8, 64 at 2), always inside one quantization group when {@code E <=
 * groupSize}. It is read with one {@code ld.global.nc.v4.u32}. Its x values are {@code E} floats =
 * {@code E/4} float4 <em>slots</em>.
 *
 * <h2>Padded shared layout of x</h2>
 *
 * x is staged in shared memory as float32, chunk by chunk, with a stride of {@code E + 4} floats
 * per chunk (36 at 4 bits, 20 at 8, 68 at 2). When the 32 lanes of a warp read slot {@code i} of
 * chunks {@code c0 .. c0+31} (one chunk per lane) with 16-byte loads, the 8 lanes of each
 * quarter-warp hit 16-byte bank groups {@code (c * (E+4)/4 + i) mod 8}, which are distinct for 8
 * consecutive chunks because {@code (E+4)/4} is odd: no bank conflicts, and every address is one
 * base register plus a constant.
 *
 * <h2>Arithmetic</h2>
 *
 * A code q becomes the float {@code 1 + q/2^b} by moving its bits to the top of the mantissa of 1.0
 * (shift + lop3, no int-to-float conversion); {@code d = sum (1 + q/2^b) x} over a chunk, and with
 * the chunk's x sum {@code xs} (computed once when x is staged) the chunk contributes {@code scale
 * * sum q x + bias * xs = S*d + (bias - S)*xs}, {@code S = scale * 2^b}: 3 instructions per weight
 * element (shift, lop3, FFMA) plus 2 FMAs per chunk.
 */
final class QmvChunks {
  private QmvChunks() {}

  /** log2 of a power of two up to 2^8 (folds for constants). */
  static int log2(int v) {
    return v == 1
        ? 0
        : v == 2
            ? 1
            : v == 4 ? 2 : v == 8 ? 3 : v == 16 ? 4 : v == 32 ? 5 : v == 64 ? 6 : v == 128 ? 7 : 8;
  }

  /** Codes (and x elements) per 16-byte chunk. */
  static int elems(int bits) {
    return 128 / bits;
  }

  /** Floats per chunk in the padded shared layout of x. */
  static int stride(int bits) {
    return 128 / bits + 4;
  }

  /** {@code 1 + m/2^23} for mantissa bits {@code m}. */
  static float one(int mantissa) {
    return Float.intBitsToFloat(mantissa | 0x3F800000);
  }

  /**
   * Code {@code p} (0-based, LSB first) of word {@code w} as {@code 1 + q/2^bits}; {@code one} must
   * hold {@link #ONE} (see there). Only left shifts: codes above bit 23 - bits come from {@code w
   * >>> 16} (one shift per word, shared by CSE), so ptxas can use IMAD.SHL (FMA pipe) for every
   * per-code shift and keep the half-rate ALU pipe for the one LOP3.
   */
  static float code(int w, int p, int bits, int one) {
    int sh = 23 - bits - bits * p;
    int mask = ((1 << bits) - 1) << (23 - bits);
    int moved = sh >= 0 ? w << sh : (w >>> 16) << (sh + 16);
    return Float.intBitsToFloat((moved & mask) | one);
  }

  /** The bits of 1.0f. */
  static final int ONE = 0x3F800000;

  /**
   * {@link #ONE} as a value ptxas cannot fold ({@code n > 0} always): with the constant in a
   * register, {@code (moved & mask) | one} is one LOP3 instead of two (a LOP3 takes one immediate).
   * Measured with ptxas 13.0 on sm_90: two LOP3.LUT per code with the literal.
   */
  static int opaqueOne(int n) {
    return ONE | (n >>> 31);
  }

  static int wordAt(Int4 v, int i) {
    return i == 0 ? v.x() : i == 1 ? v.y() : i == 2 ? v.z() : v.w();
  }

  /**
   * Codes {@code p .. p+3} of word {@code w} against one float4 of x per row: component r of {@code
   * d} accumulates row r ({@code rows} of 1–4; the codes are extracted once for all rows).
   */
  static Float4 slot(
      int w,
      int p,
      int bits,
      int one,
      int rows,
      Float4 x0,
      Float4 x1,
      Float4 x2,
      Float4 x3,
      Float4 d) {
    float v0 = code(w, p, bits, one);
    float v1 = code(w, p + 1, bits, one);
    float v2 = code(w, p + 2, bits, one);
    float v3 = code(w, p + 3, bits, one);
    float a = d.x();
    a = Math.fma(v0, x0.x(), a);
    a = Math.fma(v1, x0.y(), a);
    a = Math.fma(v2, x0.z(), a);
    a = Math.fma(v3, x0.w(), a);
    float b = d.y();
    float c = d.z();
    float e = d.w();
    if (rows > 1) {
      b = Math.fma(v0, x1.x(), b);
      b = Math.fma(v1, x1.y(), b);
      b = Math.fma(v2, x1.z(), b);
      b = Math.fma(v3, x1.w(), b);
    }
    if (rows > 2) {
      c = Math.fma(v0, x2.x(), c);
      c = Math.fma(v1, x2.y(), c);
      c = Math.fma(v2, x2.z(), c);
      c = Math.fma(v3, x2.w(), c);
    }
    if (rows > 3) {
      e = Math.fma(v0, x3.x(), e);
      e = Math.fma(v1, x3.y(), e);
      e = Math.fma(v2, x3.z(), e);
      e = Math.fma(v3, x3.w(), e);
    }
    return new Float4(a, b, c, e);
  }

  /**
   * {@code d[r] += sum (1 + q/2^b) x[r]} over one chunk whose words are {@code w}, with row r's x
   * at {@code xsh[off + r*rowStride ...]} (padded layout, {@code E} consecutive floats).
   */
  static Float4 dotChunk(
      Int4 w, float[] xsh, int off, int rowStride, int bits, int one, int rows, Float4 d) {
    int slots = 32 / bits;
    int perWord = slots / 4;
    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    for (int i = 0; i < slots; i++) {
      Float4 x0 = Vec.load4(xsh, off + 4 * i);
      Float4 x1 = zero;
      Float4 x2 = zero;
      Float4 x3 = zero;
      if (rows > 1) {
        x1 = Vec.load4(xsh, off + rowStride + 4 * i);
      }
      if (rows > 2) {
        x2 = Vec.load4(xsh, off + 2 * rowStride + 4 * i);
      }
      if (rows > 3) {
        x3 = Vec.load4(xsh, off + 3 * rowStride + 4 * i);
      }
      d = slot(wordAt(w, i / perWord), (i % perWord) * 4, bits, one, rows, x0, x1, x2, x3, d);
    }
    return d;
  }

  /** {@code acc + scale * sum(q x) + bias * xs} from {@code d = sum((1 + q/2^b) x)}. */
  static float fold(float acc, float d, float xs, float scale, float bias, int bits) {
    float s = scale * (float) (1 << bits);
    return Math.fma(s, d, Math.fma(bias - s, xs, acc));
  }

  /** Component r of v. */
  static float comp(Float4 v, int r) {
    return r == 0 ? v.x() : r == 1 ? v.y() : r == 2 ? v.z() : v.w();
  }

  /**
   * Converts the 16 x values at {@code x[src ..]} (bf16/f16) to floats at {@code xsh[dst ..]} and
   * returns their float32 sum (pairs, then left to right). Staging works in 16-element pieces (two
   * 16-byte loads per thread) so that few registers are live while the weight loads are in flight.
   */
  static float stage16(short[] x, int src, float[] xsh, int dst, int dtype) {
    Int4 p = Vec.ldg4(x, src);
    Int4 q = Vec.ldg4(x, src + 8);
    Float4 a = lo4(p, dtype);
    Float4 b = hi4(p, dtype);
    Float4 c = lo4(q, dtype);
    Float4 d = hi4(q, dtype);
    Vec.store4(xsh, dst, a);
    Vec.store4(xsh, dst + 4, b);
    Vec.store4(xsh, dst + 8, c);
    Vec.store4(xsh, dst + 12, d);
    return (((a.x() + a.y()) + (a.z() + a.w())) + ((b.x() + b.y()) + (b.z() + b.w())))
        + (((c.x() + c.y()) + (c.z() + c.w())) + ((d.x() + d.y()) + (d.z() + d.w())));
  }

  /**
   * Stages x for one tile: rows {@code m0 .. m0+rows-1} (those below {@code m}), chunks {@code t0
   * .. t0+tileChunks-1} (those below {@code chunks}), padded layout ({@code rowStride} floats per
   * row, {@link #stride} per chunk), and the sum of every 16-element piece at {@code xpart[(r *
   * tileChunks + cc) * E/16 + h]}. Threads {@code tid, tid + threads, ...} take one piece each.
   */
  static void stageTile(
      short[] x,
      float[] xsh,
      float[] xpart,
      int tid,
      int threads,
      int m0,
      int m,
      int k,
      int t0,
      int chunks,
      int tileChunks,
      int rowStride,
      int bits,
      int rows,
      int dtype) {
    int ppc = 8 / bits; // 16-element pieces per chunk (4-bit: 2, 8-bit: 1, 2-bit: 4)
    int e = 128 / bits;
    int cs = e + 4;
    for (int task = tid; task < rows * tileChunks * ppc; task += threads) {
      int r = task / (tileChunks * ppc);
      int rest = task - r * (tileChunks * ppc);
      int cc = rest / ppc;
      int h = rest - cc * ppc;
      int row = m0 + r;
      if (row < m && t0 + cc < chunks) {
        xpart[task] =
            stage16(
                x, row * k + (t0 + cc) * e + 16 * h, xsh, r * rowStride + cc * cs + 16 * h, dtype);
      }
    }
  }

  /** The x sum of chunk {@code cc} of staged row {@code r} (its pieces added in order). */
  static float chunkSum(float[] xpart, int index, int bits) {
    if (bits == 8) {
      return xpart[index];
    }
    if (bits == 4) {
      return xpart[index] + xpart[index + 1];
    }
    Float4 p = Vec.load4(xpart, index);
    return (p.x() + p.y()) + (p.z() + p.w());
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

  static float warpSum(KernelContext ctx, float v) {
    v += ctx.shuffleXor(v, 16);
    v += ctx.shuffleXor(v, 8);
    v += ctx.shuffleXor(v, 4);
    v += ctx.shuffleXor(v, 2);
    v += ctx.shuffleXor(v, 1);
    return v;
  }

  /** Common rejection for the chunked variants (affine, transposed, bf16/f16, bits 2/4/8). */
  static String basicRejection(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.mode() != Quant.AFFINE) {
      return "affine mode only (fp modes use FpQmvKernel)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k])";
    }
    if (s.dtype() != Quant.BF16 && s.dtype() != Quant.F16) {
      return "bf16/f16 activations only (f32 x: AffineQmvRowsKernel from 2 rows, else AffineQmvKernel.qmvF32)";
    }
    if (s.bits() != 2 && s.bits() != 4 && s.bits() != 8) {
      return "bits 2, 4 or 8 only (16-byte chunks of whole codes); "
          + s.bits()
          + "-bit: AffineQmvRowsKernel from 2 rows, else AffineQmvKernel";
    }
    int e = elems(s.bits());
    if (s.groupSize() < e) {
      return "a 16-byte chunk ("
          + e
          + " codes) must lie in one group, got groupSize "
          + s.groupSize();
    }
    if (s.k() % e != 0) {
      return "k must be a multiple of " + e + " (whole 16-byte chunks per row), got " + s.k();
    }
    return null;
  }
}
