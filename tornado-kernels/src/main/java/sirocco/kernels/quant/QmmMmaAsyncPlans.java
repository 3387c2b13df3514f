package sirocco.kernels.quant;

import static sirocco.kernels.quant.QmmMmaAsyncLayout.copyableGroups;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.defaultKs;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.layoutTwin;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.sharedBytes;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.sliceWords;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.slots;

/**
 * The launch plans of {@link QmmMmaAsyncKernel}: its public {@code plan} and {@code rowTiles} check
 * the shape and the arguments' nulls, these build the plan. Kept apart so that the default plan
 * checks {@link QmmMmaAsyncKernel#supports} once rather than once per step.
 */
final class QmmMmaAsyncPlans {
  private QmmMmaAsyncPlans() {}

  /**
   * Row tiles per warp of the default plan for a shape the kernel takes: see {@link
   * QmmMmaAsyncKernel#rowTiles}.
   */
  static int rowTiles(QmmShape s) {
    if (s.rows() <= 8) {
      return 1;
    }
    int ks = defaultKs(s);
    if (ks > 16) {
      return 1;
    }
    int wps = sliceWords(s, ks);
    int cpw = QmmMmaAsyncLayout.groupsPerSlice(wps, s.groupSize(), s.bits());
    return sharedBytes(s.bits(), ks, wps, cpw, 2, 2) <= QmmMmaAsyncKernel.SHARED_LIMIT ? 2 : 1;
  }

  /**
   * {@link QmmMmaAsyncKernel#plan(QmmShape, int)} for a shape the kernel takes (checked once by the
   * caller; the row tiles and the build below take it as supported).
   */
  static LaunchPlan defaultPlan(QmmShape s, int smCount) {
    int ks = defaultKs(s);
    int wps = sliceWords(s, ks);
    int rt = rowTiles(s);
    int stages = QmmMmaAsyncKernel.STAGES;
    int cpw = QmmMmaAsyncLayout.groupsPerSlice(wps, s.groupSize(), s.bits());
    while (stages > 2
        && sharedBytes(s.bits(), ks, wps, cpw, stages, rt) > QmmMmaAsyncKernel.SHARED_LIMIT) {
      stages--;
    }
    return build(s, smCount, ks, stages, rt, 1, 0, 1, fmaUnpack(s, rt), true);
  }

  /** {@link QmmMmaAsyncKernel#fmaUnpack} for a non-null {@code s} and {@code rt} of 1 or 2. */
  static int fmaUnpack(QmmShape s, int rt) {
    return rt == 1 && QmmMmaAsyncLayout.fmaUnpack(s.bits(), s.dtype(), 1) ? 1 : 0;
  }

  /** {@link QmmMmaAsyncKernel#supports} for a non-null {@code s}. */
  static String supports(QmmShape s) {
    String bad =
        s.affineHalfRejection(
            s.bits() >= 2 && s.bits() <= 6,
            "2-, 3-, 4-, 5- or 6-bit",
            "a lane's codes of a group unpacked in pairs into the A fragments",
            "qmm-mma or the vector path");
    if (bad != null) {
      return bad;
    }
    if (s.bits() != 4 && s.groupSize() < 64) {
      return s.bits()
          + "-bit groups of 64 or 128 only (a lane's unit of 16 codes lies in one group), got "
          + s.groupSize();
    }
    bad = QmmMmaSplitKKernel.supports(layoutTwin(s));
    if (bad != null) {
      return bad;
    }
    int ks = defaultKs(s);
    if (ks == 0) {
      return "k must split evenly over at most "
          + QmmMmaSplitKKernel.MAX_KS
          + " warps with at most "
          + QmmMmaSplitKKernel.MAX_WPS
          + " x slots per lane (x held in registers): "
          + s.k() / s.groupSize()
          + " groups of "
          + s.groupSize()
          + " have no such split";
    }
    int wps = sliceWords(s, ks);
    int cpw = QmmMmaAsyncLayout.groupsPerSlice(wps, s.groupSize(), s.bits());
    if (!copyableGroups(cpw)) {
      return "2, 4 or 8 groups per warp slice (each row's scales are one 4/8/16-byte copy), got "
          + cpw;
    }
    int shared = sharedBytes(s.bits(), ks, wps, cpw, 2, 1);
    if (shared > QmmMmaAsyncKernel.SHARED_LIMIT) {
      return "two stages need " + shared + " B of shared memory";
    }
    return null;
  }

