package sirocco.bench;

import java.util.ArrayList;
import java.util.List;
import sirocco.dispatch.quant.QmmOp;
import sirocco.kernels.quant.AffineQmvAsyncKernel;
import sirocco.kernels.quant.AffineQmvRowsKernel;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmMmaAsyncFpKernel;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmMmaXSharedKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.QmmTiledKernel;
import sirocco.kernels.quant.QmmWgmmaKernel;
import sirocco.kernels.quant.QmmWgmmaTmaKernel;

/**
 * The kernels {@code tornado bench qmm --kernel} names: the op's rungs, and rungs with an explicit
 * plan for tuning experiments ({@code qmm-mma@MTxNTxWNxKS[xD]}, {@code
 * qmm-mma-splitk@KSxMTxBPS[xRT]}, {@code qmv-splitk@BPSxFB}, {@code qmv-rows@RxF}, {@code
 * qmm-tiled@BMxBNxMTxNT}, {@code qmm-mma-xshared@WFxMTxNTxSTAGES[xWA]}, {@code
 * qmm-wgmma@WG[xPIPE[xAHEAD]]}), which the op itself never uses.
 */
final class QmmRungs {
  private QmmRungs() {}

  /**
   * The rungs a {@code --kernel} list names, or null if one is neither a rung nor a rung with an
   * explicit plan ({@link #tuned}).
   */
  static List<String> kernels(String list) {
    List<String> out = new ArrayList<>();
    for (String k : list.split(",", -1)) {
      String t = k.strip();
      if (!(QmmOp.rungs().contains(t) || tuned(t) != null)) {
        return null;
      }
      out.add(t);
    }
    return out;
  }

  /**
   * The numbers of a rung with an explicit plan, or null for any other name: {@code
   * qmm-mma@MTxNTxWNxKS} gives {@code {mt, nt, wn, ks}} (depth 1: one chunk of weights in flight
   * per warp), {@code qmm-mma@MTxNTxWNxKSxD} gives {@code {mt, nt, wn, ks, depth}}, {@code
   * qmm-mma-splitk@KSxMTxBPS} gives {@code {warps splitting k, 16-feature tiles per warp, blocks
   * per SM}} and {@code qmm-mma-splitk@KSxMTxBPSxRT} adds the 8-row tiles per warp (1, 2), {@code
   * qmv-splitk@BPSxFB} gives {@code {blocks per SM, features per batch}}, {@code
   * qmv-async@BLOCKSxFBxSTAGES} gives {@code {blocks (the whole grid), features per batch,
   * stages}}, {@code qmm-mma-async@KSxSTAGES[xRT[xBPS[xE[xRB[xFU]]]]]} gives {@code {warps
   * splitting k, stages[, 8-row tiles per warp[, blocks per SM[, early refill (1) or not (0)[,
   * batches per reduction round[, bf16 4-bit unpacking by fma.bf16x2 (1) or not (0)]]]]]}}, {@code
   * qmm-mma-fp-async@KSxSTAGES[xRT]} gives {@code {warps splitting k, stages[, 8-row tiles per
   * warp]}}, {@code qmm-mma-xshared@WFxMTxNTxSTAGES[xWA]} gives {@code {warps per block, 16-feature
   * tiles per warp, 8-row tiles, x slots[, weights by cp.async (1) or registers (0)]}}, {@code
   * qmv-rows@RxF} gives {@code {rows of x per block, features per warp}}, {@code
   * qmm-tiled@BMxBNxMTxNT} gives {@code {rows, features per block, 16-feature tiles, 8-row tiles
   * per warp}}, {@code qmm-tiled@BMxBNxMTxNTxS} adds the tile slots (1 or 2) and {@code
   * qmm-tiled@BMxBNxMTxNTxSxA} whether x arrives by cp.async (A = 1, with S = 2); {@code
   * qmm-wgmma@WG[xPIPE[xAHEAD]]} gives {@code {warpgroups per block[, 1: each step waits for its
   * products, 2: for the previous step's[, steps between a step's copies and its products,
   * 3..6]]}}, and {@code qmm-wgmma-tma@WG[xPIPE[xAHEAD]]} the same for its tile-copy variant.
   */
  static int[] tuned(String rung) {
    int at = rung.indexOf('@');
    if (at < 0) {
      return null;
    }
    String base = rung.substring(0, at);
    String[] parts = rung.substring(at + 1).split("x", -1);
    boolean ok =
        base.equals(QmmOp.QMM_MMA)
            ? parts.length == 4 || parts.length == 5
            : base.equals(QmmOp.QMM_MMA_SPLITK)
                ? parts.length == 3 || parts.length == 4
                : base.equals(QmmOp.QMM_TILED)
                    ? parts.length >= 4 && parts.length <= 6
                    : base.equals(QmmOp.QMM_WGMMA) || base.equals(QmmOp.QMM_WGMMA_TMA)
                        ? parts.length >= 1 && parts.length <= 3
                        : base.equals(QmmOp.QMV_ASYNC)
                            ? parts.length == 3
                            : base.equals(QmmOp.QMM_MMA_ASYNC)
                                ? parts.length >= 2 && parts.length <= 7
                                : base.equals(QmmOp.QMM_MMA_FP_ASYNC)
                                    ? parts.length == 2 || parts.length == 3
                                    : base.equals(QmmOp.QMM_MMA_XSHARED)
                                        ? parts.length == 4 || parts.length == 5
                                        : (base.equals(QmmOp.QMV_SPLITK)
                                                || base.equals(QmmOp.QMV_ROWS))
                                            && parts.length == 2;
    if (!ok) {
      return null;
    }
    int[] t = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        t[i] = Integer.parseInt(parts[i]);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return t;
  }

