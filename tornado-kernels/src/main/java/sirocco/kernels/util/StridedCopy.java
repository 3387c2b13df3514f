package sirocco.kernels.util;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.runtime.Dim3;

/**
 * Gathers a strided view of up to four axes into a dense row-major array: {@code dst[dstOff + idx]
 * = src[srcOff + i0*s0 + i1*s1 + i2*s2 + i3*s3]} where {@code (i0, i1, i2, i3)} is the row-major
 * position of {@code idx} in {@code [n0, n1, n2, n3]}. One thread per element. A view of fewer axes
 * is passed with leading sizes of 1 ({@link #args} does this); any stride may be 0 (a broadcast
 * axis is materialised).
 *
 * <p>The same copy exists for each element width a kernel array can hold: {@link #copy8} ({@code
 * byte[]}: U8), {@link #copy16} ({@code short[]}: bf16/f16 bits), {@link #copy32} ({@code int[]}:
 * U32/I32) and {@link #copyF32} ({@code float[]}). A copy moves bits, so one of the right width
 * serves every dtype of that width. Indices are 32-bit: the caller keeps every source and
 * destination index below 2³¹ ({@link #maxSourceIndex} computes the largest).
 */
public final class StridedCopy {
  private StridedCopy() {}

  /** Threads per block. */
  public static final int THREADS = 256;

  /** Axes a copy can describe. */
  public static final int MAX_RANK = 4;

  /**
   * Source index of the element at dense position {@code idx} of {@code [*, n1, n2, n3]}; inlined
   * into every copy kernel.
   */
  static int sourceIndex(
      int idx, int srcOff, int n1, int n2, int n3, int s0, int s1, int s2, int s3) {
    int i3 = idx % n3;
    int r = idx / n3;
    int i2 = r % n2;
    r = r / n2;
    int i1 = r % n1;
    int i0 = r / n1;
    return srcOff + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3;
  }

  /**
   * One-byte elements (U8).
   *
   * @param src the source buffer; element {@code (i0, i1, i2, i3)} at {@code srcOff + i0*s0 + i1*s1
   *     + i2*s2 + i3*s3}
   * @param dst the destination; dense element {@code idx} at {@code dstOff + idx}
   * @param n elements to copy, {@code n0*n1*n2*n3}
   * @param n1 size of axis 1 (axis 0's size is implied by {@code n})
   */
  @Kernel
  public static void copy8(
      KernelContext ctx,
      byte[] src,
      byte[] dst,
      int n,
      int srcOff,
      int dstOff,
      int n1,
      int n2,
      int n3,
      int s0,
      int s1,
      int s2,
      int s3) {
    int idx = ctx.globalIdx;
    if (idx < n) {
      dst[dstOff + idx] = src[sourceIndex(idx, srcOff, n1, n2, n3, s0, s1, s2, s3)];
    }
  }

  /** {@link #copy8} for two-byte elements (bf16/f16 bits). */
  @Kernel
  public static void copy16(
      KernelContext ctx,
      short[] src,
      short[] dst,
      int n,
      int srcOff,
      int dstOff,
      int n1,
      int n2,
      int n3,
      int s0,
      int s1,
      int s2,
      int s3) {
    int idx = ctx.globalIdx;
    if (idx < n) {
      dst[dstOff + idx] = src[sourceIndex(idx, srcOff, n1, n2, n3, s0, s1, s2, s3)];
    }
  }

  /** {@link #copy8} for four-byte integer elements (U32/I32). */
  @Kernel
  public static void copy32(
      KernelContext ctx,
      int[] src,
      int[] dst,
      int n,
      int srcOff,
      int dstOff,
      int n1,
      int n2,
      int n3,
      int s0,
      int s1,
      int s2,
      int s3) {
    int idx = ctx.globalIdx;
    if (idx < n) {
      dst[dstOff + idx] = src[sourceIndex(idx, srcOff, n1, n2, n3, s0, s1, s2, s3)];
    }
  }

  /**
   * {@link #copy8} for float32 elements. The value moves through a float register, which on the GPU
   * keeps every bit pattern (NaN payloads included); on the Java backend a signalling NaN's payload
   * may be quietened, as Java's float semantics allow.
   */
  @Kernel
  public static void copyF32(
      KernelContext ctx,
      float[] src,
      float[] dst,
      int n,
      int srcOff,
      int dstOff,
      int n1,
      int n2,
      int n3,
      int s0,
      int s1,
      int s2,
      int s3) {
    int idx = ctx.globalIdx;
    if (idx < n) {
      dst[dstOff + idx] = src[sourceIndex(idx, srcOff, n1, n2, n3, s0, s1, s2, s3)];
    }
  }

  // ---- host side ----

  /** The kernel name for an array class: {@code copy8}, {@code copy16}, {@code copy32}, … */
  public static String kernelName(Class<?> arrayType) {
    if (arrayType == byte[].class) {
      return "copy8";
    }
    if (arrayType == short[].class) {
      return "copy16";
    }
    if (arrayType == int[].class) {
      return "copy32";
    }
    if (arrayType == float[].class) {
      return "copyF32";
    }
    throw new IllegalArgumentException(
        "no strided copy for "
            + (arrayType == null ? "null" : arrayType.getSimpleName())
            + "; byte[], short[], int[] and float[] are supported");
  }

