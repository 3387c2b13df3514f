package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Scalar parameters of every type (passed as real kernel parameters). Launch one thread; out holds
 * 9 longs: b, s, c, z ? 1 : 0, i, l, (long) f, (long) d, b + s + c + i.
 */
public final class ScalarParamKernels {
  private ScalarParamKernels() {}

  @Kernel
  public static void scalars(
      KernelContext ctx,
      long[] out,
      byte b,
      short s,
      char c,
      boolean z,
      int i,
      long l,
      float f,
      double d) {
    if (ctx.globalIdx != 0) {
      return;
    }
    out[0] = b;
    out[1] = s;
    out[2] = c;
    out[3] = z ? 1 : 0;
    out[4] = i;
    out[5] = l;
    out[6] = (long) f;
    out[7] = (long) d;
    out[8] = b + s + c + i;
  }
}
