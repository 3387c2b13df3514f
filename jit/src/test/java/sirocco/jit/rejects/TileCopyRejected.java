package sirocco.jit.rejects;

import sirocco.api.Float4x16;
import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.Mbarrier;
import sirocco.api.Vec;

/**
 * Misuses of the tile-copy and transaction-barrier intrinsics ({@code Vec.copyTileAsync}, {@code
 * Mbarrier}); each must be rejected with a message naming the construct. Not for running.
 */
@SuppressWarnings("unused")
public final class TileCopyRejected {
  private TileCopyRejected() {}

  /** Barriers in a parameter array: mbarrier operates on shared memory only. */
  public static void globalBarrier(KernelContext ctx, long[] bars, short[] out) {
    Mbarrier.init(bars, 0, 1);
    Mbarrier.waitParity(bars, 0, 0);
    out[0] = 1;
  }

  /** A copy into a parameter array: the tensor copy writes shared memory only. */
  public static void globalDestination(KernelContext ctx, long[] map, short[] out) {
    long[] bars = ctx.allocateLongLocalArray(1);
    Mbarrier.init(bars, 0, 1);
    Vec.copyTileAsync(out, 0, map, 0, 0, bars, 0);
    Mbarrier.waitParity(bars, 0, 0);
  }

  /** A map in shared memory: maps are kernel parameters built by the runtime. */
  public static void sharedMap(KernelContext ctx, short[] out) {
    long[] bars = ctx.allocateLongLocalArray(1);
    long[] map = ctx.allocateLongLocalArray(16);
    short[] tile = ctx.allocateShortLocalArray(2048);
    Mbarrier.init(bars, 0, 1);
    Vec.copyTileAsync(tile, 0, map, 0, 0, bars, 0);
    Mbarrier.waitParity(bars, 0, 0);
    out[0] = tile[0];
  }

  /** A destination 64 bytes into the array: the copy needs a multiple of 128. */
  public static void misalignedDestination(KernelContext ctx, long[] map, short[] out) {
    long[] bars = ctx.allocateLongLocalArray(1);
    short[] tile = ctx.allocateShortLocalArray(4096);
    Mbarrier.init(bars, 0, 1);
    Vec.copyTileAsync(tile, 32, map, 0, 0, bars, 0);
    Mbarrier.waitParity(bars, 0, 0);
    out[0] = tile[32];
  }

  /** Valid on sm_90; refused on sm_80, where neither instruction exists. */
  public static void hopperOnly(KernelContext ctx, long[] map, short[] out) {
    long[] bars = ctx.allocateLongLocalArray(1);
    short[] tile = ctx.allocateShortLocalArray(4096);
    if (ctx.localIdx == 0) {
      Mbarrier.init(bars, 0, 1);
      Mbarrier.fenceInit();
    }
    ctx.localBarrier();
    if (ctx.localIdx == 0) {
      Mbarrier.arriveExpectTx(bars, 0, 8192);
      Vec.copyTileAsync(tile, 0, map, 0, 0, bars, 0);
    }
    Mbarrier.waitParity(bars, 0, 0);
    out[ctx.localIdx] = tile[ctx.localIdx];
  }

  /** A swizzle known only at run time: it is a field of the product's descriptor. */
  public static void variableSwizzle(KernelContext ctx, short[] out, int swizzle) {
    short[] tile = ctx.allocateShortLocalArray(8192);
    Float4x16 acc =
        ctx.warpgroupMmaBf16Swizzled(new Int4(0, 0, 0, 0), tile, 0, swizzle, Float4x16.zero());
    out[ctx.localIdx] = (short) acc.get(0);
  }
}
