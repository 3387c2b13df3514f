package sirocco.dispatch.cudnn;

import java.util.Arrays;
import java.util.Objects;

/**
 * Everything a cuDNN SDPA graph depends on: the key of the graph/plan cache, and the complete input
 * of {@link CudnnSdpaGraph}. Two calls with equal keys can share one finalized execution plan.
 *
 * <p>In the key: the device (one cuDNN handle per device; plans are per handle), the I/O data type,
 * every extent ({@code B, Hq, Hkv, Lq, Lkv, D, Dv}), the element strides of Q, K, V and O (cuDNN
 * bakes strides into the tensor descriptors), the mask kind as the graph sees it ({@link
 * MaskKind#BIAS} for additive masks and for boolean masks converted to an additive bias), the bias
 * tensor's dimensions and strides (its broadcast layout), whether the scale is a by-value scalar
 * (always, here) and whether the mask is causal (a different node pattern; bottom-right alignment
 * depends on {@code Lq} and {@code Lkv}, which the key holds).
 *
 * <p>Not in the key, because the plan does not depend on them: the data pointers and the workspace
 * pointer (variant pack, per call), the scale's value (a by-value scalar passed per call), the
 * stream (set on the handle per call), the mask's values, and the original mask dtype or kind when
 * it was converted to a bias (the converted bias is what the graph sees). Pointer alignment is not
 * in the key either: every tensor is declared 16-byte aligned and {@link CudnnSdpa} refuses
 * pointers that are not.
 */
final class CudnnSdpaKey {
  /** The mask as the cuDNN graph sees it. */
  enum MaskKind {
    NONE,
    CAUSAL,
    BIAS
  }

  final int device;
  final int dataType;
  final long b;
  final long hq;
  final long hkv;
  final long lq;
  final long lkv;
  final long d;
  final long dv;
  final long[] qStrides;
  final long[] kStrides;
  final long[] vStrides;
  final long[] oStrides;
  final MaskKind mask;
  final long[] biasDims;
  final long[] biasStrides;
  final boolean scaleByValue;
  private final int hash;

  /**
   * @param dataType {@link CudnnConstants#DATA_HALF} or {@link CudnnConstants#DATA_BFLOAT16}
   * @param qStrides element strides of Q as [B, Hq, Lq, D]
   * @param kStrides element strides of K as [B, Hkv, Lkv, D] (not transposed)
   * @param vStrides element strides of V as [B, Hkv, Lkv, Dv]
   * @param oStrides element strides of O as [B, Hq, Lq, Dv]
   * @param biasDims the bias's [B or 1, Hq or 1, Lq, Lkv] for {@link MaskKind#BIAS}, else empty
   * @param biasStrides its element strides, else empty
   */
  CudnnSdpaKey(
      int device,
      int dataType,
      long b,
      long hq,
      long hkv,
      long lq,
      long lkv,
      long d,
      long dv,
      long[] qStrides,
      long[] kStrides,
      long[] vStrides,
      long[] oStrides,
      MaskKind mask,
      long[] biasDims,
      long[] biasStrides) {
    this.device = device;
    this.dataType = dataType;
    this.b = b;
    this.hq = hq;
    this.hkv = hkv;
    this.lq = lq;
    this.lkv = lkv;
    this.d = d;
    this.dv = dv;
    this.qStrides = check4(qStrides, "qStrides");
    this.kStrides = check4(kStrides, "kStrides");
    this.vStrides = check4(vStrides, "vStrides");
    this.oStrides = check4(oStrides, "oStrides");
    this.mask = Objects.requireNonNull(mask, "mask");
    if (mask == MaskKind.BIAS) {
      this.biasDims = check4(biasDims, "biasDims");
      this.biasStrides = check4(biasStrides, "biasStrides");
    } else {
      this.biasDims = new long[0];
      this.biasStrides = new long[0];
    }
    this.scaleByValue = true;
    int h = Objects.hash(device, dataType, b, hq, hkv, lq, lkv, d, dv, mask, scaleByValue);
    h = 31 * h + Arrays.hashCode(qStrides);
    h = 31 * h + Arrays.hashCode(kStrides);
    h = 31 * h + Arrays.hashCode(vStrides);
    h = 31 * h + Arrays.hashCode(oStrides);
    h = 31 * h + Arrays.hashCode(this.biasDims);
    h = 31 * h + Arrays.hashCode(this.biasStrides);
    this.hash = h;
  }

  private static long[] check4(long[] a, String name) {
    if (a == null || a.length != 4) {
      throw new IllegalArgumentException(name + " must have 4 entries");
    }
    return a.clone();
  }

  boolean causal() {
    return mask == MaskKind.CAUSAL;
  }

  /** Bottom-right alignment differs from top-left only when {@code Lq != Lkv}. */
  boolean causalNeedsShift() {
    return causal() && lq != lkv;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CudnnSdpaKey k)) {
      return false;
    }
    return hash == k.hash
        && device == k.device
        && dataType == k.dataType
        && b == k.b
        && hq == k.hq
        && hkv == k.hkv
        && lq == k.lq
        && lkv == k.lkv
        && d == k.d
        && dv == k.dv
        && mask == k.mask
        && scaleByValue == k.scaleByValue
        && Arrays.equals(qStrides, k.qStrides)
        && Arrays.equals(kStrides, k.kStrides)
        && Arrays.equals(vStrides, k.vStrides)
        && Arrays.equals(oStrides, k.oStrides)
        && Arrays.equals(biasDims, k.biasDims)
        && Arrays.equals(biasStrides, k.biasStrides);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "sdpa["
        + CudnnConstants.dataTypeName(dataType)
        + " dev"
        + device
        + " B="
        + b
        + " Hq="
        + hq
        + " Hkv="
        + hkv
        + " Lq="
        + lq
        + " Lkv="
        + lkv
        + " D="
        + d
        + (dv != d ? " Dv=" + dv : "")
        + " mask="
        + mask
        + (mask == MaskKind.BIAS
            ? Arrays.toString(biasDims) + "/" + Arrays.toString(biasStrides)
            : "")
        + " q"
        + Arrays.toString(qStrides)
        + " k"
        + Arrays.toString(kStrides)
        + " v"
        + Arrays.toString(vStrides)
        + " o"
        + Arrays.toString(oStrides)
        + "]";
  }
}
