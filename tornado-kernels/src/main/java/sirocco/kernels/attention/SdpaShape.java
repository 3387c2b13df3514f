package sirocco.kernels.attention;

/**
 * The logical sizes of one attention call: q {@code [batch, qHeads, qLen, headDim]}, k {@code
 * [batch, kvHeads, kvLen, headDim]}, v {@code [batch, kvHeads, kvLen, valueDim]}. Host-side only
 * (plans and support checks); kernels take the sizes as scalars.
 */
public record SdpaShape(
    int batch, int qHeads, int kvHeads, int qLen, int kvLen, int headDim, int valueDim) {

  /** Validates what every kernel here relies on; names the offending argument. */
  public SdpaShape {
    positive("batch", batch);
    positive("qHeads", qHeads);
    positive("kvHeads", kvHeads);
    positive("qLen", qLen);
    if (kvLen < 0) {
      throw new IllegalArgumentException("kvLen must be >= 0, got " + kvLen);
    }
    positive("headDim", headDim);
    positive("valueDim", valueDim);
    if (qHeads % kvHeads != 0) {
      throw new IllegalArgumentException(
          "qHeads (" + qHeads + ") must be a multiple of kvHeads (" + kvHeads + ")");
    }
  }

  /** The common case: value rows as wide as key rows. */
  public static SdpaShape of(int batch, int qHeads, int kvHeads, int qLen, int kvLen, int headDim) {
    return new SdpaShape(batch, qHeads, kvHeads, qLen, kvLen, headDim, headDim);
  }

  /** q heads per kv head (the GQA group size). */
  public int gqa() {
    return qHeads / kvHeads;
  }

  /** Rows of the output: {@code batch * qHeads * qLen}. */
  public int outputRows() {
    return Math.multiplyExact(Math.multiplyExact(batch, qHeads), qLen);
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + value);
    }
  }

  @Override
  public String toString() {
    return "B"
        + batch
        + " Hq"
        + qHeads
        + " Hkv"
        + kvHeads
        + " Lq"
        + qLen
        + " Lkv"
        + kvLen
        + " D"
        + headDim
        + (valueDim != headDim ? " Dv" + valueDim : "");
  }
}
