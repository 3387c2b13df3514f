package sirocco.kernels.attention;

import sirocco.api.Vec;

/**
 * The shared-memory slot of {@link SdpaVectorMmaStaged}: per warp, one iteration of the 16-byte K/V
 * chunks each lane of {@link SdpaVectorMma#decode} loads (8 per lane at D = 64, 16 at D = 128),
 * requested with {@code cp.async} one iteration ahead, so that a lane has two iterations in flight
 * while it holds registers for one.
 *
 * <p>Every lane reads back only the chunks it copied itself, so the slot needs this lane's {@code
 * waitAsync} and no barrier. A lane refills its slot in the iteration that read it, after the reads
 * (16-byte shared loads issued before the copies, whose shared writes land only when their global
 * data has arrived) and after the score products have used the K values.
 *
 * <p>Layout, in shorts: {@code [WARPS][chunks][32 lanes][8]}, chunk order K {@code ka0 ka1 kb0
 * kb1}, V {@code va0 vb0 vc0 vd0}, then at D = 128 {@code ka2 ka3 kb2 kb3 va1 vb1 vc1 vd1} (the
 * names of {@link SdpaVectorMma#decode}). One chunk index holds the warp's 32 chunks contiguously
 * (512 bytes), so the copies and the reads of a warp are conflict-free.
 */
final class SdpaMmaSlot {
  private SdpaMmaSlot() {}

  /** Shorts per chunk index: 32 lanes × one 16-byte chunk. */
  static final int SLOT = 32 * 8;

  /** Chunks per lane and iteration at head dim {@code headDim} (64 or 128). */
  static int chunks(int headDim) {
    return headDim > 64 ? 16 : 8;
  }

  /** Length of the slot array: every warp's slot when {@code staged}, else a placeholder. */
  static int shorts(boolean staged, int headDim) {
    return staged ? SdpaVectorMma.WARPS * chunks(headDim) * SLOT : 8;
  }

  /** Bytes of shared memory the slots add to a block at head dim {@code headDim}. */
  static int bytes(int headDim) {
    return shorts(true, headDim) * 2;
  }

  /** Index of lane {@code lane}'s chunk 0 in warp {@code warp}'s slot. */
  static int at(int warp, int lane, int headDim) {
    return warp * chunks(headDim) * SLOT + lane * 8;
  }

  /**
   * Starts the copies of the iteration at key {@code base} into the slot at {@code at}, with the
   * addresses {@link SdpaVectorMma#decode} loads: K rows {@code min(base + g, last)} and {@code
   * min(base + 8 + g, last)} from {@code kLane}, V rows {@code min(base + 2t + {0, 1, 8, 9}, last)}
   * from {@code vLane} (row strides {@code kSL}/{@code vSL}); {@code wide} for D = 128.
   */
  static void issue(
      short[] slot, // [WARPS, chunks, 32, 8] shared
      int at,
      short[] k, // [B, Hkv, Lkv, D] bf16/f16 bits
      short[] v, // [B, Hkv, Lkv, D] bf16/f16 bits
      int kLane,
      int vLane,
      int base,
      int last,
      int kSL,
      int vSL,
      int g,
      int t,
      boolean wide) {
    int ka = kLane + Math.min(base + g, last) * kSL;
    int kb = kLane + Math.min(base + 8 + g, last) * kSL;
    int key = base + 2 * t;
    int va = vLane + Math.min(key, last) * vSL;
    int vb = vLane + Math.min(key + 1, last) * vSL;
    int vc = vLane + Math.min(key + 8, last) * vSL;
    int vd = vLane + Math.min(key + 9, last) * vSL;
    Vec.copyAsync(slot, at, k, ka, 16);
    Vec.copyAsync(slot, at + SLOT, k, ka + 32, 16);
    Vec.copyAsync(slot, at + 2 * SLOT, k, kb, 16);
    Vec.copyAsync(slot, at + 3 * SLOT, k, kb + 32, 16);
    Vec.copyAsync(slot, at + 4 * SLOT, v, va, 16);
    Vec.copyAsync(slot, at + 5 * SLOT, v, vb, 16);
    Vec.copyAsync(slot, at + 6 * SLOT, v, vc, 16);
    Vec.copyAsync(slot, at + 7 * SLOT, v, vd, 16);
    if (wide) {
      Vec.copyAsync(slot, at + 8 * SLOT, k, ka + 64, 16);
      Vec.copyAsync(slot, at + 9 * SLOT, k, ka + 96, 16);
      Vec.copyAsync(slot, at + 10 * SLOT, k, kb + 64, 16);
      Vec.copyAsync(slot, at + 11 * SLOT, k, kb + 96, 16);
      Vec.copyAsync(slot, at + 12 * SLOT, v, va + 64, 16);
      Vec.copyAsync(slot, at + 13 * SLOT, v, vb + 64, 16);
      Vec.copyAsync(slot, at + 14 * SLOT, v, vc + 64, 16);
      Vec.copyAsync(slot, at + 15 * SLOT, v, vd + 64, 16);
    }
  }
}
