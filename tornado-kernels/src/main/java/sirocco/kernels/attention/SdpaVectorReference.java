package sirocco.kernels.attention;

/** The scalar float64 reference of {@link SdpaVector#decode}, written from the math. */
public final class SdpaVectorReference {
  private SdpaVectorReference() {}

  /**
   * Attention of one output row in float64, reading the same arrays and strides as {@link
   * SdpaVector#decode}: {@code out[d] = Σ_j softmax_j(scale·q·k_j + mask_j) v_j[d]}, sinks in the
   * denominator, fully masked rows 0. Returns the D values of row {@code (b, h, i)}.
   */
  public static double[] reference(
      short[] q,
      short[] k,
      short[] v,
      float[] maskAdd,
      byte[] maskBool,
      float[] sinks,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms,
      double scale,
      int dtype,
      int maskKind,
      boolean hasSinks,
      int b,
      int h,
      int i) {
    int d = shape.headDim();
    int lkv = shape.kvLen();
    int hk = h / shape.gqa();
    double[] logits = new double[lkv];
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < lkv; j++) {
      double s = 0;
      for (int e = 0; e < d; e++) {
        s +=
            Sdpa.toFloat(q[(int) qs.index(b, h, i, e)], dtype)
                * (double) Sdpa.toFloat(k[(int) ks.index(b, hk, j, e)], dtype);
      }
      s *= scale;
      boolean keep = true;
      if (maskKind == Sdpa.MASK_CAUSAL) {
        keep = j <= i + lkv - shape.qLen();
      } else if (maskKind == Sdpa.MASK_ADDITIVE) {
        s += maskAdd[(int) ms.index(b, h, i, j)];
      } else if (maskKind == Sdpa.MASK_BOOL) {
        keep = maskBool[(int) ms.index(b, h, i, j)] != 0;
      }
      logits[j] = keep ? s : Double.NEGATIVE_INFINITY;
      max = Math.max(max, logits[j]);
    }
    double sink = hasSinks ? sinks[h] : Double.NEGATIVE_INFINITY;
    max = Math.max(max, sink);
    double[] o = new double[d];
    if (max == Double.NEGATIVE_INFINITY) {
      return o;
    }
    double denom = hasSinks ? Math.exp(sink - max) : 0;
    for (int j = 0; j < lkv; j++) {
      double p = Math.exp(logits[j] - max);
      denom += p;
      if (p != 0) {
        for (int e = 0; e < d; e++) {
          o[e] += p * Sdpa.toFloat(v[(int) vs.index(b, hk, j, e)], dtype);
        }
      }
    }
    for (int e = 0; e < d; e++) {
      o[e] /= denom;
    }
    return o;
  }
}