  /** Grid of a copy of {@code n} elements (at least one block). */
  public static Dim3 grid(long n) {
    checkCount(n);
    return Dim3.of((int) Math.max(1, (n + THREADS - 1) / THREADS));
  }

  /** Block of every copy. */
  public static Dim3 block() {
    return Dim3.of(THREADS);
  }

  /**
   * The copy's arguments after the context, for a view of {@code shape} (rank 0 to 4) with element
   * {@code strides} starting at {@code srcOffset}, written densely at {@code dstOffset}. Arrays
   * pass through untouched (Java arrays on the Java backend, device buffers on a GPU).
   *
   * @throws IllegalArgumentException when the rank exceeds 4, a size or stride is negative, or an
   *     index would not fit in 32 bits
   */
  public static Object[] args(
      Object src, Object dst, long[] shape, long[] strides, long srcOffset, long dstOffset) {
    long[][] s = normalise(shape, strides);
    long n = count(s[0]);
    checkCount(n);
    long maxSrc = maxSourceIndex(shape, strides, srcOffset);
    if (maxSrc > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "the view reaches source element " + maxSrc + "; a copy indexes with 32-bit ints");
    }
    if (dstOffset < 0 || dstOffset + n - 1 > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "dstOffset " + dstOffset + " + " + n + " elements does not fit 32-bit indices");
    }
    if (srcOffset < 0) {
      throw new IllegalArgumentException("srcOffset must be >= 0, got " + srcOffset);
    }
    long[] sz = s[0];
    long[] st = s[1];
    return new Object[] {
      src,
      dst,
      (int) n,
      (int) srcOffset,
      (int) dstOffset,
      (int) Math.max(1, sz[1]),
      (int) Math.max(1, sz[2]),
      (int) Math.max(1, sz[3]),
      (int) st[0],
      (int) st[1],
      (int) st[2],
      (int) st[3]
    };
  }

  /**
   * The largest source index a view addresses ({@code srcOffset} when it is empty or rank 0); the
   * caller checks it against the buffer and 2³¹ − 1.
   */
  public static long maxSourceIndex(long[] shape, long[] strides, long srcOffset) {
    long[][] s = normalise(shape, strides);
    long at = srcOffset;
    for (int a = 0; a < MAX_RANK; a++) {
      if (s[0][a] == 0) {
        return srcOffset;
      }
      at = Math.addExact(at, Math.multiplyExact(s[0][a] - 1, s[1][a]));
    }
    return at;
  }

  /** Shape and strides padded to four axes with leading (size 1, stride 0) axes. */
  private static long[][] normalise(long[] shape, long[] strides) {
    if (shape == null || strides == null || shape.length != strides.length) {
      throw new IllegalArgumentException("shape and strides must be non-null and of equal rank");
    }
    if (shape.length > MAX_RANK) {
      throw new IllegalArgumentException(
          "a strided copy takes at most " + MAX_RANK + " axes, got " + shape.length);
    }
    long[] sz = {1, 1, 1, 1};
    long[] st = {0, 0, 0, 0};
    int pad = MAX_RANK - shape.length;
    for (int a = 0; a < shape.length; a++) {
      if (shape[a] < 0 || strides[a] < 0) {
        throw new IllegalArgumentException(
            "sizes and strides must be >= 0, got size "
                + shape[a]
                + " and stride "
                + strides[a]
                + " on axis "
                + a);
      }
      if (strides[a] > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "stride " + strides[a] + " on axis " + a + " does not fit 32 bits");
      }
      sz[pad + a] = shape[a];
      st[pad + a] = shape[a] == 1 ? 0 : strides[a];
    }
    return new long[][] {sz, st};
  }

  private static long count(long[] sizes) {
    long n = 1;
    for (long x : sizes) {
      n = Math.multiplyExact(n, x);
    }
    return n;
  }

  private static void checkCount(long n) {
    if (n < 0 || n > Integer.MAX_VALUE - THREADS) {
      throw new IllegalArgumentException(
          "a copy moves at most " + (Integer.MAX_VALUE - THREADS) + " elements, got " + n);
    }
  }

  // ---- exact scalar reference ----

  /**
   * The copy on Java arrays, element by element in row-major order of the view, with {@link
   * System#arraycopy} (bits preserved exactly, no floating-point arithmetic): what every copy
   * kernel must produce.
   */
  public static void reference(
      Object src, Object dst, long[] shape, long[] strides, long srcOffset, long dstOffset) {
    long[][] s = normalise(shape, strides);
    long[] sz = s[0];
    long[] st = s[1];
    long at = dstOffset;
    for (long i0 = 0; i0 < sz[0]; i0++) {
      for (long i1 = 0; i1 < sz[1]; i1++) {
        for (long i2 = 0; i2 < sz[2]; i2++) {
          for (long i3 = 0; i3 < sz[3]; i3++) {
            long from = srcOffset + i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3];
            System.arraycopy(src, (int) from, dst, (int) at++, 1);
          }
        }
      }
    }
  }
}
