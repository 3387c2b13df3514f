package sirocco.kernels.quant;

import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;

/**
 * Fragment unpacking for {@link QmmMmaKernel}: the A fragments (weights) of each quantization mode
 * and the B fragments (x) in the matching k order, as the kernel's class comment describes ("Roles
 * and fragments"). Kernel subset only (static, no allocation): the compiler inlines these.
 */
final class QmmMmaFragments {
  private QmmMmaFragments() {}

  static int wordAt(Int4 v, int i) {
    return i == 0 ? v.x() : i == 1 ? v.y() : i == 2 ? v.z() : v.w();
  }

  /** The B fragment (x) for step {@code h} of a word, in the k order of {@link #fragA}. */
  static Int2 fragB(Int4 p, int h, int bits) {
    if (bits == 4) {
      // p = (x0 x1, x2 x3, x4 x5, x6 x7); step h pairs (x_2h, x_2h+4) and (x_2h+1, x_2h+5).
      int lo = h == 0 ? p.x() : p.y();
      int hi = h == 0 ? p.z() : p.w();
      return new Int2((lo & 0xFFFF) | (hi << 16), (lo >>> 16) | (hi & 0xFFFF0000));
    }
    // p = (x0 x1, x2 x3): pairs (x0, x2) and (x1, x3).
    return new Int2((p.x() & 0xFFFF) | (p.y() << 16), (p.x() >>> 16) | (p.y() & 0xFFFF0000));
  }

  /**
   * A lane's raw x word {@code p} (8 halves, 4-bit order) as the B fragments of both its k steps:
   * step 0 in x, y and step 1 in z, w, as {@link QmmMmaSplitKKernel#mmaPair} takes them.
   */
  static Int4 fragBPair(Int4 p) {
    Int2 b0 = fragB(p, 0, 4);
    Int2 b1 = fragB(p, 1, 4);
    return new Int4(b0.x(), b0.y(), b1.x(), b1.y());
  }

  /**
   * The A fragment (weights of rows g and g+8 from their words {@code wa}, {@code wb}) for step
   * {@code h} and, for bf16 8-bit affine, digit {@code dg}. {@code ma}/{@code mb} are the fp4
   * multiplier pairs of rows g and g+8 ({@link #fp4Multiplier}; unused by the other modes).
   */
  static Int4 fragA(int wa, int wb, int h, int dg, int mode, int bits, int dtype, int ma, int mb) {
    if (mode == Quant.AFFINE) {
      if (bits == 4) {
        // The exponent bits as literals here (QmmMmaKernel); the split-K kernels pass magic4's.
        return fragA4(wa, wb, h, dtype, dtype == Quant.F16 ? 0x54005400 : 0x43004300);
      }
      if (dtype == Quant.F16) {
        return new Int4(
            (wa & 0x00FF00FF) | 0x64006400,
            (wb & 0x00FF00FF) | 0x64006400,
            ((wa >>> 8) & 0x00FF00FF) | 0x64006400,
            ((wb >>> 8) & 0x00FF00FF) | 0x64006400);
      }
      // bf16, 8 bits: low nibbles as 128 + l, high nibbles as 16 * (128 + h) = 2048 + 16 h.
      int sh = 4 * dg;
      int magic = dg == 0 ? 0x43004300 : 0x45004500;
      return new Int4(
          ((wa >>> sh) & 0x000F000F) | magic,
          ((wb >>> sh) & 0x000F000F) | magic,
          ((wa >>> (sh + 8)) & 0x000F000F) | magic,
          ((wb >>> (sh + 8)) & 0x000F000F) | magic);
    }
    if (bits == 4) {
      // Nibbles 8h and 8h + 4 of each half: one shift per word (none at h = 0), then the codes
      // at bits 0 and 4 in place.
      int va = wa >>> (8 * h);
      int vb = wb >>> (8 * h);
      return new Int4(
          fp4Pair(va, 0, ma, dtype),
          fp4Pair(vb, 0, mb, dtype),
          fp4Pair(va, 4, ma, dtype),
          fp4Pair(vb, 4, mb, dtype));
    }
    return new Int4(
        fp8Pair(wa, dtype), fp8Pair(wb, dtype), fp8Pair(wa >>> 8, dtype), fp8Pair(wb >>> 8, dtype));
  }