  /** The plan a tuned rung names (see {@link #tuned}). */
  static LaunchPlan tunedPlan(String base, int[] t, QmmShape s, int smCount) {
    if (base.equals(QmmOp.QMM_MMA)) {
      return QmmMmaKernel.plan(s, t[0], t[1], t[2], t[3], t.length > 4 ? t[4] : 1);
    }
    if (base.equals(QmmOp.QMM_MMA_SPLITK)) {
      // Checks KS (divides the groups, at most 256 k per warp), MT and RT in 1, 2 and BPS >= 1.
      return QmmMmaSplitKKernel.plan(s, smCount, t[0], t[1], t[2], t.length > 3 ? t[3] : 1);
    }
    if (base.equals(QmmOp.QMM_WGMMA)) {
      // Checks WG, PIPE, AHEAD and n.
      return QmmWgmmaKernel.plan(s, t[0], t.length > 1 ? t[1] : 1, t.length > 2 ? t[2] : 3);
    }
    if (base.equals(QmmOp.QMM_WGMMA_TMA)) {
      return QmmWgmmaTmaKernel.plan(s, t[0], t.length > 1 ? t[1] : 1, t.length > 2 ? t[2] : 3);
    }
    if (base.equals(QmmOp.QMM_TILED)) {
      // Checks the tiling and the stages, names the bad one.
      return QmmTiledKernel.plan(
          s, t[0], t[1], t[2], t[3], t.length > 4 ? t[4] : 1, t.length > 5 ? t[5] : 0);
    }
    if (base.equals(QmmOp.QMM_MMA_XSHARED)) {
      // Checks each, names the bad one.
      return QmmMmaXSharedKernel.plan(s, t[0], t[1], t[2], t[3], t.length > 4 ? t[4] : 0);
    }
    if (base.equals(QmmOp.QMM_MMA_ASYNC)) {
      // Checks KS, STAGES, RT, BPS, E, RB and FU; without FU the plan takes its default.
      int rt = t.length > 2 ? t[2] : 1;
      int bps = t.length > 3 ? t[3] : 1;
      int early = t.length > 4 ? t[4] : 0;
      int rb = t.length > 5 ? t[5] : 1;
      return t.length > 6
          ? QmmMmaAsyncKernel.plan(s, smCount, t[0], t[1], rt, bps, early, rb, t[6])
          : QmmMmaAsyncKernel.plan(s, smCount, t[0], t[1], rt, bps, early, rb);
    }
    if (base.equals(QmmOp.QMM_MMA_FP_ASYNC)) {
      // Checks the shape, KS, STAGES and RT.
      return QmmMmaAsyncFpKernel.plan(s, smCount, t[0], t[1], t.length > 2 ? t[2] : 1);
    }
    if (base.equals(QmmOp.QMV_ASYNC)) {
      if (t[0] < 1) {
        throw new IllegalArgumentException(
            "qmv-async@BLOCKSxFBxSTAGES needs BLOCKS >= 1, got " + t[0] + "x" + t[1] + "x" + t[2]);
      }
      return AffineQmvAsyncKernel.plan(s, t[0], t[1], t[2]); // checks FB and STAGES
    }
    if (base.equals(QmmOp.QMV_ROWS)) {
      return AffineQmvRowsKernel.plan(s, t[0], t[1]); // checks R in 1..8 and F in 1, 2
    }
    if (t[0] < 1 || (t[1] != 1 && t[1] != 2 && t[1] != 4)) {
      throw new IllegalArgumentException(
          "qmv-splitk@BPSxFB needs BPS >= 1 and FB 1, 2 or 4, got " + t[0] + "x" + t[1]);
    }
    return AffineQmvSplitKKernel.plan(s, smCount, t[0], t[1]);
  }
}
