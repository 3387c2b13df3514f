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
   * Byte permute: byte {@code i} (0–3, least significant first) of the result is chosen by nibble
   * {@code i} of {@code selector} from the eight bytes of {@code b:a} (bytes 0–3 of {@code a}, 4–7
   * of {@code b}) by the nibble's low 3 bits; where the nibble's bit 3 is set, the byte is instead
   * the chosen byte's top bit replicated (0x00 or 0xFF). Bits 16–31 of {@code selector} are
   * ignored. Exact; GPU: one {@code prmt.b32} (its default mode), which dequantization uses to
   * place two codes into the halves of a packed pair in one instruction.
   */
  public static int bytePermute(int a, int b, int selector) {
    long source = (a & 0xFFFFFFFFL) | ((long) b << 32);
    int result = 0;
    for (int i = 0; i < 4; i++) {
      int nibble = (selector >>> (4 * i)) & 0xF;
      int chosen = (int) (source >>> (8 * (nibble & 7))) & 0xFF;
      int value = (nibble & 8) == 0 ? chosen : (chosen & 0x80) != 0 ? 0xFF : 0;
      result |= value << (8 * i);
    }
    return result;
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
