package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import sirocco.runtime.Event;
import sirocco.runtime.lifecycle.Lifecycle;
import sirocco.runtime.sync.CooperativeWait;
import sirocco.runtime.sync.WaitOptions;

/**
 * A CUDA event created with blocking sync, so waiting on it sleeps instead of spinning a core.
 * Timed events (the default for {@link CudaStream#record()}) also give elapsed times. Destroyed
 * when unreachable, unless the JVM is exiting.
 */
public final class CudaEvent implements Event {
  final CudaDevice device;
  final MemorySegment handle;

  CudaEvent(CudaDevice device, MemorySegment handle, boolean cleaned) {
    this.device = device;
    this.handle = handle;
    if (cleaned) {
      long address = handle.address();
      CudaDevice.CLEANER.register(this, () -> destroyQuietly(device, address));
    }
  }

  private static void destroyQuietly(CudaDevice device, long address) {
    if (Lifecycle.exiting()) {
      return;
    }
    try {
      device.makeCurrent();
      Cu.eventDestroy(MemorySegment.ofAddress(address));
    } catch (RuntimeException | Error ignored) {
      // Teardown never throws: a failed destroy leaks one event handle.
    }
  }

  @Override
  public boolean isComplete() {
    device.makeCurrent();
    return Cu.eventQuery(handle);
  }

  @Override
  public void synchronize(WaitOptions options) {
    CooperativeWait.await(
        () -> {
          // A virtual thread may poll from another carrier than the one that made the context
          // current.
          if (Thread.currentThread().isVirtual()) {
            device.makeCurrent();
          }
          return Cu.eventQuery(handle);
        },
        () -> {
          device.makeCurrent();
          Cu.eventSynchronize(handle);
        },
        options,
        this,
        sirocco.runtime.sync.WaitPool.shared());
  }

  @Override
  public float elapsedMillisSince(Event earlier) {
    if (!(earlier instanceof CudaEvent e)) {
      throw new IllegalArgumentException("earlier must be a CUDA event");
    }
    device.makeCurrent();
    return Cu.eventElapsedMillis(e.handle, handle);
  }
}
