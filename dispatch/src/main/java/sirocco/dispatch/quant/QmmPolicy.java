package sirocco.dispatch.quant;

import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;

/**
 * The quantized-matmul ladder's performance policy, in one place: from how many rows of x the
 * tensor-core kernel ({@value QmmOp#QMM_MMA}) is preferred to the CUDA-core vector kernels ({@value
 * QmmOp#QMV}, {@value QmmOp#FP_QMV}). Everything else in the ladder is a capability ("can this
 * kernel compute this shape at all"); only this is a choice between kernels that both can.
 *
 * <p>Defaults, from `tornado bench qmm --kernel all` on the H200 (bench/RESULTS.md, run 3; n=12288,
 * k=4096, g64 bf16): at 4 bits {@value QmmOp#QMV_SPLITK} takes 13.85 µs at 1 row and 21.6 µs at 2
 * rows against {@value QmmOp#QMM_MMA}'s 24.6–25.0 µs, and 37 µs at 4 rows against 25.0 (so tensor
 * cores from 3 rows; run 4 measured mma at 3 rows: 25.04 µs). At 8 bits split-K takes 17.7 µs at 1
 * row, mma 33.1 µs at 6. For fp modes, run 9 measured rows 2–7 of every mode: {@value QmmOp#FP_QMV}
 * wins only at 2 rows (33.2 vs 35.5 µs mxfp4, 34.4 vs 35.7 nvfp4, 42.2 vs 49.1 mxfp8) and grows
 * ~13–17 µs a row, while mma stays flat (35.3–35.7, 49.0–49.8), so tensor cores from 3 rows —
 * measurement overrode seed finding 4's "fp modes stay on the vector path for 2–7 rows".
 *
 * <p>To try another policy without rebuilding: {@code -Dsirocco.qmm.mmaMinRows.affine=N} and {@code
 * -Dsirocco.qmm.mmaMinRows.fp=N} (read at every call; 1 = tensor cores always when they can, a huge
 * number = never).
 */
public final class QmmPolicy {
  private QmmPolicy() {}

  /**
   * Fewest rows of x at which affine weights go to tensor cores (measured: split-K wins at 1–2).
   */
  public static final int AFFINE_MMA_MIN_ROWS = 3;

  /** Fewest rows of x at which fp-mode weights go to tensor cores (measured crossover: 3 rows). */
  public static final int FP_MMA_MIN_ROWS = 3;

  /** The system property overriding {@link #AFFINE_MMA_MIN_ROWS}. */
  public static final String AFFINE_PROPERTY = "sirocco.qmm.mmaMinRows.affine";

  /** The system property overriding {@link #FP_MMA_MIN_ROWS}. */
  public static final String FP_PROPERTY = "sirocco.qmm.mmaMinRows.fp";

  /**
   * Which CUDA-core kernel serves affine weights on the vector path: {@value QmmOp#QMV_SPLITK}, the
   * fastest measured at 1 and 2 rows (4-bit 1 row: split-K 13.85 µs, persistent 15.33, warp 16.20,
   * {@value QmmOp#QMV} 19.48; 8-bit: 17.74 / 18.05 / 18.98 / 20.18). Widths it does not take (2, 3,
   * 5, 6 bits) fall through to {@value QmmOp#QMV}. {@code tornado bench qmm --kernel all} times
   * every variant whatever this says.
   */
  public static final String QMV_VARIANT = QmmOp.QMV_SPLITK;

  /** The system property overriding {@link #QMV_VARIANT}. */
  public static final String QMV_VARIANT_PROPERTY = "sirocco.qmm.qmvVariant";

  /** The vector-path variant in force. */
  public static String qmvVariant() {
    return System.getProperty(QMV_VARIANT_PROPERTY, QMV_VARIANT);
  }

  /**
   * Why the policy does not use vector-path variant {@code rung} (one of the {@code qmv-*} rungs),
   * or null when it is the variant in force. A shape the chosen variant cannot take falls through
   * to the next rung (in the end {@value QmmOp#QMV}, which takes every affine shape).
   */
  public static String qmvVariantRejects(String rung) {
    String v = qmvVariant();
    return rung.equals(v)
        ? null
        : "policy: the vector path uses " + v + " (-D" + QMV_VARIANT_PROPERTY + ")";
  }

  /** The row threshold in force for {@code mode} ({@link Quant#AFFINE} or an fp mode). */
  public static int mmaMinRows(int mode) {
    return mode == Quant.AFFINE
        ? Integer.getInteger(AFFINE_PROPERTY, AFFINE_MMA_MIN_ROWS)
        : Integer.getInteger(FP_PROPERTY, FP_MMA_MIN_ROWS);
  }

  /**
   * Why the policy sends {@code s} away from tensor cores although they could compute it, or null
   * when it prefers them.
   */
  public static String mmaRejects(QmmShape s) {
    int min = mmaMinRows(s.mode());
    if (s.rows() < min) {
      return "policy: "
          + (s.mode() == Quant.AFFINE ? "affine" : "fp-mode")
          + " weights use the vector path below "
          + min
          + " rows (rows="
          + s.rows()
          + ")";
    }
    return null;
  }
}
