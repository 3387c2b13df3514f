package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Mbarrier;
import sirocco.api.Specialize;
import sirocco.api.TileMap;
import sirocco.api.Vec;

/**
 * Tile copies ({@code Vec.copyTileAsync}) through a two-stage pipeline of transaction barriers: a
 * block copies its share of a bf16-sized matrix box by box and writes each element back to where it
 * came from, reading the box where the swizzle model ({@link TileMap#swizzle}) says it landed. An
 * output equal to the input therefore checks the copies, the barriers' phases and, on a GPU, the
 * swizzle model against the hardware.
 */
public final class TileCopyKernels {
  private TileCopyKernels() {}

  /** Threads per block. */
  public static final int THREADS = 128;

  /** Rows of a box. */
  public static final int BOX_ROWS = 32;

  /**
   * Box width in elements for a swizzle: a whole swizzle span of 2-byte elements, 64 unswizzled.
   */
  public static int boxCols(int swizzleBytes) {
    return swizzleBytes == 0 ? 64 : swizzleBytes / 2;
  }

  /**
   * Copies {@code rows x cols} of the matrix {@code map} describes (boxes {@link #boxCols} x {@link
   * #BOX_ROWS}) to {@code out}; counts in {@code bad[0]} the elements of boxes hanging over the
   * matrix's edge that did not land as zeros.
   */
  @Kernel(archs = {90})
  public static void copyTiles(
      KernelContext ctx,
      long[] map, // [16] tile map of the input: cols x rows, boxCols(swizzle) x BOX_ROWS
      short[] out, // [rows, cols]
      int[] bad, // [1]
      int cols,
      int rows,
      @Specialize int swizzle,
      @Specialize int stages) { // boxes in flight; 16 puts the 64 KiB of stages in dynamic memory
    int boxCols = boxCols(swizzle);
    int boxElems = boxCols * BOX_ROWS;
    short[] tiles = ctx.allocateShortLocalArray(stages * 64 * BOX_ROWS);
    long[] full = ctx.allocateLongLocalArray(stages);
    int across = (cols + boxCols - 1) / boxCols;
    int boxes = across * ((rows + BOX_ROWS - 1) / BOX_ROWS);
    int mine = (boxes - ctx.groupIdx + ctx.groupCountX - 1) / ctx.groupCountX;
    int t = ctx.localIdx;
    if (t == 0) {
      for (int s = 0; s < stages; s++) {
        Mbarrier.init(full, s, 1);
      }
      Mbarrier.fenceInit();
    }
    ctx.localBarrier();
    if (t == 0) {
      for (int k = 0; k < stages && k < mine; k++) {
        request(ctx, map, tiles, full, k, stages, boxCols, across);
      }
    }
    for (int k = 0; k < mine; k++) {
      int s = k % stages;
      Mbarrier.waitParity(full, s, k / stages);
      int box = ctx.groupIdx + k * ctx.groupCountX;
      int col0 = (box % across) * boxCols;
      int row0 = (box / across) * BOX_ROWS;
      for (int e = t; e < boxElems; e += THREADS) {
        int r = e / boxCols;
        int c = e % boxCols;
        short v = tiles[s * 64 * BOX_ROWS + TileMap.swizzle(2 * (r * boxCols + c), swizzle) / 2];
        if (row0 + r < rows && col0 + c < cols) {
          out[(row0 + r) * cols + col0 + c] = v;
        } else if (v != 0) {
          ctx.atomicAdd(bad, 0, 1);
        }
      }
      ctx.localBarrier(); // every thread is done with stage s before it is refilled
      if (t == 0 && k + stages < mine) {
        request(ctx, map, tiles, full, k + stages, stages, boxCols, across);
      }
    }
  }

  private static void request(
      KernelContext ctx,
      long[] map,
      short[] tiles,
      long[] full,
      int k,
      int stages,
      int boxCols,
      int across) {
    int s = k % stages;
    int box = ctx.groupIdx + k * ctx.groupCountX;
    Mbarrier.arriveExpectTx(full, s, 2 * boxCols * BOX_ROWS);
    Vec.copyTileAsync(
        tiles,
        s * 64 * BOX_ROWS,
        map,
        (box % across) * boxCols,
        (box / across) * BOX_ROWS,
        full,
        s);
  }
}
