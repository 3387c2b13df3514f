package sirocco.runtime;

/**
 * Memory on a device holding {@link #length()} elements of one {@link ElementType}. Closing it
 * returns the memory (stream-ordered on CUDA: work already queued that uses it finishes first). A
 * buffer that is never closed is freed when it becomes unreachable, unless the JVM is exiting, when
 * it is left to the OS.
 */
public interface DeviceBuffer extends AutoCloseable {
  Device device();

  ElementType type();

  long length();

  default long bytes() {
    return length() * type().bytes();
  }

  /** True once closed; using a closed buffer is an {@link IllegalStateException}. */
  boolean isClosed();

  @Override
  void close();
}