  /**
   * The exponent bits {@link #fragA4} or-s into each half of affine 4-bit codes (bf16: 128 + q,
   * f16: 64 + q), as a value ptxas cannot fold ({@code n >= 0} always): held in a register, {@code
   * (w & mask) | magic} is one LOP3; with both as literals ptxas emits two, since a LOP3 takes one
   * immediate (SASS of the split-K kernels, ptxas 13.0, run 93: 142 LOP3 per batch, 64 of them only
   * or-ing the literal; {@link QmvChunks#opaqueOne} is the same fix for the vector kernels).
   */
  static int magic4(int dtype, int n) {
    return (dtype == Quant.F16 ? 0x54005400 : 0x43004300) | (n >>> 31);
  }

  /**
   * The A fragment of affine 4-bit codes for step {@code h} (rows g and g+8 from words {@code wa},
   * {@code wb}), the halves {@code magic}'s power of two + q: bf16 128 + q, f16 64 + q. With {@code
   * magic} from {@link #magic4} (in a register) one LOP3 per fragment register instead of two.
   */
  static Int4 fragA4(int wa, int wb, int h, int dtype, int magic) {
    int sh = 8 * h;
    if (dtype == Quant.F16) {
      // f16: the codes go to bits 4..7 of each half's mantissa under exponent 2^6, so the halves
      // are exactly 64 + q. With bits 0..3 under 2^10 (1024 + q) the offset removed after a whole
      // group cancelled visibly on the tensor cores (run 24: 1.1-1.4x over MLX's bound at g128);
      // 64 costs the same instructions (one of the four nibble positions needs no shift).
      return new Int4(
          (nibblesAtBit4(wa, sh) & 0x00F000F0) | magic,
          (nibblesAtBit4(wb, sh) & 0x00F000F0) | magic,
          (nibblesAtBit4(wa, sh + 4) & 0x00F000F0) | magic,
          (nibblesAtBit4(wb, sh + 4) & 0x00F000F0) | magic);
    }
    return new Int4(
        ((wa >>> sh) & 0x000F000F) | magic,
        ((wb >>> sh) & 0x000F000F) | magic,
        ((wa >>> (sh + 4)) & 0x000F000F) | magic,
        ((wb >>> (sh + 4)) & 0x000F000F) | magic);
  }

  /** bf16 2^127 in both halves: a masked code at bits 4–7 (16q·2^-133) times it is q/4. */
  static final int BF16X2_2P127 = 0x7F007F00;

  /** bf16 32 in both halves: 32 + q/4 = (128 + q)/4, exact (bf16's step at 32 is 1/4). */
  static final int BF16X2_32 = 0x42004200;

  /** bf16 4 in both halves, and -0 (which keeps a zero's sign in {@code x·4 + (-0)}). */
  static final int BF16X2_4 = 0x40804080;

  static final int BF16X2_NEG0 = 0x80008000;

  /**
   * {@link #fragA4}'s bf16 fragment with a third of the shifts: registers 0 and 1 as there (codes
   * 2h, 2h+4 at bits 0–3 of each half after one shift by 8h, or-ed with 128's exponent), registers
   * 2 and 3 (codes 2h+1, 2h+5, at bits 4–7 of each half) read in place: masked, a half is the bf16
   * pattern 16q, whose value is 16q·2^-133 (the subnormals and the first binade are linear in their
   * bits), and one {@code fma.bf16x2} by 2^127 plus 32 makes it 32 + q/4 = (128 + q)/4, exactly.
   * The x they meet must be 4 times larger (B register 1 of each step, {@link #fourfoldStep1}), so
   * every product is {@link #fragA4}'s. Per word: one shift, four LOP3 and two {@code fma.bf16x2}
   * instead of three shifts and four LOP3, so the ALU pipe (16 lanes a cycle, the busier one in
   * qmm-mma-async) carries 5 of the 7 instead of all of them.
   */
  static Int4 fragA4Fma(int wa, int wb, int h, int magic) {
    int va = wa >>> (8 * h);
    int vb = wb >>> (8 * h);
    return new Int4(
        (va & 0x000F000F) | magic,
        (vb & 0x000F000F) | magic,
        inPlace(va, 0x00F000F0, BF16X2_32),
        inPlace(vb, 0x00F000F0, BF16X2_32));
  }

