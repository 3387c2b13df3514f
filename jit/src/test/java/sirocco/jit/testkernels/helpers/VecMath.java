package sirocco.jit.testkernels.helpers;

import sirocco.api.Float4;
import sirocco.api.Int4;

/** Helpers in another class and package, inlined into kernels (and calling each other). */
public final class VecMath {
  private VecMath() {}

  public static Float4 add(Float4 a, Float4 b) {
    return new Float4(a.x() + b.x(), a.y() + b.y(), a.z() + b.z(), a.w() + b.w());
  }

  public static Float4 scale(Float4 a, float s) {
    return new Float4(a.x() * s, a.y() * s, a.z() * s, a.w() * s);
  }

  public static float dot(Float4 a, Float4 b) {
    return a.x() * b.x() + a.y() * b.y() + a.z() * b.z() + a.w() * b.w();
  }

  public static Int4 swizzle(Int4 v, boolean reverse) {
    return reverse ? new Int4(v.w(), v.z(), v.y(), v.x()) : v;
  }

  public static int horizontalXor(Int4 v) {
    return Bits.mix(v.x(), v.y()) ^ Bits.mix(v.z(), v.w());
  }

  public static float lerp(float a, float b, float t) {
    return Math.fma(t, b - a, a);
  }
}
