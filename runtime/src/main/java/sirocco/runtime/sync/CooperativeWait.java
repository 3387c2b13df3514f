package sirocco.runtime.sync;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for device work without holding a virtual thread's carrier for long (GPUToolbox's {@code
 * cooperative_wait}).
 *
 * <p>From a virtual thread: check once; poll a bounded number of rounds (32 × {@link
 * Thread#onSpinWait()}, then 224 × {@link Thread#yield()}, or for {@link WaitOptions#spinNanos()};
 * the rounds can be set with {@value #SPIN_ROUNDS_PROPERTY} and {@value #YIELD_ROUNDS_PROPERTY});
 * then hand the blocking driver call to a {@link WaitPool} worker (a platform thread) while the
 * caller parks. When every worker is busy, a pollable wait keeps polling with a growing park (10 µs
 * to 1 ms) and asks again each round; a non-pollable wait (device- or context-wide) gets an
 * overflow worker or queues for one.
 *
 * <p>From a platform thread: check once, then call the blocking wait directly (the driver's
 * blocking-sync wait sleeps; nothing spins) unless the options ask for a spin duration or
 * cancellation (cancellable waits go through a worker so an interrupt can end them).
 *
 * <p>The worker's exception is rethrown in the caller with its own type, with the caller's stack
 * attached as a suppressed exception. Interrupts: see {@link WaitOptions#cancellable()}.
 */
public final class CooperativeWait {
  /**
   * System property: {@link Thread#onSpinWait()} rounds of a virtual thread's poll (default 32).
   */
  public static final String SPIN_ROUNDS_PROPERTY = "sirocco.wait.spinRounds";

  /** System property: {@link Thread#yield()} rounds after the spin rounds (default 224). */
  public static final String YIELD_ROUNDS_PROPERTY = "sirocco.wait.yieldRounds";

  /**
   * System property: while a worker holds the blocking call, one parked virtual-thread caller at a
   * time also wakes every this many microseconds (default 200; 0: every caller parks until the
   * worker unparks it).
   */
  public static final String HANDOFF_PARK_MICROS_PROPERTY = "sirocco.wait.handoffParkMicros";

  /** The default of {@value #HANDOFF_PARK_MICROS_PROPERTY}. */
  public static final int DEFAULT_HANDOFF_PARK_MICROS = 200;

  private static final int MAX_ROUNDS = 1_000_000;

  static final int SPIN_ROUNDS = rounds(SPIN_ROUNDS_PROPERTY, 32);
  static final int YIELD_ROUNDS = rounds(YIELD_ROUNDS_PROPERTY, 224);

  // Why one waiter ticks: on a long hand-off the carriers and the worker all sleep for the whole
  // wait, and the worker's unpark then wakes a carrier from the deep idle state a long sleep earns,
  // a second such wake-up after the worker's own (the blocking wait pays one). Measured on the H200
  // (runs 25-26, one waiter): +1.7% over blocking at 1 ms and +1.0-1.7% at 5 ms parking until
  // unparked; +0.2-0.3% at both with a 200 µs tick (500 and 1000 µs: 1.1% / 1.8% at 1 ms). The
  // carrier a tick ran on goes back to sleep last, and the scheduler wakes its most recently idled
  // carrier first, so one ticking waiter keeps that wake-up shallow for every waiter; more would
  // only multiply the wake-ups (64 waiters x 5000/s). Cost: ~0.1 ms of CPU per ms of hand-off.
  static final long HANDOFF_PARK_NANOS =
      1000L * rounds(HANDOFF_PARK_MICROS_PROPERTY, DEFAULT_HANDOFF_PARK_MICROS);

  /** Waiters whose hand-off park is bounded: 0 or 1 (see above). */
  private static final AtomicInteger TICKERS = new AtomicInteger();

  /** Bounded parks the ticking waiters have made (tests). */
  private static final LongAdder TICKS = new LongAdder();

  // Why the rounds are tunable: each yield checks the device once, and on a machine with many idle
  // carriers a yield also wakes one of them, so the default poll phase (~1 ms on the H200 machine)
  // keeps several cores busy; fewer yields trade that CPU for a hand-off latency on longer waits.
  // A malformed value is reported by every wait (not by class initialization, which would leave
  // the class unusable with a NoClassDefFoundError).
  private static int rounds(String property, int fallback) {
    return parseRounds(System.getProperty(property), fallback);
  }

  /** A property's round count, {@code fallback} when unset, -1 when malformed or out of range. */
  static int parseRounds(String v, int fallback) {
    try {
      return (int) WaitPool.setting("rounds", v, fallback, MAX_ROUNDS);
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }

  private static void checkRounds() {
    if (SPIN_ROUNDS < 0 || YIELD_ROUNDS < 0 || HANDOFF_PARK_NANOS < 0) {
      String p =
          SPIN_ROUNDS < 0
              ? SPIN_ROUNDS_PROPERTY
              : YIELD_ROUNDS < 0 ? YIELD_ROUNDS_PROPERTY : HANDOFF_PARK_MICROS_PROPERTY;
      // Rethrows the parser's message, which names the property.
      WaitPool.setting(p, System.getProperty(p), 0, MAX_ROUNDS);
    }
  }

  private static final long MIN_BACKOFF_NANOS = 10_000;
  private static final long MAX_BACKOFF_NANOS = 1_000_000;

  private CooperativeWait() {}

  /** {@link #await(BooleanSupplier, Runnable, WaitOptions)} with the default options. */
  public static void await(BooleanSupplier done, Runnable blockingWait) {
    await(done, blockingWait, WaitOptions.DEFAULT);
  }

  /**
   * Returns once {@code done} is true. {@code blockingWait} must block until it is (a driver
   * synchronize). {@code done} may be null for waits that cannot be polled.
   */
  public static void await(BooleanSupplier done, Runnable blockingWait, WaitOptions options) {
    await(done, blockingWait, options, null, WaitPool.shared());
  }

  /**
   * The full form: {@code keepAlive} (may be null) stays reachable until the blocking call has
   * returned, even if a cancellable caller leaves earlier; {@code pool} runs the hand-off.
   */
  public static void await(
      BooleanSupplier done,
      Runnable blockingWait,
      WaitOptions options,
      Object keepAlive,
      WaitPool pool) {
    if (options == null) {
      options = WaitOptions.DEFAULT;
    }
    checkRounds();
    if (done != null && done.getAsBoolean()) {
      return;
    }
    Thread me = Thread.currentThread();
    boolean virtual = me.isVirtual();
    boolean interrupted = false;
    try {
      if (options.cancellable() && Thread.interrupted()) {
        interrupted = true;
        throw cancelled();
      }
      // Polling phase.
      if (done != null && options.spin()) {
        long spinNanos = options.spinNanos();
        if (spinNanos > 0) {
          long deadline = System.nanoTime() + spinNanos;
          int round = 0;
          while (System.nanoTime() - deadline < 0) {
            if (virtual && ++round > SPIN_ROUNDS) {
              Thread.yield();
            } else {
              Thread.onSpinWait();
            }
            if (done.getAsBoolean()) {
              return;
            }
            if (Thread.interrupted()) {
              interrupted = true;
              if (options.cancellable()) {
                throw cancelled();
              }
            }
          }
        } else if (virtual) {
          for (int i = 0; i < SPIN_ROUNDS; i++) {
            Thread.onSpinWait();
            if (done.getAsBoolean()) {
              return;
            }
          }
          for (int i = 0; i < YIELD_ROUNDS; i++) {
            Thread.yield();
            if (done.getAsBoolean()) {
              return;
            }
            if (options.cancellable() && Thread.interrupted()) {
              interrupted = true;
              throw cancelled();
            }
          }
        }
      }
      if (!virtual && !options.cancellable()) {
        // A platform thread blocks in the driver itself: its wait sleeps, and there is no carrier
        // to free.
        blockingWait.run();
        return;
      }
      // Hand-off phase.
      WaitPool.Task task;
      if (done == null) {
        task = pool.submit(blockingWait, me, keepAlive);
      } else {
        task = pool.trySubmit(blockingWait, me, keepAlive);
        long backoff = MIN_BACKOFF_NANOS;
        while (task == null) {
          // Every worker is busy: keep polling, sleeping a little longer each round.
          if (done.getAsBoolean()) {
            return;
          }
          LockSupport.parkNanos(backoff);
          if (Thread.interrupted()) {
            interrupted = true;
            if (options.cancellable()) {
              throw cancelled();
            }
          }
          backoff = Math.min(2 * backoff, MAX_BACKOFF_NANOS);
          task = pool.trySubmit(blockingWait, me, keepAlive);
        }
      }
      boolean ticking = virtual && HANDOFF_PARK_NANOS > 0 && TICKERS.compareAndSet(0, 1);
      try {
        while (!task.done) {
          if (ticking) {
            LockSupport.parkNanos(task, HANDOFF_PARK_NANOS);
            TICKS.increment();
          } else {
            LockSupport.park(task);
          }
          if (Thread.interrupted()) {
            interrupted = true;
            if (options.cancellable()) {
              pool.withdraw(task);
              throw cancelled();
            }
          }
        }
      } finally {
        if (ticking) {
          TICKERS.decrementAndGet();
        }
      }
      Throwable error = task.error;
      if (error != null) {
        error.addSuppressed(new WaitedHere(me));
        if (error instanceof RuntimeException r) {
          throw r;
        }
        if (error instanceof Error e) {
          throw e;
        }
        throw new IllegalStateException(error);
      }
    } finally {
      if (interrupted) {
        me.interrupt();
      }
    }
  }

  /** How many waiters tick now: 0 or 1 (tests: released however a wait ends). */
  static int tickers() {
    return TICKERS.get();
  }

  /** How many bounded parks ticking waiters have made so far (tests). */
  static long ticks() {
    return TICKS.sum();
  }

  private static WaitCancelledException cancelled() {
    return new WaitCancelledException(
        "wait interrupted (cancellable): the device work has not completed and may still use its"
            + " memory");
  }

  /** Attached to a rethrown worker exception: where the caller was waiting. */
  static final class WaitedHere extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WaitedHere(Thread caller) {
      super("rethrown in " + caller + ", which was waiting for the device here");
    }
  }
}
