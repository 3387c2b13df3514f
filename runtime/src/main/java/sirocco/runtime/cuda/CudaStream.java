package sirocco.runtime.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import sirocco.runtime.Device;
import sirocco.runtime.Event;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.WaitCancelledException;
import sirocco.runtime.sync.WaitOptions;

/**
 * A non-blocking CUDA stream. Streams Sirocco creates for itself live as long as the process and
 * are never destroyed (destroying them at exit is what aborted MLX programs). Each stream keeps a
 * parameter block for launches so a launch allocates nothing.
 */
public final class CudaStream implements Stream {
  /** Bytes of argument storage per launch: 8-byte slots plus the pointer array. */
  static final int MAX_ARGS = 64;

  final CudaDevice device;
  final MemorySegment handle;
  // Launch scratch: MAX_ARGS value slots of 8 bytes, then MAX_ARGS pointers to them. Guarded by
  // this.
  final MemorySegment argValues;
  final MemorySegment argPointers;
  // The CUlaunchConfig and its attribute for early-start launches. Guarded by this.
  final MemorySegment launchConfig;
  // Set by CudaGraph.capture around the captured work.
  volatile boolean capturing;

  CudaStream(CudaDevice device, MemorySegment handle) {
    this.device = device;
    this.handle = handle;
    Arena arena = Arena.ofAuto();
    this.argValues = arena.allocate(8L * MAX_ARGS, 16);
    this.argPointers = arena.allocate(ValueLayout.ADDRESS, MAX_ARGS);
    this.launchConfig = arena.allocate(CuLaunchEx.CONFIG_BYTES, 8);
    for (int i = 0; i < MAX_ARGS; i++) {
      argPointers.setAtIndex(ValueLayout.ADDRESS, i, argValues.asSlice(8L * i, 8));
    }
  }

  @Override
  public boolean capturing() {
    return capturing;
  }

  public MemorySegment handle() {
    return handle;
  }

  @Override
  public Device device() {
    return device;
  }

  /**
   * Records a pooled blocking-sync event and waits on it (cooperatively from a virtual thread). It
   * does not involve the completion worker, so its cost is the event wait's.
   */
  @Override
  public void synchronize(WaitOptions options) {
    device.makeCurrent();
    CudaEvent marker = device.markerEvent();
    boolean reuse = true;
    try {
      Cu.eventRecord(marker.handle, handle);
      marker.synchronize(options);
    } catch (WaitCancelledException cancelled) {
      // A wait worker may still be waiting on the marker: recycle it only once it completes.
      reuse = false;
      device.recycleWhenComplete(marker);
      throw cancelled;
    } finally {
      if (reuse) {
        device.returnMarker(marker);
      }
    }
  }

  @Override
  public boolean isIdle() {
    device.makeCurrent();
    return Cu.streamQuery(handle);
  }

  @Override
  public Event record() {
    device.makeCurrent();
    CudaEvent e = new CudaEvent(device, Cu.eventCreate(Cu.EVENT_BLOCKING_SYNC), true);
    Cu.eventRecord(e.handle, handle);
    return e;
  }

  /** An event for timing, recorded now. */
  public CudaEvent recordTimed() {
    return (CudaEvent) record();
  }

  @Override
  public void waitFor(Event event) {
    if (!(event instanceof CudaEvent e)) {
      throw new IllegalArgumentException("event must be a CUDA event");
    }
    device.makeCurrent();
    Cu.streamWaitEvent(handle, e.handle);
  }

  @Override
  public String toString() {
    return "cuda stream " + handle.address();
  }
}
