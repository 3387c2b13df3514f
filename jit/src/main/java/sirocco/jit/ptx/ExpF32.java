package sirocco.jit.ptx;

/**
 * The f32 sequence the compiler emits for {@code (float) Math.exp((double) x)}, with a Java mirror
 * of it.
 *
 * <p>Every step is an IEEE-rounded operation ({@code mul.rn}, {@code fma.rn}, {@code cvt.rni},
 * {@code max/min.NaN}, exact scaling), so {@link #exp(float)} reproduces the GPU result bit for
 * bit. The sequence: clamp x to [-104, 89] (beyond that the float result is 0 or infinity anyway;
 * NaN passes through), k = rint(x·log2 e), r = x − k·ln 2 with ln 2 split in two (Cody–Waite, each
 * step an FMA), exp(r) for |r| ≤ 0.35 by the degree-7 Taylor polynomial in Horner form with FMAs,
 * then scaling by 2<sup>k</sup> in two exact halves so that subnormal results round once. No
 * approximate hardware instruction ({@code ex2.approx}) is involved. The maximum error against the
 * correctly rounded result, measured over all finite floats by {@code ExpF32Test}, is stated there
 * and in {@code jit/README.md}.
 */
public final class ExpF32 {
  private ExpF32() {}

  static final float LO = -104.0f;
  static final float HI = 89.0f;
  static final float LOG2E = 1.44269502f; // 0x3FB8AA3B
  static final float LN2_HI = 0.693145751953125f; // 0x3F317200, 15 significant bits
  static final float LN2_LO = 1.42860677e-06f; // ln 2 - LN2_HI
  static final float[] C = {
    1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040,
  };

  /** The GPU result for {@code (float) Math.exp((double) x)}, computed the same way. */
  public static float exp(float x) {
    float x1 = maxNaN(x, LO);
    float x2 = minNaN(x1, HI);
    float t = x2 * LOG2E;
    float kf = (float) Math.rint(t);
    float r = Math.fma(kf, -LN2_HI, x2);
    r = Math.fma(kf, -LN2_LO, r);
    float p = C[7];
    for (int i = 6; i >= 0; i--) {
      p = Math.fma(p, r, C[i]);
    }
    int k = Float.isNaN(kf) ? 0 : (int) kf;
    int k1 = k >> 1;
    int k2 = k - k1;
    float s1 = Float.intBitsToFloat((k1 + 127) << 23);
    float s2 = Float.intBitsToFloat((k2 + 127) << 23);
    return (p * s1) * s2;
  }

  private static float maxNaN(float a, float b) {
    return Float.isNaN(a) || Float.isNaN(b) ? Float.NaN : Math.max(a, b);
  }

  private static float minNaN(float a, float b) {
    return Float.isNaN(a) || Float.isNaN(b) ? Float.NaN : Math.min(a, b);
  }

  static String hex(float f) {
    return "0f" + PtxEmitter.hex(Float.floatToRawIntBits(f) & 0xFFFFFFFFL, 8);
  }
}
