package sirocco.dispatch.quant;

import sirocco.dispatch.BooleanProperty;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.QmmTiledKernel;
import sirocco.kernels.quant.Quant;

/**
 * The quantized-matmul ladder's performance policy, in one place: from how many rows of x the
 * tensor-core kernel ({@value QmmOp#QMM_MMA}) is preferred to the CUDA-core vector kernels ({@value
 * QmmOp#QMV}, {@value QmmOp#FP_QMV}). Everything else in the ladder is a capability ("can this
 * kernel compute this shape at all"); only this is a choice between kernels that both can.
 *
 * <p>Defaults, from {@code tornado bench qmm} on the H200 (bench/RESULTS.md; n=12288, k=4096, g64
 * bf16). Affine: since the tensor-core kernel's 1–8-row tiling was re-measured (run 12, 2x1x1x8),
 * {@value QmmOp#QMM_MMA} takes 19.5–19.7 µs at 2 rows against {@value QmmOp#QMV_SPLITK}'s 21.7–21.9
 * at 4 bits, and 27.0 against 29.9 at 8 bits (run 13); at 1 row split-K stays ahead (4 bits
 * 13.3–14.0 against 19.3–19.4; 8 bits 17.8 against 26.6). So tensor cores from 2 rows (they took
 * over from 3 rows before run 12, when the mma kernel took 25 µs). For fp modes, run 9 measured
 * rows 2–7 of every mode: {@value QmmOp#FP_QMV} grows ~13–17 µs a row while mma stays flat, so
 * tensor cores from 3 rows — measurement overrode seed finding 4's "fp modes stay on the vector
 * path for 2–7 rows"; at 2 rows run 13 (new tiling) was split: fp-qmv 33.4 against 34.5 µs for
 * mxfp4, 34.4 against 34.1 for nvfp4, 42.3 against 39.4 for mxfp8. Since run 104 (E2M1 fragments
 * built in place) tensor cores from 2 rows: see {@link #FP_MMA_MIN_ROWS}.
 *
 * <p>Affine shapes neither tensor cores nor the chosen vector-path variant take (2/3/5/6 bits with
 * groups of 32, and float32 x at every width; 2- and 6-bit g64/g128 bf16/f16 run on {@value
 * QmmOp#QMM_MMA_ASYNC} since run 106, {@link #MMA_ASYNC_MAX_ROWS_2_6_BIT} and {@link #ASYNC_6BIT},
 * 3- and 5-bit since run 108, from 1 row since run 109, {@link #ASYNC_3_5_BIT}) go to {@value
 * QmmOp#QMV_ROWS} from {@link #qmvRowsMinRows} rows (1 for 2/3/5/6 bits with bf16/f16 x, 2
 * otherwise) and to the one-row-at-a-time {@value QmmOp#QMV} below. Measured on the H200 (RESULTS
 * run 19, n 12288, k 4096, g64): with bf16 x, 2 rows take 21.6–24.4 µs against {@value QmmOp#QMV}'s
 * 29.8–34.6 and 6 rows 45.6–50.1 against 78.1–90.7 at every width; with f32 x 55.0–58.1 against
 * 58.0–63.8 at 2 rows (except 3-bit: 60.5 against 58.9, left to the rung) and 156.9–161.3 against
 * 160.4–176.0 at 6. No upper bound: above 8 rows it runs ⌈rows/8⌉ row blocks, still a fraction of
 * {@value QmmOp#QMV}'s one pass per row.
 *
 * <p>To try another policy without rebuilding: {@code -Dsirocco.qmm.mmaVariant=qmm-mma-splitk} (see
 * {@link #MMA_ASYNC_MAX_ROWS}), {@code -Dsirocco.qmm.mmaMinRows.affine=N}, {@code
 * -Dsirocco.qmm.mmaMinRows.fp=N} (read at every call; 1 = tensor cores always when they can, a huge
 * number = never), {@code -Dsirocco.qmm.qmvRowsMinRows=N} and {@code
 * -Dsirocco.qmm.qmvRowsMaxRows=N} (the rows {@value QmmOp#QMV_ROWS} takes; a huge minimum = never),
 * {@code -Dsirocco.qmm.xsharedMinRows=N} ({@value QmmOp#QMM_MMA_XSHARED} from N rows; off by
 * default).
 */
public final class QmmPolicy {
  private QmmPolicy() {}

  /** Fewest rows of x at which affine weights go to tensor cores (measured: split-K wins at 1). */
  public static final int AFFINE_MMA_MIN_ROWS = 2;

  /**
   * Fewest rows of x at which {@value QmmOp#QMM_MMA_ASYNC} takes affine weights with groups of 64
   * or 128 (the widths, 4 bits, and dtypes, bf16/f16, are the kernel's own limits): one row, ahead
   * of {@value QmmOp#QMV_SPLITK}. Measured at 1 row (run 98, graph replay, µs, async against
   * split-K): 12288x4096 bf16 g64 10.69 against 11.89, f16 11.71 against 12.81, g128 9.79 against
   * 11.85, 4096x4096 5.13 against 5.37; but g32 12.19 against 11.61, so g32 keeps {@link
   * #AFFINE_MMA_MIN_ROWS}. {@code -Dsirocco.qmm.mmaMinRows.affine=N} overrides this as well.
   */
  public static final int AFFINE_ASYNC_MIN_ROWS = 1;

  /**
   * Fewest rows of x at which fp-mode weights go to tensor cores: 2. Since {@value QmmOp#QMM_MMA}
   * builds E2M1 fragments in place (run 104, H100, 12288x4096 bf16, graph replay, µs, mma against
   * {@value QmmOp#FP_QMV}): mxfp4 18.13 against 30.46 at 2 rows, 18.02 against 18.02 at 1; nvfp4
   * 19.18 against 32.59 at 2, 19.14 against 18.72 at 1; mxfp4 f16 18.32 against 46.05 at 2. mxfp8
   * (E4M3, unchanged) was already ahead at 2 rows on the H200 (run 13: 39.4 against 42.3). At 1 row
   * the vector kernel stays (a tie or ahead for bf16; f16 at 1 row not timed). It was 3 before run
   * 104 (the crossover of the float decode, runs 9 and 13).
   */
  public static final int FP_MMA_MIN_ROWS = 2;

