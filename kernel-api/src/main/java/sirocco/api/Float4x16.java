package sirocco.api;

import java.util.Arrays;

/**
 * The 64 float accumulators one thread holds of a warpgroup tensor-core product of shape m64n128
 * ({@link KernelContext#warpgroupMmaBf16}); kept in registers like {@link Float4}. Quad {@code i}
 * (0..15) is an m16n8 accumulator fragment of {@link KernelContext#mmaBf16}'s layout covering
 * columns {@code 8i .. 8i + 7} of the warp's 16 rows: with {@code g = lane >> 2}, {@code t = lane &
 * 3} and {@code r = 16 (warp & 3)}, {@code x, y} hold D[r + g][8i + 2t, 8i + 2t + 1] and {@code z,
 * w} D[r + g + 8][the same columns].
 *
 * <p>Kernels obtain one from {@link #zero()} or a product and read it with {@link #quad(int)} at a
 * constant index; the kernel compiler keeps the 64 values in registers.
 */
public final class Float4x16 {
  /** Number of floats. */
  public static final int SIZE = 64;

  private static final Float4x16 ZERO = new Float4x16(new float[SIZE]);

  private final float[] values;

  private Float4x16(float[] values) {
    this.values = values;
  }

  /** All 64 accumulators zero. */
  public static Float4x16 zero() {
    return ZERO;
  }

  /**
   * The accumulators from an array of 64 floats (copied), for backends that compute products on the
   * CPU; kernels cannot call it.
   *
   * @throws IllegalArgumentException if {@code values} is not 64 long
   */
  public static Float4x16 of(float[] values) {
    if (values == null || values.length != SIZE) {
      throw new IllegalArgumentException(
          "values must hold " + SIZE + " floats, got " + (values == null ? "null" : values.length));
    }
    return new Float4x16(values.clone());
  }

  /**
   * Accumulator {@code i} (0..63); for backends and tests, not kernels.
   *
   * @throws IllegalArgumentException unless {@code 0 <= i < 64}
   */
  public float get(int i) {
    if (i < 0 || i >= SIZE) {
      throw new IllegalArgumentException("i must be 0.." + (SIZE - 1) + ", got " + i);
    }
    return values[i];
  }

  /**
   * Quad {@code i} (accumulators {@code 4i .. 4i + 3}); in kernels {@code i} must be a constant.
   *
   * @throws IllegalArgumentException unless {@code 0 <= i < 16}
   */
  public Float4 quad(int i) {
    if (i < 0 || i >= SIZE / 4) {
      throw new IllegalArgumentException("i must be 0.." + (SIZE / 4 - 1) + ", got " + i);
    }
    int b = 4 * i;
    return new Float4(values[b], values[b + 1], values[b + 2], values[b + 3]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Float4x16 f && Arrays.equals(values, f.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "Float4x16" + Arrays.toString(values);
  }
}
