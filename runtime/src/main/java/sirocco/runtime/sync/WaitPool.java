package sirocco.runtime.sync;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The platform threads that run blocking driver waits for parked virtual threads (GPUToolbox's
 * {@code cooperative_wait} pool, with the fixes its reviews asked for).
 *
 * <ul>
 *   <li>At most {@code coreWorkers} (≤ 4) core workers; an idle worker waits on its own condition,
 *       and the idle set is a stack, so the next request takes the most recently used (warm) worker
 *       and the others age out.
 *   <li>When every worker is busy, {@link #trySubmit pollable} requests get nothing (their callers
 *       keep polling); {@link #submit non-pollable} requests (device- or context-wide waits, which
 *       cannot be polled) get an overflow worker, at most {@code maxOverflow} of them; beyond that
 *       they queue for the next free worker.
 *   <li>Overflow workers exit after {@code overflowKeepAlive} idle, core workers after {@code
 *       coreKeepAlive}: a burst of waits leaves no threads behind (AMDGPU.jl's review found 64
 *       concurrent calls leaving 42 spinning threads forever).
 *   <li>A worker runs only the blocking call it was handed, then unparks the caller. It never runs
 *       callbacks or completes futures (whose dependants would then run on the worker).
 * </ul>
 *
 * Workers are daemon threads: they never keep the JVM alive.
 */
public final class WaitPool {
  /** The most core workers a pool may have. */
  public static final int MAX_CORE_WORKERS = 4;

  private static final class Holder {
    // A bad setting is reported by every call to shared(), not by class initialization (which
    // would leave later waits with a bare NoClassDefFoundError).
    static final IllegalArgumentException BAD_SETTING;
    static final WaitPool SHARED;

    static {
      WaitPool pool = null;
      IllegalArgumentException bad = null;
      try {
        pool =
            new WaitPool(
                "sirocco-wait",
                (int) setting("sirocco.wait.coreWorkers", MAX_CORE_WORKERS),
                (int) setting("sirocco.wait.maxOverflow", 64),
                setting("sirocco.wait.coreKeepAliveMs", 30_000L),
                setting("sirocco.wait.overflowKeepAliveMs", 2_000L));
      } catch (IllegalArgumentException e) {
        bad = e;
      }
      SHARED = pool;
      BAD_SETTING = bad;
    }

    private static long setting(String property, long fallback) {
      return WaitPool.setting(property, System.getProperty(property), fallback, Integer.MAX_VALUE);
    }
  }