  /** The system property overriding {@link #AFFINE_MMA_MIN_ROWS}. */
  public static final String AFFINE_PROPERTY = "sirocco.qmm.mmaMinRows.affine";

  /** The system property overriding {@link #FP_MMA_MIN_ROWS}. */
  public static final String FP_PROPERTY = "sirocco.qmm.mmaMinRows.fp";

  /**
   * Which CUDA-core kernel serves affine weights on the vector path: {@value QmmOp#QMV_SPLITK}, the
   * fastest measured at 1 row (4-bit 1 row: split-K 13.85 µs, persistent 15.33, warp 16.20, {@value
   * QmmOp#QMV} 19.48; 8-bit: 17.74 / 18.05 / 18.98 / 20.18). Widths it does not take (2, 3, 5, 6
   * bits) fall through ({@value QmmOp#QMV} at 1 row). {@code tornado bench qmm --kernel all} times
   * every variant whatever this says.
   */
  public static final String QMV_VARIANT = QmmOp.QMV_SPLITK;

  /** The system property overriding {@link #QMV_VARIANT}. */
  public static final String QMV_VARIANT_PROPERTY = "sirocco.qmm.qmvVariant";

  /**
   * Whether the launches of {@value QmmOp#QMM_MMA_SPLITK}, {@value QmmOp#QMV_SPLITK} and {@value
   * QmmOp#QMM_MMA} start early ({@code KernelLaunch.withEarlyStart}; sm_90+: while the previous
   * kernel in the stream finishes; the three kernels wait for it before their first read): yes for
   * all three; {@code -Dsirocco.qmm.earlyStart=true|false} forces it either way. Measured (n 12288,
   * k 4096, 4-bit g64 bf16, back-to-back launches over 8 weight copies, alternating runs): {@value
   * QmmOp#QMM_MMA_SPLITK} 13.42–13.82 µs at 2–8 rows against 15.04–15.47 without (run 50), 22.25
   * against 23.75–24.00 at 16 rows (run 53); {@value QmmOp#QMV_SPLITK} at 1 row 12.36–13.33 against
   * 14.00–14.04 (run 53, three runs each; p90 wider, 20–30 against 15–21); {@value QmmOp#QMM_MMA}
   * 30.59–30.60 against 32.13–32.27 at 32 rows and 191.6–191.7 against 193.3–193.4 at 256 (run 53).
   */
  public static final String EARLY_START_PROPERTY = "sirocco.qmm.earlyStart";

