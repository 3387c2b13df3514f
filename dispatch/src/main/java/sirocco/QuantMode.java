package sirocco;

/** Quantization formats, bit-compatible with MLX. */
public enum QuantMode {
  /** Integer codes with a scale and bias per group: bits 2, 3, 4, 5, 6, 8; group 32, 64, 128. */
  AFFINE,
  /** E2M1 codes, group 32, E8M0 (power of two) scales. */
  MXFP4,
  /** E2M1 codes, group 16, E4M3 scales, optional float32 global scale. */
  NVFP4,
  /** E4M3 codes, group 32, E8M0 scales. */
  MXFP8
}
