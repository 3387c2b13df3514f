package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bit-exactness of the packing against vectors computed by hand from MLX's layout description
 * (mlx/backend/cpu/quantized.cpp {@code extract_bits} and the metal/cuda dequantize kernels: 3 bits
 * = 8 values in 3 bytes, 5 bits = 8 in 5 bytes, 6 bits = 4 in 3 bytes, least significant bit
 * first), and of the codecs against independent definitions (exhaustive where the domain is small).
 */
class QuantFormatsTest {

  private static int[] repeat(int[] pattern, int times) {
    int[] out = new int[pattern.length * times];
    for (int i = 0; i < out.length; i++) {
      out[i] = pattern[i % pattern.length];
    }
    return out;
  }

  @Test
  void fourBitElementIOfAWordSitsInBits4iTo4iPlus4() {
    int[] codes = {1, 2, 3, 4, 5, 6, 7, 8};
    assertArrayEquals(new int[] {0x87654321}, QuantFormats.pack(codes, 1, 8, 4));
    assertArrayEquals(codes, QuantFormats.unpack(new int[] {0x87654321}, 1, 8, 4));
  }

  @Test
  void twoAndEightBitPacking() {
    int[] two = repeat(new int[] {0, 1, 2, 3}, 4); // 0b11_10_01_00 per byte
    assertArrayEquals(new int[] {0xE4E4E4E4}, QuantFormats.pack(two, 1, 16, 2));
    int[] eight = {0x11, 0x22, 0x33, 0x44};
    assertArrayEquals(new int[] {0x44332211}, QuantFormats.pack(eight, 1, 4, 8));
  }

  @Test
  void threeBitPackingMatchesMlxBytes() {
    // bytes D1 58 1F per 8 values [1,2,3,4,5,6,7,0] (worked out bit by bit from extract_bits)
    int[] codes = repeat(new int[] {1, 2, 3, 4, 5, 6, 7, 0}, 4);
    int[] words = {0xD11F58D1, 0x58D11F58, 0x1F58D11F};
    assertArrayEquals(words, QuantFormats.pack(codes, 1, 32, 3));
    assertArrayEquals(codes, QuantFormats.unpack(words, 1, 32, 3));
  }

  @Test
  void fiveBitPackingMatchesMlxBytes() {
    // bytes 3F 88 01 A3 2F per 8 values [31,1,2,3,16,17,30,5]
    int[] codes = repeat(new int[] {31, 1, 2, 3, 16, 17, 30, 5}, 4);
    int[] words = {0xA301883F, 0x01883F2F, 0x883F2FA3, 0x3F2FA301, 0x2FA30188};
    assertArrayEquals(words, QuantFormats.pack(codes, 1, 32, 5));
    assertArrayEquals(codes, QuantFormats.unpack(words, 1, 32, 5));
  }

  @Test
  void sixBitPackingMatchesMlxBytes() {
    // bytes 7F 81 46 per 4 values [63,5,40,17]
    int[] codes = repeat(new int[] {63, 5, 40, 17}, 8);
    int[] words = {0x7F46817F, 0x817F4681, 0x46817F46, 0x7F46817F, 0x817F4681, 0x46817F46};
    assertArrayEquals(words, QuantFormats.pack(codes, 1, 32, 6));
    assertArrayEquals(codes, QuantFormats.unpack(words, 1, 32, 6));
  }

