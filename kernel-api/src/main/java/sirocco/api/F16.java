package sirocco.api;

/** IEEE binary16 values carried in a {@code short}; conversions as {@link Float#float16ToFloat}. */
public final class F16 {
  private F16() {}

  public static float toFloat(short bits) {
    return Float.float16ToFloat(bits);
  }

  /** The float in the low half of a packed pair (the element with the lower index). */
  public static float lo(int packed) {
    return Float.float16ToFloat((short) packed);
  }

  /** The float in the high half of a packed pair. */
  public static float hi(int packed) {
    return Float.float16ToFloat((short) (packed >>> 16));
  }

  /** Rounds to the nearest binary16, ties to even; overflow gives infinity. */
  public static short fromFloat(float value) {
    return Float.floatToFloat16(value);
  }

  /** Packs two floats, rounded to binary16, low element first. */
  public static int pack(float lo, float hi) {
    return (fromFloat(lo) & 0xFFFF) | (fromFloat(hi) << 16);
  }

  /**
   * Fused multiply-add of two packed pairs at once: each 16-bit half of the result is {@code a * b
   * + c} of the same halves, computed exactly and rounded once to binary16 (ties to even;
   * subnormals kept; overflow gives infinity; a NaN result is the canonical NaN {@code 0x7FFF}).
   * One {@code fma.rn.f16x2} instruction on the GPU (sm_80+).
   */
  public static int fma2(int a, int b, int c) {
    return HalfPairFma.fma2(a, b, c, false);
  }
}
