package sirocco.api;

/**
 * Fast math for kernels. Each method has a CPU definition (used by the Java backend) and a PTX
 * mapping; where the GPU instruction is approximate the documented error bound says how far the two
 * may differ. Exact operations ({@code Math.fma}, {@code Math.sqrt}, division) need no intrinsic:
 * the compiler maps the {@code Math} methods and operators to correctly rounded PTX.
 */
public final class Intrinsics {
  private Intrinsics() {}

  /**
   * 2<sup>x</sup>. GPU: {@code ex2.approx.f32} (maximum relative error 2<sup>-22</sup> over the
   * full range, subnormal results kept); CPU: the correctly rounded value.
   */
  public static float exp2(float x) {
    return (float) Math.pow(2.0, x);
  }

  /**
   * log<sub>2</sub>(x). GPU: {@code lg2.approx.f32} (maximum absolute error 2<sup>-22</sup> for x
   * in [0.5, 2], relative error 2<sup>-22</sup> elsewhere); CPU: the correctly rounded value.
   */
  public static float log2(float x) {
    return (float) (Math.log(x) / Math.log(2.0));
  }

  /**
   * 1/√x. GPU: {@code rsqrt.approx.f32} (maximum relative error 2<sup>-22.9</sup>); CPU: the
   * correctly rounded value.
   */
  public static float rsqrt(float x) {
    return (float) (1.0 / Math.sqrt(x));
  }

  /**
   * x / y without the correctly rounded division's cost. GPU: {@code div.approx.f32} (maximum error
   * 2 ulp for |y| in [2<sup>-126</sup>, 2<sup>126</sup>]); CPU: the correctly rounded quotient.
   */
  public static float fastDivide(float x, float y) {
    return x / y;
  }

  /**
   * Fused multiply-add with a single rounding ({@code fma.rn.f32}); the same as {@link Math#fma}.
   */
  public static float fma(float a, float b, float c) {
    return Math.fma(a, b, c);
  }

  /**
   * Nanoseconds from a free-running clock, for timeouts in kernels that wait on a flag (only
   * differences are meaningful). GPU: {@code %globaltimer} (updated about every microsecond); CPU:
   * {@link System#nanoTime()}.
   */
  public static long globalTimerNanos() {
    return System.nanoTime();
  }
}
