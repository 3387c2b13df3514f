package sirocco.dispatch.cudnn;

import java.util.concurrent.locks.ReentrantLock;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.cuda.CudaBuffer;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.CudaStream;

/** Per-device cuDNN state: one handle (bound to the device's primary context) and its lock. */
final class CudnnDeviceState {
  final CudaDevice device;
  final long handle;

  /** Why no handle could be made (then {@link #handle} is 0), else null. Not retried. */
  final String failure;

  final ReentrantLock lock = new ReentrantLock();

  /** Streams that keep a workspace; the least recently used one gives its workspace up. */
  static final int MAX_WORKSPACE_STREAMS = 8;

  /** Workspace sizes are rounded up to this, so nearby shapes share one. */
  static final long WORKSPACE_GRANULE = 1L << 20;

  // One workspace per stream, reused by every call queued there: each use is ordered on that
  // stream after the previous one, so no call can overwrite a workspace another still reads.
  // Streams live as long as the process, so a workspace can always be freed on its own stream.
  // Allocating and freeing one per call cost microseconds of host time on the cache-hit path.
  // Guarded by lock.
  private final java.util.LinkedHashMap<CudaStream, DeviceBuffer> workspaces =
      new java.util.LinkedHashMap<>(16, 0.75f, true);

  // The stream the handle was last bound to; cudnnSetStream is skipped when it is unchanged.
  // Guarded by lock.
  private CudaStream boundStream;

  CudnnDeviceState(CudaDevice device) {
    this.device = device;
    device.makeCurrent();
    long h = 0;
    String why = null;
    try {
      // Process-lifetime handle: deliberately never destroyed (teardown at exit is what breaks).
      h = Cudnn.createHandle();
    } catch (CudnnException e) {
      why = "cudnnCreate failed on " + device.info().name() + ": " + e.getMessage();
    }
    this.handle = h;
    this.failure = why;
    if (h != 0) {
      device.addCacheOwner(this::dropWorkspaces);
    }
  }

  /**
   * A workspace of at least {@code bytes} for work queued on {@code stream}, kept for the next call
   * there. Caller holds {@link #lock}.
   */
  long workspace(CudaStream stream, long bytes) {
    DeviceBuffer ws = workspaces.get(stream);
    if (ws != null && ws.length() >= bytes) {
      return ((CudaBuffer) ws).pointer();
    }
    if (ws != null) {
      workspaces.remove(stream);
      ws.close(); // stream-ordered: freed after the calls already queued there
    }
    long rounded = (bytes + WORKSPACE_GRANULE - 1) / WORKSPACE_GRANULE * WORKSPACE_GRANULE;
    DeviceBuffer fresh = device.allocate(ElementType.I8, rounded, stream);
    if (workspaces.size() >= MAX_WORKSPACE_STREAMS) {
      var eldest = workspaces.entrySet().iterator();
      DeviceBuffer old = eldest.next().getValue();
      eldest.remove();
      old.close();
    }
    workspaces.put(stream, fresh);
    return ((CudaBuffer) fresh).pointer();
  }

  /** Bytes kept as workspaces, and on how many streams (for tests and explain output). */
  long[] workspaceStats() {
    lock.lock();
    try {
      long bytes = 0;
      for (DeviceBuffer b : workspaces.values()) {
        bytes += b.length();
      }
      return new long[] {bytes, workspaces.size()};
    } finally {
      lock.unlock();
    }
  }

  /** Frees every kept workspace (stream-ordered); from the device's clearCache. */
  void dropWorkspaces() {
    lock.lock();
    try {
      for (DeviceBuffer b : workspaces.values()) {
        b.close();
      }
      workspaces.clear();
    } finally {
      lock.unlock();
    }
  }

  /** Binds the handle to {@code stream} unless it already is. Caller holds {@link #lock}. */
  void bind(CudaStream stream) {
    if (boundStream != stream) {
      Cudnn.setStream(handle, stream.handle());
      boundStream = stream;
    }
  }
}
