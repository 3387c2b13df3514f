package sirocco.kernels.quant;

import sirocco.runtime.Dim3;

/**
 * The checks and the launch of an explicit {@link QmmTiledKernel} tiling ({@link
 * QmmTiledKernel#plan(QmmShape, int, int, int, int, int, int)}): each bad argument named, the
 * block, grid and shared memory, and the occupancy hint.
 */
final class QmmTiledPlan {
  private QmmTiledPlan() {}

  static LaunchPlan explicit(QmmShape s, int bm, int bn, int mt, int nt, int stages, int xAsync) {
    if (stages != 1 && stages != 2) {
      throw new IllegalArgumentException("stages must be 1 or 2, got " + stages);
    }
    if (xAsync != 0 && (xAsync != 1 || stages != 2)) {
      throw new IllegalArgumentException(
          "xAsync must be 0, or 1 with stages = 2, got xAsync=" + xAsync + " stages=" + stages);
    }
    if (mt < 1 || mt > 4 || nt < 1 || nt > 8) {
      throw new IllegalArgumentException("mt must be 1..4 and nt 1..8, got mt=" + mt + " nt=" + nt);
    }
    if (bm < 1 || bn < 1 || bn % (16 * mt) != 0 || bm % (8 * nt) != 0) {
      throw new IllegalArgumentException(
          "bm must be a positive multiple of 8*nt and bn of 16*mt, got bm="
              + bm
              + " bn="
              + bn
              + " mt="
              + mt
              + " nt="
              + nt);
    }
    int threads = 32 * (bn / (16 * mt)) * (bm / (8 * nt));
    if (threads > 1024) {
      throw new IllegalArgumentException("block of " + threads + " threads exceeds 1024");
    }
    if (bm * 8 > 8 * threads || bn * (s.bits() / 2) > 2 * threads) {
      throw new IllegalArgumentException(
          "bm="
              + bm
              + " bn="
              + bn
              + " need more than 8 x chunks or 2 weight chunks per thread with "
              + threads
              + " threads (use smaller warp tiles mt, nt)");
    }
    int shared = stages * (bm + bn) * 32 * 4;
    int limit = stages == 1 ? 48 * 1024 : QmmMmaAsyncKernel.SHARED_LIMIT;
    if (shared > limit) {
      throw new IllegalArgumentException(
          "bm + bn = "
              + (bm + bn)
              + " needs "
              + shared
              + " B of shared memory with "
              + stages
              + " stage(s) (max "
              + limit
              + ")");
    }
    if (s.n() % bn != 0) {
      throw new IllegalArgumentException(
          "bn=" + bn + " must divide n=" + s.n() + " (whole feature tiles)");
    }
    Dim3 grid = Dim3.of(s.n() / bn, (s.rows() + bm - 1) / bm);
    // Two blocks per SM where threads and shared memory allow it and ptxas fits 4-bit warp tiles of
    // up to 64 accumulators in the 128 registers that leaves without spills (ptxas 12.6, sm_90: 128
    // at 128x128 one or two slots, where it would otherwise take 157; 8-bit codes spill).
    boolean twoPerSm =
        s.bits() == 4
            && mt * nt <= 16
            && threads <= 256
            && 2 * shared <= QmmMmaAsyncKernel.SHARED_LIMIT;
    LaunchPlan p =
        LaunchPlan.of(
            "QmmTiledKernel.qmm",
            grid,
            Dim3.of(threads),
            shared,
            "bits",
            s.bits(),
            "groupSize",
            s.groupSize(),
            "dtype",
            s.dtype(),
            "bm",
            bm,
            "bn",
            bn,
            "mt",
            mt,
            "nt",
            nt,
            "stages",
            stages,
            "xAsync",
            xAsync);
    return twoPerSm ? p.withMinBlocksPerSm(2) : p;
  }
}
