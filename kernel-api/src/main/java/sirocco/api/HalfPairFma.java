package sirocco.api;

/**
 * The Java definition of {@link Bf16#fma2} and {@link F16#fma2}: per 16-bit half, {@code a * b + c}
 * computed exactly and rounded once to the format (round to nearest, ties to even; subnormal inputs
 * and results kept; overflow gives infinity; any NaN result is the canonical NaN {@code 0x7FFF}).
 * This is what {@code fma.rn.bf16x2} and {@code fma.rn.f16x2} compute on the GPU, where the JIT
 * emits one instruction for the whole pair.
 */
final class HalfPairFma {
  private HalfPairFma() {}

  static final int CANONICAL_NAN = 0x7FFF;

  static int fma2(int a, int b, int c, boolean bf16) {
    int lo = fma(a & 0xFFFF, b & 0xFFFF, c & 0xFFFF, bf16);
    int hi = fma(a >>> 16, b >>> 16, c >>> 16, bf16);
    return lo | (hi << 16);
  }

  private static int fma(int a, int b, int c, boolean bf16) {
    double x = widen(a, bf16);
    double y = widen(b, bf16);
    double z = widen(c, bf16);
    // Exact: at most 11 x 11 significant bits, and both formats' exponents are far inside
    // double's range.
    double p = x * y;
    double s = p + z;
    if (Double.isNaN(s)) {
      return CANONICAL_NAN;
    }
    if (Double.isInfinite(s) || s == 0) {
      return narrowExact(s, bf16); // an infinite operand, or an exact zero (its IEEE sign)
    }
    // The sum may have lost low bits of z (or p); Knuth's two-sum recovers them exactly, and only
    // their sign matters: it breaks a tie at the format's precision that s alone would show.
    double bv = s - p;
    double err = (p - (s - bv)) + (z - bv);
    int mantissa = bf16 ? 7 : 10;
    int minExponent = bf16 ? -126 : -14;
    int ulpExponent = Math.max(Math.getExponent(s), minExponent) - mantissa;
    double q = Math.scalb(s, -ulpExponent); // exact: a power-of-two scaling
    double r = Math.rint(q);
    if (q - Math.floor(q) == 0.5 && err != 0) {
      r = err > 0 ? Math.ceil(q) : Math.floor(q);
    }
    return narrowExact(Math.scalb(r, ulpExponent), bf16);
  }

  private static double widen(int h, boolean bf16) {
    return bf16 ? Float.intBitsToFloat(h << 16) : Float.float16ToFloat((short) h);
  }

  /**
   * The bits of {@code v}, which is representable in the format or beyond its largest finite value,
   * where it is infinity (the float conversions below round it there).
   */
  private static int narrowExact(double v, boolean bf16) {
    float f = (float) v;
    return bf16 ? Float.floatToRawIntBits(f) >>> 16 : Float.floatToFloat16(f) & 0xFFFF;
  }
}