  @Test
  void rowsAreIndependentStreams() {
    SplittableRandom rnd = new SplittableRandom(7);
    for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
      int rows = 3;
      int cols = 64;
      int[] codes = new int[rows * cols];
      for (int i = 0; i < codes.length; i++) {
        codes[i] = rnd.nextInt(1 << bits);
      }
      int[] words = QuantFormats.pack(codes, rows, cols, bits);
      assertEquals(rows * cols * bits / 32, words.length);
      assertArrayEquals(codes, QuantFormats.unpack(words, rows, cols, bits), "bits=" + bits);
      // Row r starts at word r * cols * bits / 32: repacking row 1 alone gives the same words.
      int[] row1 = java.util.Arrays.copyOfRange(codes, cols, 2 * cols);
      int wpr = cols * bits / 32;
      assertArrayEquals(
          QuantFormats.pack(row1, 1, cols, bits),
          java.util.Arrays.copyOfRange(words, wpr, 2 * wpr));
    }
  }

  // ---- codecs ----

  private static final float[] FP4_LUT = {
    +0.0f, +0.5f, +1.0f, +1.5f, +2.0f, +3.0f, +4.0f, +6.0f,
    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f
  };

  @Test
  void e2m1DecodeIsMlxLutExactly() {
    for (int c = 0; c < 16; c++) {
      assertEquals(
          Float.floatToRawIntBits(FP4_LUT[c]),
          Float.floatToRawIntBits(QuantMath.e2m1Decode(c)),
          "code " + c);
      assertEquals(c, QuantMath.e2m1Encode(FP4_LUT[c]), "round trip of code " + c);
    }
  }

  @Test
  void e2m1EncodeRoundsToNearestTiesToEvenCodeAndSaturates() {
    float[] ties = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5f};
    int[] expected = {0, 2, 2, 4, 4, 6, 6};
    for (int i = 0; i < ties.length; i++) {
      assertEquals(expected[i], QuantMath.e2m1Encode(ties[i]), "tie " + ties[i]);
      assertEquals(expected[i] | 8, QuantMath.e2m1Encode(-ties[i]), "tie " + -ties[i]);
    }
    assertEquals(7, QuantMath.e2m1Encode(100f));
    assertEquals(15, QuantMath.e2m1Encode(Float.NEGATIVE_INFINITY));
    assertEquals(7, QuantMath.e2m1Encode(Float.NaN));
    SplittableRandom rnd = new SplittableRandom(11);
    for (int i = 0; i < 20000; i++) {
      float x = (float) rnd.nextDouble(-7, 7);
      int best = -1;
      double bestErr = Double.MAX_VALUE;
      for (int c = 0; c < 8; c++) {
        double err = Math.abs(Math.abs(x) - FP4_LUT[c]);
        if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
          best = c;
          bestErr = err;
        }
      }
      int sign = x < 0 ? 8 : 0;
      assertEquals(best | sign, QuantMath.e2m1Encode(x), "x=" + x);
    }
  }

  /** E4M3 value from the OCP definition, written with Math.scalb (independent of the bit trick). */
  private static double e4m3Value(int code) {
    int s = (code >> 7) & 1;
    int e = (code >> 3) & 15;
    int m = code & 7;
    if (e == 15 && m == 7) {
      return Double.NaN;
    }
    double mag = e == 0 ? Math.scalb(m / 8.0, -6) : Math.scalb(1 + m / 8.0, e - 7);
    return s == 1 ? -mag : mag;
  }

  @Test
  void e4m3DecodeAllCodes() {
    for (int c = 0; c < 256; c++) {
      double want = e4m3Value(c);
      float got = QuantMath.e4m3Decode(c);
      if (Double.isNaN(want)) {
        assertTrue(Float.isNaN(got), "code " + c);
      } else {
        assertEquals(want, got, 0.0, "code " + c);
        if (want == 0) {
          assertEquals(c == 0x80, Float.floatToRawIntBits(got) < 0, "sign of zero code " + c);
        }
      }
    }
    assertEquals(448.0f, QuantMath.e4m3Decode(0x7E));
    assertEquals(0x1p-9f, QuantMath.e4m3Decode(0x01));
  }

  @Test
  void e4m3EncodeIsNearestEvenSaturating() {
    SplittableRandom rnd = new SplittableRandom(12);
    for (int i = 0; i < 40000; i++) {
      // Log-uniform magnitudes across the whole range, including subnormals and overflow.
      float x = (float) (Math.pow(2, rnd.nextDouble(-12, 10)) * (rnd.nextBoolean() ? 1 : -1));
      assertEquals(bruteE4m3(x), QuantMath.e4m3Encode(x), "x=" + x);
    }
    for (int c = 0; c < 256; c++) {
      if ((c & 0x7F) == 0x7F) {
        continue;
      }
      float v = (float) e4m3Value(c);
      assertEquals(c, QuantMath.e4m3Encode(v), "round trip of code " + c);
      // Midpoints to the next code tie to the even mantissa.
      if ((c & 0x7F) < 0x7E) {
        float next = (float) e4m3Value(c + 1);
        float mid = (v + next) / 2;
        int even = (c & 1) == 0 ? c : c + 1;
        assertEquals(even, QuantMath.e4m3Encode(mid), "midpoint after code " + c);
      }
    }
    assertEquals(0x7E, QuantMath.e4m3Encode(1e9f));
    assertEquals(0xFE, QuantMath.e4m3Encode(Float.NEGATIVE_INFINITY));
    assertEquals(0x7F, QuantMath.e4m3Encode(Float.NaN));
  }

  private static int bruteE4m3(float x) {
    double a = Math.abs(x);
    int best = 0;
    double bestErr = Double.MAX_VALUE;
    for (int c = 0; c <= 0x7E; c++) {
      double err = Math.abs(a - e4m3Value(c));
      if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
        best = c;
        bestErr = err;
      }
    }
    return best | (x < 0 ? 0x80 : 0);
  }

  @Test
  void e8m0EncodeRoundsUpToAPowerOfTwo() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int i = 0; i < 20000; i++) {
      float x = (float) Math.pow(2, rnd.nextDouble(-126, 126));
      int code = QuantMath.e8m0EncodeUp(x);
      double p = Math.scalb(1.0, code - 127);
      assertTrue(p >= x && p / 2 < x, "x=" + x + " code=" + code);
    }
    for (int e = -126; e <= 127; e++) {
      assertEquals(e + 127, QuantMath.e8m0EncodeUp(Math.scalb(1f, e)), "2^" + e);
      assertEquals(Math.scalb(1f, e), QuantMath.e8m0Decode(e + 127));
    }
    assertEquals(0, QuantMath.e8m0EncodeUp(0f));
    assertEquals(0, QuantMath.e8m0EncodeUp(0x1p-127f));
    assertEquals(1, QuantMath.e8m0EncodeUp(0x1.8p-127f));
    assertEquals(254, QuantMath.e8m0EncodeUp(Float.MAX_VALUE));
    assertEquals(254, QuantMath.e8m0EncodeUp(Float.POSITIVE_INFINITY));
    assertEquals(0x1p-127f, QuantMath.e8m0Decode(0));
    assertTrue(Float.isNaN(QuantMath.e8m0Decode(255)));
  }

  @Test
  void roundHalfAwayMatchesCRoundf() {
    float[] xs = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 0.49999997f, 8388607.5f, 1e20f, -3.2f};
    float[] want = {1f, 2f, 3f, -1f, -3f, 0f, 8388608f, 1e20f, -3f};
    for (int i = 0; i < xs.length; i++) {
      assertEquals(want[i], QuantMath.roundHalfAway(xs[i]), "x=" + xs[i]);
    }
  }
}
