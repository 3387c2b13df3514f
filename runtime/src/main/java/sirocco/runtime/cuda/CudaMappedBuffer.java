package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import sirocco.runtime.Device;
import sirocco.runtime.ElementType;
import sirocco.runtime.MappedBuffer;

/**
 * Pinned host memory mapped into the device's address space ({@code cuMemHostAlloc} with {@code
 * DEVICEMAP}): kernels read and write it through {@link #pointer()}, the host through volatile
 * accessors, both while a kernel runs. Released by {@link #close()} or, when unreachable, by a
 * cleaner, to the device's {@link CudaMappedBlocks} (reused once every stream has passed the work
 * queued before the release; freed by {@code clearCache}). Close it only after the work that uses
 * it has finished (or hand it to {@link Device#releaseAfter}).
 */
public final class CudaMappedBuffer implements CudaMemory, MappedBuffer {
  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

  private final CudaDevice device;
  private final ElementType type;
  private final long length;
  private final MemorySegment host;
  private final long pointer;
  private final Free free;
  private final java.lang.ref.Cleaner.Cleanable cleanable;

  private static final class Free implements Runnable {
    final CudaMappedBlocks pool;
    final CudaMappedBlocks.Block block;
    final AtomicBoolean done = new AtomicBoolean();

    Free(CudaMappedBlocks pool, CudaMappedBlocks.Block block) {
      this.pool = pool;
      this.block = block;
    }

    @Override
    public void run() {
      if (done.compareAndSet(false, true)) {
        // Back to the device's pool, not cuMemFreeHost: that would synchronize the whole device.
        pool.give(block);
      }
    }
  }

  CudaMappedBuffer(CudaDevice device, ElementType type, long length) {
    this.device = device;
    this.type = type;
    this.length = length;
    CudaMappedBlocks.Block block = device.mappedBlocks().take(length * type.bytes());
    this.host = block.host();
    this.pointer = block.pointer();
    this.free = new Free(device.mappedBlocks(), block);
    this.cleanable = CudaDevice.CLEANER.register(this, free);
  }

  @Override
  public long pointer() {
    if (free.done.get()) {
      throw new IllegalStateException("buffer is closed");
    }
    return pointer;
  }

  private long offset(long index) {
    if (free.done.get()) {
      throw new IllegalStateException("buffer is closed");
    }
    if (index < 0 || index >= length) {
      throw new IndexOutOfBoundsException("index " + index + " outside [0, " + length + ")");
    }
    return index * 4;
  }

  @Override
  public int getIntVolatile(long index) {
    return (int) INT.getVolatile(host, offset(index));
  }

  @Override
  public void setIntVolatile(long index, int value) {
    INT.setVolatile(host, offset(index), value);
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
    return free.done.get();
  }

  @Override
  public void close() {
    cleanable.clean();
  }
}
