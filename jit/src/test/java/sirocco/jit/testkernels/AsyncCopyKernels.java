package sirocco.jit.testkernels;

import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Asynchronous global-to-shared copies ({@code Vec.copyAsync}, {@code commitAsync}, {@code
 * waitAsync}; {@code cp.async}) in multi-stage pipelines that keep several groups in flight. Both
 * kernels are launched with 1-D blocks of {@link #BLOCK} threads (any number of blocks) and write
 * one int per thread, {@code out[ctx.globalIdx]}, a checksum of what the thread read, in order:
 * tile {@code k} contributes {@code acc = acc * 31 + value(k)}, so a tile read before it landed,
 * twice, or in the wrong order changes the result.
 *
 * <p>{@link #asyncPipeline}: block {@code b} streams {@code tiles} tiles of {@code words} ({@link
 * #WTILE} ints each, from {@code b * tiles * WTILE}) and of {@code halves} ({@link #HTILE} shorts
 * each, from {@code b * tiles * HTILE}) through {@link #STAGES} shared buffers; thread {@code t}
 * copies ints {@code 4t..4t+3} of each word tile (16 bytes) and shorts {@code 2t, 2t+1} of each
 * half tile (4 bytes), then, after {@code waitAsync(STAGES - 2)} and a barrier, reads values other
 * threads copied: {@code value(k) = (w[4 * ((t + 1) % 32) + (k % 4)] ^ w[WTILE - 1 - t]) + h[HTILE
 * - 1 - t]}, with {@code w} and {@code h} tile {@code k}.
 *
 * <p>{@link #asyncOwnPipeline}: no barrier; thread {@code g} (global index) copies, for tile {@code
 * k}, the 4 ints at {@code words[(k * G + g) * 4]} (two 8-byte copies) and the 8 shorts at {@code
 * halves[(k * G + g) * 8]} (one 16-byte copy), {@code G = globalGroupSizeX}, into its own slots of
 * {@link #OWN_STAGES} buffers, waits with {@code waitAsync(OWN_STAGES - 2)} and reads only its own
 * copies: {@code value(k) = (x + 3 * y ^ z - w) + 7 * s[k % 8] + s[7 - k % 8]} with {@code x, y, z,
 * w} the ints ({@code Vec.load4} on the shared array) and {@code s} the shorts ({@code Vec.ldg} and
 * a plain load on the shared array).
 */
public final class AsyncCopyKernels {
  private AsyncCopyKernels() {}

  /** Threads per block both kernels are written for. */
  public static final int BLOCK = 32;

  /** Shared buffers of {@link #asyncPipeline}: up to {@code STAGES - 1} tiles in flight. */
  public static final int STAGES = 4;

  /** Ints per word tile: 16 bytes per thread. */
  public static final int WTILE = BLOCK * 4;

  /** Shorts per half tile: 4 bytes per thread. */
  public static final int HTILE = BLOCK * 2;

  /** Shared buffers of {@link #asyncOwnPipeline}. */
  public static final int OWN_STAGES = 3;

  @Kernel(validateWith = {"tiles=7", "tiles=2"})
  public static void asyncPipeline(
      KernelContext ctx, int[] words, short[] halves, int[] out, @Specialize int tiles) {
    int[] w = ctx.allocateIntLocalArray(STAGES * WTILE);
    short[] h = ctx.allocateShortLocalArray(STAGES * HTILE);
    int t = ctx.localIdx;
    int wbase = ctx.groupIdx * tiles * WTILE;
    int hbase = ctx.groupIdx * tiles * HTILE;
    // Prologue: tiles 0 .. STAGES-2, one group each (empty when there are fewer tiles).
    for (int s = 0; s < STAGES - 1; s++) {
      if (s < tiles) {
        issue(w, h, words, halves, s, t, wbase, hbase);
      }
      Vec.commitAsync();
    }
    int acc = 0;
    for (int k = 0; k < tiles; k++) {
      Vec.waitAsync(STAGES - 2); // this thread's copies of tile k have landed
      ctx.localBarrier(); // every thread's have, and nobody reads stage (k - 1) % STAGES any more
      int ws = (k % STAGES) * WTILE;
      int hs = (k % STAGES) * HTILE;
      int a = w[ws + 4 * ((t + 1) & (BLOCK - 1)) + (k & 3)];
      int b = w[ws + WTILE - 1 - t];
      int c = h[hs + HTILE - 1 - t];
      acc = acc * 31 + ((a ^ b) + c);
      int next = k + STAGES - 1;
      if (next < tiles) {
        issue(w, h, words, halves, next, t, wbase, hbase); // into stage (k - 1) % STAGES
      }
      Vec.commitAsync(); // empty in the last iterations: the wait count stays STAGES - 2
    }
    out[ctx.globalIdx] = acc;
  }

  private static void issue(
      int[] w, short[] h, int[] words, short[] halves, int tile, int t, int wbase, int hbase) {
    int stage = tile % STAGES;
    Vec.copyAsync(w, stage * WTILE + 4 * t, words, wbase + tile * WTILE + 4 * t, 16);
    Vec.copyAsync(h, stage * HTILE + 2 * t, halves, hbase + tile * HTILE + 2 * t, 4);
  }

  @Kernel(validateWith = "tiles=5")
  public static void asyncOwnPipeline(
      KernelContext ctx, int[] words, short[] halves, int[] out, @Specialize int tiles) {
    int[] w = ctx.allocateIntLocalArray(OWN_STAGES * BLOCK * 4);
    short[] h = ctx.allocateShortLocalArray(OWN_STAGES * BLOCK * 8);
    int t = ctx.localIdx;
    int g = ctx.globalIdx;
    int total = ctx.globalGroupSizeX;
    for (int s = 0; s < OWN_STAGES - 1; s++) {
      if (s < tiles) {
        issueOwn(w, h, words, halves, s, t, g, total);
      }
      Vec.commitAsync();
    }
    int acc = 0;
    for (int k = 0; k < tiles; k++) {
      Vec.waitAsync(OWN_STAGES - 2); // only this thread reads what this thread copied
      int stage = k % OWN_STAGES;
      Int4 v = Vec.load4(w, (stage * BLOCK + t) * 4);
      int hs = (stage * BLOCK + t) * 8;
      int s1 = Vec.ldg(h, hs + (k & 7));
      int s2 = h[hs + 7 - (k & 7)];
      acc = acc * 31 + ((v.x() + 3 * v.y() ^ v.z() - v.w()) + 7 * s1 + s2);
      int next = k + OWN_STAGES - 1;
      if (next < tiles) {
        issueOwn(w, h, words, halves, next, t, g, total);
      }
      Vec.commitAsync();
    }
    out[g] = acc;
  }

  private static void issueOwn(
      int[] w, short[] h, int[] words, short[] halves, int tile, int t, int g, int total) {
    int stage = tile % OWN_STAGES;
    int wd = (stage * BLOCK + t) * 4;
    int src = (tile * total + g) * 4;
    Vec.copyAsync(w, wd, words, src, 8);
    Vec.copyAsync(w, wd + 2, words, src + 2, 8);
    Vec.copyAsync(h, (stage * BLOCK + t) * 8, halves, (tile * total + g) * 8, 16);
  }
}