  /**
   * A word's B fragments (step 0 in x, y; step 1 in z, w) with register 1 of each step, the x of
   * the k slots that {@link #fragA4Fma}'s registers 2 and 3 fill, times 4 (exact: a bf16 power of
   * two; it overflows only where x ≥ 2^126, whose products (128 + q)·x overflowed float already).
   */
  static Int4 fourfoldStep1(Int4 f) {
    return new Int4(
        f.x(),
        Bf16.fma2(f.y(), BF16X2_4, BF16X2_NEG0),
        f.z(),
        Bf16.fma2(f.w(), BF16X2_4, BF16X2_NEG0));
  }

  /**
   * The A fragment of affine 2-bit codes for step {@code h} (0–3) of words {@code wa}, {@code wb}
   * (rows g and g+8): codes (2h, 2h+8) in registers 0 and 1, (2h+1, 2h+9) in 2 and 3, so each
   * register pairs a code of the word's low half with the one 16 bits above it and takes one shift
   * and one LOP3, as {@link #fragA4} does. The halves are {@code magic}'s power of two + q (bf16
   * 128 + q, f16 64 + q: for f16 the codes go to bits 4 and 5 as {@link #fragA4}'s go to 4..7,
   * keeping the offset small). {@link #fragB} with 4-bit order pairs x the same way from a slot
   * holding x of codes 4s..4s+3 and 4s+8..4s+11 ({@code QmmMmaAsyncLayout.loadXUnitSlot}).
   */
  static Int4 fragA2(int wa, int wb, int h, int dtype, int magic) {
    int p = 4 * h; // the bit of code 2h
    if (dtype == Quant.F16) {
      return new Int4(
          (nibblesAtBit4(wa, p) & 0x00300030) | magic,
          (nibblesAtBit4(wb, p) & 0x00300030) | magic,
          (nibblesAtBit4(wa, p + 2) & 0x00300030) | magic,
          (nibblesAtBit4(wb, p + 2) & 0x00300030) | magic);
    }
    return new Int4(
        ((wa >>> p) & 0x00030003) | magic,
        ((wb >>> p) & 0x00030003) | magic,
        ((wa >>> (p + 2)) & 0x00030003) | magic,
        ((wb >>> (p + 2)) & 0x00030003) | magic);
  }

  /**
   * Codes {@code mask} picks out of the low byte of each half of {@code v}, read in place: as a
   * bf16 pattern such a half is pattern·2^-133 (subnormals and the first binade are linear in their
   * bits), so one {@code fma.bf16x2} by 2^127 plus {@code addend} makes it q·2^(b-6) + addend for a
   * code q at bit b ({@link #fragA4Fma}, {@link #fragA2Fma}).
   */
  static int inPlace(int v, int mask, int addend) {
    return Bf16.fma2(v & mask, BF16X2_2P127, addend);
  }

  /** bf16 8, 16 and 128 in both halves: {@link #fragA2Fma}'s addends and x factor. */
  static final int BF16X2_8 = 0x41004100;

  static final int BF16X2_16 = 0x41804180;

  static final int BF16X2_128 = 0x43004300;

