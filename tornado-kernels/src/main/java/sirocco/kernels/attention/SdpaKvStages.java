package sirocco.kernels.attention;

import sirocco.api.Vec;

/**
 * The shared-memory pipeline of {@link SdpaVectorStaged}: each lane's eight 16-byte K/V chunks of
 * an iteration (the ones {@link SdpaVector#decode} loads into registers) are requested {@link
 * #STAGES}{@code - 1} iterations ahead with {@code cp.async} into a ring of stages, so that a lane
 * has up to {@code (STAGES - 1) * 128} bytes in flight without holding registers for them.
 *
 * <p>Every lane reads back only the chunks it copied itself, so a stage needs this lane's {@code
 * waitAsync} and no barrier; the stage a lane refills is the one it read into registers in the
 * previous iteration, whose values its earlier instructions have already consumed.
 *
 * <p>Layout, in shorts: {@code [STAGES][WARPS][8 slots][32 lanes][8]}. Slot order is the register
 * order of {@link SdpaVector#decode}: K chunks 0–3 then V chunks 0–3 (for D ≤ 256 keys 0–3 of the
 * lane's key group; for D = 512 the two chunks of two keys). A slot holds the warp's 32 chunks
 * contiguously (512 bytes), so both the copies and the 16-byte reads of a warp are conflict-free.
 */
final class SdpaKvStages {
  private SdpaKvStages() {}

  /** Stages in the ring: three iterations in flight while one is computed. */
  static final int STAGES = 4;

  /** Shorts per slot: 32 lanes × one 16-byte chunk. */
  static final int SLOT = 32 * 8;

  /** Shorts per stage: every warp's 8 slots. */
  static final int STAGE = SdpaVector.WARPS * 8 * SLOT;

  /** Length of the stage ring array ({@code staged}), or a minimal placeholder (8 shorts). */
  static int shorts(boolean staged) {
    return staged ? STAGES * STAGE : 8;
  }

  /** Bytes of shared memory the ring adds to a block. */
  static final int BYTES = STAGES * STAGE * 2;

  /** Index of lane {@code lane}'s slot 0 in stage {@code stage} for warp {@code warp}. */
  static int slot(int stage, int warp, int lane) {
    return (stage * SdpaVector.WARPS + warp) * 8 * SLOT + lane * 8;
  }

  /**
   * Starts the copies of one iteration's eight chunks into stage {@code stage}, with the addresses
   * {@link SdpaVector#decode} uses: key rows {@code min(key0 + u*kpw, last)} from the lane's bases
   * {@code kLane}/{@code vLane} (row strides {@code kSL}/{@code vSL}); for D = 512 ({@code wide})
   * two keys with their second chunk {@code dc} further on.
   */
  static void issue(
      short[] ring, // [STAGES, WARPS, 8, 32, 8] shared
      int stage,
      short[] k, // [B, Hkv, Lkv, D] bf16/f16 bits
      short[] v, // [B, Hkv, Lkv, D] bf16/f16 bits
      int kLane,
      int vLane,
      int key0,
      int last,
      int kpw,
      int kSL,
      int vSL,
      int dc,
      boolean wide,
      int warp,
      int lane) {
    int at = slot(stage, warp, lane);
    int j0 = Math.min(key0, last);
    int j1 = Math.min(key0 + kpw, last);
    if (wide) {
      int ka = kLane + j0 * kSL;
      int kb = kLane + j1 * kSL;
      int va = vLane + j0 * vSL;
      int vb = vLane + j1 * vSL;
      Vec.copyAsync(ring, at, k, ka, 16);
      Vec.copyAsync(ring, at + SLOT, k, ka + dc, 16);
      Vec.copyAsync(ring, at + 2 * SLOT, k, kb, 16);
      Vec.copyAsync(ring, at + 3 * SLOT, k, kb + dc, 16);
      Vec.copyAsync(ring, at + 4 * SLOT, v, va, 16);
      Vec.copyAsync(ring, at + 5 * SLOT, v, va + dc, 16);
      Vec.copyAsync(ring, at + 6 * SLOT, v, vb, 16);
      Vec.copyAsync(ring, at + 7 * SLOT, v, vb + dc, 16);
    } else {
      int j2 = Math.min(key0 + 2 * kpw, last);
      int j3 = Math.min(key0 + 3 * kpw, last);
      Vec.copyAsync(ring, at, k, kLane + j0 * kSL, 16);
      Vec.copyAsync(ring, at + SLOT, k, kLane + j1 * kSL, 16);
      Vec.copyAsync(ring, at + 2 * SLOT, k, kLane + j2 * kSL, 16);
      Vec.copyAsync(ring, at + 3 * SLOT, k, kLane + j3 * kSL, 16);
      Vec.copyAsync(ring, at + 4 * SLOT, v, vLane + j0 * vSL, 16);
      Vec.copyAsync(ring, at + 5 * SLOT, v, vLane + j1 * vSL, 16);
      Vec.copyAsync(ring, at + 6 * SLOT, v, vLane + j2 * vSL, 16);
      Vec.copyAsync(ring, at + 7 * SLOT, v, vLane + j3 * vSL, 16);
    }
  }
}
