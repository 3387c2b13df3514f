package sirocco.kernels.quant;

/**
 * One quantized matmul as the kernels see it after the dispatch layer has folded batch dimensions:
 * {@code out[rows, n] = x[rows, k] * W^T} where W is {@code [n, k]} quantized along k ({@code
 * transpose = true}, MLX's default), or {@code out[rows, n] = x[rows, k] * W} with W {@code [k, n]}
 * quantized along n ({@code transpose = false}).
 *
 * @param mode {@link Quant#AFFINE}, {@link Quant#MXFP4}, {@link Quant#NVFP4} or {@link Quant#MXFP8}
 * @param bits element bits (fixed by the mode for fp modes)
 * @param groupSize quantization group (fixed by the mode for fp modes)
 * @param dtype activation, scale/bias (affine) and output dtype: {@link Quant#BF16}, {@link
 *     Quant#F16} or {@link Quant#F32}
 * @param rows rows of x (M after folding batches)
 * @param n output features
 * @param k inner dimension
 * @param transpose whether W is stored {@code [n, k]}
 */
public record QmmShape(
    int mode, int bits, int groupSize, int dtype, int rows, int n, int k, boolean transpose) {

  /** Affine, transposed. */
  public static QmmShape affine(int bits, int groupSize, int dtype, int rows, int n, int k) {
    return new QmmShape(Quant.AFFINE, bits, groupSize, dtype, rows, n, k, true);
  }

  /** An fp mode, transposed. */
  public static QmmShape fp(int mode, int dtype, int rows, int n, int k) {
    return new QmmShape(
        mode, Quant.elementBits(mode, 0), Quant.modeGroupSize(mode, 0), dtype, rows, n, k, true);
  }

  public QmmShape withTranspose(boolean t) {
    return new QmmShape(mode, bits, groupSize, dtype, rows, n, k, t);
  }

  /** The same shape with {@code r} rows of x. */
  public QmmShape withRows(int r) {
    if (r < 1) {
      throw new IllegalArgumentException("r (rows of x) must be >= 1, got " + r);
    }
    return new QmmShape(mode, bits, groupSize, dtype, r, n, k, transpose);
  }

  /** The length of the quantized (packed) axis: k when transposed, n otherwise. */
  public int quantizedAxis() {
    return transpose ? k : n;
  }

  /**
   * Why a tensor-core kernel for transposed affine 4-bit weights and bf16/f16 x cannot take this
   * shape, or null: {@link #basicRejection}, then layout, mode, width ({@code why4}: why the kernel
   * needs 4 bits; {@code others}: the rung other widths use) and dtype.
   */
  String affine4HalfRejection(String why4, String others) {
    return affineHalfRejection(bits == 4, "4-bit", why4, others);
  }

  /**
   * {@link #affine4HalfRejection} for a kernel taking the widths {@code widths} names ({@code
   * widthOk}: this shape's is one of them).
   */
  String affineHalfRejection(boolean widthOk, String widths, String why, String others) {
    String bad = basicRejection();
    if (bad != null) {
      return bad;
    }
    if (!transpose) {
      return "transposed weights only (w [n, k])";
    }
    if (mode != Quant.AFFINE) {
      return "affine weights only";
    }
    if (!widthOk) {
      return "affine " + widths + " only (" + why + "); " + bits + "-bit uses " + others;
    }
    if (dtype == Quant.F32) {
      return "bf16/f16 activations only (tensor cores); f32 uses the vector path";
    }
    return null;
  }

  /** Common checks every kernel makes: a valid format and dimensions that fit the packing. */
  String basicRejection() {
    String bad = Quant.checkFormat(mode, bits, groupSize);
    if (bad != null) {
      return bad;
    }
    if (dtype != Quant.BF16 && dtype != Quant.F16 && dtype != Quant.F32) {
      return "dtype must be bf16, f16 or f32, got " + dtype;
    }
    if (rows <= 0 || n <= 0 || k <= 0) {
      return "rows, n and k must be positive (empty outputs never reach a kernel), got rows="
          + rows
          + " n="
          + n
          + " k="
          + k;
    }
    if (quantizedAxis() % groupSize != 0) {
      return (transpose ? "k" : "n")
          + " ("
          + quantizedAxis()
          + ") must be a multiple of the group size "
          + groupSize;
    }
    if ((long) rows * n >= Integer.MAX_VALUE
        || (long) rows * k >= Integer.MAX_VALUE
        || (long) n * k >= Integer.MAX_VALUE) {
      return "rows*n, rows*k and n*k must each be below 2^31 (32-bit indexing)";
    }
    return null;
  }

  @Override
  public String toString() {
    return Quant.modeName(mode)
        + (mode == Quant.AFFINE ? " bits=" + bits + " group=" + groupSize : "")
        + " "
        + Quant.dtypeName(dtype)
        + " rows="
        + rows
        + " n="
        + n
        + " k="
        + k
        + (transpose ? "" : " transpose=false");
  }
}
