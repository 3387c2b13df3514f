package sirocco.dispatch.attention;

import java.util.Arrays;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Tensor;
import sirocco.dispatch.attention.SdpaOp.Call;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaUnfused;

/**
 * Validation of {@link SdpaOp}'s arguments into a {@link Call}: ranks, dtypes, batch, head and
 * length agreement (GQA), the mask's broadcast to {@code [B, Hq, Lq, Lkv]} (MLX rules), sinks, and
 * the 32-bit index range of every view; each failure is an {@link IllegalArgumentException} naming
 * the argument, thrown before anything is allocated or launched. Also the stride arithmetic of
 * those views, which the launches share.
 */
final class SdpaValidation {
  private SdpaValidation() {}

  static Call validate(Tensor q, Tensor k, Tensor v, float scale, Mask mask, Tensor sinks) {
    rank4(q, "q", "[B, Hq, Lq, D]");
    rank4(k, "k", "[B, Hkv, Lkv, D]");
    rank4(v, "v", "[B, Hkv, Lkv, Dv]");
    DType dt = q.dtype();
    if (!dt.isFloating()) {
      throw new IllegalArgumentException("q must be F32, F16 or BF16, got " + dt);
    }
    if (k.dtype() != dt) {
      throw new IllegalArgumentException("k must have q's dtype " + dt + ", got " + k.dtype());
    }
    if (v.dtype() != dt) {
      throw new IllegalArgumentException("v must have q's dtype " + dt + ", got " + v.dtype());
    }
    long[] qs = q.shape();
    long[] ks = k.shape();
    long[] vs = v.shape();
    if (ks[0] != qs[0]) {
      throw new IllegalArgumentException(
          "k's batch size must equal q's: q " + str(qs) + ", k " + str(ks));
    }
    if (vs[0] != qs[0]) {
      throw new IllegalArgumentException(
          "v's batch size must equal q's: q " + str(qs) + ", v " + str(vs));
    }
    if (ks[3] != qs[3]) {
      throw new IllegalArgumentException(
          "k's head dim must equal q's: q "
              + str(qs)
              + " has D = "
              + qs[3]
              + ", k "
              + str(ks)
              + " has "
              + ks[3]);
    }
    if (vs[1] != ks[1] || vs[2] != ks[2]) {
      throw new IllegalArgumentException(
          "v must have k's heads and length [B, Hkv, Lkv, Dv] = [_, "
              + ks[1]
              + ", "
              + ks[2]
              + ", _], got "
              + str(vs));
    }
    if (ks[1] == 0 ? qs[1] != 0 : qs[1] % ks[1] != 0) {
      throw new IllegalArgumentException(
          "q's head count Hq = "
              + qs[1]
              + " must be a multiple of k and v's head count Hkv = "
              + ks[1]
              + " (grouped-query attention: q head h reads kv head h / (Hq / Hkv))");
    }
    if (qs[3] == 0) {
      throw new IllegalArgumentException("q's head dim D must be >= 1, got shape " + str(qs));
    }
    if (!Float.isFinite(scale)) {
      throw new IllegalArgumentException("scale must be finite, got " + scale);
    }
    long[] target = {qs[0], qs[1], qs[2], ks[2]};

    Mask.Kind kind = mask == null ? Mask.Kind.NONE : mask.kind();
    Tensor mt = kind == Mask.Kind.ADDITIVE || kind == Mask.Kind.BOOL ? mask.tensor() : null;
    int maskKind =
        switch (kind) {
          case NONE -> Sdpa.MASK_NONE;
          case CAUSAL -> Sdpa.MASK_CAUSAL;
          case ADDITIVE -> Sdpa.MASK_ADDITIVE;
          case BOOL -> Sdpa.MASK_BOOL;
        };
    long[] maskStrides = null;
    if (mt == null && maskKind >= Sdpa.MASK_ADDITIVE) {
      throw new IllegalArgumentException("mask tensor must not be null for a " + kind + " mask");
    }
    if (mt != null) {
      if (kind == Mask.Kind.ADDITIVE && !mt.dtype().isFloating()) {
        throw new IllegalArgumentException(
            "mask must be F32, F16 or BF16 for an additive mask, got " + mt.dtype());
      }
      if (kind == Mask.Kind.BOOL && mt.dtype() != DType.U8) {
        throw new IllegalArgumentException(
            "mask must be U8 (nonzero = keep) for a boolean mask, got " + mt.dtype());
      }
      maskStrides = broadcastStrides(mt.shape(), mt.strides(), target);
      checkIndexRange(mt, "mask");
    }

    if (sinks != null) {
      if (sinks.rank() != 1 || sinks.shape(0) != qs[1]) {
        throw new IllegalArgumentException(
            "sinks must have shape [Hq] = [" + qs[1] + "], got " + str(sinks.shape()));
      }
      if (!sinks.dtype().isFloating()) {
        throw new IllegalArgumentException("sinks must be F32, F16 or BF16, got " + sinks.dtype());
      }
      checkIndexRange(sinks, "sinks");
    }

    checkIndexRange(q, "q");
    checkIndexRange(k, "k");
    checkIndexRange(v, "v");
    long outElements = qs[0] * qs[1] * qs[2] * vs[3];
    if (outElements > Integer.MAX_VALUE - SdpaUnfused.THREADS) {
      throw new IllegalArgumentException(
          "q "
              + str(qs)
              + " and v "
              + str(vs)
              + " give an output of "
              + outElements
              + " elements; at most 2^31 - 257 are supported");
    }

    int kernelDtype =
        switch (dt) {
          case BF16 -> Sdpa.BF16;
          case F16 -> Sdpa.F16;
          default -> Sdpa.F32;
        };
    SdpaStrides ms =
        maskStrides == null
            ? null
            : new SdpaStrides(
                (int) mt.offset(),
                (int) maskStrides[0],
                (int) maskStrides[1],
                (int) maskStrides[2],
                (int) maskStrides[3]);
    return new Call(
        q,
        k,
        v,
        mt,
        sinks,
        scale,
        dt,
        kernelDtype,
        maskKind,
        (int) qs[0],
        (int) qs[1],
        (int) ks[1],
        (int) qs[2],
        (int) ks[2],
        (int) qs[3],
        (int) vs[3],
        strides(q),
        strides(k),
        strides(v),
        ms);
  }

