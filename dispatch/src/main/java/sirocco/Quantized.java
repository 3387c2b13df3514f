package sirocco;

/**
 * A quantized weight matrix in MLX's layout: {@code wq} holds the packed codes as U32 {@code [N,
 * K*bits/32]}, {@code scales} (and {@code biases}, affine mode only) one value per group {@code [N,
 * K/groupSize]}. For fp modes the scales are U8 and {@code biases} is null; {@code globalScale} is
 * nvfp4's optional float32 scalar tensor (null otherwise).
 */
public record Quantized(
    Tensor wq,
    Tensor scales,
    Tensor biases,
    int groupSize,
    int bits,
    QuantMode mode,
    Tensor globalScale) {

  public Quantized {
    if (wq == null || scales == null || mode == null) {
      throw new IllegalArgumentException("wq, scales and mode must not be null");
    }
    if (mode == QuantMode.AFFINE && biases == null) {
      throw new IllegalArgumentException("biases must be given for affine quantization");
    }
    if (mode != QuantMode.AFFINE && biases != null) {
      throw new IllegalArgumentException(
          "biases must be null for " + mode + " (fp modes have no biases)");
    }
    if (globalScale != null && mode != QuantMode.NVFP4) {
      throw new IllegalArgumentException("globalScale is only defined for NVFP4, not " + mode);
    }
  }

  /** Without a global scale. */
  public Quantized(
      Tensor wq, Tensor scales, Tensor biases, int groupSize, int bits, QuantMode mode) {
    this(wq, scales, biases, groupSize, bits, mode, null);
  }
}
