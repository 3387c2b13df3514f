package sirocco.runtime.sync;

import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * Keeps temporaries alive until the device has passed the work that uses them, then releases them
 * (one per device). Each request is a {@link Marker} recorded on a stream after the work, plus the
 * resources to release once it completes.
 *
 * <p>The worker thread sleeps on a condition while the queue is empty, and otherwise sleeps in the
 * marker's blocking wait (a blocking-sync event on CUDA): it never polls. (MLX's completion thread
 * reset a batch counter inside its loop, so the wait predicate stayed true and the thread spun at
 * 100% CPU; {@code DeviceRuntimeContract.completionWorkerReleasesAfterABurstAndThenSleeps} measures
 * this worker's CPU time while idle, on both backends.)
 *
 * <p>Requests complete in the order they were queued. A request whose marker is not complete holds
 * back later ones, even from other streams, until it completes: memory is released late, never
 * early. {@code synchronize()} never waits for this worker.
 *
 * <p>Released resources: a {@link DeviceBuffer} is closed, an {@link Arena} is closed, anything
 * else is only kept reachable until then. No other code runs on the worker. Once the JVM is exiting
 * the worker stops: nothing it holds is released through the driver.
 */
public final class CompletionWorker {
  /** A point in a stream's work. */
  public interface Marker {
    /** True once the work queued before the marker has finished (never blocks). */
    boolean isComplete();

    /** Blocks the calling platform thread until {@link #isComplete()}; must not spin. */
    void await();

    /** Called once after completion (returns pooled events). */
    default void recycle() {}
  }

  private record Entry(Marker marker, Object[] resources) {}

  private final String name;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition queued = lock.newCondition();
  private final Condition drained = lock.newCondition();
  private final ArrayDeque<Entry> queue = new ArrayDeque<>();
  private Thread thread;
  private long submitted;
  private long released;
  private long failures;

  public CompletionWorker(String name) {
    this.name = name;
  }

  /**
   * Releases {@code resources} once {@code marker} completes. The marker must have been recorded
   * after all the work that uses the resources.
   */
  public void retain(Marker marker, Object... resources) {
    Entry e = new Entry(marker, resources.clone());
    lock.lock();
    try {
      queue.addLast(e);
      submitted++;
      if (thread == null) {
        thread = Thread.ofPlatform().daemon().name(name).start(this::loop);
      }
      queued.signal();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (true) {
      Entry head;
      lock.lock();
      try {
        while (queue.isEmpty()) {
          // The idle state: asleep until retain() signals. (MLX's bug was a predicate that stayed
          // true here.)
          queued.awaitUninterruptibly();
        }
        head = queue.peekFirst();
      } finally {
        lock.unlock();
      }
      if (Lifecycle.exiting()) {
        return;
      }
      boolean ok = true;
      try {
        if (!head.marker.isComplete()) {
          head.marker.await();
        }
      } catch (Throwable t) {
        // The stream's own synchronize reports device errors; here a failed wait means the work
        // will never be observed complete, and releasing memory the device may still use would be
        // worse than keeping it.
        ok = false;
      }
      if (Lifecycle.exiting()) {
        return;
      }
      if (ok) {
        for (Object r : head.resources) {
          releaseQuietly(r);
        }
        try {
          head.marker.recycle();
        } catch (Throwable ignored) {
          // Teardown never throws.
        }
      }
      lock.lock();
      try {
        queue.pollFirst();
        if (ok) {
          released++;
        } else {
          failures++;
        }
        if (queue.isEmpty()) {
          drained.signalAll();
        }
      } finally {
        lock.unlock();
      }
    }
  }

  private static void releaseQuietly(Object r) {
    try {
      if (r instanceof DeviceBuffer b) {
        b.close();
      } else if (r instanceof Arena a) {
        a.close();
      }
    } catch (Throwable ignored) {
      // Teardown never throws: a failed release leaks the resource.
    }
  }

  /** Requests queued and not yet released. */
  public int pending() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Requests released so far. */
  public long released() {
    lock.lock();
    try {
      return released;
    } finally {
      lock.unlock();
    }
  }

  /** Requests dropped because their marker's wait failed (their resources were not released). */
  public long failures() {
    lock.lock();
    try {
      return failures;
    } finally {
      lock.unlock();
    }
  }

  /** The worker thread, or null before the first request. For tests and diagnostics. */
  public Thread thread() {
    lock.lock();
    try {
      return thread;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits (up to {@code timeoutMillis}) until every queued request has been handled; true if so.
   * For tests and benchmarks; ordinary code never needs to.
   */
  public boolean awaitDrained(long timeoutMillis) throws InterruptedException {
    long left = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    try {
      while (!queue.isEmpty()) {
        if (left <= 0) {
          return false;
        }
        left = drained.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
