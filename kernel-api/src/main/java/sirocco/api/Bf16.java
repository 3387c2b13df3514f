package sirocco.api;

/**
 * bfloat16 values carried as the upper 16 bits of a float in a {@code short}. Conversions are
 * bit-exact on both backends (round to nearest even; NaN stays NaN with its quiet bit set).
 */
public final class Bf16 {
  private Bf16() {}

  public static float toFloat(short bits) {
    return Float.intBitsToFloat(bits << 16);
  }

  /** The float in the low half of a packed pair (the element with the lower index). */
  public static float lo(int packed) {
    return Float.intBitsToFloat(packed << 16);
  }

  /** The float in the high half of a packed pair (the element with the higher index). */
  public static float hi(int packed) {
    return Float.intBitsToFloat(packed & 0xFFFF0000);
  }

  /** Rounds to the nearest bfloat16, ties to even. */
  public static short fromFloat(float value) {
    int bits = Float.floatToRawIntBits(value);
    if ((bits & 0x7FFFFFFF) > 0x7F800000) {
      return (short) ((bits >>> 16) | 0x0040);
    }
    int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
    return (short) (rounded >>> 16);
  }

  /** Packs two floats, rounded to bfloat16, low element first. */
  public static int pack(float lo, float hi) {
    return (fromFloat(lo) & 0xFFFF) | (fromFloat(hi) << 16);
  }

  /**
   * Fused multiply-add of two packed pairs at once: each 16-bit half of the result is {@code a * b
   * + c} of the same halves, computed exactly and rounded once to bfloat16 (ties to even;
   * subnormals kept; overflow gives infinity; a NaN result is the canonical NaN {@code 0x7FFF}).
   * One {@code fma.rn.bf16x2} instruction on the GPU (sm_80+).
   */
  public static int fma2(int a, int b, int c) {
    return HalfPairFma.fma2(a, b, c, true);
  }
}