  /**
   * {@code value} of the wait setting {@code property} as an integer in [0, max]; {@code fallback}
   * when it is unset or blank.
   *
   * @throws IllegalArgumentException naming the property when the value is malformed or out of
   *     range
   */
  static long setting(String property, String value, long fallback, long max) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      long n = Long.parseLong(value.strip());
      if (n >= 0 && n <= max) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(
        "-D" + property + " must be an integer in [0, " + max + "], got '" + value + "'");
  }

  /**
   * The pool Sirocco's waits use, configured by {@code sirocco.wait.coreWorkers} (1–4), {@code
   * sirocco.wait.maxOverflow}, {@code sirocco.wait.coreKeepAliveMs} and {@code
   * sirocco.wait.overflowKeepAliveMs}.
   *
   * @throws IllegalArgumentException when one of those properties is malformed or out of range
   */
  public static WaitPool shared() {
    if (Holder.BAD_SETTING != null) {
      throw new IllegalArgumentException(
          "wait pool settings: " + Holder.BAD_SETTING.getMessage(), Holder.BAD_SETTING);
    }
    return Holder.SHARED;
  }

  /** One blocking call handed to a worker, and its outcome. */
  static final class Task {
    final Runnable blocking;
    final Thread caller;
    // Keeps the request's memory reachable until the blocking call has returned, even when a
    // cancellable caller has gone.
    final Object keepAlive;
    volatile boolean done;
    volatile Throwable error;

    Task(Runnable blocking, Thread caller, Object keepAlive) {
      this.blocking = blocking;
      this.caller = caller;
      this.keepAlive = keepAlive;
    }

    void run() {
      try {
        blocking.run();
      } catch (Throwable t) {
        error = t;
      } finally {
        done = true;
        LockSupport.unpark(caller);
      }
    }
  }

  private final class Worker implements Runnable {
    final boolean overflow;
    final Condition wake = lock.newCondition();
    Task next; // guarded by lock

    Worker(boolean overflow, Task first) {
      this.overflow = overflow;
      this.next = first;
    }

    @Override
    public void run() {
      long keepAlive = overflow ? overflowKeepAliveNanos : coreKeepAliveNanos;
      while (true) {
        Task t;
        lock.lock();
        try {
          long left = keepAlive;
          while ((t = next) == null) {
            if (left <= 0) {
              idle.remove(this);
              if (overflow) {
                liveOverflow--;
              } else {
                liveCore--;
              }
              return;
            }
            try {
              left = wake.awaitNanos(left);
            } catch (InterruptedException e) {
              // Nobody interrupts these threads on purpose; keep serving.
            }
          }
          next = null;
          busy++;
        } finally {
          lock.unlock();
        }
        t.run();
        lock.lock();
        try {
          busy--;
          completed++;
          Task queued = pending.pollFirst();
          if (queued != null) {
            next = queued;
          } else {
            idle.addFirst(this);
          }
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private final String name;
  private final int coreWorkers;
  private final int maxOverflow;
  private final long coreKeepAliveNanos;
  private final long overflowKeepAliveNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Worker> idle = new ArrayDeque<>(); // head = most recently idle
  private final ArrayDeque<Task> pending = new ArrayDeque<>();
  private int liveCore;
  private int liveOverflow;
  private int busy;
  private int peakLive;
  private long completed;
  private long threadsStarted;

  /**
   * @param name thread name prefix
   * @param coreWorkers core workers, 1 to {@link #MAX_CORE_WORKERS}
   * @param maxOverflow overflow workers for non-pollable waits when every core worker is busy
   * @param coreKeepAliveMs how long an idle core worker stays
   * @param overflowKeepAliveMs how long an idle overflow worker stays
   */
  public WaitPool(
      String name,
      int coreWorkers,
      int maxOverflow,
      long coreKeepAliveMs,
      long overflowKeepAliveMs) {
    if (coreWorkers < 1 || coreWorkers > MAX_CORE_WORKERS) {
      throw new IllegalArgumentException(
          "coreWorkers (sirocco.wait.coreWorkers) must be in [1, "
              + MAX_CORE_WORKERS
              + "], got "
              + coreWorkers);
    }
    if (maxOverflow < 0 || coreKeepAliveMs < 0 || overflowKeepAliveMs < 0) {
      throw new IllegalArgumentException(
          "maxOverflow and keep-alive times must be >= 0, got "
              + maxOverflow
              + ", "
              + coreKeepAliveMs
              + ", "
              + overflowKeepAliveMs);
    }
    this.name = name;
    this.coreWorkers = coreWorkers;
    this.maxOverflow = maxOverflow;
    this.coreKeepAliveNanos = TimeUnit.MILLISECONDS.toNanos(coreKeepAliveMs);
    this.overflowKeepAliveNanos = TimeUnit.MILLISECONDS.toNanos(overflowKeepAliveMs);
  }

  /**
   * Hands a pollable wait to an idle (or new core) worker; null when every allowed worker is busy,
   * in which case the caller keeps polling and asks again.
   */
  Task trySubmit(Runnable blocking, Thread caller, Object keepAlive) {
    Task t = new Task(blocking, caller, keepAlive);
    lock.lock();
    try {
      return handOff(t, false) ? t : null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands a non-pollable wait to a worker: an idle one, a new core or overflow worker, or else the
   * queue the next free worker takes from. Never null.
   */
  Task submit(Runnable blocking, Thread caller, Object keepAlive) {
    Task t = new Task(blocking, caller, keepAlive);
    lock.lock();
    try {
      if (!handOff(t, true)) {
        pending.addLast(t);
      }
      return t;
    } finally {
      lock.unlock();
    }
  }

  /** Removes a queued task nobody has started (a cancelled non-pollable wait); true if removed. */
  boolean withdraw(Task t) {
    lock.lock();
    try {
      for (Iterator<Task> it = pending.iterator(); it.hasNext(); ) {
        if (it.next() == t) {
          it.remove();
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  private boolean handOff(Task t, boolean mayOverflow) {
    Worker w = idle.pollFirst();
    if (w != null) {
      w.next = t;
      w.wake.signal();
      return true;
    }
    if (liveCore < coreWorkers) {
      liveCore++;
      start(new Worker(false, t), name + "-" + threadsStarted);
      return true;
    }
    if (mayOverflow && liveOverflow < maxOverflow) {
      liveOverflow++;
      start(new Worker(true, t), name + "-overflow-" + threadsStarted);
      return true;
    }
    return false;
  }

  private void start(Worker w, String threadName) {
    threadsStarted++;
    peakLive = Math.max(peakLive, liveCore + liveOverflow);
    Thread.ofPlatform().daemon().name(threadName).start(w);
  }

  /** A snapshot of the pool, for tests and diagnostics. */
  public record Stats(
      int liveCore, int liveOverflow, int busy, int idle, int pending, int peakLive, long started) {
    public int live() {
      return liveCore + liveOverflow;
    }
  }

  public Stats stats() {
    lock.lock();
    try {
      return new Stats(
          liveCore, liveOverflow, busy, idle.size(), pending.size(), peakLive, threadsStarted);
    } finally {
      lock.unlock();
    }
  }

  /** The thread name prefix. */
  public String name() {
    return name;
  }
}
