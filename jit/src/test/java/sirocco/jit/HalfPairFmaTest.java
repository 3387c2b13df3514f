package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sirocco.api.Bf16;
import sirocco.api.F16;

/**
 * {@link Bf16#fma2} and {@link F16#fma2} (the Java definition the JIT's {@code fma.rn.bf16x2} /
 * {@code fma.rn.f16x2} must match, and the constant folder uses) against a reference written from
 * the definition: the exact value of {@code a * b + c} in {@link BigDecimal}, rounded to the
 * nearest of all finite values of the format (listed by enumerating its bit patterns), ties to the
 * even pattern, beyond the largest finite value half an ulp or more: infinity; NaN canonical.
 */
class HalfPairFmaTest {
  /** The format's positive finite values in increasing order, and their bit patterns. */
  private record Format(boolean bf16, BigDecimal[] values, int[] bits, int infinity) {
    static Format of(boolean bf16) {
      int infinity = bf16 ? 0x7F80 : 0x7C00;
      BigDecimal[] v = new BigDecimal[infinity + 1];
      int[] b = new int[infinity + 1];
      for (int h = 0; h <= infinity; h++) {
        // One pattern past the largest finite value: 2^(emax+1), where rounding goes to infinity.
        double d = h < infinity ? value(h, bf16) : 2 * value(h - 1, bf16) - value(h - 2, bf16);
        v[h] = new BigDecimal(d);
        b[h] = h;
      }
      return new Format(bf16, v, b, infinity);
    }
  }

  private static double value(int h, boolean bf16) {
    return bf16 ? Float.intBitsToFloat(h << 16) : Float.float16ToFloat((short) h);
  }

  private static boolean isNaN(int h, boolean bf16) {
    return Double.isNaN(value(h, bf16));
  }

  private static int reference(Format f, int a, int b, int c) {
    boolean bf = f.bf16();
    double x = value(a, bf);
    double y = value(b, bf);
    double z = value(c, bf);
    if (Double.isNaN(x) || Double.isNaN(y) || Double.isNaN(z)) {
      return 0x7FFF;
    }
    int sign = 0x8000;
    if (Double.isInfinite(x) || Double.isInfinite(y)) {
      if (x == 0 || y == 0) {
        return 0x7FFF; // infinity times zero
      }
      boolean negative = (x < 0) != (y < 0);
      if (Double.isInfinite(z) && (z < 0) != negative) {
        return 0x7FFF; // infinity minus infinity
      }
      return f.infinity() | (negative ? sign : 0);
    }
    if (Double.isInfinite(z)) {
      return c;
    }
    boolean productNegative = ((a ^ b) & sign) != 0;
    BigDecimal exact = new BigDecimal(x).multiply(new BigDecimal(y)).add(new BigDecimal(z));
    if (exact.signum() == 0) {
      // IEEE: an exact zero sum is +0 unless both terms are -0 (the product's sign is a's xor b's).
      boolean bothNegative = productNegative && (c & sign) != 0;
      return bothNegative ? sign : 0;
    }
    int s = exact.signum() < 0 ? sign : 0;
    BigDecimal m = exact.abs();
    int i = Arrays.binarySearch(f.values(), m);
    if (i >= 0) {
      return f.bits()[i] | s;
    }
    int above = -i - 1; // first value greater than m
    if (above > f.infinity()) {
      return f.infinity() | s;
    }
    int below = above - 1;
    int cmp = m.subtract(f.values()[below]).compareTo(f.values()[above].subtract(m));
    int pick = cmp < 0 ? below : cmp > 0 ? above : ((f.bits()[below] & 1) == 0 ? below : above);
    return f.bits()[pick] | s;
  }

  private static void check(Format f, int a, int b, int c) {
    int word =
        f.bf16()
            ? Bf16.fma2(a | (c << 16), b | (a << 16), c | (b << 16))
            : F16.fma2(a | (c << 16), b | (a << 16), c | (b << 16));
    int lo = reference(f, a, b, c);
    int hi = reference(f, c, a, b);
    String what = (f.bf16() ? "bf16" : "f16") + " fma of 0x%04x 0x%04x 0x%04x";
    assertEquals(lo, word & 0xFFFF, () -> String.format(what, a, b, c));
    assertEquals(hi, word >>> 16, () -> String.format(what + " (high half)", c, a, b));
  }

  @Test
  void randomPatternsMatchTheExactlyRoundedValue() {
    for (boolean bf : new boolean[] {true, false}) {
      Format f = Format.of(bf);
      Random r = new Random(bf ? 1 : 2);
      for (int n = 0; n < 40_000; n++) {
        int a = r.nextInt(0x10000);
        int b = r.nextInt(0x10000);
        int c = r.nextInt(0x10000);
        if ((n & 1) == 1) {
          // Exponents near 1 for a and b, and c either close to the product, zero, or tiny, so
          // that rounding ties (broken or not by c) occur often.
          a = near(r, bf, 0);
          b = near(r, bf, 0);
          c =
              switch (n % 3) {
                case 0 -> near(r, bf, 0);
                case 1 -> r.nextInt(2) << 15;
                default -> near(r, bf, bf ? -40 : -12);
              };
        }
        check(f, a, b, c);
      }
    }
  }

  @Test
  void specialValues() {
    for (boolean bf : new boolean[] {true, false}) {
      Format f = Format.of(bf);
      int inf = f.infinity();
      int max = inf - 1;
      int one = bf ? 0x3F80 : 0x3C00;
      int[] special = {
        0,
        0x8000,
        1,
        0x8001,
        one,
        one | 0x8000,
        max,
        max | 0x8000,
        inf,
        inf | 0x8000,
        inf + 1,
        0xFFFF,
        bf ? 0x0080 : 0x0400,
        0x7FFF
      };
      for (int a : special) {
        for (int b : special) {
          for (int c : special) {
            check(f, a, b, c);
          }
        }
      }
    }
    // The largest finite value plus half its ulp is a tie that rounds to infinity (the even
    // pattern); a little less rounds to the largest finite value.
    assertEquals(0x7F80, Bf16.fma2(0x7F7F, 0x3F80, 0x7B00) & 0xFFFF, "bf16 max + 2^119");
    assertEquals(0x7F7F, Bf16.fma2(0x7F7F, 0x3F80, 0x7A7F) & 0xFFFF, "bf16 max + 2^118.99");
    assertEquals(0x7C00, F16.fma2(0x7BFF, 0x3C00, 0x4C00) & 0xFFFF, "f16 65504 + 16");
    assertEquals(0x7BFF, F16.fma2(0x7BFF, 0x3C00, 0x4BFF) & 0xFFFF, "f16 65504 + 15.99");
  }

  /** A half with a random sign and mantissa and an unbiased exponent within 3 of {@code exp}. */
  private static int near(Random r, boolean bf, int exp) {
    int e = exp + r.nextInt(7) - 3;
    int bits = bf ? 7 : 10;
    int biased = e + (bf ? 127 : 15);
    return (r.nextInt(2) << 15) | (biased << bits) | r.nextInt(1 << bits);
  }
}
