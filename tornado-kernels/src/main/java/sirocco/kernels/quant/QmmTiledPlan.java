package sirocco.kernels.quant;

import sirocco.runtime.Dim3;

/**
 * {@link QmmTiledKernel}'s launch plans: the default tiling for a shape ({@link #byDefault}, with
 * the measurements behind it), and the checks and launch of an explicit tiling ({@link
 * QmmTiledKernel#plan(QmmShape, int, int, int, int, int, int)}): each bad argument named, the
 * block, grid and shared memory, and the occupancy hint.
 */
final class QmmTiledPlan {
  private QmmTiledPlan() {}

  /**
   * The default tiling: blocks of 128 rows of x, with warps of 48 features x 32 rows and two tile
   * slots; 96 features per block where n is a multiple of 96 (up to 384 rows), else 128 (warps of
   * 64 x 32), else 64 (32 x 32, one slot). Each plan fits two 256-thread blocks per SM (96 and 128
   * registers). H200, 12288 x 4096 4-bit g64 bf16 (run 60, µs): 128 x 96 72.5 / 74.1 / 114.3 /
   * 176.6 / 223.2 / 438.8 at 64 / 128 / 256 / 384 / 512 / 1024 rows, 128 x 128 85.6 / 86.3 / 132.2
   * / 206.0 / 207.2 / 384.5, 256 x 96 (48 x 64 warps, one 256-thread block per SM) 113.5 / 111.3 /
   * 118.4 / 225.7 / 232.9 / 448.4. Blocks run in waves of two per SM: above 384 rows the 128-wide
   * blocks, fewer and each more efficient per feature, leave a smaller last wave (at 512 rows 384
   * blocks = 1.45 waves against 512 = 1.94). Since run 104, 4-bit weights at 129–512 rows take
   * blocks of 192 or 256 rows instead ({@link #tallRows}).
   */
  static LaunchPlan byDefault(QmmShape s) {
    // 4-bit: x goes by cp.async for every row count: 70.5 / 112.0 / 216.0 µs at 128 / 256 / 512
    // rows against 71.5 / 113.9 / 222.6 through registers (128 x 96; 128 x 128: 199.4 against
    // 212.6 at 512, 376.4 against 394.9 at 1024; run 63). A partly filled last block skips its rows
    // past the end (copying the clamped last row made 64 rows twice as slow in run 63): 68.2 / 68.3
    // / 107.5 at 64 / 96 / 192 rows against 70.5 / 71.2 / 113.2 through registers (run 64). 8-bit
    // keeps the registers: 169.4 / 170.6 at 192 / 256 rows against 183.4 / 186.2 (run 70).
    int xAsync = s.bits() == 4 ? 1 : 0;
    int tall = tallRows(s);
    if (tall != 0) {
      // Two warps across: bn / 32 tiles of 16 features (48 or 64) by 8 tiles of 8 rows each.
      int bn = s.n() % 96 == 0 ? 96 : 128;
      return explicit(s, tall, bn, bn / 32, 8, 2, xAsync);
    }
    if (s.n() % 96 == 0 && (s.rows() <= 384 || s.n() % 128 != 0)) {
      return explicit(s, 128, 96, 3, 4, 2, xAsync);
    }
    if (s.n() % 128 == 0) {
      return explicit(s, 128, 128, 4, 4, 2, xAsync);
    }
    return explicit(s, 128, 64, 2, 4, 1, 0);
  }

  /**
   * Rows of x per block for 4-bit weights between 129 and 512 rows: blocks of 192 or 256 rows
   * (warps of 48 or 64 features by 64 rows, one block per SM), or 0 for the 128-row plans. A block
   * of 192 or 256 rows reads each weight tile once for more rows than two 128-row blocks do, and of
   * the two the one needing fewer row blocks wins (the smaller at a tie: less of it runs past the
   * last row). H100 (run 104, 12288 x 4096 g64 bf16, graph replay, µs; the 128 x 96 plan in
   * brackets): 192 rows 192 x 96 85.3 (102.2), 256 rows 256 x 96 93.3 (103.7), 384 rows 192 x 96
   * 130.4 (159.4), 512 rows 256 x 96 184.0 (128 x 128: 192.8); 256 x 96 at 256 / 512 rows also 94.1
   * / 185.4 for f16 (104.1 / 210.7), 91.0 / 178.7 for g128 (98.7 / 193.8), 93.6 / 184.6 for g32
   * (102.9 / 203.6); 64 and 128 rows stay on 128 x 96 (61.6 / 62.8 against 83.7–107.7). n a
   * multiple of 128 only (14336 x 4096): 256 x 128 111.4 / 223.3 at 256 / 512 rows against 128 x
   * 128's 124.6 / 249.6, but 108.8 against 73.2 at 128; at 257–384 rows, where it would run two row
   * blocks against 128 x 128's three, not timed, so 128 x 128 stays. 8-bit codes keep the 128-row
   * plan (163.4 against 180.1 at 256 rows). Timed with 128 and 112 feature blocks per row block;
   * below 96 (n under 9216 or 12288) the 128-row plans stay, as the policy's block count ({@code
   * QmmPolicy.TILED_MIN_BLOCKS}) was measured with them. Not timed on an H200 (also 132 SMs).
   */
  static int tallRows(QmmShape s) {
    int r = s.rows();
    if (s.bits() != 4 || r <= 128 || r > 512) {
      return 0;
    }
    if (s.n() % 96 == 0) {
      if (s.n() / 96 < 96) {
        return 0;
      }
      return (r + 191) / 192 <= (r + 255) / 256 ? 192 : 256;
    }
    if (s.n() % 128 == 0 && s.n() / 128 >= 96 && (r <= 256 || r > 384)) {
      return 256;
    }
    return 0;
  }

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