  /**
   * {@link #fragA2}'s bf16 fragment with one shift per word instead of seven. Step h's codes lie in
   * byte h / 2 of each half (one shift by 8 for steps 2 and 3), and a masked bf16 pattern of that
   * byte is linear in its bits (subnormals and the first binade: value = pattern·2^-133), so a code
   * at bit b of the byte reads in place as q·2^(b-133). Bit 0 is or-ed with 128's exponent as in
   * {@link #fragA2}; bits 2, 4 and 6 take one {@code fma.bf16x2} by 2^127 plus 8, 32 or 128, which
   * gives (128 + q)/16, (128 + q)/4 and 128 + q exactly (each sum has at most 8 significant bits).
   * The x those k slots meet is taken 16, 4 and 1 times ({@link #xFactorsTwoBitFma}), so every
   * product is {@link #fragA2}'s. Per word and its four steps: one shift, eight LOP3 and six packed
   * fmas against seven shifts and eight LOP3, so the ALU pipe carries 9 of 15 where it carried all.
   */
  static Int4 fragA2Fma(int wa, int wb, int h, int magic) {
    int va = h < 2 ? wa : wa >>> 8;
    int vb = h < 2 ? wb : wb >>> 8;
    if ((h & 1) == 0) {
      return new Int4(
          (va & 0x00030003) | magic,
          (vb & 0x00030003) | magic,
          inPlace(va, 0x000C000C, BF16X2_8),
          inPlace(vb, 0x000C000C, BF16X2_8));
    }
    return new Int4(
        inPlace(va, 0x00300030, BF16X2_32),
        inPlace(vb, 0x00300030, BF16X2_32),
        inPlace(va, 0x00C000C0, BF16X2_128),
        inPlace(vb, 0x00C000C0, BF16X2_128));
  }

  /**
   * A 2-bit slot's B fragments (step 2u in x, y; step 2u+1 in z, w) as {@link #fragA2Fma} meets
   * them: y times 16 (codes at bit 2 of their byte), z times 4 (bit 4), x and w as they are (bits 0
   * and 6). Exact as {@link #fourfoldStep1} is: a power of two, overflowing only where x ≥ 2^124,
   * whose products (128 + q)·x overflowed float already.
   */
  static Int4 xFactorsTwoBitFma(Int4 f) {
    return new Int4(
        f.x(),
        Bf16.fma2(f.y(), BF16X2_16, BF16X2_NEG0),
        Bf16.fma2(f.z(), BF16X2_4, BF16X2_NEG0),
        f.w());
  }

  /**
   * The A fragment of affine 6-bit codes for step {@code h} (0–3) of two 16-code units, rows g
   * ({@code a0..a2}) and g+8 ({@code b0..b2}): three words each, code i in bits 6i..6i+5 of the 96
   * (MLX's packing, least significant first across words). The pairs are {@link #fragA2}'s, (2h,
   * 2h+8) in registers 0 and 1 and (2h+1, 2h+9) in 2 and 3, so x is paired as at 2 bits. Code i+8
   * lies 6 bytes above code i, so a pair is one byte permute and one shift ({@link #pair6}); the
   * halves are bf16 128 + q or f16 64 + q (codes at bits 4..9), as at 2 and 4 bits.
   */
  static Int4 fragA6(int a0, int a1, int a2, int b0, int b1, int b2, int h, int dtype, int magic) {
    return new Int4(
        pair6(a0, a1, a2, 2 * h, dtype, magic),
        pair6(b0, b1, b2, 2 * h, dtype, magic),
        pair6(a0, a1, a2, 2 * h + 1, dtype, magic),
        pair6(b0, b1, b2, 2 * h + 1, dtype, magic));
  }

  /**
   * {@link #fragA6} for a 16-code unit of {@code bits} (3, 5; 6 as {@link #fragA6}) at bit 0 of
   * {@code a2:a1:a0} and {@code b2:b1:b0} (code c at bit {@code bits·c}; {@code
   * QmmMmaAsyncLayout.unitWords}): the same pairs, each one byte permute and one shift (run 109,
   * H100, 12288x4096 g64 bf16, 1 / 32 rows: 3-bit 14.53 / 30.68 → 11.23 / 24.44 µs, 5-bit 17.09 /
   * 32.66 → 14.80 / 29.08; 6-bit as {@link #pair6}).
   */
  static Int4 fragAUnit(
      int a0, int a1, int a2, int b0, int b1, int b2, int h, int bits, int dtype, int magic) {
    return new Int4(
        pairUnit(a0, a1, a2, 2 * h, bits, dtype, magic),
        pairUnit(b0, b1, b2, 2 * h, bits, dtype, magic),
        pairUnit(a0, a1, a2, 2 * h + 1, bits, dtype, magic),
        pairUnit(b0, b1, b2, 2 * h + 1, bits, dtype, magic));
  }

