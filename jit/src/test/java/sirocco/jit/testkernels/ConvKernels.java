package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Every JVM conversion, with Java semantics for NaN (to 0) and out-of-range values (saturation).
 * One thread per element {@code i < n}; inputs {@code f}, {@code d}, {@code iv}, {@code lv} are
 * arbitrary (include NaN, infinities, ±0, huge values, MIN/MAX). Outputs: {@code oi[i*6..]}, {@code
 * ol[i*4..]}, {@code of[i*4..]}, {@code od[i*4..]} as written below.
 */
public final class ConvKernels {
  private ConvKernels() {}

  @Kernel
  public static void conversions(
      KernelContext ctx,
      float[] f,
      double[] d,
      int[] iv,
      long[] lv,
      int[] oi,
      long[] ol,
      float[] of,
      double[] od,
      int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    float x = f[i];
    double y = d[i];
    int k = iv[i];
    long m = lv[i];
    oi[i * 6] = (int) x;
    oi[i * 6 + 1] = (int) y;
    oi[i * 6 + 2] = (int) m;
    oi[i * 6 + 3] = (byte) k;
    oi[i * 6 + 4] = (short) k;
    oi[i * 6 + 5] = (char) k;
    ol[i * 4] = (long) x;
    ol[i * 4 + 1] = (long) y;
    ol[i * 4 + 2] = k;
    ol[i * 4 + 3] = (long) (x * 2.0f);
    of[i * 4] = (float) y;
    of[i * 4 + 1] = k;
    of[i * 4 + 2] = m;
    of[i * 4 + 3] = (float) (y * 0.5);
    od[i * 4] = x;
    od[i * 4 + 1] = k;
    od[i * 4 + 2] = m;
    od[i * 4 + 3] = (double) x * y;
  }
}
