package sirocco.kernels.attention;

/**
 * Where a 4-d tensor's elements live in its array: element {@code (b, h, l, d)} is at {@code offset
 * + b*batch + h*head + l*seq + d*dim}. For a mask the last axis is the key axis, and a broadcast
 * axis has stride 0. Host-side only; kernels take the components as scalars.
 */
public record SdpaStrides(int offset, int batch, int head, int seq, int dim) {

  public SdpaStrides {
    if (offset < 0 || batch < 0 || head < 0 || seq < 0 || dim < 0) {
      throw new IllegalArgumentException(
          "offset and strides must be >= 0, got +"
              + offset
              + " ["
              + batch
              + ", "
              + head
              + ", "
              + seq
              + ", "
              + dim
              + "]");
    }
  }

  /** A dense row-major {@code [*, heads, len, width]} tensor. */
  public static SdpaStrides contiguous(int heads, int len, int width) {
    return new SdpaStrides(0, heads * len * width, len * width, width, 1);
  }

  /**
   * The first {@code len} rows of a dense cache {@code [*, heads, capacity, width]}: the view that
   * a KV cache hands to attention, read in place.
   */
  public static SdpaStrides cacheView(int heads, int capacity, int width) {
    return new SdpaStrides(0, heads * capacity * width, capacity * width, width, 1);
  }

  /** Index of element {@code (b, h, l, d)}. */
  public long index(int b, int h, int l, int d) {
    return offset + (long) b * batch + (long) h * head + (long) l * seq + (long) d * dim;
  }

  /** True when offset and the batch, head and sequence strides are multiples of {@code n}. */
  public boolean alignedTo(int n) {
    return offset % n == 0 && batch % n == 0 && head % n == 0 && seq % n == 0;
  }

  /** The largest index addressed by a {@code [b, h, l, d]} block, or -1 when it is empty. */
  public long maxIndex(int b, int h, int l, int d) {
    if (b == 0 || h == 0 || l == 0 || d == 0) {
      return -1;
    }
    return index(b - 1, h - 1, l - 1, d - 1);
  }

  @Override
  public String toString() {
    return "+" + offset + " [" + batch + ", " + head + ", " + seq + ", " + dim + "]";
  }
}
