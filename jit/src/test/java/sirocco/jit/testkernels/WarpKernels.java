package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Warp shuffles and barriers. Launch with a whole number of warps per block (e.g. 128 threads) and
 * exactly {@code in.length} threads in total.
 */
public final class WarpKernels {
  private WarpKernels() {}

  /**
   * out[g*6..] for global thread g: butterfly sum of the warp (all lanes), the value of lane+1
   * (down; lane 31 keeps its own), lane-1 (up; lane 0 keeps its own), lane 0's value (idx), the int
   * butterfly max, laneId*100 + warpId.
   */
  @Kernel
  public static void shuffles(KernelContext ctx, float[] in, int[] iin, float[] out, int[] iout) {
    int g = ctx.globalIdx;
    float v = in[g];
    float s = v;
    for (int m = 16; m > 0; m >>= 1) {
      s += ctx.shuffleXor(s, m);
    }
    out[g * 4] = s;
    out[g * 4 + 1] = ctx.shuffleDown(v, 1);
    out[g * 4 + 2] = ctx.shuffleUp(v, 1);
    out[g * 4 + 3] = ctx.shuffleIdx(v, 0);
    int x = iin[g];
    for (int m = 1; m < 32; m <<= 1) {
      x = Math.max(x, ctx.shuffleXor(x, m));
    }
    ctx.warpBarrier();
    iout[g * 5] = x;
    iout[g * 5 + 1] = ctx.shuffleDown(iin[g], 3);
    iout[g * 5 + 2] = ctx.shuffleUp(iin[g], 2);
    iout[g * 5 + 3] = ctx.shuffleIdx(iin[g], ctx.laneId() ^ 5);
    iout[g * 5 + 4] = ctx.laneId() * 100 + ctx.warpId();
  }

  /** Block-wide sum with shared memory and barriers: out[groupIdx] = sum of the block's inputs. */
  @Kernel
  public static void blockSum(KernelContext ctx, float[] in, float[] out) {
    float[] partial = ctx.allocateFloatLocalArray(32);
    int t = ctx.localIdx;
    float v = in[ctx.globalIdx];
    for (int m = 16; m > 0; m >>= 1) {
      v += ctx.shuffleXor(v, m);
    }
    if (ctx.laneId() == 0) {
      partial[ctx.warpId()] = v;
    }
    ctx.localBarrier();
    if (t < 32) {
      int warps = ctx.localGroupSizeX / 32;
      float w = t < warps ? partial[t] : 0f;
      for (int m = 16; m > 0; m >>= 1) {
        w += ctx.shuffleXor(w, m);
      }
      if (t == 0) {
        out[ctx.groupIdx] = w;
      }
    }
  }

  /**
   * Context fields: out[g*8..] = globalIdx, localIdx, groupIdx, localGroupSizeX, globalGroupSizeX,
   * groupCountX, globalIdy, localIdz.
   */
  @Kernel
  public static void contextFields(KernelContext ctx, int[] out) {
    int g = ctx.globalIdx;
    out[g * 8] = g;
    out[g * 8 + 1] = ctx.localIdx;
    out[g * 8 + 2] = ctx.groupIdx;
    out[g * 8 + 3] = ctx.localGroupSizeX;
    out[g * 8 + 4] = ctx.globalGroupSizeX;
    out[g * 8 + 5] = ctx.groupCountX;
    out[g * 8 + 6] = ctx.globalIdy;
    out[g * 8 + 7] = ctx.localIdz;
  }

  /**
   * Every context field in a 3-D launch (GpuCaseExporter: blocks of 4×3×2 threads, a grid of 3×2×4
   * blocks, so that no two extents of one axis, and no two axes, agree). For the thread with linear
   * global number g = (globalIdz * globalGroupSizeY + globalIdy) * globalGroupSizeX + globalIdx:
   * ids[g*9..] = globalId x y z, localId x y z, groupId x y z; sizes[g*9..] = localGroupSize X Y Z,
   * globalGroupSize X Y Z, groupCount X Y Z.
   */
  @Kernel
  public static void contextFields3d(KernelContext ctx, int[] ids, int[] sizes) {
    int g =
        (ctx.globalIdz * ctx.globalGroupSizeY + ctx.globalIdy) * ctx.globalGroupSizeX
            + ctx.globalIdx;
    int o = g * 9;
    ids[o] = ctx.globalIdx;
    ids[o + 1] = ctx.globalIdy;
    ids[o + 2] = ctx.globalIdz;
    ids[o + 3] = ctx.localIdx;
    ids[o + 4] = ctx.localIdy;
    ids[o + 5] = ctx.localIdz;
    ids[o + 6] = ctx.groupIdx;
    ids[o + 7] = ctx.groupIdy;
    ids[o + 8] = ctx.groupIdz;
    sizes[o] = ctx.localGroupSizeX;
    sizes[o + 1] = ctx.localGroupSizeY;
    sizes[o + 2] = ctx.localGroupSizeZ;
    sizes[o + 3] = ctx.globalGroupSizeX;
    sizes[o + 4] = ctx.globalGroupSizeY;
    sizes[o + 5] = ctx.globalGroupSizeZ;
    sizes[o + 6] = ctx.groupCountX;
    sizes[o + 7] = ctx.groupCountY;
    sizes[o + 8] = ctx.groupCountZ;
  }
}
