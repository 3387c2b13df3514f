package sirocco.kernels.quant;

/**
 * The cross-warp reduction of the split-K tensor-core kernels ({@link QmmMmaSplitKKernel}, {@link
 * QmmMmaAsyncKernel}, {@link QmmMmaAsyncFpKernel}): after a batch, warp w has stored its partial
 * tiles into a shared slab, and each reducer thread adds one output's {@code ks} partial sums and
 * stores it. Kernel subset only (static, no allocation): the JIT inlines these.
 *
 * <p>Slab layout: warp w's tiles at {@code w·tile}, {@code tile = mt·rt·128} floats; tile {@code ut
 * = u·rt + v} (feature tile u, row tile v) at {@code ut·128}, lane l's accumulator (the m16n8 C
 * fragment: rows g, g+8 of the mma, columns 2t, 2t+1) at {@code ut·128 + 4l}. Entry e of a batch (0
 * ≤ e < tile) is output (row {@link #entryRow}, feature {@link #entryFeature}) read from {@link
 * #entrySlot}: consecutive entries are consecutive x rows, so a warp of reducers stores 8 rows of 4
 * features.
 */
final class QmmMmaReduce {
  private QmmMmaReduce() {}

  /** Row (of the block's 8·rt rows) of entry {@code e}. */
  static int entryRow(int e, int rt) {
    int ut = e >> 7;
    int v = ut - (rt == 2 ? ut >> 1 : ut) * rt;
    return v * 8 + (e & 7);
  }

  /** Feature (of the batch's 16·mt) of entry {@code e}. */
  static int entryFeature(int e, int rt) {
    int ut = e >> 7;
    int q = e & 127;
    return (rt == 2 ? ut >> 1 : ut) * 16 + featureInTile(q);
  }

  /** Feature (0–15) of a tile's entry {@code q}: the m16n8 C fragment's row. */
  static int featureInTile(int q) {
    return ((q >> 3) & 1) | (((q >> 4) & 1) << 3) | ((q >> 5) << 1);
  }

  /** Slab offset of entry {@code e} in warp 0's tiles (warp w's at {@code + w·tile}). */
  static int entrySlot(int e, int rt) {
    int ut = e >> 7;
    int q = e & 127;
    int i = featureInTile(q);
    int rr = q & 7;
    return ut * 128 + ((i & 7) * 4 + (rr >> 1)) * 4 + (i >> 3) * 2 + (rr & 1);
  }

  /**
   * Adds the {@code ks} partial sums of one entry ({@code at}, warp w's at {@code at + w·tile}) and
   * stores the output half at {@code o}. Four independent chains: the reducers' adds are on every
   * warp's path to the next barrier.
   */
  static void sumEntry(
      float[] red, // [.., ks, tile] shared slab
      short[] out, // [rows, n] bf16/f16 bits
      int at,
      int tile,
      int ks,
      int o,
      int dtype) {
    float s0 = 0f;
    float s1 = 0f;
    float s2 = 0f;
    float s3 = 0f;
    for (int w = 0; w < ks; w += 4) {
      s0 += red[at + w * tile];
      if (w + 1 < ks) {
        s1 += red[at + (w + 1) * tile];
      }
      if (w + 2 < ks) {
        s2 += red[at + (w + 2) * tile];
      }
      if (w + 3 < ks) {
        s3 += red[at + (w + 3) * tile];
      }
    }
    out[o] = QuantMath.floatToHalf((s0 + s1) + (s2 + s3), dtype);
  }

  /**
   * The reducers of one batch: threads (tile, feature, row) with row < rows add the ks warps'
   * values and store the output; {@code tid} counts from 0 among the {@code threads} reducing this
   * batch. A thread-strided loop: the constant-round form this once had (for a constant-trip phase
   * loop around it, since removed) cost {@link QmmMmaSplitKKernel#qmm} 2–23 registers (its class
   * comment, "Registers"). Kernels whose block has a thread per entry hoist the entry's arithmetic
   * out of their batch loop instead ({@link #ownSlot}).
   */
  static void batch(
      float[] red, // [2 * ks * mt * rt * 128] shared slab
      short[] out, // [rows, n] bf16/f16 bits
      int buf,
      int tid,
      int threads,
      int bt,
      int fpb,
      int mBase,
      int rows,
      int n,
      int ks,
      int mt,
      int rt,
      int dtype) {
    int tile = mt * rt * 128; // one warp's tiles
    for (int e = tid; e < tile; e += threads) {
      int r = entryRow(e, rt);
      int feat = bt * fpb + entryFeature(e, rt);
      if (mBase + r < rows && feat < n) {
        sumEntry(red, out, buf + entrySlot(e, rt), tile, ks, (mBase + r) * n + feat, dtype);
      }
    }
  }

  /**
   * Slab offset of thread {@code tid}'s own entry of every batch, or -1 where it reduces nothing
   * (past the tile, or its row past the end): for blocks with at least one thread per entry ({@code
   * 32·ks ≥ rt·128}, mt = 1), which compute it and the output index once per kernel and call {@link
   * #sumOwn} per batch. Recomputing them per batch in {@link #batch} cost ~20 instructions per warp
   * and batch, part of them placed by ptxas 13.0 on the path of the warps that reduce nothing.
   */
  static int ownSlot(int tid, int rt, int mBase, int rows) {
    return tid < rt * 128 && mBase + entryRow(tid, rt) < rows ? entrySlot(tid, rt) : -1;
  }

  /** Whether a block of {@code ks} warps has a thread per entry of an {@code rt}-tile batch. */
  static boolean ownsEntries(int ks, int rt) {
    return 32 * ks >= rt * 128;
  }

  /** Output index of thread {@code tid}'s entry at batch 0 ({@link #sumOwn}'s {@code o}). */
  static int ownOut(int tid, int rt, int mBase, int n) {
    return (mBase + entryRow(tid, rt)) * n + entryFeature(tid, rt);
  }

  /**
   * The own entry's output of batch {@code bt} (16 features), if it has one: {@code slot} from
   * {@link #ownSlot}, {@code o} the output index of its row at its feature ({@link #entryFeature})
   * of batch 0. The feature is recomputed for the last batch only (two live registers rather than
   * three: two row tiles at 128 registers spilled 24 bytes with three).
   */
  static void sumOwn(
      float[] red, // [2 * ks * rt * 128] shared slab
      short[] out, // [rows, n] bf16/f16 bits
      int slot,
      int o,
      int tid,
      int buf,
      int bt,
      int n,
      int ks,
      int rt,
      int dtype) {
    if (slot >= 0 && (bt * 16 + 16 <= n || bt * 16 + entryFeature(tid, rt) < n)) {
      sumEntry(red, out, buf + slot, rt * 128, ks, o + bt * 16, dtype);
    }
  }
}