  /**
   * The plan of {@link QmmMmaAsyncKernel#plan(QmmShape, int, int, int, int, int, int, int, int)}
   * for a non-null {@code s}; {@code supported}: the caller has already found that the kernel takes
   * it.
   */
  static LaunchPlan build(
      QmmShape s,
      int smCount,
      int ks,
      int stages,
      int rt,
      int bps,
      int early,
      int rb,
      int fu,
      boolean supported) {
    if (fu != 0 && fu != 1) {
      throw new IllegalArgumentException(
          "fu must be 0 (shift-and-mask unpacking) or 1 (bf16 2- and 4-bit: fma.bf16x2), got "
              + fu);
    }
    if (rb < 1 || rb > 8) {
      throw new IllegalArgumentException("rb must be 1 to 8 batches per reduction, got " + rb);
    }
    if (rb > 1 && early == 1) {
      throw new IllegalArgumentException(
          "early=1 refills after every batch's barrier; rb=" + rb + " has none: use early=0,rb=1");
    }
    if (bps != 1 && bps != 2) {
      throw new IllegalArgumentException("bps must be 1 or 2 blocks per SM, got " + bps);
    }
    if (early != 0 && early != 1) {
      throw new IllegalArgumentException(
          "early must be 0 (refill at the next batch) or 1 (right after the barrier), got "
              + early);
    }
    if (rt == 2 && bps == 2) {
      throw new IllegalArgumentException(
          "bps=2 leaves 64 registers per thread; rt=2 needs 128: use bps=1 with rt=2");
    }
    if (!supported) {
      String why = QmmMmaAsyncKernel.supports(s);
      if (why != null) {
        throw new IllegalArgumentException("s cannot be computed by this kernel: " + why);
      }
    }
    if (fu == 1 && !QmmMmaAsyncLayout.fmaUnpack(s.bits(), s.dtype(), fu)) {
      throw new IllegalArgumentException(
          "fu=1 unpacks bf16 2- and 4-bit codes only, got "
              + s.bits()
              + "-bit "
              + (s.dtype() == Quant.F16 ? "f16" : "dtype " + s.dtype()));
    }
    int groups = s.k() / s.groupSize();
    if (s.bits() != 4 && ks >= 1 && groups % ks == 0) {
      // The twin refuses the same k splits, in words of 4-bit codes; name this width's.
      int wps = sliceWords(s, ks);
      if (slots(wps, s.bits()) > QmmMmaSplitKKernel.MAX_WPS) {
        throw new IllegalArgumentException(
            "ks must leave at most "
                + QmmMmaSplitKKernel.MAX_WPS
                + " x slots per lane ("
                + QmmMmaSplitKKernel.MAX_WPS * 8
                + " "
                + s.bits()
                + "-bit codes), got "
                + slots(wps, s.bits())
                + " at ks="
                + ks);
      }
    }
    // Validates ks and rt the way the register version does; its plan carries the one-block hint
    // for two row tiles.
    LaunchPlan base = QmmMmaSplitKKernel.plan(layoutTwin(s), smCount, ks, 1, bps, rt);
    int wps = sliceWords(s, ks);
    int cpw = QmmMmaAsyncLayout.groupsPerSlice(wps, s.groupSize(), s.bits());
    if (!copyableGroups(cpw)) {
      throw new IllegalArgumentException(
          "ks must leave 2, 4 or 8 groups per warp slice, got " + cpw + " at ks=" + ks);
    }
    int shared = sharedBytes(s.bits(), ks, wps, cpw, stages, rt, rb);
    if (stages < 2 || shared > QmmMmaAsyncKernel.SHARED_LIMIT) {
      throw new IllegalArgumentException(
          "stages must be >= 2 with the block's shared memory within "
              + QmmMmaAsyncKernel.SHARED_LIMIT
              + " B, got stages="
              + stages
              + " ("
              + shared
              + " B)");
    }
    // An SM holds 228 KiB of shared memory, of which each resident block reserves 1 KiB.
    if (bps * (shared + 1024) > QmmMmaAsyncKernel.SM_SHARED) {
      throw new IllegalArgumentException(
          "bps="
              + bps
              + " blocks of "
              + shared
              + " B of shared memory do not fit one SM's "
              + QmmMmaAsyncKernel.SM_SHARED
              + " B; use bps=1 or fewer stages");
    }
    LaunchPlan p =
        LaunchPlan.of(
            "QmmMmaAsyncKernel.qmm",
            base.grid(),
            base.block(),
            shared,
            "bits",
            s.bits(),
            "groupSize",
            s.groupSize(),
            "dtype",
            s.dtype(),
            "ks",
            ks,
            "wps",
            wps,
            "stages",
            stages,
            "rt",
            rt,
            "early",
            early,
            "rb",
            rb,
            "fu",
            fu);
    // Two blocks always carry the hint: the register kernel's estimate that base uses is not this
    // kernel's count (68 at rt = 1), and 2 x 512 x 68 registers would not launch. Nor would one
    // block of 32 warps (ks = 32) at more than 64 registers: 4-bit g64 bf16 with fu = 1 took 67
    // unhinted (ptxas 13.0) and failed with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES in run 109; hinted,
    // 64 and no spills.
    int hint = bps > 1 ? bps : ks * 32 > 512 ? 1 : base.minBlocksPerSm();
    return p.withMinBlocksPerSm(hint);
  }
}
