package sirocco.cli.demo;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * The demo's small kernels: plain Java methods that run on the Java backend and, compiled, on the
 * GPU.
 */
public final class DemoKernels {
  private DemoKernels() {}

  /** c = a + b. */
  @Kernel
  public static void vectorAdd(
      KernelContext ctx, float[] a, float[] b, float[] c, int n) { // [n] each
    int i = ctx.globalIdx;
    if (i < n) {
      c[i] = a[i] + b[i];
    }
  }

  /**
   * sums[block] = sum of in[block*256 .. +256) (zeros past n): warp shuffles, then one value per
   * warp through shared memory.
   */
  @Kernel
  public static void blockSum(
      KernelContext ctx, float[] in, float[] sums, int n) { // in [n], sums [blocks]
    float[] warpSums = ctx.allocateFloatLocalArray(8);
    int i = ctx.globalIdx;
    float v = i < n ? in[i] : 0f;
    for (int offset = 16; offset > 0; offset >>= 1) {
      v += ctx.shuffleDown(v, offset);
    }
    if (ctx.laneId() == 0) {
      warpSums[ctx.warpId()] = v;
    }
    ctx.localBarrier();
    if (ctx.warpId() == 0) {
      float w = ctx.laneId() < 8 ? warpSums[ctx.laneId()] : 0f;
      for (int offset = 4; offset > 0; offset >>= 1) {
        w += ctx.shuffleDown(w, offset);
      }
      if (ctx.laneId() == 0) {
        sums[ctx.groupIdx] = w;
      }
    }
  }
}
