package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import sirocco.runtime.lifecycle.Lifecycle;
import sirocco.runtime.sync.WaitOptions;

/**
 * Sirocco's own pinned staging blocks for copies between Java arrays and device memory, so the
 * driver never sees pageable memory.
 *
 * <p>Why: a pageable {@code cuMemcpyHtoDAsync} stages through the driver's internal buffers, and on
 * the H200 a 16 KiB upload on an idle stream was seen blocked for 20 s behind another stream's
 * spinning kernel (runs 9 and 10 in bench/RESULTS.md); heap segments also go through a critical FFM
 * call, which keeps the garbage collector out for as long as the driver holds the thread. Here the
 * array is copied into a pinned block in Java, the block is copied asynchronously on the caller's
 * stream, and an event marks when the block may be reused.
 *
 * <p>Rules that keep a copy from waiting on unrelated work:
 *
 * <ul>
 *   <li>Blocks come in power-of-two sizes from {@link #MIN_BLOCK} to {@link #CHUNK}; a larger copy
 *       streams through {@code CHUNK}-sized blocks.
 *   <li>A copy takes an idle block of its size whose last copy has completed; otherwise a new block
 *       while its size has fewer than {@link #PER_SIZE}; otherwise it waits (cooperatively) for the
 *       oldest block last used on <em>its own</em> stream, which its copy is ordered after anyway;
 *       if every block of that size is pending on other streams it takes a new block beyond the
 *       limit. So a copy waits only for its own stream.
 *   <li>Blocks are freed only by {@link #trim()} (from {@code clearCache}, after the device has
 *       been synchronized): {@code cuMemFreeHost} synchronizes the whole device, so freeing while
 *       work runs would stall for as long as any kernel runs. Never freed once the JVM is exiting.
 * </ul>
 */
final class CudaStaging {
  /** Largest block; larger copies stream through blocks of this size. */
  static final long CHUNK = 4L << 20;

  /** Smallest block. */
  static final long MIN_BLOCK = 64L << 10;

  /** Blocks per size before a copy waits for its own stream (or overflows). */
  static final int PER_SIZE = 8;

  private static final int SIZES = Long.numberOfTrailingZeros(CHUNK / MIN_BLOCK) + 1;

  private static final class Block {
    final MemorySegment host;
    final MemorySegment event;
    final CudaEvent waitable;
    MemorySegment stream; // where the last copy ran; null when no copy is pending
    boolean pending;

    Block(CudaDevice device, long bytes) {
      this.host = Cu.memHostAlloc(bytes, 0);
      MemorySegment e;
      try {
        e = Cu.eventCreate(Cu.EVENT_BLOCKING_SYNC | Cu.EVENT_DISABLE_TIMING);
      } catch (RuntimeException failed) {
        Cu.memFreeHost(host);
        throw failed;
      }
      this.event = e;
      this.waitable = new CudaEvent(device, e, false);
    }
  }

  private final CudaDevice device;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Block> idle = new ArrayList<>(); // oldest release first
  private final int[] count = new int[SIZES];
  private long pinnedBytes;

  CudaStaging(CudaDevice device) {
    this.device = device;
  }

  static long blockBytes(long bytes) {
    if (bytes >= CHUNK) {
      return CHUNK;
    }
    long b = Long.highestOneBit(Math.max(bytes, 1));
    b = b < bytes ? b << 1 : b;
    return Math.max(MIN_BLOCK, b);
  }

  private static int sizeIndex(long blockBytes) {
    return Long.numberOfTrailingZeros(blockBytes / MIN_BLOCK);
  }

