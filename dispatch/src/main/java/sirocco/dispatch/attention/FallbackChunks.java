package sirocco.dispatch.attention;

import java.util.ArrayList;
import java.util.List;

/**
 * How the unfused fallback splits a call whose float32 score buffer {@code [B, Hq, Lq, Lkv]} would
 * exceed a budget of floats: into chunks whose outputs are contiguous ranges of {@code [B, Hq, Lq,
 * Dv]}, each run with the same three kernels over a smaller score buffer. Host logic only.
 *
 * <ol>
 *   <li>Whole batches: {@code [b0, b0 + nb)} with every head and query (one chunk when all fit).
 *   <li>Else, in one batch, whole GQA groups: q heads {@code [hk0·g, (hk0 + m)·g)} over kv heads
 *       {@code [hk0, hk0 + m)}, every query.
 *   <li>Else, one q head (its kv head {@code h / g}) and a block of {@code n} queries {@code [i0,
 *       i0 + n)}. Under a causal mask the block sees keys {@code [0, i0 + n + Lkv − Lq)} (clamped
 *       to {@code [0, Lkv]}), and with {@code Lq' = n} the kernels' bottom-right rule {@code j ≤ i'
 *       + Lkv' − Lq'} is the original {@code j ≤ i + Lkv − Lq}: keys past the block's horizon are
 *       neither scored nor stored.
 * </ol>
 */
record FallbackChunks(List<Chunk> chunks, long maxScores, long maxOut, int maxQHeads) {

  /**
   * One launch group: batches {@code [b0, b0 + batches)}, q heads {@code [qHead0, qHead0 + qHeads)}
   * over kv heads {@code [kvHead0, kvHead0 + kvHeads)}, queries {@code [i0, i0 + qLen)}, keys
   * {@code [0, kvLen)}; its output is {@code outCount} elements at {@code outOffset}.
   */
  record Chunk(
      int b0,
      int batches,
      int qHead0,
      int qHeads,
      int kvHead0,
      int kvHeads,
      int i0,
      int qLen,
      int kvLen,
      long outOffset,
      long outCount) {
    long scores() {
      return (long) batches * qHeads * qLen * kvLen;
    }
  }

  /** True when one chunk covers the whole call (no copies needed). */
  boolean single() {
    return chunks.size() == 1 && chunks.get(0).outOffset() == 0 && chunks.get(0).i0() == 0;
  }

  /**
   * The chunks of a call with at most {@code budget} scores each (a chunk of one query row over all
   * keys may exceed it: that is the finest split).
   */
  static FallbackChunks of(
      int batch,
      int qHeads,
      int kvHeads,
      int qLen,
      int kvLen,
      int valueDim,
      boolean causal,
      long budget) {
    budget = Math.max(1, budget);
    int g = qHeads / kvHeads;
    long perRow = Math.max(1, kvLen);
    long perBatch = (long) qHeads * qLen * perRow;
    long perGroup = (long) g * qLen * perRow;
    List<Chunk> out = new ArrayList<>();
    long rowOut = (long) qLen * valueDim;
    if (perBatch <= budget) {
      int nb = (int) Math.min(batch, budget / perBatch);
      for (int b0 = 0; b0 < batch; b0 += nb) {
        int n = Math.min(nb, batch - b0);
        out.add(
            new Chunk(
                b0,
                n,
                0,
                qHeads,
                0,
                kvHeads,
                0,
                qLen,
                kvLen,
                (long) b0 * qHeads * rowOut,
                (long) n * qHeads * rowOut));
      }
    } else if (perGroup <= budget) {
      int m = (int) Math.min(kvHeads, budget / perGroup);
      for (int b = 0; b < batch; b++) {
        for (int hk0 = 0; hk0 < kvHeads; hk0 += m) {
          int n = Math.min(m, kvHeads - hk0);
          out.add(
              new Chunk(
                  b,
                  1,
                  hk0 * g,
                  n * g,
                  hk0,
                  n,
                  0,
                  qLen,
                  kvLen,
                  ((long) b * qHeads + (long) hk0 * g) * rowOut,
                  (long) n * g * rowOut));
        }
      }
    } else {
      int rows = (int) Math.max(1, Math.min(qLen, budget / perRow));
      for (int b = 0; b < batch; b++) {
        for (int h = 0; h < qHeads; h++) {
          for (int i0 = 0; i0 < qLen; i0 += rows) {
            int n = Math.min(rows, qLen - i0);
            int keys =
                causal ? (int) Math.max(0, Math.min(kvLen, (long) i0 + n + kvLen - qLen)) : kvLen;
            out.add(
                new Chunk(
                    b,
                    1,
                    h,
                    1,
                    h / g,
                    1,
                    i0,
                    n,
                    keys,
                    (((long) b * qHeads + h) * qLen + i0) * valueDim,
                    (long) n * valueDim));
          }
        }
      }
    }
    long maxScores = 0;
    long maxOut = 0;
    int maxQHeads = 0;
    for (Chunk c : out) {
      maxScores = Math.max(maxScores, c.scores());
      maxOut = Math.max(maxOut, c.outCount());
      maxQHeads = Math.max(maxQHeads, c.qHeads());
    }
    return new FallbackChunks(List.copyOf(out), maxScores, maxOut, maxQHeads);
  }
}
