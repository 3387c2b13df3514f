package sirocco.jit.testkernels;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Vec;
import sirocco.jit.testkernels.helpers.Bits;
import sirocco.jit.testkernels.helpers.VecMath;

/**
 * Value records kept in registers: built with {@code new}, stored in locals, merged by {@code ?:}
 * and loops, passed to and returned from helpers of other classes (nested). One thread per chunk
 * {@code g < chunks}; {@code a}, {@code b} hold chunks*4 floats, {@code iv} chunks*4 ints.
 */
public final class RecordKernels {
  private RecordKernels() {}

  private static Float4 accumulate(float[] a, int g, int times) {
    Float4 acc = new Float4(0, 0, 0, 0);
    for (int k = 0; k < times; k++) {
      acc = VecMath.add(acc, Vec.ldg4(a, g * 4));
    }
    return acc;
  }

  /**
   * outF[g*4..] = 3 * a-chunk + (b-chunk scaled by 0.5 if flag else as is); outF2[g] = dot of the
   * two chunks plus a lerp; outI[g] = a mix of the (maybe reversed) int chunk.
   */
  @Kernel
  public static void records(
      KernelContext ctx,
      float[] a,
      float[] b,
      int[] iv,
      float[] outF,
      float[] outF2,
      int[] outI,
      int chunks) {
    int g = ctx.globalIdx;
    if (g >= chunks) {
      return;
    }
    Float4 x = accumulate(a, g, 3);
    Float4 y = Vec.ldg4(b, g * 4);
    Float4 z = (g & 1) == 0 ? VecMath.scale(y, 0.5f) : y;
    Float4 sum = VecMath.add(x, z);
    Vec.store4(outF, g * 4, sum);
    outF2[g] = VecMath.dot(x, y) + VecMath.lerp(x.x(), y.y(), 0.25f);
    Int4 v = Vec.ldg4(iv, Bits.clampIndex(g, chunks) * 4);
    outI[g] = VecMath.horizontalXor(VecMath.swizzle(v, g % 3 == 0));
  }
}