  /** Codes i and i+8 of a unit of {@code bits} as one fragment register ({@link #fragAUnit}). */
  static int pairUnit(int w0, int w1, int w2, int i, int bits, int dtype, int magic) {
    int at = dtype == Quant.F16 ? 4 : 0; // the code's bit in its half
    int m = (1 << bits) - 1;
    if (bits == 3) {
      // Code i+8 lies 24 bits (3 bytes) above code i, at the same bit of its byte, and both lie in
      // bytes 0-6 of w1:w0: one byte permute puts bytes j, j+1 and j+3, j+4 in the halves and one
      // shift moves both codes to their bit, in place of a shift per code and a merge.
      int j = 3 * i >> 3;
      int s = 3 * i & 7;
      return bytePair(w0, w1, j, 3, s, at, m, magic);
    }
    if (bits == 5) {
      // The same 5 bytes apart; the four bytes a pair needs lie in bytes 0-7 (w1:w0), 2-9 (the
      // two words moved down 16 bits) or 4-11 (w2:w1). Every pair takes this path, so which
      // window folds once the unit loop is unrolled (choosing per pair between this and shifts
      // per code took that loop past the JIT's unroll budget, run 109 call G).
      int j = 5 * i >> 3;
      int s = 5 * i & 7;
      int last = j + 5 + (s + 5 > 8 ? 1 : 0);
      int base = last <= 7 ? 0 : j >= 4 ? 4 : 2;
      return bytePair(
          bytesFrom(w0, w1, base), bytesFrom(w1, w2, base), j - base, 5, s, at, m, magic);
    }
    return pair6(w0, w1, w2, i, dtype, magic);
  }

  /** Codes i and i+8 of a 6-bit unit as one fragment register ({@link #fragA6}). */
  static int pair6(int w0, int w1, int w2, int i, int dtype, int magic) {
    int at = dtype == Quant.F16 ? 4 : 0; // the code's bit in its half
    // Code i at bit 6i of the unit, code i+8 six bytes above at the same bit of its byte: one byte
    // permute over the 8-byte window starting at byte max(0, last - 7) (bytes 0-7, 1-8, 2-9,
    // 3-10 or 4-11 of w2:w1:w0, the middle three the words moved down 8, 16 or 24 bits) and one
    // shift, as pairUnit does for 3- and 5-bit codes; every pair takes this path, so the window
    // folds once the unit loop is unrolled. Run 109 (H100, 12288x4096 g64 bf16): 1 / 6 / 32 rows
    // 17.70 / 17.64 / 33.60 µs to 16.96 / 17.17 / 30.90.
    int j = 6 * i >> 3;
    int s = 6 * i & 7;
    int last = j + 6 + (s + 6 > 8 ? 1 : 0);
    int base = Math.max(0, last - 7);
    return bytePair(
        bytesFrom(w0, w1, base), bytesFrom(w1, w2, base), j - base, 6, s, at, 0x3F, magic);
  }

  /** Bytes {@code o} to {@code o + 3} (o = 0..4) of {@code b:a} as one word. */
  static int bytesFrom(int a, int b, int o) {
    return o == 0 ? a : o == 4 ? b : (a >>> (8 * o)) | (b << (32 - 8 * o));
  }

  /**
   * A pair register from the 8-byte window {@code hi:lo}: the codes (mask {@code m}) at bit {@code
   * s} of window bytes {@code b} and {@code b + d}, each running into the next byte where it must,
   * moved to bit {@code at} of the low and the high half: one byte permute, one shift, one LOP3.
   * Bytes past the window are never needed (nibbles capped at 7 are masked away).
   */
  static int bytePair(int lo, int hi, int b, int d, int s, int at, int m, int magic) {
    int sel = b | Math.min(b + 1, 7) << 4 | (b + d) << 8 | Math.min(b + d + 1, 7) << 12;
    int x = Intrinsics.bytePermute(lo, hi, sel);
    x = s >= at ? x >>> (s - at) : x << (at - s);
    return (x & (m << at | m << (at + 16))) | magic;
  }

