package sirocco;

/**
 * Options of {@link Sirocco#scaledDotProductAttention(Tensor, Tensor, Tensor, float, Mask,
 * SdpaOptions)}.
 *
 * @param sinks attention sinks as MLX has them: one logit per q head ({@code [Hq]}, any floating
 *     dtype), joining every row's softmax denominator with no value row; null for none
 * @param forceFused run a fused kernel (cuDNN or the vector kernel) or throw {@link
 *     UnsupportedOperationException} listing why each cannot, instead of falling back to the
 *     unfused kernels
 */
public record SdpaOptions(Tensor sinks, boolean forceFused) {
  private static final SdpaOptions DEFAULTS = new SdpaOptions(null, false);

  /** No sinks, fallback allowed. */
  public static SdpaOptions defaults() {
    return DEFAULTS;
  }

  /** These options with {@code sinks} ({@code [Hq]}; null removes them). */
  public SdpaOptions withSinks(Tensor sinks) {
    return new SdpaOptions(sinks, forceFused);
  }

  /** These options with {@code forceFused}. */
  public SdpaOptions withForceFused(boolean forceFused) {
    return new SdpaOptions(sinks, forceFused);
  }
}
