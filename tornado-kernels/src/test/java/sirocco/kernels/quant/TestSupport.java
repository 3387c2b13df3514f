package sirocco.kernels.quant;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import sirocco.runtime.host.HostGridRunner;

/** Shared helpers for the quantization kernel tests (Java backend). */
final class TestSupport {
  private TestSupport() {}

  static final short HALF_POISON = (short) 0x7FC1; // a NaN in both bf16 and f16
  static final int INT_POISON = 0xDEADBEEF;

  static Method kernel(Class<?> owner, String name) {
    for (Method m : owner.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new AssertionError("no kernel " + owner.getSimpleName() + "." + name);
  }

  /**
   * Runs the kernel named by the plan with the plan's grid and block; {@code args} are the
   * parameters before the specialization values, which come from the plan.
   */
  static void run(Class<?> owner, LaunchPlan plan, Object... args) {
    String method = plan.kernel().substring(plan.kernel().indexOf('.') + 1);
    HostGridRunner.run(kernel(owner, method), plan.grid(), plan.block(), plan.arguments(args));
  }

  /** Normal values rounded to the dtype (values of the dtype, as floats). */
  static float[] normal(SplittableRandom rnd, int n, double scale, int dtype) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = QuantFormats.roundTo(dtype, (float) (gaussian(rnd) * scale));
    }
    return v;
  }

  static double gaussian(SplittableRandom rnd) {
    // Box-Muller; SplittableRandom has no nextGaussian on every JDK level we target.
    double u = 1.0 - rnd.nextDouble();
    double v = rnd.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
  }

  static short[] halfPoisoned(int n) {
    short[] a = new short[n];
    Arrays.fill(a, HALF_POISON);
    return a;
  }

  static float[] floatPoisoned(int n) {
    float[] a = new float[n];
    Arrays.fill(a, Float.NaN);
    return a;
  }

  static int[] intPoisoned(int n) {
    int[] a = new int[n];
    Arrays.fill(a, INT_POISON);
    return a;
  }

  static byte[] bytePoisoned(int n) {
    byte[] a = new byte[n];
    Arrays.fill(a, (byte) 0x5A);
    return a;
  }

  /** Output values of a dtype as floats, failing on any element still NaN (poison). */
  static float[] values(int dtype, short[] half, float[] f32, String what) {
    float[] v = dtype == Quant.F32 ? f32.clone() : QuantFormats.fromHalfBits(dtype, half);
    for (int i = 0; i < v.length; i++) {
      if (Float.isNaN(v[i])) {
        throw new AssertionError(what + ": element " + i + " is NaN (not written, or poisoned)");
      }
    }
    return v;
  }

  /** Half of the spacing between dtype values near {@code v}: the rounding error bound. */
  static double halfUlp(int dtype, double v) {
    double a = Math.abs(v);
    return switch (dtype) {
      case Quant.BF16 -> Math.max(Math.ulp((float) a), 0x1p-133) * 65536.0 / 2.0;
      case Quant.F16 -> Math.max(Math.ulp((float) a) * 8192.0, 0x1p-24) / 2.0;
      default -> Math.ulp((float) a) / 2.0;
    };
  }
}