  /**
   * {@code w} shifted so that the nibbles at bits {@code p} and {@code p + 16} sit at bits 4 and 20
   * ({@code p} is a constant after inlining, so one shift or none remains).
   */
  static int nibblesAtBit4(int w, int p) {
    if (p == 4) {
      return w;
    }
    return p < 4 ? w << (4 - p) : w >>> (p - 4);
  }

  /**
   * E2M1 codes in bits {@code p}..{@code p+3} and {@code p+16}..{@code p+19} of {@code v} ({@code
   * p} = 0 or 4, a constant after inlining; other bits ignored) as a pair of exact halves: the
   * codes' values times {@code mul}'s halves over {@link #fp4Unscale}. The magnitude bits go to the
   * bottom of each half's exponent and the top of its mantissa and the sign bit to the sign, which
   * makes the half the code's value times 2^-126 (bf16) or 2^-14 (f16), the ±0.5 codes subnormal,
   * as {@link QuantMath#e2m1Bits} does in float; one packed fma (it keeps subnormals, and every
   * product is exact: at most 6 significant bits, inside the format's range) by the multiplier
   * pair. bf16 places both parts with one multiply: the masked codes times 2^(6-p) + 2^(12-p) are
   * two copies, at bits 6..9 and 12..15 of each half, which do not overlap (so the sum carries
   * nowhere), and the mask keeps the first copy's magnitude and the second's sign: a LOP3, an IMAD
   * (the FMA pipe; the ALU is the busier one) and a LOP3, 4–8% faster than two shifts and two LOP3
   * (run 105). f16's copies would overlap (shifts 9 and 12), so it keeps the shifts. Decoding each
   * code in float, multiplying and converting took about eight instructions per element.
   */
  static int fp4Pair(int v, int p, int mul, int dtype) {
    if (dtype == Quant.F16) {
      int u = p == 0 ? v : v >>> 4;
      return F16.fma2(((u << 9) & 0x0E000E00) | ((u << 12) & 0x80008000), mul, 0);
    }
    int k = p == 0 ? 0x1040 : 0x104;
    return Bf16.fma2(((v & (0x000F000F << p)) * k) & 0x81C081C0, mul, 0);
  }

  /**
   * The multiplier pair {@link #fp4Pair} takes for group scale {@code s}: {@code s} times 2^126 /
   * {@link #fp4Unscale} (bf16) or 2^14 / {@link #fp4Unscale} (f16) in both halves. mxfp4 passes 1
   * (its E8M0 scale is applied after the mma, in float); nvfp4 its E4M3 group scale, since its
   * 16-element groups are narrower than an mma's k span. With the E4M3 range [2^-9, 448] the
   * multiplier (bf16 [2^108, 2^125], f16 [2^-2, 57344]) and the fragment values (at least 2^-19 and
   * 2^-17, f16 subnormal but exact) stay inside the format.
   */
  static int fp4Multiplier(float s, int mode, int dtype) {
    // The power-of-two quotient first: s * 2^126 alone overflows float for s >= 4.
    float m = s * ((dtype == Quant.F16 ? 0x1p14f : 0x1p126f) / fp4Unscale(mode, dtype));
    int h = exactHalf(m, dtype);
    return h | (h << 16);
  }

  /** nvfp4: the {@link #fp4Multiplier} of the E4M3 group scale with code {@code code}. */
  static int nvMultiplier(int code, int dtype) {
    return fp4Multiplier(QuantMath.e4m3Decode(code & 0xFF), Quant.NVFP4, dtype);
  }

  /**
   * The power of two the kernel multiplies fp4 results by at the end: 1 for mxfp4, whose multiplier
   * is exactly 2^126 or 2^14; for nvfp4 2^9 (bf16) or 2^7 (f16), which keeps {@code s · 2^126} (up
   * to 448 · 2^126) inside bf16 and {@code s · 2^14} inside f16.
   */
  static float fp4Unscale(int mode, int dtype) {
    if (mode != Quant.NVFP4) {
      return 1f;
    }
    return dtype == Quant.F16 ? 0x1p7f : 0x1p9f;
  }

