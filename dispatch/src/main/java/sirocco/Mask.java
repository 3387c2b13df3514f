package sirocco;

/**
 * The attention mask of {@link Sirocco#scaledDotProductAttention}: none, causal (aligned
 * bottom-right: query {@code i} sees keys {@code ≤ i + Lkv − Lq}), additive (a float tensor
 * broadcastable to {@code [B, Hq, Lq, Lkv]} added to the scores) or boolean (a U8 tensor, nonzero =
 * keep).
 */
public sealed interface Mask {
  /** How the mask applies. */
  enum Kind {
    NONE,
    CAUSAL,
    ADDITIVE,
    BOOL
  }

  Kind kind();

  /** The mask tensor for additive and boolean masks, else null. */
  Tensor tensor();

  static Mask none() {
    return Simple.NONE;
  }

  static Mask causal() {
    return Simple.CAUSAL;
  }

  static Mask additive(Tensor mask) {
    if (mask == null || !mask.dtype().isFloating()) {
      throw new IllegalArgumentException(
          "mask must be a floating-point tensor for an additive mask");
    }
    return new WithTensor(Kind.ADDITIVE, mask);
  }

  static Mask bool(Tensor mask) {
    if (mask == null || mask.dtype() != DType.U8) {
      throw new IllegalArgumentException(
          "mask must be a U8 tensor (nonzero = keep) for a boolean mask");
    }
    return new WithTensor(Kind.BOOL, mask);
  }

  /** Masks without a tensor. */
  enum Simple implements Mask {
    NONE(Kind.NONE),
    CAUSAL(Kind.CAUSAL);

    private final Kind kind;

    Simple(Kind kind) {
      this.kind = kind;
    }

    @Override
    public Kind kind() {
      return kind;
    }

    @Override
    public Tensor tensor() {
      return null;
    }
  }

  /** Additive and boolean masks. */
  record WithTensor(Kind kind, Tensor tensor) implements Mask {}
}
