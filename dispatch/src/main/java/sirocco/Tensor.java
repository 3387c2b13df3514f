package sirocco;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import sirocco.runtime.DeviceBuffer;

/**
 * An n-dimensional array on a {@link Sirocco} device: a dtype, a shape, element strides and an
 * element offset into a buffer that views (from {@link #reshape}, {@link #slice}, {@link
 * #transpose}) share. The buffer is freed when the last tensor using it is closed (or, failing
 * that, when it becomes unreachable).
 */
public final class Tensor implements AutoCloseable {
  /** A buffer shared by a tensor and its views. */
  static final class Storage {
    final DeviceBuffer buffer;
    final AtomicInteger refs = new AtomicInteger(1);

    Storage(DeviceBuffer buffer) {
      this.buffer = buffer;
    }

    void retain() {
      refs.incrementAndGet();
    }

    void release() {
      if (refs.decrementAndGet() == 0) {
        buffer.close();
      }
    }
  }

  private final Sirocco owner;
  private final Storage storage;
  private final DType dtype;
  private final long[] shape;
  private final long[] strides;
  private final long offset;
  private volatile boolean closed;

  Tensor(Sirocco owner, Storage storage, DType dtype, long[] shape, long[] strides, long offset) {
    this.owner = owner;
    this.storage = storage;
    this.dtype = dtype;
    this.shape = shape;
    this.strides = strides;
    this.offset = offset;
  }

  static long[] contiguousStrides(long[] shape) {
    long[] s = new long[shape.length];
    long acc = 1;
    for (int i = shape.length - 1; i >= 0; i--) {
      s[i] = acc;
      acc *= Math.max(1, shape[i]);
    }
    return s;
  }

  static long size(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  static void checkShape(long[] shape, String name) {
    if (shape == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] < 0) {
        throw new IllegalArgumentException(
            name + " must have non-negative dimensions, got " + Arrays.toString(shape));
      }
    }
  }

  public DType dtype() {
    return dtype;
  }

  public long[] shape() {
    return shape.clone();
  }

  /** The size of one axis; negative axes count from the end. */
  public long shape(int axis) {
    return shape[axis(axis)];
  }

  /** Element strides of each axis. */
  public long[] strides() {
    return strides.clone();
  }

  /** Element offset of this view into its buffer. */
  public long offset() {
    return offset;
  }

  public int rank() {
    return shape.length;
  }

  /** Number of elements. */
  public long size() {
    return size(shape);
  }

  /** The Sirocco instance (and so the device) this tensor lives on. */
  public Sirocco owner() {
    return owner;
  }

  /** True when the elements are laid out densely in row-major order (offset may be nonzero). */
  public boolean isContiguous() {
    long expected = 1;
    for (int i = shape.length - 1; i >= 0; i--) {
      if (shape[i] != 1 && strides[i] != expected) {
        return false;
      }
      expected *= shape[i];
    }
    return true;
  }

  private int axis(int axis) {
    int a = axis < 0 ? axis + shape.length : axis;
    if (a < 0 || a >= shape.length) {
      throw new IllegalArgumentException(
          "axis must be in [" + -shape.length + ", " + shape.length + "), got " + axis);
    }
    return a;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("tensor is closed");
    }
  }

  /**
   * The same elements with another shape (one dimension may be -1 and is inferred). Only for
   * contiguous tensors; the result is a view sharing this tensor's buffer.
   */
  public Tensor reshape(long... newShape) {
    checkOpen();
    if (newShape == null) {
      throw new IllegalArgumentException("newShape must not be null");
    }
    long[] s = newShape.clone();
    int infer = -1;
    long known = 1;
    for (int i = 0; i < s.length; i++) {
      if (s[i] == -1) {
        if (infer >= 0) {
          throw new IllegalArgumentException(
              "newShape may contain -1 only once: " + Arrays.toString(newShape));
        }
        infer = i;
      } else if (s[i] < 0) {
        throw new IllegalArgumentException(
            "newShape has a negative dimension: " + Arrays.toString(newShape));
      } else {
        known *= s[i];
      }
    }
    if (infer >= 0) {
      if (known == 0 || size() % known != 0) {
        throw new IllegalArgumentException(
            "cannot infer -1 in " + Arrays.toString(newShape) + " for " + size() + " elements");
      }
      s[infer] = size() / known;
    }
    if (size(s) != size()) {
      throw new IllegalArgumentException(
          "newShape "
              + Arrays.toString(newShape)
              + " has "
              + size(s)
              + " elements, the tensor has "
              + size());
    }
    if (!isContiguous()) {
      throw new IllegalArgumentException(
          "reshape needs a contiguous tensor; this view has strides " + Arrays.toString(strides));
    }
    storage.retain();
    return new Tensor(owner, storage, dtype, s, contiguousStrides(s), offset);
  }

  /** A view of elements {@code [start, end)} along {@code axis}, sharing the buffer (no copy). */
  public Tensor slice(int axis, long start, long end) {
    checkOpen();
    int a = axis(axis);
    if (start < 0 || end < start || end > shape[a]) {
      throw new IllegalArgumentException(
          "slice ["
              + start
              + ", "
              + end
              + ") must lie within [0, "
              + shape[a]
              + "] on axis "
              + axis);
    }
    long[] s = shape.clone();
    s[a] = end - start;
    storage.retain();
    return new Tensor(owner, storage, dtype, s, strides.clone(), offset + start * strides[a]);
  }

  /** A view with two axes swapped (no copy). */
  public Tensor transpose(int axis0, int axis1) {
    checkOpen();
    int a = axis(axis0);
    int b = axis(axis1);
    long[] s = shape.clone();
    long[] st = strides.clone();
    s[a] = shape[b];
    s[b] = shape[a];
    st[a] = strides[b];
    st[b] = strides[a];
    storage.retain();
    return new Tensor(owner, storage, dtype, s, st, offset);
  }

  DeviceBuffer buffer() {
    checkOpen();
    return storage.buffer;
  }

  Storage storage() {
    return storage;
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Releases this tensor's hold on its buffer; the buffer is freed once no view uses it.
   * Idempotent.
   */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      storage.release();
    }
  }

  @Override
  public String toString() {
    return "Tensor["
        + dtype
        + " "
        + Arrays.toString(shape)
        + (isContiguous() ? "" : " strided")
        + " on "
        + owner.backend()
        + "]";
  }
}
