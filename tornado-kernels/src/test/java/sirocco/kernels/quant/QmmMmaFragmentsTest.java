package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The in-place E2M1 pairs of {@link QmmMmaFragments#fp4Pair}: every code in either half, with the
 * other bits of the word random (the kernel passes whole words shifted), times every multiplier the
 * kernel forms (mxfp4's constant, nvfp4's for every finite E4M3 scale), against the code values
 * written from the E2M1 definition, computed in double; and the E4M3 pairs of {@link
 * QmmMmaFragments#e4m3Pair} likewise.
 */
class QmmMmaFragmentsTest {
  /** E2M1 magnitudes by the low three bits: exponent bits 1-2, mantissa bit 0, bias 1. */
  private static final double[] E2M1 = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

  private static double e2m1(int code) {
    double m = E2M1[code & 7];
    return (code & 8) != 0 ? -m : m;
  }

  /** The E4M3 value of a code (bias 7, subnormals m·2^-9, 0x7F/0xFF NaN), from the definition. */
  private static double e4m3(int code) {
    int e = (code >>> 3) & 0xF;
    int m = code & 7;
    double v = e == 0 ? m * Math.pow(2, -9) : (1 + m / 8.0) * Math.pow(2, e - 7);
    return (code & 0x80) != 0 ? -v : v;
  }

  private static double half(int h, int dtype) {
    return dtype == Quant.F16 ? Float.float16ToFloat((short) h) : Float.intBitsToFloat(h << 16);
  }

  private static void check(int mode, int dtype, double scale, int mul, Random r) {
    double unscale = QmmMmaFragments.fp4Unscale(mode, dtype);
    for (int at4 : new int[] {0, 4}) { // the codes at bits 0 and 16, or 4 and 20
      for (int lo = 0; lo < 16; lo++) {
        for (int hi = 0; hi < 16; hi++) {
          int junk = r.nextInt() & ~(0x000F000F << at4);
          int v = junk | ((lo | (hi << 16)) << at4);
          int p = QmmMmaFragments.fp4Pair(v, at4, mul, dtype);
          String at =
              "mode " + mode + " dtype " + dtype + " scale " + scale + " bit " + at4 + " codes "
                  + lo + "," + hi;
          // The kernel multiplies its sums by unscale at the end: each half is value * scale /
          // unscale.
          assertEquals(e2m1(lo) * scale, half(p & 0xFFFF, dtype) * unscale, 0.0, at + " (low)");
          assertEquals(e2m1(hi) * scale, half(p >>> 16, dtype) * unscale, 0.0, at + " (high)");
        }
      }
    }
  }

  @Test
  void mxfp4PairsAreExactCodeValues() {
    Random r = new Random(7);
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      assertEquals(1f, QmmMmaFragments.fp4Unscale(Quant.MXFP4, dtype));
      check(Quant.MXFP4, dtype, 1, QmmMmaFragments.fp4Multiplier(1f, Quant.MXFP4, dtype), r);
    }
  }

  @Test
  void nvfp4PairsCarryEveryE4m3Scale() {
    Random r = new Random(11);
    int checked = 0;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int code = 0; code < 256; code++) {
        if ((code & 0x7F) == 0x7F) {
          continue; // NaN scales: no value to compare
        }
        double s = e4m3(code);
        assertEquals(s, QuantMath.e4m3Decode(code), 0.0, "E4M3 decode of " + code);
        int mul = QmmMmaFragments.fp4Multiplier(QuantMath.e4m3Decode(code), Quant.NVFP4, dtype);
        check(Quant.NVFP4, dtype, s, mul, r);
        checked++;
      }
    }
    assertEquals(2 * 254, checked);
  }

  /**
   * The in-place E4M3 pairs of {@link QmmMmaFragments#e4m3Pair}: every pair of codes in bytes 0 and
   * 2 (bytes 1 and 3 random, as the kernel passes whole words and words shifted by 8) against the
   * E4M3 definition in double; the NaN codes come out as ±480 and {@link
   * QmmMmaFragments#e4m3NanBytes} flags exactly the bytes that hold them.
   */
  @Test
  void e4m3PairsAreExactCodeValuesAndNanCodesAreFlagged() {
    Random r = new Random(13);
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int lo = 0; lo < 256; lo++) {
        for (int hi = 0; hi < 256; hi++) {
          int v = (r.nextInt() & 0xFF00FF00) | lo | (hi << 16);
          int p = QmmMmaFragments.e4m3Pair(v, dtype);
          String at = "dtype " + dtype + " codes " + lo + "," + hi;
          double wantLo = (lo & 0x7F) == 0x7F ? ((lo & 0x80) != 0 ? -480 : 480) : e4m3(lo);
          double wantHi = (hi & 0x7F) == 0x7F ? ((hi & 0x80) != 0 ? -480 : 480) : e4m3(hi);
          assertEquals(wantLo, half(p & 0xFFFF, dtype), 0.0, at + " (low)");
          assertEquals(wantHi, half(p >>> 16, dtype), 0.0, at + " (high)");
        }
      }
    }
    for (int i = 0; i < 4096; i++) {
      int w = r.nextInt();
      int flags = QmmMmaFragments.e4m3NanBytes(w);
      for (int b = 0; b < 4; b++) {
        boolean nan = ((w >>> (8 * b)) & 0x7F) == 0x7F;
        assertEquals(nan, ((flags >>> (8 * b + 7)) & 1) != 0, "word " + w + " byte " + b);
      }
      int nanWord = w | 0x7F << (8 * (i & 3)); // one NaN code at least
      assertTrue((QmmMmaFragments.e4m3NanBytes(nanWord) & 0x80808080) != 0, "word " + nanWord);
    }
  }

  @Test
  void nvfp4KeepsTheLargestScaleFinite() {
    // 448 * 2^126 overflows float and bf16; the multiplier must not.
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      int mul = QmmMmaFragments.fp4Multiplier(448f, Quant.NVFP4, dtype);
      assertTrue(Double.isFinite(half(mul & 0xFFFF, dtype)), "dtype " + dtype);
      assertEquals(mul & 0xFFFF, mul >>> 16, "both halves");
    }
  }

  /**
   * {@link QmmMmaFragments#fragA2}: for random words, every step's four registers hold the offset
   * plus the 2-bit codes the kernel's k order assigns them (registers 0/1: codes 2h and 2h+8 of
   * rows g and g+8, registers 2/3: 2h+1 and 2h+9), the codes read from the words by their
   * definition (code i in bits 2i, 2i+1).
   */
  @Test
  void twoBitFragmentsHoldOffsetPlusCode() {
    Random r = new Random(5);
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      int magic = QmmMmaFragments.magic4(dtype, 12288);
      double offset = QmmMmaFragments.affineOffset(2, dtype);
      for (int trial = 0; trial < 200; trial++) {
        int wa = r.nextInt();
        int wb = r.nextInt();
        for (int h = 0; h < 4; h++) {
          sirocco.api.Int4 f = QmmMmaFragments.fragA2(wa, wb, h, dtype, magic);
          assertUnitPairs(f, h, dtype, offset, (row, c) -> ((row == 0 ? wa : wb) >>> (2 * c)) & 3);
        }
      }
    }
  }

  /**
   * {@link QmmMmaFragments#fragA6}: for random units of three words per row, every step's registers
   * hold the offset plus codes (2h, 2h+8) and (2h+1, 2h+9), each code read from the 96 bits by its
   * definition (code i in bits 6i..6i+5, least significant first across the words).
   */
  @Test
  void sixBitFragmentsHoldOffsetPlusCode() {
    Random r = new Random(6);
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      int magic = QmmMmaFragments.magic4(dtype, 12288);
      double offset = QmmMmaFragments.affineOffset(6, dtype);
      for (int trial = 0; trial < 200; trial++) {
        int[] a = {r.nextInt(), r.nextInt(), r.nextInt()};
        int[] b = {r.nextInt(), r.nextInt(), r.nextInt()};
        for (int h = 0; h < 4; h++) {
          sirocco.api.Int4 f =
              QmmMmaFragments.fragA6(a[0], a[1], a[2], b[0], b[1], b[2], h, dtype, magic);
          assertUnitPairs(f, h, dtype, offset, (row, c) -> code6(row == 0 ? a : b, c));
        }
      }
    }
  }

  /**
   * 3- and 5-bit units: a row of random words holding codes at bit {@code bits·c}, each 16-code
   * unit read from the word it starts in and the next ones by {@code QmmMmaAsyncLayout.unitWords}
   * (moved down 16 bits where it starts mid-word), then {@link QmmMmaFragments#fragAUnit}: every
   * step's registers hold the offset plus {@link #assertUnitPairs}'s codes, read from the row by
   * the packing's definition (code c of the row in bits {@code bits·c} onwards, least significant
   * first across words). 6-bit through {@link QmmMmaFragments#fragAUnit} the same.
   */
  @Test
  void halfWordUnitFragmentsHoldOffsetPlusCode() {
    Random r = new Random(11);
    for (int bits : new int[] {3, 5, 6}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        int magic = QmmMmaFragments.magic4(dtype, 12288);
        double offset = QmmMmaFragments.affineOffset(bits, dtype);
        for (int trial = 0; trial < 100; trial++) {
          // Two rows (g and g+8) of 8 units each, plus a word so the last unit's reads stay inside.
          int words = 8 * 16 * bits / 32 + 1;
          int[] ra = new int[words];
          int[] rb = new int[words];
          for (int w = 0; w < words; w++) {
            ra[w] = r.nextInt();
            rb[w] = r.nextInt();
          }
          for (int unit = 0; unit < 8; unit++) {
            int hw = bits * unit; // the unit's first half-word
            int at = hw / 2;
            int odd = hw % 2;
            sirocco.api.Int4 ua =
                QmmMmaAsyncLayout.unitWords(
                    ra[at], ra[at + 1], ra[at + 2 < words ? at + 2 : at], odd);
            sirocco.api.Int4 ub =
                QmmMmaAsyncLayout.unitWords(
                    rb[at], rb[at + 1], rb[at + 2 < words ? at + 2 : at], odd);
            if (bits == 6) {
              // 6-bit units are word-aligned: three whole words.
              ua = new sirocco.api.Int4(ra[at], ra[at + 1], ra[at + 2], 0);
              ub = new sirocco.api.Int4(rb[at], rb[at + 1], rb[at + 2], 0);
            }
            int first = 16 * unit;
            for (int h = 0; h < 4; h++) {
              sirocco.api.Int4 f =
                  QmmMmaFragments.fragAUnit(
                      ua.x(), ua.y(), ua.z(), ub.x(), ub.y(), ub.z(), h, bits, dtype, magic);
              assertUnitPairs(
                  f, h, dtype, offset, (row, c) -> rowCode(row == 0 ? ra : rb, first + c, bits));
            }
          }
        }
      }
    }
  }

  /** Code {@code c} of a row of {@code bits}-wide codes packed least significant first. */
  private static int rowCode(int[] w, int c, int bits) {
    long bit = (long) bits * c;
    int at = (int) (bit / 32);
    long window = (w[at] & 0xFFFFFFFFL) | (at + 1 < w.length ? (long) w[at + 1] << 32 : 0);
    return (int) ((window >>> (bit % 32)) & ((1 << bits) - 1));
  }

  /**
   * {@link QmmMmaFragments#fragA4Fma}: for random words and every code value in the in-place
   * positions, registers 0/1 (rows g, g+8) hold 128 + codes (2h, 2h+4) and registers 2/3 hold (128
   * + codes (2h+1, 2h+5)) / 4, each code read by the packing's definition (code i in bits
   * 4i..4i+3).
   */
  @Test
  void fourBitFmaFragmentsHoldOffsetPlusCodeWithStep1Quartered() {
    Random r = new Random(7);
    int magic = QmmMmaFragments.magic4(Quant.BF16, 12288);
    for (int trial = 0; trial < 400; trial++) {
      // Every code 0-15 at every position within the first 16 trials, random words after.
      int wa = trial < 16 ? 0x11111111 * trial : r.nextInt();
      int wb = trial < 16 ? 0x11111111 * (15 - trial) : r.nextInt();
      for (int h = 0; h < 2; h++) {
        sirocco.api.Int4 f = QmmMmaFragments.fragA4Fma(wa, wb, h, magic);
        int[] regs = {f.x(), f.y(), f.z(), f.w()};
        for (int reg = 0; reg < 4; reg++) {
          int w = (reg & 1) == 0 ? wa : wb;
          for (int part = 0; part < 2; part++) {
            int c = 2 * h + (reg >> 1) + 4 * part;
            double want = (128 + ((w >>> (4 * c)) & 15)) / (reg < 2 ? 1.0 : 4.0);
            double got = half(part == 0 ? regs[reg] & 0xFFFF : regs[reg] >>> 16, Quant.BF16);
            assertEquals(want, got, 0.0, "h " + h + " reg " + reg + " code " + c);
          }
        }
      }
    }
  }

  /**
   * {@link QmmMmaFragments#fragA2Fma}: for words holding every code at every position and random
   * words, step h's registers hold {@link #assertUnitPairs}'s codes (2h, 2h+8) and (2h+1, 2h+9) as
   * (128 + q) divided by the factor of the code's bit within its byte: bit 0 and 6 by 1, bit 2 by
   * 16, bit 4 by 4 (codes read by the packing's definition, code i in bits 2i, 2i+1).
   */
  @Test
  void twoBitFmaFragmentsHoldOffsetPlusCodeOverTheirXFactor() {
    Random r = new Random(9);
    int magic = QmmMmaFragments.magic4(Quant.BF16, 12288);
    double[] factor = {1, 16, 4, 1}; // by the code's bit within its byte: 0, 2, 4, 6
    for (int trial = 0; trial < 400; trial++) {
      int wa = trial < 4 ? 0x55555555 * trial : r.nextInt();
      int wb = trial < 4 ? 0x55555555 * (3 - trial) : r.nextInt();
      for (int h = 0; h < 4; h++) {
        sirocco.api.Int4 f = QmmMmaFragments.fragA2Fma(wa, wb, h, magic);
        int[] regs = {f.x(), f.y(), f.z(), f.w()};
        for (int reg = 0; reg < 4; reg++) {
          int w = (reg & 1) == 0 ? wa : wb;
          for (int part = 0; part < 2; part++) {
            int c = 2 * h + (reg >> 1) + 8 * part;
            double want = (128 + ((w >>> (2 * c)) & 3)) / factor[(2 * c % 8) / 2];
            double got = half(part == 0 ? regs[reg] & 0xFFFF : regs[reg] >>> 16, Quant.BF16);
            assertEquals(want, got, 0.0, "h " + h + " reg " + reg + " code " + c);
          }
        }
      }
    }
  }

  /**
   * {@link QmmMmaFragments#xFactorsTwoBitFma} times each half by the factor {@link
   * #twoBitFmaFragmentsHoldOffsetPlusCodeOverTheirXFactor} divided its k slot by: register 0 (step
   * 2u, bit 0) and 3 (step 2u+1, bit 6) by 1, register 1 (bit 2) by 16, register 2 (bit 4) by 4;
   * exactly, with zeros' signs, subnormals, overflow to infinity and NaN as {@link
   * #fourfoldStep1QuadruplesRegisters1And3Exactly}.
   */
  @Test
  void twoBitFmaXFactorsAreExact() {
    Random r = new Random(10);
    int[] special = {
      0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x7D80, 0x7E80, 0x7F7F, 0xFF80, 0x7FC0
    };
    double[] factor = {1, 16, 4, 1};
    for (int trial = 0; trial < 2000; trial++) {
      int[] halves = new int[8];
      for (int i = 0; i < 8; i++) {
        halves[i] =
            trial < special.length ? special[(trial + i) % special.length] : r.nextInt() & 0xFFFF;
      }
      sirocco.api.Int4 out =
          QmmMmaFragments.xFactorsTwoBitFma(
              new sirocco.api.Int4(
                  halves[0] | halves[1] << 16,
                  halves[2] | halves[3] << 16,
                  halves[4] | halves[5] << 16,
                  halves[6] | halves[7] << 16));
      int[] regs = {out.x(), out.y(), out.z(), out.w()};
      for (int i = 0; i < 8; i++) {
        int reg = i / 2;
        double x = half(halves[i], Quant.BF16);
        double y = half(i % 2 == 0 ? regs[reg] & 0xFFFF : regs[reg] >>> 16, Quant.BF16);
        if (Double.isNaN(x)) {
          assertTrue(Double.isNaN(y), "NaN stays NaN");
          continue;
        }
        double want = factor[reg] * x;
        if (Math.abs(want) > Float.intBitsToFloat(0x7F7F0000)) {
          want = Math.copySign(Double.POSITIVE_INFINITY, x);
        }
        String at = "reg " + reg + " half 0x" + Integer.toHexString(halves[i]);
        assertEquals(want, y, 0.0, at);
        assertEquals(Math.copySign(1.0, x), Math.copySign(1.0, y), "sign, " + at);
      }
    }
  }

  /**
   * {@link QmmMmaFragments#fourfoldStep1}: registers 1 and 3 become exactly 4 times each half
   * (zeros keeping their sign, subnormals, the largest finite values going to infinity, NaN staying
   * NaN), registers 0 and 2 stay as they are.
   */
  @Test
  void fourfoldStep1QuadruplesRegisters1And3Exactly() {
    Random r = new Random(8);
    int[] special = {
      0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x7E80, 0x7F7F, 0xFF80, 0x7FC0
    };
    for (int trial = 0; trial < 2000; trial++) {
      int[] halves = new int[8];
      for (int i = 0; i < 8; i++) {
        halves[i] =
            trial < special.length ? special[(trial + i) % special.length] : r.nextInt() & 0xFFFF;
      }
      sirocco.api.Int4 in =
          new sirocco.api.Int4(
              halves[0] | halves[1] << 16,
              halves[2] | halves[3] << 16,
              halves[4] | halves[5] << 16,
              halves[6] | halves[7] << 16);
      sirocco.api.Int4 out = QmmMmaFragments.fourfoldStep1(in);
      assertEquals(in.x(), out.x());
      assertEquals(in.z(), out.z());
      int[] got = {out.y() & 0xFFFF, out.y() >>> 16, out.w() & 0xFFFF, out.w() >>> 16};
      int[] src = {halves[2], halves[3], halves[6], halves[7]};
      for (int i = 0; i < 4; i++) {
        double x = half(src[i], Quant.BF16);
        double y = half(got[i], Quant.BF16);
        if (Double.isNaN(x)) {
          assertTrue(Double.isNaN(y), "NaN stays NaN");
          continue;
        }
        double want = 4 * x; // exact in double; bf16 holds it unless it passes the largest finite
        if (Math.abs(want) > Float.intBitsToFloat(0x7F7F0000)) {
          want = Math.copySign(Double.POSITIVE_INFINITY, x);
        }
        assertEquals(want, y, 0.0, "half 0x" + Integer.toHexString(src[i]));
        assertEquals(
            Math.copySign(1.0, x),
            Math.copySign(1.0, y),
            "sign of 0x" + Integer.toHexString(src[i]));
      }
    }
  }

  /** Code c (0–15) of a 6-bit unit of three words: bits 6c..6c+5, least significant first. */
  private static int code6(int[] w, int c) {
    long lo = (w[0] & 0xFFFFFFFFL) | ((long) w[1] << 32);
    long hi = (w[1] & 0xFFFFFFFFL) | ((long) w[2] << 32);
    return c < 10 ? (int) ((lo >>> (6 * c)) & 63) : (int) ((hi >>> (6 * c - 32)) & 63);
  }

  /**
   * Step h's A fragment {@code f} of a 16-code unit: registers 0/2 are row g's, 1/3 row g+8's; the
   * low half of register 0/1 holds code 2h, the high half 2h+8, of 2/3 codes 2h+1 and 2h+9; each
   * must be {@code offset} plus the code {@code code(row, c)} reads from the words.
   */
  private static void assertUnitPairs(
      sirocco.api.Int4 f,
      int h,
      int dtype,
      double offset,
      java.util.function.IntBinaryOperator code) {
    int[] regs = {f.x(), f.y(), f.z(), f.w()};
    for (int reg = 0; reg < 4; reg++) {
      for (int part = 0; part < 2; part++) {
        int c = 2 * h + (reg >> 1) + 8 * part;
        double got = half(part == 0 ? regs[reg] & 0xFFFF : regs[reg] >>> 16, dtype);
        assertEquals(
            offset + code.applyAsInt(reg & 1, c),
            got,
            0.0,
            "dtype " + dtype + " h " + h + " reg " + reg);
      }
    }
  }
}
