package sirocco.dispatch.quant;

import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;

/**
 * The quantized-matmul ladder's performance policy, in one place: from how many rows of x the
 * tensor-core kernel ({@value QmmOp#QMM_MMA}) is preferred to the CUDA-core vector kernels ({@value
 * QmmOp#QMV}, {@value QmmOp#FP_QMV}). Everything else in the ladder is a capability ("can this
 * kernel compute this shape at all"); only this is a choice between kernels that both can.
 *
 * <p>Defaults, from the H200 measurements in {@code bench/RESULTS.md} (n=12288, k=4096, 4-bit g64
 * bf16): {@code AffineQmvKernel} 19.8 µs at 1 row and 81.8 µs at 6 rows (it re-reads the weights
 * per row), {@code QmmMmaKernel} about 25 µs flat for 1–8 rows. So affine weights take the vector
 * path at 1 row and tensor cores from 2 rows. fp modes (mxfp4, nvfp4, mxfp8) keep the vector path
 * up to 7 rows (seed finding 4) until a measurement says otherwise; {@code tornado bench qmm
 * --kernel all --sweep-formats} times both for every format at 1 and 6 rows.
 *
 * <p>To try another policy without rebuilding: {@code -Dsirocco.qmm.mmaMinRows.affine=N} and {@code
 * -Dsirocco.qmm.mmaMinRows.fp=N} (read at every call; 1 = tensor cores always when they can, a huge
 * number = never).
 */
public final class QmmPolicy {
  private QmmPolicy() {}

  /** Fewest rows of x at which affine weights go to tensor cores (measured: they win from 2). */
  public static final int AFFINE_MMA_MIN_ROWS = 2;

  /** Fewest rows of x at which fp-mode weights go to tensor cores (seed finding 4: from 8). */
  public static final int FP_MMA_MIN_ROWS = 8;

  /** The system property overriding {@link #AFFINE_MMA_MIN_ROWS}. */
  public static final String AFFINE_PROPERTY = "sirocco.qmm.mmaMinRows.affine";

  /** The system property overriding {@link #FP_MMA_MIN_ROWS}. */
  public static final String FP_PROPERTY = "sirocco.qmm.mmaMinRows.fp";

  /**
   * Which CUDA-core kernel serves affine weights on the vector path: {@value QmmOp#QMV} (the
   * measured {@code AffineQmvKernel}) until the faster variants ({@value QmmOp#QMV_WARP}, {@value
   * QmmOp#QMV_PERSISTENT}, {@value QmmOp#QMV_SPLITK}; merged, not yet run on a GPU) are measured.
   * {@code tornado bench qmm --kernel all} times all of them whatever this says.
   */
  public static final String QMV_VARIANT = QmmOp.QMV;

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