  /** Pinned bytes held in staging blocks (idle or in use). */
  long pinnedBytes() {
    lock.lock();
    try {
      return pinnedBytes;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Copies {@code bytes} of {@code src} (any segment) to device address {@code dst}, ordered on
   * {@code stream}. {@code src} may be reused when this returns.
   */
  void upload(MemorySegment src, long dst, long bytes, CudaStream stream) {
    for (long off = 0; off < bytes; off += CHUNK) {
      long n = Math.min(CHUNK, bytes - off);
      Block b = acquire(blockBytes(n), stream);
      boolean queued = false;
      try {
        MemorySegment.copy(src, off, b.host, 0, n);
        device.makeCurrent();
        Cu.memcpyHtoDAsync(dst + off, b.host, n, stream.handle);
        queued = true;
        Cu.eventRecord(b.event, stream.handle);
        b.pending = true;
        b.stream = stream.handle;
      } catch (RuntimeException | Error e) {
        if (queued) {
          // The copy may still read the block and no event marks its end: leave it out of reuse
          // (still counted, never freed).
          b = null;
        }
        throw e;
      } finally {
        if (b != null) {
          release(b);
        }
      }
    }
  }

  /**
   * Copies {@code bytes} from device address {@code src} into {@code dst} (any segment) once the
   * work queued on {@code stream} before it has completed; waits cooperatively.
   */
  void download(long src, MemorySegment dst, long bytes, CudaStream stream, WaitOptions options) {
    // Two blocks in flight: the next chunk's copy runs while this one is copied out on the host.
    Block current = null;
    Block next = null;
    try {
      long off = 0;
      current = issueDownload(src, 0, bytes, stream);
      while (current != null) {
        long n = Math.min(CHUNK, bytes - off);
        next = off + n < bytes ? issueDownload(src, off + n, bytes, stream) : null;
        current.waitable.synchronize(options);
        current.pending = false;
        MemorySegment.copy(current.host, 0, dst, off, n);
        release(current);
        current = next;
        next = null;
        off += n;
      }
    } finally {
      for (Block b : new Block[] {current, next}) {
        if (b != null) {
          // Interrupted or failed while a copy may be pending: the event still marks its end.
          release(b);
        }
      }
    }
  }

  private Block issueDownload(long src, long off, long bytes, CudaStream stream) {
    long n = Math.min(CHUNK, bytes - off);
    Block b = acquire(blockBytes(n), stream);
    // If either call fails, a copy may be queued with no event to mark its end: the block is then
    // left out of reuse (still counted, never freed).
    device.makeCurrent();
    Cu.memcpyDtoHAsync(b.host, src + off, n, stream.handle);
    Cu.eventRecord(b.event, stream.handle);
    b.pending = true;
    b.stream = stream.handle;
    return b;
  }

  private Block acquire(long blockBytes, CudaStream stream) {
    int size = sizeIndex(blockBytes);
    while (true) {
      Block own = null;
      lock.lock();
      try {
        for (Iterator<Block> it = idle.iterator(); it.hasNext(); ) {
          Block b = it.next();
          if (b.host.byteSize() != blockBytes) {
            continue;
          }
          if (!b.pending || done(b)) {
            it.remove();
            b.pending = false;
            return b;
          }
          if (own == null && b.stream.equals(stream.handle)) {
            own = b;
          }
        }
        if (count[size] >= PER_SIZE && own != null) {
          // Wait below for this stream's own oldest copy, outside the lock.
        } else {
          count[size]++;
          pinnedBytes += blockBytes;
          own = null;
        }
      } finally {
        lock.unlock();
      }
      if (own == null) {
        return allocate(blockBytes, size);
      }
      own.waitable.synchronize(WaitOptions.DEFAULT);
    }
  }

  private boolean done(Block b) {
    device.makeCurrent();
    return Cu.eventQuery(b.event);
  }

  private Block allocate(long blockBytes, int size) {
    try {
      device.makeCurrent();
      return new Block(device, blockBytes);
    } catch (RuntimeException | Error e) {
      forget(blockBytes, size);
      throw e;
    }
  }

  private void forget(long blockBytes, int size) {
    lock.lock();
    try {
      count[size]--;
      pinnedBytes -= blockBytes;
    } finally {
      lock.unlock();
    }
  }

  private void release(Block b) {
    lock.lock();
    try {
      idle.add(b);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Frees every idle block; call only when the device has been synchronized (a pending block is
   * kept). Returns the bytes freed.
   */
  long trim() {
    if (Lifecycle.exiting()) {
      return 0;
    }
    List<Block> drop = new ArrayList<>();
    lock.lock();
    try {
      for (Iterator<Block> it = idle.iterator(); it.hasNext(); ) {
        Block b = it.next();
        if (!b.pending || done(b)) {
          it.remove();
          drop.add(b);
          count[sizeIndex(b.host.byteSize())]--;
          pinnedBytes -= b.host.byteSize();
        }
      }
    } finally {
      lock.unlock();
    }
    long freed = 0;
    device.makeCurrent();
    for (Block b : drop) {
      Cu.eventDestroy(b.event);
      Cu.memFreeHost(b.host);
      freed += b.host.byteSize();
    }
    return freed;
  }
}
