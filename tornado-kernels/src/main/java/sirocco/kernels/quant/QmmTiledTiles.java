package sirocco.kernels.quant;

import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
import sirocco.api.Vec;

/**
 * The tile traffic of {@link QmmTiledKernel}: each k step's global loads of x, the packed weights
 * and their scales and biases, and the stores of x and of the dequantized weights into the
 * shared-memory tiles (swizzled rows of 32 ints; see the kernel's class comment).
 */
final class QmmTiledTiles {
  private QmmTiledTiles() {}

  /**
   * Where x chunk {@code i} of a step (tile row i / 8, 16-byte chunk i % 8) starts in x at k = 0;
   * -1 past the tile. Rows past the end of x are clamped to the last row ({@code clamp}) or also
   * -1: they are never copied and their tile rows keep whatever they held, which only reaches their
   * own output rows, never stored (an mma's output column depends on its own B column only). The
   * register path clamps (one predicate-free load); the cp.async path skips them, since copying the
   * same 16 bytes from every clamped row was measured slow (run 63, 64 rows).
   */
  static int xAt(int i, int bm, int rBlock, int rows, int k, boolean clamp) {
    if (i >= bm * 8) {
      return -1;
    }
    int row = rBlock + (i >> 3);
    if (row >= rows) {
      if (!clamp) {
        return -1;
      }
      row = rows - 1;
    }
    return row * k + 8 * (i & 7);
  }

  /**
   * The x chunk starting at {@code xg} (from {@link #xAt}) of the step at {@code k0}: with {@code
   * xAsync = 0} loaded into registers (zeros past the tile; {@code full}, every slot in the tile
   * and known after specialization, removes the check) for {@link #storeX} to store; with {@code
   * xAsync = 1} copied by {@code cp.async} straight to half {@code at} of the x tile, no register
   * held (the caller commits and waits), returning zeros.
   */
  static Int4 fetchX(short[] x, short[] xs, int at, int xg, int k0, boolean full, int xAsync) {
    if ((!full || xAsync == 1) && xg < 0) {
      return new Int4(0, 0, 0, 0);
    }
    if (xAsync == 1) {
      Vec.copyAsync(xs, at, x, xg + k0, 16);
      return new Int4(0, 0, 0, 0);
    }
    return Vec.ldg4(x, xg + k0);
  }

  /**
   * Where x chunk {@code tid + s * threads} goes in a tile slot, in ints (row r at int 32 r, chunk
   * c at position {@code c ^ (r & 7)}). When {@code threads} is a multiple of 64 every slot's row
   * has the same {@code r & 7}, so the slots lie a constant {@code 4 * threads} ints apart: an
   * immediate offset in the store instead of a recomputed swizzle.
   */
  static int xSharedAt(int tid, int s, int threads) {
    if (threads % 64 == 0) {
      return xShared(tid) + s * 4 * threads;
    }
    return xShared(tid + s * threads);
  }

  private static int xShared(int i) {
    int row = i >> 3;
    return row * 32 + (((i & 7) ^ (row & 7)) << 2);
  }

  /** Stores a chunk {@link #fetchX} loaded into registers at half {@code at} of the x tile. */
  static void storeX(short[] xs, int at, int xg, boolean full, int xAsync, Int4 v) {
    if (xAsync == 0 && (full || xg >= 0)) {
      Vec.store4(xs, at, v);
    }
  }

  /**
   * Where weight chunk {@code i} (4 words: 32 codes at 4 bits, 16 at 8; feature {@code i / cpf},
   * chunk {@code i % cpf} of its 64 codes per step) starts in wq at k = 0; -1 past the tile.
   */
  static int wAt(int i, int bn, int bits, int fBlock, int wpr) {
    int cpf = bits / 2;
    if (i >= bn * cpf) {
      return -1;
    }
    return (fBlock + i / cpf) * wpr + 4 * (i % cpf);
  }

  /**
   * The weight chunk at {@code at} (from {@link #wAt}), {@code w0} words on; zeros past the tile.
   */
  static Int4 loadW(int[] wq, int at, int w0) {
    if (at < 0) {
      return new Int4(0, 0, 0, 0);
    }
    return Vec.ldg4(wq, at + w0);
  }

  /** Where the scales (and biases) of weight chunk {@code i}'s feature start; -1 past the tile. */
  static int sAt(int i, int bn, int bits, int fBlock, int groups) {
    int cpf = bits / 2;
    if (i >= bn * cpf) {
      return -1;
    }
    return (fBlock + i / cpf) * groups;
  }

  /**
   * The bits of the scale or bias of weight chunk {@code i} (a chunk lies inside one group: g >=
   * 32) at step {@code k0}, zero-extended; {@code at} from {@link #sAt}.
   */
  static int loadHalf(short[] a, int at, int i, int bits, int k0, int groupSize) {
    if (at < 0) {
      return 0;
    }
    int kc = k0 + (i % (bits / 2)) * (128 / bits);
    return Vec.ldg(a, at + kc / groupSize) & 0xFFFF;
  }

