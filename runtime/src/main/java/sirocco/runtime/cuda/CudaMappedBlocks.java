package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import sirocco.runtime.Event;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * The mapped pinned blocks behind {@link CudaMappedBuffer}s, kept for reuse instead of freed.
 *
 * <p>Why: {@code cuMemFreeHost} synchronizes the whole device, so a buffer closed (or cleaned after
 * it became unreachable) while any kernel runs — a kernel spinning on another mapped flag, say —
 * stalled the closing thread, the cleaner thread with it, for as long as that kernel ran. A
 * released block is kept with an event recorded on every stream of the device, and is reused for a
 * buffer of the same size once all of them have passed (work queued before the release may still
 * use it); {@link #trim()} frees idle blocks when {@code clearCache} has synchronized the device.
 */
final class CudaMappedBlocks {
  /** One pinned, mapped allocation. */
  record Block(MemorySegment host, long pointer) {}

  private record Released(Block block, List<Event> passed) {}

  private final CudaDevice device;
  private final List<Released> idle = new ArrayList<>();

  CudaMappedBlocks(CudaDevice device) {
    this.device = device;
  }

  /** A zeroed block of {@code bytes}: an idle one whose users have finished, else a new one. */
  Block take(long bytes) {
    synchronized (idle) {
      for (Iterator<Released> it = idle.iterator(); it.hasNext(); ) {
        Released r = it.next();
        if (r.block.host().byteSize() == bytes && passed(r)) {
          it.remove();
          r.block.host().fill((byte) 0);
          return r.block;
        }
      }
    }
    device.makeCurrent();
    MemorySegment host =
        Cu.memHostAlloc(bytes, Cu.MEMHOSTALLOC_DEVICEMAP | Cu.MEMHOSTALLOC_PORTABLE);
    try {
      host.fill((byte) 0);
      return new Block(host, Cu.memHostGetDevicePointer(host));
    } catch (RuntimeException | Error e) {
      Cu.memFreeHost(host);
      throw e;
    }
  }

  private static boolean passed(Released r) {
    for (Event e : r.passed) {
      if (!e.isComplete()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Keeps {@code b} for reuse once every stream has passed the work queued so far. Never throws
   * (called from cleaners); does nothing once the JVM is exiting.
   */
  void give(Block b) {
    if (Lifecycle.exiting()) {
      return;
    }
    try {
      List<Event> passed = new ArrayList<>();
      for (CudaStream s : device.streams()) {
        passed.add(s.record());
      }
      synchronized (idle) {
        idle.add(new Released(b, passed));
      }
    } catch (RuntimeException | Error ignored) {
      // Teardown never throws: without the events the block cannot be reused safely; it leaks.
    }
  }

  /** Idle blocks held, for tests and diagnostics. */
  int idleBlocks() {
    synchronized (idle) {
      return idle.size();
    }
  }

  /** Frees every idle block whose users have finished; call after synchronizing the device. */
  void trim() {
    if (Lifecycle.exiting()) {
      return;
    }
    List<Block> drop = new ArrayList<>();
    synchronized (idle) {
      for (Iterator<Released> it = idle.iterator(); it.hasNext(); ) {
        Released r = it.next();
        if (passed(r)) {
          it.remove();
          drop.add(r.block);
        }
      }
    }
    device.makeCurrent();
    for (Block b : drop) {
      Cu.memFreeHost(b.host());
    }
  }
}