  /**
   * Fewest rows of x at which {@value QmmOp#QMM_MMA_FP_ASYNC} takes fp-mode weights: 1, ahead of
   * {@value QmmOp#FP_QMV} (run 105, H100, 12288x4096, graph replay, µs, at 1 row against {@value
   * QmmOp#FP_QMV} / {@value QmmOp#QMM_MMA}): mxfp4 bf16 16.32 against 17.92 / 18.01, nvfp4 15.99
   * against 18.48 / 19.24, mxfp8 20.69 against 23.68 / 35.04; mxfp4 f16 16.13 against {@value
   * QmmOp#QMM_MMA}'s 18.02. {@code -Dsirocco.qmm.mmaMinRows.fp=N} overrides it as it does {@link
   * #FP_MMA_MIN_ROWS}.
   */
  public static final int FP_ASYNC_MIN_ROWS = 1;

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_FP_ASYNC} takes; {@value QmmOp#QMM_MMA} above. Run 105
   * (H100, as above, against {@value QmmOp#QMM_MMA}): 2 / 8 / 16 rows mxfp4 16.03 / 16.5 / 18.86
   * against 18.26 / 18.7 / 26.90, nvfp4 15.95 / 16.51 / 18.45 against 19.55 / 19.69 / 25.56, mxfp8
   * 21.05 / 22.32 / 34.16 against 35.30 / 36.21 / 43.67 (its one row tile per warp streams the
   * weights twice at 16 rows); f16 alike (mxfp8 f16 20.56 against 76.39 at 2 rows). Above 16 rows
   * the modes part: mxfp4 24 / 32 rows 29.26 / 29.00 against 31.78 / 32.38 (run 105 call 2, after
   * the faster E2M1 pairs), but mxfp8 47.94 / 62.24 against 43.87 / 44.60 and nvfp4 at 32 rows
   * 31.26 against 29.71 (call 1), so 16, and {@link #FP_ASYNC_MAX_ROWS_MXFP4} for mxfp4.
   */
  public static final int FP_ASYNC_MAX_ROWS = 16;

  /**
   * Most rows of mxfp4 x {@value QmmOp#QMM_MMA_FP_ASYNC} takes: 32 (run 105 call 2, bf16, 24 / 32
   * rows 29.26 / 29.00 µs against {@value QmmOp#QMM_MMA}'s 31.78 / 32.38; above 32 not timed).
   */
  public static final int FP_ASYNC_MAX_ROWS_MXFP4 = 32;

  /** The row bound of {@value QmmOp#QMM_MMA_FP_ASYNC} for fp mode {@code mode}, property aside. */
  public static int fpAsyncMaxRows(int mode) {
    if (mode != Quant.MXFP4 && mode != Quant.NVFP4 && mode != Quant.MXFP8) {
      throw new IllegalArgumentException(
          "mode must be an fp mode (Quant.MXFP4, NVFP4 or MXFP8), got " + Quant.modeName(mode));
    }
    return mode == Quant.MXFP4 ? FP_ASYNC_MAX_ROWS_MXFP4 : FP_ASYNC_MAX_ROWS;
  }

  /** The system property overriding {@link #fpAsyncMaxRows} for every mode. */
  public static final String FP_ASYNC_MAX_ROWS_PROPERTY = "sirocco.qmm.fpAsyncMaxRows";

  /**
   * Why the policy keeps {@code s} (a shape {@value QmmOp#QMM_MMA_FP_ASYNC} can take) away from
   * that rung, or null: another tensor-core variant forced ({@code -Dsirocco.qmm.mmaVariant}),
   * fewer rows than {@link #FP_ASYNC_MIN_ROWS} or more than {@link #fpAsyncMaxRows}.
   */
  public static String fpAsyncRejects(QmmShape s) {
    requireShape(s);
    if (s.mode() == Quant.AFFINE) {
      throw new IllegalArgumentException(
          "s must have fp-mode weights (the rung takes no affine weights), got " + s);
    }
    String forced = System.getProperty(MMA_VARIANT_PROPERTY);
    if (forced != null && !forced.equals(QmmOp.QMM_MMA_FP_ASYNC)) {
      return "policy: tensor cores use " + forced + " (-D" + MMA_VARIANT_PROPERTY + ")";
    }
    int min = Integer.getInteger(FP_PROPERTY, FP_ASYNC_MIN_ROWS);
    int max = Integer.getInteger(FP_ASYNC_MAX_ROWS_PROPERTY, fpAsyncMaxRows(s.mode()));
    if (s.rows() < min) {
      return "policy: fp-mode weights use the vector path below "
          + min
          + " rows (rows="
          + s.rows()
          + "; -D"
          + FP_PROPERTY
          + ")";
    }
    if (s.rows() > max) {
      return "policy: more than "
          + max
          + " rows use "
          + QmmOp.QMM_MMA
          + " (rows="
          + s.rows()
          + "; -D"
          + FP_ASYNC_MAX_ROWS_PROPERTY
          + ")";
    }
    return null;
  }

  /** Whether {@code rung}'s launch starts early: see {@link #EARLY_START_PROPERTY}. */
  public static boolean earlyStart(String rung) {
    if (!rung.equals(QmmOp.QMM_MMA_SPLITK)
        && !rung.equals(QmmOp.QMM_MMA_ASYNC)
        && !rung.equals(QmmOp.QMM_MMA_FP_ASYNC)
        && !rung.equals(QmmOp.QMV_SPLITK)
        && !rung.equals(QmmOp.QMM_MMA)) {
      return false; // only these five kernels wait for the previous one
    }
    return BooleanProperty.get(EARLY_START_PROPERTY, true);
  }

  /** The vector-path variant in force. */
  public static String qmvVariant() {
    return System.getProperty(QMV_VARIANT_PROPERTY, QMV_VARIANT);
  }

  /**
   * Why the policy does not use vector-path variant {@code rung} (one of {@value QmmOp#QMV_WARP},
   * {@value QmmOp#QMV_PERSISTENT}, {@value QmmOp#QMV_SPLITK}), or null when it is the variant in
   * force. A shape the chosen variant cannot take falls through to the next rungs ({@value
   * QmmOp#QMV_ROWS} from 2 rows, then {@value QmmOp#QMV}, which takes every affine shape).
   */
  public static String qmvVariantRejects(String rung) {
    String v = qmvVariant();
    return rung.equals(v)
        ? null
        : "policy: the vector path uses " + v + " (-D" + QMV_VARIANT_PROPERTY + ")";
  }

  /**
   * Which tensor-core kernel serves the shapes both can take: {@value QmmOp#QMM_MMA_ASYNC} (the
   * split-K kernel with its weights streamed through a {@code cp.async} pipeline in shared memory)
   * up to {@link #MMA_ASYNC_MAX_ROWS} rows where it takes the shape, else {@value
   * QmmOp#QMM_MMA_SPLITK} (split-K with the weights in registers, persistent blocks; 4-bit affine,
   * bf16/f16 x). Shapes neither takes (8-bit, f32 x, k without an even split) fall through to
   * {@value QmmOp#QMM_MMA}. {@code -Dsirocco.qmm.mmaVariant=qmm-mma-splitk|qmm-mma-async|qmm-mma}
   * forces one variant for every row count.
   *
   * <p>Measured on the H200 (run 89, 4-bit, µs by graph replay, async against split-K): 12288x4096
   * g64 bf16 12.2–12.6 against 13.3–13.7 at 1–8 rows, but 22.0 / 22.2 against 15.3 / 15.5 at 12 /
   * 16 (split-K holds two 8-row tiles per warp there, async one); f16 13.5–13.9 against 15.6–16.0
   * at 1–8 rows; g32 14.9–15.9 against 16.0–16.6; g128 11.7–12.6 against 12.6–13.4; 4096x4096
   * 6.0–6.3 against 6.5–7.0; 14336x4096 13.9–14.3 against 14.8–15.4; 12288x2048 7.7–7.9 against
   * 8.1–8.3; runs 94–95 made both faster (10.8–11.2 against 12.0–12.3 at 2–8 rows). (Run 30 had
   * found it slower, 16.5 against 15.0; the kernel did not change until run 89, the compiler and
   * the bench's warm-up did, and which of them turned it round was not isolated.) f16 joined the
   * split-K kernels once their unpacking moved from 1024 + q to 64 + q: with the large offset, run
   * 24 found MLX's test_qmm cases at f16 g128 8 rows 1.1–1.4x over the contract's error bound. At 1
   * row the async kernel now wins too, except at g32: see {@link #AFFINE_ASYNC_MIN_ROWS}.
   */
  public static final int MMA_ASYNC_MAX_ROWS = 8;

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_ASYNC} takes where its plan holds two 8-row tiles per warp
   * ({@link QmmMmaAsyncKernel#rowTiles}: any group size since run 103); above {@link
   * #MMA_ASYNC_MAX_ROWS} rows it is the default variant only there. Run 100 (H100, 12288x4096 g64
   * bf16, µs by graph replay, two tiles against the register split-K kernel): 9 / 12 / 16 / 24 / 32
   * rows 13.10 / 13.16 / 13.44 / 21.57 / 21.80 against 15.03 / 14.95 / 15.25 / 23.80 / 24.06. Run
   * 102 (H100, the same method) to 72 rows, the register kernel's own two-tile limit ({@link
   * #MMA_SPLITK_MAX_ROWS_TWO_TILES}): g64 bf16 40 / 48 / 56 / 64 / 72 rows 33.51 / 34.78 / 44.30 /
   * 43.94 / 53.88 against 35.83 / 34.41 / 44.96 / 47.67 / 56.93 (run 101: 31.5 / 31.3 against 33.9
   * / 34.3 at 40 / 48); f16 48 / 64 / 72 34.10 / 44.37 / 59.94 against 40.09 / 51.97 / 63.77; g128
   * bf16 27.72 / 36.91 / 48.22 against 27.54 / 34.97 / 50.93 (the one loss past the spread: 64 rows
   * at g128, 6%).
   */
  public static final int MMA_ASYNC_TWO_TILES_MAX_ROWS = 72;

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_ASYNC} takes with 2- and 6-bit codes: no limit, since no
   * other tensor-core kernel takes those widths and {@value QmmOp#QMV_ROWS}, which did, grows by a
   * pass over the weights per 8 rows (6-bit: see {@link #ASYNC_6BIT}; the same for 3- and 5-bit
   * codes since run 108, {@link #ASYNC_3_5_BIT}). 2-bit, run 106 (H100, 12288x4096 g64 bf16, graph
   * replay, µs, async against {@value QmmOp#QMV_ROWS}): 1 / 2 / 6 / 8 / 16 / 32 rows 9.56 / 9.58 /
   * 9.94 / 10.11 / 12.70 / 21.20 against 13.40 / 19.24 / 43.94 / 58.31 / 113.89 / 224.59; 48 / 64 /
   * 72 / 96 rows 29.96 / 38.18 / 47.09 / 54.00 against 325.04 / 436.14 / 491.38 / 651.24; f16 1 / 6
   * / 16 rows 11.37 / 11.53 / 14.24 against 22.57 / 91.11 / 238.01; g128 9.48 / 10.04 / 13.51
   * against 13.32 / 43.87 / 114.54.
   */
  public static final int MMA_ASYNC_MAX_ROWS_2_6_BIT = Integer.MAX_VALUE;

  /**
   * Whether the default policy gives 6-bit codes to {@value QmmOp#QMM_MMA_ASYNC}, which takes them
   * since run 106: yes, at every row count ({@link #MMA_ASYNC_MAX_ROWS_2_6_BIT}). Run 106 call 2
   * (H100, 12288x4096 bf16 g64, graph replay, µs, against {@value QmmOp#QMV_ROWS}): 1 / 2 / 4 / 6 /
   * 8 / 16 / 32 rows 18.54 / 18.35 / 18.43 / 18.57 / 18.60 / 20.50 / 34.10 against 18.67 / 21.53 /
   * 32.98 / 46.88 / 60.20 / 116.77 / 227.84 (at 1 row a tie; 79% of the read-only time); 64 / 72 /
   * 96 rows 62.60 / 77.33 / 89.25 against 438.50 / 496.89 / 655.89; f16 1 / 6 / 16 rows 19.82 /
   * 19.99 / 21.59 against 22.95 / 93.14 / 232.17; g128 17.33 / 17.47 / 19.91 against 18.16 / 46.58
   * / 116.81. {@code -Dsirocco.qmm.async6Bit=false} keeps 6-bit codes on the vector path.
   */
  public static final boolean ASYNC_6BIT = true;

  /** The system property overriding {@link #ASYNC_6BIT}. */
  public static final String ASYNC_6BIT_PROPERTY = "sirocco.qmm.async6Bit";

  /**
   * Whether the default policy gives 3- and 5-bit codes to {@value QmmOp#QMM_MMA_ASYNC} (g64, g128,
   * bf16/f16; run 108): yes, from {@link #AFFINE_ASYNC_MIN_ROWS} (1) row at every row count, as 2-
   * and 6-bit codes ({@link #MMA_ASYNC_MAX_ROWS_2_6_BIT}). H200, 12288x4096 g64 bf16, graph replay,
   * µs, async against {@value QmmOp#QMV_ROWS} (run 108): 3-bit 1 / 6 / 32 rows 14.84 / 15.05 /
   * 31.16 against 14.47 / 44.69 / 230.43; 5-bit 16.76 / 16.69 / 33.39 against 16.43 / 45.94 /
   * 237.86, so bf16 x kept {@value QmmOp#QMV_ROWS} at 1 row until run 109 built the pairs by byte
   * permute: H100, 1 row, 3-bit 11.23 µs against 14.37, 5-bit 14.80 against 17.15 (with f16 x the
   * async kernel already won at 1 row: 14.67–18.87 against 21.29–22.54). {@code
   * -Dsirocco.qmm.async35Bit=false} keeps them on the vector path.
   */
  public static final boolean ASYNC_3_5_BIT = true;

  /** The system property overriding {@link #ASYNC_3_5_BIT}. */
  public static final String ASYNC_3_5_BIT_PROPERTY = "sirocco.qmm.async35Bit";

  /** Whether {@code s} has 3- or 5-bit codes that the policy keeps off the async kernel. */
  static boolean async35Off(QmmShape s) {
    return (s.bits() == 3 || s.bits() == 5)
        && !BooleanProperty.get(ASYNC_3_5_BIT_PROPERTY, ASYNC_3_5_BIT);
  }

  /** The system property forcing one tensor-core variant (see {@link #MMA_ASYNC_MAX_ROWS}). */
  public static final String MMA_VARIANT_PROPERTY = "sirocco.qmm.mmaVariant";

  /** The tensor-core variant in force for {@code s}: see {@link #MMA_ASYNC_MAX_ROWS}. */
  public static String mmaVariant(QmmShape s) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    String forced = System.getProperty(MMA_VARIANT_PROPERTY);
    if (forced != null) {
      return forced;
    }
    return asyncMaxRows(s) >= s.rows() ? QmmOp.QMM_MMA_ASYNC : QmmOp.QMM_MMA_SPLITK;
  }

  /**
   * Most rows the default gives {@value QmmOp#QMM_MMA_ASYNC} for {@code s}'s shape: {@link
   * #MMA_ASYNC_MAX_ROWS_2_6_BIT} for 2- and 6-bit codes, {@link #MMA_ASYNC_TWO_TILES_MAX_ROWS}
   * where its plan holds two row tiles, {@link #MMA_ASYNC_MAX_ROWS} where it takes the shape with
   * one, 0 where it cannot take it.
   */
  static int asyncMaxRows(QmmShape s) {
    if (QmmMmaAsyncKernel.supports(s) != null) {
      return 0;
    }
    if (s.bits() == 6 && !BooleanProperty.get(ASYNC_6BIT_PROPERTY, ASYNC_6BIT)) {
      return 0; // switched off: see ASYNC_6BIT
    }
    if (async35Off(s)) {
      return 0; // switched off: see ASYNC_3_5_BIT
    }
    if (s.bits() != 4) {
      return MMA_ASYNC_MAX_ROWS_2_6_BIT;
    }
    // Two tiles are planned above 8 rows only: ask at 9 or more rows of the same shape.
    QmmShape at16 = s.withRows(Math.max(s.rows(), MMA_ASYNC_MAX_ROWS + 1));
    return QmmMmaAsyncKernel.rowTiles(at16) == 2
        ? MMA_ASYNC_TWO_TILES_MAX_ROWS
        : MMA_ASYNC_MAX_ROWS;
  }

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_SPLITK} takes where its plan holds one 8-row tile per warp
   * (g32, or k split over more than 16 warps): it dequantizes the weights once per 8 rows (grid.y
   * row tiles), so past 16 rows (measured: 24.1 against 25.6 µs at 16) {@value QmmOp#QMM_MMA}'s
   * wider tiles serve.
   */
  public static final int MMA_SPLITK_MAX_ROWS = 16;

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_SPLITK} takes where its plan holds two 8-row tiles per
   * warp ({@link QmmMmaSplitKKernel#rowTiles}); {@link #tiledRejects} leaves it these rows. H200,
   * 4-bit, µs: run 75, two tiles against {@value QmmOp#QMM_MMA}, 12288x4096 g64 bf16 24 / 32 / 48
   * rows 26.1 / 26.1 / 36.8 against 29.8 / 30.6 / 84.5; f16 32 rows 30.1 against 31.6; g128 32 rows
   * 22.9 against 39.2. Runs 76–77, against {@value QmmOp#QMM_TILED} (12288x4096 g64): bf16 64 / 80
   * / 96 / 128 rows 47.7 / 58.5 / 67.8 / 91.2 against 65.0 / 66.4 / 67.3 / 66.2; f16 64 / 80 / 96
   * rows 55.8 / 68.7 / 79.7 against 65.3 / 66.7 / 67.1. So up to 72 rows, below both crossovers.
   */
  public static final int MMA_SPLITK_MAX_ROWS_TWO_TILES = 72;

  /**
   * Most rows of x {@value QmmOp#QMM_MMA_SPLITK} takes with two row tiles per warp where the tiled
   * grid would be under {@link #TILED_MIN_BLOCKS} blocks (so {@value QmmOp#QMM_MMA} would serve):
   * runs 76–77, 4096x4096 g64 bf16, 64 / 96 / 128 / 160 / 192 / 256 rows 18.8 / 26.0 / 33.2 / 40.4
   * / 47.8 / 62.2 µs against {@value QmmOp#QMM_MMA}'s 71.5 / 69.1 / 68.0 / 75.6 / 77.1 / 76.7 (f16,
   * run 79: 21.3 / 38.4 / 55.0 / 72.4 at 64 / 128 / 192 / 256 against 71.1 / 67.1 / 75.9 / 75.8).
   */
  public static final int MMA_SPLITK_MAX_ROWS_FEW_TILED_BLOCKS = 256;

  /** The row limit of {@value QmmOp#QMM_MMA_SPLITK} for {@code s} without the property. */
  static int splitKMaxRows(QmmShape s) {
    if (QmmMmaSplitKKernel.rowTiles(s) != 2) {
      return MMA_SPLITK_MAX_ROWS;
    }
    if (QmmTiledKernel.supports(s) == null) {
      LaunchPlan p = QmmTiledKernel.plan(s);
      if ((long) p.grid().x() * p.grid().y() < TILED_MIN_BLOCKS) {
        return MMA_SPLITK_MAX_ROWS_FEW_TILED_BLOCKS;
      }
    }
    return MMA_SPLITK_MAX_ROWS_TWO_TILES;
  }

  /** The system property overriding {@link #MMA_SPLITK_MAX_ROWS}. */
  public static final String MMA_SPLITK_MAX_ROWS_PROPERTY = "sirocco.qmm.mmaSplitKMaxRows";

  /**
   * Why the policy does not use tensor-core variant {@code rung} ahead of {@value QmmOp#QMM_MMA}
   * for {@code s}, or null when it is the variant in force and takes that many rows.
   */
  public static String mmaVariantRejects(String rung, QmmShape s) {
    String v = mmaVariant(s); // refuses a null s
    if (rung.equals(QmmOp.QMM_MMA_ASYNC)
        && s.mode() == Quant.AFFINE
        && s.bits() == 6
        && System.getProperty(MMA_VARIANT_PROPERTY) == null
        && !BooleanProperty.get(ASYNC_6BIT_PROPERTY, ASYNC_6BIT)) {
      return "policy: 6-bit codes use the vector path (-D" + ASYNC_6BIT_PROPERTY + "=false)";
    }
    if (rung.equals(QmmOp.QMM_MMA_ASYNC)
        && s.mode() == Quant.AFFINE
        && System.getProperty(MMA_VARIANT_PROPERTY) == null
        && async35Off(s)) {
      return "policy: 3- and 5-bit codes use the vector path (-D"
          + ASYNC_3_5_BIT_PROPERTY
          + "=false)";
    }
    if (!rung.equals(v)) {
      if (rung.equals(QmmOp.QMM_MMA_ASYNC) && System.getProperty(MMA_VARIANT_PROPERTY) == null) {
        // The default passed the async kernel over: it cannot take the shape (its own reason,
        // not a choice), or the shape has too many rows.
        String cannot = QmmMmaAsyncKernel.supports(s);
        return cannot != null
            ? cannot
            : "policy: at most "
                + asyncMaxRows(s)
                + " rows, "
                + v
                + " above (rows="
                + s.rows()
                + "; -D"
                + MMA_VARIANT_PROPERTY
                + ")";
      }
      return "policy: tensor cores use " + v + " (-D" + MMA_VARIANT_PROPERTY + ")";
    }
    // Forced, the async variant takes what the register one does with one row tile per warp, or
    // the rows it is the default for with two.
    int max =
        Integer.getInteger(
            MMA_SPLITK_MAX_ROWS_PROPERTY,
            rung.equals(QmmOp.QMM_MMA_SPLITK)
                ? splitKMaxRows(s)
                : Math.max(MMA_SPLITK_MAX_ROWS, asyncMaxRows(s)));
    if ((rung.equals(QmmOp.QMM_MMA_SPLITK) || rung.equals(QmmOp.QMM_MMA_ASYNC)) && s.rows() > max) {
      return "policy: more than "
          + max
          + " rows use "
          + QmmOp.QMM_MMA
          + " (-D"
          + MMA_SPLITK_MAX_ROWS_PROPERTY
          + ")";
    }
    return null;
  }

  /**
   * Fewest rows of x at which affine shapes the rungs above leave to {@value QmmOp#QMV} go to
   * {@value QmmOp#QMV_ROWS} instead, in general (measured in run 19): 1 row keeps {@value
   * QmmOp#QMV}. See {@link #QMV_ROWS_MIN_ROWS_HALF} for the exception.
   */
  public static final int QMV_ROWS_MIN_ROWS = 2;

  /**
   * The same for 2/3/5/6-bit weights with bf16 or f16 x: {@value QmmOp#QMV_ROWS} from 1 row. H200,
   * run 89 (graph replay, µs, qmv-rows against qmv, 12288x4096 g64 unless said): bf16 2 / 3 / 5 / 6
   * bits 13.8 / 14.4 / 16.0 / 16.0 against 15.5 / 16.8 / 17.6 / 18.6; f16 22.7 / 21.5 / 22.3 / 22.4
   * against 23.5 / 24.2 / 24.8 / 25.5; 3-bit bf16 g32 14.7 against 17.1, g128 14.3 against 16.7,
   * 4096x4096 6.3 against 7.2. With f32 x it does not win at 1 row (34.8 / 37.5 / 37.6 against 34.6
   * / 34.6 / 36.5 at 2 / 4 / 8 bits), and 4/8-bit bf16/f16 1-row shapes reach it only where split-K
   * cannot take k (not measured), so those keep {@link #QMV_ROWS_MIN_ROWS}.
   */
  public static final int QMV_ROWS_MIN_ROWS_HALF = 1;

  /** The row threshold of {@value QmmOp#QMV_ROWS} for {@code s} without the property. */
  static int qmvRowsMinRows(QmmShape s) {
    boolean halfX = s.dtype() == Quant.BF16 || s.dtype() == Quant.F16;
    boolean oddWidth = s.bits() == 2 || s.bits() == 3 || s.bits() == 5 || s.bits() == 6;
    return halfX && oddWidth ? QMV_ROWS_MIN_ROWS_HALF : QMV_ROWS_MIN_ROWS;
  }

  /**
   * Most rows of x {@value QmmOp#QMV_ROWS} takes: no limit (see the class comment; rows above 8 not
   * measured on the GPU).
   */
  public static final int QMV_ROWS_MAX_ROWS = Integer.MAX_VALUE;

  /** The system property overriding {@link #qmvRowsMinRows} for every shape. */
  public static final String QMV_ROWS_MIN_PROPERTY = "sirocco.qmm.qmvRowsMinRows";

  /** The system property overriding {@link #QMV_ROWS_MAX_ROWS}. */
  public static final String QMV_ROWS_MAX_PROPERTY = "sirocco.qmm.qmvRowsMaxRows";

  /**
   * Why the policy keeps {@code s} away from {@value QmmOp#QMV_ROWS} (its row count is outside
   * {@code [qmvRowsMinRows, qmvRowsMaxRows]}), or null when that rung may take it.
   */
  public static String qmvRowsRejects(QmmShape s) {
    int min = Integer.getInteger(QMV_ROWS_MIN_PROPERTY, qmvRowsMinRows(s));
    int max = Integer.getInteger(QMV_ROWS_MAX_PROPERTY, QMV_ROWS_MAX_ROWS);
    if (s.rows() < min) {
      return "policy: below "
          + min
          + " rows the vector path runs one row at a time (rows="
          + s.rows()
          + "; -D"
          + QMV_ROWS_MIN_PROPERTY
          + ")";
    }
    if (s.rows() > max) {
      return "policy: at most "
          + max
          + " rows (rows="
          + s.rows()
          + "; -D"
          + QMV_ROWS_MAX_PROPERTY
          + ")";
    }
    return null;
  }

  /**
   * Fewest rows of x at which {@value QmmOp#QMM_TILED} (shared-memory tiled tensor-core kernel) is
   * used for 4-bit weights when n is a multiple of 96 (its 128 x 96 plan). H200, 12288 x 4096 4-bit
   * g64 bf16 (runs 60–61, µs, the op's plan against {@value QmmOp#QMM_MMA}): 72.5 vs 82.5 at 64
   * rows, 73.0 vs 93.6 at 96, 74.1 vs 95.0 at 128, 113.7 vs 173.5 at 160, 114.3 vs 188.6 at 256,
   * 175.3 vs 277.8 at 320, 176.6 vs 279.6 at 384, 205.5 vs 370.6 at 512 and 380.2 vs 729.5 at 1024
   * (128 x 128 plans there); f16 72.5 / 75.4 / 115.7 vs 83.1 / 98.3 / 193.6 at 64 / 128 / 256 (run
   * 62). (Runs 53–55, before ldmatrix, loop-invariant addressing and shift divisions, it won only
   * from 192 rows.)
   */
  public static final int TILED_MIN_ROWS = 64;

  /**
   * Fewest rows for the 128 x 128 plan (n a multiple of 128, not of 96): 85.6 vs 82.5 at 64 rows,
   * 86.3 vs 93.6 at 96 (run 60, the 128 x 128 tiling timed on n = 12288).
   */
  public static final int TILED_MIN_ROWS_128 = 96;

  /**
   * Fewest rows for 8-bit weights, whose bf16 dequantization goes through float: 147.4 vs 106.3 at
   * 64 rows, 160.7 vs 126.0 at 128, 171.5 vs 228.9 at 160, 171.7 vs 232.4 at 192, 171.2 vs 250.3 at
   * 256 (run 62, 12288 x 4096 g64 bf16).
   */
  public static final int TILED_MIN_ROWS_8BIT = 160;

  /**
   * Fewest blocks the tiled grid must have: with fewer the SMs are not all busy and {@value
   * QmmOp#QMM_MMA} (a block per 8 features) is faster. Run 62, 4096 x 4096 4-bit g64 bf16 (128 x
   * 128 plan, 32 blocks per 128 rows): 84.0 / 84.2 / 84.1 / 82.5 µs at 64 / 96 / 128 / 256 rows (32
   * and 64 blocks) vs 70.9 / 68.7 / 67.8 / 77.0; 81.9 / 82.0 / 131.3 at 384 / 512 / 1024 rows (96,
   * 128, 256 blocks) vs 92.1 / 164.7 / 270.9. 12288 x 4096 at 64 rows (128 blocks) wins.
   */
  public static final int TILED_MIN_BLOCKS = 96;

  /**
   * The system property overriding the rule of {@link #tiledRejects}: {@code N} uses {@value
   * QmmOp#QMM_TILED} from N rows, for every n and row count.
   */
  public static final String TILED_MIN_ROWS_PROPERTY = "sirocco.qmm.tiledMinRows";

  /**
   * Why the policy keeps {@code s} away from {@value QmmOp#QMM_TILED}, or null: fewer rows than
   * {@link #TILED_MIN_ROWS} (n a multiple of 96), {@link #TILED_MIN_ROWS_128} (n a multiple of 128
   * only) or {@link #TILED_MIN_ROWS_8BIT} (8-bit codes), n a multiple of neither (its 128 x 64
   * fallback plan has not been timed), or a grid of fewer than {@link #TILED_MIN_BLOCKS} blocks.
   */
  public static String tiledRejects(QmmShape s) {
    String override = " (-D" + TILED_MIN_ROWS_PROPERTY + "=N)";
    Integer forced = Integer.getInteger(TILED_MIN_ROWS_PROPERTY);
    if (forced != null) {
      return s.rows() < forced ? "policy: below " + forced + " rows" + override : null;
    }
    int min;
    if (s.n() % 96 == 0) {
      min = TILED_MIN_ROWS;
    } else if (s.n() % 128 == 0) {
      min = TILED_MIN_ROWS_128;
    } else {
      return "policy: timed only with 96- or 128-feature blocks (n a multiple of 96 or 128)"
          + override;
    }
    if (s.bits() == 8) {
      min = Math.max(min, TILED_MIN_ROWS_8BIT);
    }
    if (s.rows() < min) {
      return "policy: below " + min + " rows (qmm-mma is faster)" + override;
    }
    // Either split-K kernel with two row tiles per warp: the async one up to its bound (run 102:
    // 43.9 / 53.9 us at 64 / 72 rows, H100), the register one where the policy runs it instead.
    String v = mmaVariant(s);
    boolean twoTiles =
        v.equals(QmmOp.QMM_MMA_SPLITK)
            ? QmmMmaSplitKKernel.supports(s) == null && QmmMmaSplitKKernel.rowTiles(s) == 2
            : v.equals(QmmOp.QMM_MMA_ASYNC) && QmmMmaAsyncKernel.rowTiles(s) == 2;
    if (s.rows() <= MMA_SPLITK_MAX_ROWS_TWO_TILES && twoTiles) {
      return "policy: up to "
          + MMA_SPLITK_MAX_ROWS_TWO_TILES
          + " rows "
          + v
          + " (two row tiles per warp) is faster"
          + override;
    }
    LaunchPlan p = QmmTiledKernel.plan(s);
    long blocks = (long) p.grid().x() * p.grid().y();
    if (blocks < TILED_MIN_BLOCKS) {
      return "policy: "
          + blocks
          + " blocks, under "
          + TILED_MIN_BLOCKS
          + " (too few to fill the GPU; qmm-mma is faster)"
          + override;
    }
    return null;
  }

  /**
   * Fewest rows of x at which {@value QmmOp#QMM_MMA_XSHARED} is used where it can take the shape:
   * never by default. Run 100 (H100, 12288x4096 g64 bf16, µs by graph replay; its best plan of five
   * against {@value QmmOp#QMM_TILED}): 64 rows 48.2 against 61.7 (but {@value QmmOp#QMM_MMA_SPLITK}
   * serves 64 rows), 128 rows 69.7 against 62.7, 256 rows 101.7 against 103.7, 512 rows 199.5
   * against 192.9: far from the 61.8 µs the issue asks at 256 rows, and no faster where it could be
   * used. {@code -Dsirocco.qmm.xsharedMinRows=N} turns it on from N rows (read at every call).
   */
  public static final int XSHARED_MIN_ROWS = Integer.MAX_VALUE;

  /** The system property overriding {@link #XSHARED_MIN_ROWS}. */
  public static final String XSHARED_MIN_ROWS_PROPERTY = "sirocco.qmm.xsharedMinRows";

  /**
   * Rows from which {@value QmmOp#QMM_WGMMA} runs: none by default (run 115, H100, 12288 x 4096 g64
   * bf16, the default plan: 99.3 µs at 256 rows against {@value QmmOp#QMM_TILED}'s 91.6, 73.6
   * against 62.4 at 128, 193.3 against 179.6 at 512); {@code -Dsirocco.qmm.wgmmaMinRows=N} on an
   * sm_90 device only.
   */
  public static final int WGMMA_MIN_ROWS = Integer.MAX_VALUE;

  public static final String WGMMA_MIN_ROWS_PROPERTY = "sirocco.qmm.wgmmaMinRows";

  /** Why the policy keeps {@code s} away from {@value QmmOp#QMM_WGMMA}, or null. */
  public static String wgmmaRejects(QmmShape s) {
    return optInRejects(
        s,
        WGMMA_MIN_ROWS_PROPERTY,
        WGMMA_MIN_ROWS,
        "sm_90 only; run 115, H100: 99.3 against qmm-tiled's 91.6 µs at 256 rows");
  }

  /**
   * Rows from which {@value QmmOp#QMM_WGMMA_TMA} runs: none by default (run 116: built and checked
   * on the Java backend only, never run on a GPU); {@code -Dsirocco.qmm.wgmmaTmaMinRows=N} on an
   * sm_90 device only.
   */
  public static final int WGMMA_TMA_MIN_ROWS = Integer.MAX_VALUE;

  public static final String WGMMA_TMA_MIN_ROWS_PROPERTY = "sirocco.qmm.wgmmaTmaMinRows";

  /** Why the policy keeps {@code s} away from {@value QmmOp#QMM_WGMMA_TMA}, or null. */
  public static String wgmmaTmaRejects(QmmShape s) {
    return optInRejects(
        s,
        WGMMA_TMA_MIN_ROWS_PROPERTY,
        WGMMA_TMA_MIN_ROWS,
        "sm_90 only; run 116: not yet run on a GPU");
  }

  /** Why the policy keeps {@code s} away from {@value QmmOp#QMM_MMA_XSHARED}, or null. */
  public static String xsharedRejects(QmmShape s) {
    return optInRejects(
        s,
        XSHARED_MIN_ROWS_PROPERTY,
        XSHARED_MIN_ROWS,
        "run 100: at best 2% under qmm-tiled at 256 rows, slower at 128 and 512");
  }

  /**
   * An opt-in rung's policy: off unless {@code -Dproperty=N} (then from N rows); {@code why} says
   * why it is off by default.
   */
  private static String optInRejects(QmmShape s, String property, int byDefault, String why) {
    requireShape(s);
    int min = Integer.getInteger(property, byDefault);
    if (s.rows() >= min) {
      return null;
    }
    return min == Integer.MAX_VALUE
        ? "policy: not used by default (" + why + "; -D" + property + "=N)"
        : "policy: below " + min + " rows (rows=" + s.rows() + "; -D" + property + "=N)";
  }

  private static void requireShape(QmmShape s) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
  }

  /** The row threshold in force for {@code mode} ({@link Quant#AFFINE} or an fp mode). */
  public static int mmaMinRows(int mode) {
    return mode == Quant.AFFINE
        ? Integer.getInteger(AFFINE_PROPERTY, AFFINE_MMA_MIN_ROWS)
        : Integer.getInteger(FP_PROPERTY, FP_MMA_MIN_ROWS);
  }

  /**
   * The row threshold in force for tensor-core rung {@code rung} at {@code s}: {@link
   * #AFFINE_ASYNC_MIN_ROWS} for {@value QmmOp#QMM_MMA_ASYNC} with affine groups of 64 or 128 (every
   * width since run 109, when 3- and 5-bit bf16 had 2), else {@link #mmaMinRows(int)}; the affine
   * property overrides all.
   */
  public static int mmaMinRows(QmmShape s, String rung) {
    requireShape(s);
    if (rung == null) {
      throw new IllegalArgumentException(
          "rung must be a rung name such as qmm-mma-async, got null");
    }
    boolean asyncWide =
        rung.equals(QmmOp.QMM_MMA_ASYNC) && s.mode() == Quant.AFFINE && s.groupSize() >= 64;
    return asyncWide
        ? Integer.getInteger(AFFINE_PROPERTY, AFFINE_ASYNC_MIN_ROWS)
        : mmaMinRows(s.mode());
  }

  /**
   * Why the policy sends {@code s} away from tensor-core rung {@code rung} although its kernel
   * could compute it, or null when it prefers it.
   */
  public static String mmaRejects(QmmShape s, String rung) {
    int min = mmaMinRows(s, rung);
    if (s.rows() < min) {
      return "policy: "
          + (s.mode() == Quant.AFFINE ? "affine" : "fp-mode")
          + " weights use the vector path below "
          + min
          + " rows (rows="
          + s.rows()
          + (rung.equals(QmmOp.QMM_MMA_ASYNC)
                  && s.mode() == Quant.AFFINE
                  && s.groupSize() < 64
                  && System.getProperty(AFFINE_PROPERTY) == null
              ? "; from " + AFFINE_ASYNC_MIN_ROWS + " with groups of 64 or 128"
              : "")
          + ")";
    }
    return null;
  }
}