  /**
   * Dequantizes weight chunk {@code i} into its tile row: 4 (4-bit) or 2 (8-bit) 16-byte stores.
   * {@code s}, {@code b}: the chunk's scale and bias bits.
   */
  static void storeW(int[] ws, int slot, int i, int bn, int bits, int dtype, Int4 w, int s, int b) {
    int cpf = bits / 2;
    if (i < bn * cpf) {
      int f = i / cpf;
      int ch = i % cpf;
      int sw = f & 7;
      int base = slot + f * 32;
      if (bits == 4) {
        // Word j holds 8 codes: one 16-byte chunk of halves, chunk 4ch + j of the row.
        int s2 = s * 0x10001;
        int b2 = b * 0x10001;
        Vec.store4(ws, base + (((4 * ch) ^ sw) << 2), deq4(w.x(), s2, b2, dtype));
        Vec.store4(ws, base + (((4 * ch + 1) ^ sw) << 2), deq4(w.y(), s2, b2, dtype));
        Vec.store4(ws, base + (((4 * ch + 2) ^ sw) << 2), deq4(w.z(), s2, b2, dtype));
        Vec.store4(ws, base + (((4 * ch + 3) ^ sw) << 2), deq4(w.w(), s2, b2, dtype));
      } else {
        // Two words hold 8 codes: chunks 2ch and 2ch + 1 of the row.
        Vec.store4(ws, base + (((2 * ch) ^ sw) << 2), deq8(w.x(), w.y(), s, b, dtype));
        Vec.store4(ws, base + (((2 * ch + 1) ^ sw) << 2), deq8(w.z(), w.w(), s, b, dtype));
      }
    }
  }

  /**
   * The 8 nibbles of a word (LSB first) dequantized to 4 pairs of halves; {@code s2}, {@code b2}:
   * the scale and the bias in both halves. Pair p holds nibbles 2p (low half) and 2p + 1.
   */
  static Int4 deq4(int w, int s2, int b2, int dtype) {
    // Byte p of w into the low half and byte p of w >>> 4 into the high one (one prmt each), the
    // mask keeping nibble 2p below and 2p + 1 above: two instructions a pair, where shifting and
    // masking each byte into place took about four. The 256-row loop's dequantization went from
    // 137 to 113 SASS instructions; H100 (run 109 call F, g64 bf16), 128 / 256 / 512 rows:
    // 63.1–63.5 / 93.0–93.5 / 184.3–185.3 µs to 62.0–62.4 / 92.0–92.3 / 180.4–181.7.
    int o = w >>> 4;
    return new Int4(
        pairFma(Intrinsics.bytePermute(w, o, 0x4400) & 0x000F000F, s2, b2, dtype),
        pairFma(Intrinsics.bytePermute(w, o, 0x5511) & 0x000F000F, s2, b2, dtype),
        pairFma(Intrinsics.bytePermute(w, o, 0x6622) & 0x000F000F, s2, b2, dtype),
        pairFma(Intrinsics.bytePermute(w, o, 0x7733) & 0x000F000F, s2, b2, dtype));
  }

  /**
   * {@code q * s + b} of a pair of codes below 256 ({@code q2}: one per 16-bit half), each rounded
   * once to the dtype, in two packed-pair fmas and no conversion: or-ing the codes into the
   * mantissa of a power of two {@code P} makes the exact halves {@code P + q} (P = 1024 for f16, 10
   * mantissa bits; 128 for bf16, 7 bits, so codes below 128 only: 4-bit), the first fma takes
   * {@code P} away exactly, the second is the dequantization with a single rounding.
   */
  static int pairFma(int q2, int s2, int b2, int dtype) {
    if (dtype == Quant.F16) {
      return F16.fma2(F16.fma2(q2 | 0x64006400, 0x3C003C00, 0xE400E400), s2, b2);
    }
    return Bf16.fma2(Bf16.fma2(q2 | 0x43004300, 0x3F803F80, 0xC300C300), s2, b2);
  }

  /**
   * The 8 bytes of two words (LSB first) dequantized to 4 pairs of halves. f16 holds the codes
   * exactly ({@link #pairFma}); bf16 has 7 mantissa bits, so each code goes through float.
   */
  static Int4 deq8(int w0, int w1, int s, int b, int dtype) {
    if (dtype == Quant.F16) {
      int s2 = s * 0x10001;
      int b2 = b * 0x10001;
      return new Int4(
          pairFma((w0 & 0xFF) | ((w0 << 8) & 0xFF0000), s2, b2, dtype),
          pairFma(((w0 >>> 16) & 0xFF) | ((w0 >>> 8) & 0xFF0000), s2, b2, dtype),
          pairFma((w1 & 0xFF) | ((w1 << 8) & 0xFF0000), s2, b2, dtype),
          pairFma(((w1 >>> 16) & 0xFF) | ((w1 >>> 8) & 0xFF0000), s2, b2, dtype));
    }
    float sf = Bf16.toFloat((short) s);
    float bf = Bf16.toFloat((short) b);
    return new Int4(
        pair(w0 & 0xFF, (w0 >>> 8) & 0xFF, sf, bf),
        pair((w0 >>> 16) & 0xFF, w0 >>> 24, sf, bf),
        pair(w1 & 0xFF, (w1 >>> 8) & 0xFF, sf, bf),
        pair((w1 >>> 16) & 0xFF, w1 >>> 24, sf, bf));
  }

  /**
   * {@code q * s + b} of two codes in float, each rounded once to bf16, low code in the low half.
   */
  static int pair(int qLo, int qHi, float s, float b) {
    return Bf16.pack(Math.fma(code(qLo), s, b), Math.fma(code(qHi), s, b));
  }

  /** A code (< 2^23) as a float without a conversion instruction: 2^23 + q, exact, minus 2^23. */
  static float code(int q) {
    return Float.intBitsToFloat(0x4B000000 | q) - 8388608f;
  }
}
