package sirocco.runtime.host;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * State one block of a Java-backend launch shares among its threads: block-shared arrays (one per
 * allocation site, in the order each thread asks for them), the block barrier and one exchange per
 * warp.
 */
final class HostBlock {
  /**
   * Poison written into fresh shared arrays: the GPU leaves them undefined, so reading before
   * writing is a bug.
   */
  static final int POISON_INT = 0x7FBADBAD;

  static final float POISON_FLOAT = Float.intBitsToFloat(0x7FC0DEAD);
  static final short POISON_SHORT = (short) 0x7FC1;
  static final byte POISON_BYTE = (byte) 0x5A;

  // Bit 62 clear: an Mbarrier operation on a barrier never initialised fails instead of waiting.
  static final long POISON_LONG = 0x8BADF00D8BADF00DL;

  final int threads;
  final long timeoutMillis;
  private final List<Object> shared = new ArrayList<>();
  private final Phaser barrier; // null when the kernel runs its threads one after another
  private final HostWarp[] warps;
  private final HostWarp[] warpGroups; // 128 threads each: the lanes of warpgroup products
  private volatile Throwable failure;

  HostBlock(int threads, boolean concurrent, long timeoutMillis) {
    this.threads = threads;
    this.timeoutMillis = timeoutMillis;
    this.barrier = concurrent ? new Phaser(threads) : null;
    int warpCount = (threads + 31) / 32;
    this.warps = new HostWarp[warpCount];
    for (int w = 0; w < warpCount; w++) {
      int lanes = Math.min(32, threads - 32 * w);
      warps[w] = new HostWarp(lanes, concurrent, this);
    }
    int groupCount = (threads + 127) / 128;
    this.warpGroups = new HostWarp[groupCount];
    for (int j = 0; j < groupCount; j++) {
      warpGroups[j] = new HostWarp(Math.min(128, threads - 128 * j), 128, concurrent, this);
    }
  }

  /** The warpgroup (four warps, 128 threads) of thread {@code localLinearId}. */
  HostWarp warpGroup(int localLinearId) {
    return warpGroups[localLinearId >> 7];
  }

  HostWarp warp(int localLinearId) {
    return warps[localLinearId >> 5];
  }

  /** True when {@code array} is one of this block's shared arrays. */
  synchronized boolean isShared(Object array) {
    for (Object a : shared) {
      if (a == array) {
        return true;
      }
    }
    return false;
  }

  /** The {@code site}-th shared array of this block, created on first request. */
  synchronized Object sharedArray(int site, Class<?> type, int length) {
    if (length < 0) {
      throw new IllegalArgumentException("shared array length must be >= 0, got " + length);
    }
    while (shared.size() <= site) {
      shared.add(null);
    }
    Object array = shared.get(site);
    if (array == null) {
      array = newPoisoned(type, length);
      shared.set(site, array);
    } else if (array.getClass().getComponentType() != type
        || java.lang.reflect.Array.getLength(array) != length) {
      throw new IllegalStateException(
          "threads of one block allocated different shared arrays at allocation "
              + site
              + ": every thread must call allocate*LocalArray in the same order with the same length");
    }
    return array;
  }

  private static Object newPoisoned(Class<?> type, int length) {
    if (type == float.class) {
      float[] a = new float[length];
      Arrays.fill(a, POISON_FLOAT);
      return a;
    } else if (type == int.class) {
      int[] a = new int[length];
      Arrays.fill(a, POISON_INT);
      return a;
    } else if (type == short.class) {
      short[] a = new short[length];
      Arrays.fill(a, POISON_SHORT);
      return a;
    } else if (type == byte.class) {
      byte[] a = new byte[length];
      Arrays.fill(a, POISON_BYTE);
      return a;
    } else if (type == long.class) {
      long[] a = new long[length];
      Arrays.fill(a, POISON_LONG);
      return a;
    }
    throw new IllegalArgumentException("no shared arrays of " + type);
  }

  void barrier() {
    if (barrier == null) {
      throw new IllegalStateException(
          "localBarrier() in a kernel run sequentially: the feature scan missed a barrier");
    }
    await(barrier, "localBarrier()");
  }

  /** Waits at {@code phaser}; a failure elsewhere in the block or a timeout aborts this thread. */
  void await(Phaser phaser, String what) {
    int phase = phaser.arrive();
    if (phase < 0) {
      throw aborted();
    }
    try {
      phaser.awaitAdvanceInterruptibly(phase, timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw aborted();
    } catch (TimeoutException e) {
      fail(
          new KernelDeadlockException(
              what
                  + " waited "
                  + timeoutMillis
                  + " ms for the other threads: some threads of the block are waiting at a"
                  + " different barrier or shuffle (barriers and shuffles must be reached by every"
                  + " live thread, never inside divergent code)"));
      throw aborted();
    }
    if (phaser.isTerminated()) {
      throw aborted();
    }
  }

  /**
   * A thread finished: later barriers no longer wait for it (exited threads count as arrived, as on
   * the GPU).
   */
  void exited(int localLinearId) {
    if (barrier != null) {
      barrier.arriveAndDeregister();
    }
    warp(localLinearId).exited();
    warpGroup(localLinearId).exited();
  }

  void fail(Throwable t) {
    synchronized (this) {
      if (failure == null) {
        failure = t;
      } else if (failure != t) {
        failure.addSuppressed(t);
        return;
      }
    }
    if (barrier != null) {
      barrier.forceTermination();
    }
    for (HostWarp w : warps) {
      w.terminate();
    }
    for (HostWarp w : warpGroups) {
      w.terminate();
    }
  }

  Throwable failure() {
    return failure;
  }

  BlockAbortedException aborted() {
    return new BlockAbortedException();
  }

  /** Unwinds a thread whose block failed elsewhere; never reported itself. */
  static final class BlockAbortedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BlockAbortedException() {
      super("block aborted", null, false, false);
    }
  }

  /** Threads of a block waited at different barriers or shuffles until the timeout. */
  static final class KernelDeadlockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    KernelDeadlockException(String message) {
      super(message);
    }
  }
}
