package sirocco;

import java.time.Duration;

/**
 * How {@link Sirocco#synchronize(SyncOptions)} waits. The defaults suit almost every caller: {@code
 * SyncOptions.defaults()}.
 *
 * <ul>
 *   <li>{@link #spin(boolean)}: poll before blocking (default on). From a virtual thread Sirocco
 *       polls a bounded number of rounds, then hands the blocking driver wait to a small pool of
 *       platform threads and parks, so the carrier is free for other virtual threads. A platform
 *       thread blocks in the driver at once (it sleeps; nothing spins). Off: one check, then block
 *       or hand off.
 *   <li>{@link #spinFor(Duration)}: poll for this long first, on platform threads too (a core for
 *       lower latency: the OS wake-up of a blocking wait costs tens of microseconds).
 *   <li>{@link #cancellable(boolean)}: an interrupt ends the wait at once with a {@link
 *       java.util.concurrent.CancellationException} (the interrupt status stays set). The GPU work
 *       is not cancelled and Sirocco keeps its memory alive until it finishes. By default an
 *       interrupt is remembered and re-asserted once the work has completed.
 * </ul>
 */
public final class SyncOptions {
  private static final SyncOptions DEFAULTS = new SyncOptions(true, 0, false);

  final boolean spin;
  final long spinNanos;
  final boolean cancellable;

  private SyncOptions(boolean spin, long spinNanos, boolean cancellable) {
    this.spin = spin;
    this.spinNanos = spinNanos;
    this.cancellable = cancellable;
  }

  /** Spin the default rounds, not cancellable. */
  public static SyncOptions defaults() {
    return DEFAULTS;
  }

  /** Poll before blocking (default true). */
  public SyncOptions spin(boolean on) {
    return new SyncOptions(on, on ? spinNanos : 0, cancellable);
  }

  /** Poll for {@code duration} before blocking, also on platform threads. */
  public SyncOptions spinFor(Duration duration) {
    if (duration == null || duration.isNegative()) {
      throw new IllegalArgumentException("duration must be >= 0, got " + duration);
    }
    return new SyncOptions(true, duration.toNanos(), cancellable);
  }

  /** Let an interrupt end the wait at once (default false). */
  public SyncOptions cancellable(boolean on) {
    return new SyncOptions(spin, spinNanos, on);
  }

  public boolean spin() {
    return spin;
  }

  /** The spin duration in nanoseconds; 0 means the default rounds. */
  public long spinNanos() {
    return spinNanos;
  }

  public boolean cancellable() {
    return cancellable;
  }

  @Override
  public String toString() {
    return "SyncOptions[spin="
        + spin
        + (spinNanos > 0 ? ", spinFor=" + spinNanos + "ns" : "")
        + ", cancellable="
        + cancellable
        + "]";
  }
}