  /**
   * A lane's raw x slot {@code p} (8 halves) as the B fragments of two 8-bit words' k steps: word 0
   * (x0..x3) in x, y and word 1 (x4..x7) in z, w, each in {@link #fragB}'s 8-bit order (pairs x0,
   * x2 and x1, x3), as {@link #fragA8} builds the A side.
   */
  static Int4 fragB8Pair(Int4 p) {
    Int2 b0 = fragB(new Int4(p.x(), p.y(), 0, 0), 0, 8);
    Int2 b1 = fragB(new Int4(p.z(), p.w(), 0, 0), 0, 8);
    return new Int4(b0.x(), b0.y(), b1.x(), b1.y());
  }

  /**
   * The A fragment of one k step from E4M3 words {@code wa} (row g) and {@code wb} (row g + 8):
   * codes 0, 2 then 1, 3 of each word, in place ({@link #e4m3Pair}).
   */
  static Int4 fragA8(int wa, int wb, int dtype) {
    return new Int4(
        e4m3Pair(wa, dtype),
        e4m3Pair(wb, dtype),
        e4m3Pair(wa >>> 8, dtype),
        e4m3Pair(wb >>> 8, dtype));
  }

  /**
   * E4M3 codes in bits 0..7 and 16..23 of {@code v} (other bits ignored) as a pair of exact halves,
   * in place: the seven magnitude bits go to the bottom of each half's exponent and the top of its
   * mantissa, the sign bit to the sign, which makes the half the code's value times 2^-120 (bf16)
   * or 2^-8 (f16), subnormal codes subnormal halves; one packed fma by 2^120 or 2^8 restores it
   * (exact: four significant bits, inside the format). The NaN codes 0x7F and 0xFF come out as
   * ±480: callers flag them with {@link #e4m3NanBytes}.
   */
  static int e4m3Pair(int v, int dtype) {
    if (dtype == Quant.F16) {
      return F16.fma2(((v << 7) & 0x3F803F80) | ((v << 8) & 0x80008000), 0x5C005C00, 0);
    }
    return Bf16.fma2(((v << 4) & 0x07F007F0) | ((v << 8) & 0x80008000), 0x7B807B80, 0);
  }

  /**
   * Bit 7 of byte b set where byte b of {@code w} is an E4M3 NaN code (0x7F or 0xFF), the other
   * bits of each byte garbage: or these over words and test {@code & 0x80808080}. Each masked byte
   * is at most 0x7F, so the add carries out of no byte.
   */
  static int e4m3NanBytes(int w) {
    return (w & 0x7F7F7F7F) + 0x01010101;
  }

  /** E4M3 codes in bits 0..7 and 16..23 as a pair of exact halves. */
  static int fp8Pair(int v, int dtype) {
    return exactHalf(QuantMath.e4m3Decode(v & 0xFF), dtype)
        | (exactHalf(QuantMath.e4m3Decode((v >>> 16) & 0xFF), dtype) << 16);
  }

  /** bf16/f16 bits of a value known to be exact in the dtype (low 16 bits). */
  static int exactHalf(float v, int dtype) {
    if (dtype == Quant.F16) {
      return Float.floatToFloat16(v) & 0xFFFF;
    }
    return Float.floatToRawIntBits(v) >>> 16;
  }

  /** All-ones A fragment: the mma then sums x over its 16 k per row of x. */
  static Int4 onesFragment(int dtype) {
    int one = dtype == Quant.F16 ? 0x3C003C00 : 0x3F803F80;
    return new Int4(one, one, one, one);
  }

  /** The constant the magic unpacking adds to every code (sum over the chunk: offset * X). */
  static float affineOffset(int bits, int dtype) {
    if (dtype == Quant.F16) {
      return bits == 8 ? 1024f : 64f;
    }
    return bits == 8 ? 2176f : 128f;
  }
}
