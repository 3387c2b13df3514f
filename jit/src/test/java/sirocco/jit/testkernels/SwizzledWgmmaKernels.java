package sirocco.jit.testkernels;

import sirocco.api.Float4x16;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Mbarrier;
import sirocco.api.Specialize;
import sirocco.api.TileMap;
import sirocco.api.Vec;

/**
 * Warpgroup products reading B from swizzled rows ({@code ctx.warpgroupMmaBf16Swizzled}), for the
 * compiler's tests: D (64 x 128) = A (64 x K) B, K = swizzle / 2 (one tile row of k per column of
 * B), as {@code swizzle / 32} chained k16 products. Launch one block of 128 threads. {@code a}
 * holds A row major, {@code d} receives D row major; B is given column by column (b[K n + k], a 128
 * x K row-major matrix).
 */
public final class SwizzledWgmmaKernels {
  private SwizzledWgmmaKernels() {}

  /** B staged by ordinary stores at the places the swizzle model gives. */
  @Kernel(archs = {90})
  public static void storedTile(
      KernelContext ctx,
      short[] a, // [64, K] bf16 bits
      short[] b, // [128, K] bf16 bits
      float[] d, // [64, 128]
      @Specialize int swizzle) {
    int k = swizzle / 2;
    short[] tile = ctx.allocateShortLocalArray(128 * 64);
    for (int i = ctx.localIdx; i < 128 * k; i += 128) {
      tile[TileMap.swizzle(2 * i, swizzle) / 2] = b[i];
    }
    ctx.fenceSharedAsync();
    ctx.localBarrier();
    WgmmaKernels.store(ctx, d, products(ctx, a, tile, swizzle), 0);
  }

  /** B copied in by one tile copy of {@code map} (B as 128 rows of K, box K x 128). */
  @Kernel(archs = {90})
  public static void copiedTile(
      KernelContext ctx,
      short[] a, // [64, K] bf16 bits
      long[] map, // [16] tile map of B: K x 128, box K x 128, swizzled
      float[] d, // [64, 128]
      @Specialize int swizzle) {
    short[] tile = ctx.allocateShortLocalArray(128 * 64);
    long[] full = ctx.allocateLongLocalArray(1);
    if (ctx.localIdx == 0) {
      Mbarrier.init(full, 0, 1);
      Mbarrier.fenceInit();
    }
    ctx.localBarrier();
    if (ctx.localIdx == 0) {
      Mbarrier.arriveExpectTx(full, 0, 128 * swizzle);
      Vec.copyTileAsync(tile, 0, map, 0, 0, full, 0);
    }
    Mbarrier.waitParity(full, 0, 0);
    WgmmaKernels.store(ctx, d, products(ctx, a, tile, swizzle), 0);
  }

  private static Float4x16 products(KernelContext ctx, short[] a, short[] tile, int swizzle) {
    int k = swizzle / 2;
    Float4x16 acc = Float4x16.zero();
    ctx.warpgroupFence();
    for (int s = 0; s < k / 16; s++) {
      acc =
          ctx.warpgroupMmaBf16Swizzled(
              WgmmaKernels.fragment(ctx, a, k, 16 * s), tile, 16 * s, swizzle, acc);
    }
    ctx.warpgroupCommit();
    ctx.warpgroupWait(0);
    return acc;
  }
}