  private static void rank4(Tensor t, String name, String form) {
    if (t.rank() != 4) {
      throw new IllegalArgumentException(
          name + " must have rank 4 " + form + ", got shape " + str(t.shape()));
    }
    for (long d : t.shape()) {
      if (d > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            name + " " + form + " must have dimensions below 2^31, got " + str(t.shape()));
      }
    }
  }

  /**
   * Element strides on the four axes of {@code target} of a mask of {@code shape} with {@code
   * strides} (MLX broadcasting: trailing axes aligned, a missing or size-1 axis broadcasts with
   * stride 0).
   *
   * @throws IllegalArgumentException naming the mask when it does not broadcast
   */
  static long[] broadcastStrides(long[] shape, long[] strides, long[] target) {
    if (shape.length > 4) {
      throw notBroadcastable(shape, target);
    }
    long[] out = new long[4];
    int pad = 4 - shape.length;
    for (int a = 0; a < shape.length; a++) {
      if (shape[a] != target[pad + a] && shape[a] != 1) {
        throw notBroadcastable(shape, target);
      }
      out[pad + a] = shape[a] == 1 ? 0 : strides[a];
    }
    return out;
  }

  private static IllegalArgumentException notBroadcastable(long[] shape, long[] target) {
    return new IllegalArgumentException(
        "mask of shape "
            + str(shape)
            + " is not broadcastable to [B, Hq, Lq, Lkv] = "
            + str(target)
            + " (MLX rules: at most 4 axes, aligned at the last, each equal to the target's or 1)");
  }

  /** Offset and strides of a rank-4 tensor, with stride 0 on size-1 axes (1 on a size-1 last). */
  static SdpaStrides strides(Tensor t) {
    long[] s = t.shape();
    long[] st = t.strides();
    return new SdpaStrides(
        (int) t.offset(),
        s[0] == 1 ? 0 : (int) st[0],
        s[1] == 1 ? 0 : (int) st[1],
        s[2] == 1 ? 0 : (int) st[2],
        s[3] == 1 ? 1 : (int) st[3]);
  }

  /** The kernels index with 32-bit ints: every element a view reaches must be below 2³¹. */
  private static void checkIndexRange(Tensor t, String name) {
    long[] s = t.shape();
    long[] st = t.strides();
    long at = t.offset();
    for (int a = 0; a < s.length; a++) {
      if (s[a] == 0) {
        return;
      }
      at += (s[a] - 1) * st[a];
    }
    if (at > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          name
              + " "
              + str(s)
              + " reaches element "
              + at
              + " of its buffer; the attention kernels index with 32-bit ints (at most 2^31 - 1)");
    }
  }

  private static String str(long[] shape) {
    return Arrays.toString(shape);
  }
}
