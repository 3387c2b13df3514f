package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import sirocco.runtime.Device;
import sirocco.runtime.ElementType;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * Device memory from the device's default pool, allocated and freed in stream order. A buffer
 * dropped without {@link #close()} is freed by a cleaner, unless the JVM is exiting: then nothing
 * calls the driver and the memory goes back with the process.
 */
public final class CudaBuffer implements CudaMemory {
  private final CudaDevice device;
  private final ElementType type;
  private final long length;
  private final long pointer;
  private final Release release;
  private final Cleaner.Cleanable cleanable;

  /** The release action shared by close() and the cleaner; runs at most once. */
  private static final class Release implements Runnable {
    final CudaDevice device;
    final long pointer;
    final long bytes;
    final MemorySegment stream;
    final AtomicBoolean done = new AtomicBoolean();

    Release(CudaDevice device, long pointer, long bytes, MemorySegment stream) {
      this.device = device;
      this.pointer = pointer;
      this.bytes = bytes;
      this.stream = stream;
    }

    @Override
    public void run() {
      if (!done.compareAndSet(false, true) || Lifecycle.exiting()) {
        return;
      }
      try {
        device.free(pointer, bytes, stream);
      } catch (RuntimeException | Error ignored) {
        // Teardown never throws; the pool reclaims the memory at context destruction.
      }
    }
  }

  CudaBuffer(CudaDevice device, ElementType type, long length, long pointer, MemorySegment stream) {
    this.device = device;
    this.type = type;
    this.length = length;
    this.pointer = pointer;
    this.release = new Release(device, pointer, length * type.bytes(), stream);
    this.cleanable = CudaDevice.CLEANER.register(this, release);
  }

  /** The device address of element 0. */
  public long pointer() {
    if (release.done.get()) {
      throw new IllegalStateException("buffer is closed");
    }
    return pointer;
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public ElementType type() {
    return type;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public boolean isClosed() {
    return release.done.get();
  }

  @Override
  public void close() {
    cleanable.clean();
  }
}
