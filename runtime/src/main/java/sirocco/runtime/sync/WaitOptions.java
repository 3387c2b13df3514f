package sirocco.runtime.sync;

import java.time.Duration;

/**
 * How a wait for device work behaves. The default suits almost every caller.
 *
 * @param spin poll before blocking. From a virtual thread the default polling is 32 rounds of
 *     {@link Thread#onSpinWait()} then 224 rounds of {@link Thread#yield()} (each round checks
 *     once); a platform thread does not poll unless {@code spinNanos > 0}. {@code false}: check
 *     once, then block (platform thread) or hand the blocking call to a wait worker (virtual
 *     thread).
 * @param spinNanos when {@code > 0} (and {@code spin}), poll for this long instead of the default
 *     rounds, on platform threads too (trading a core for the OS wake-up latency of a blocking
 *     wait).
 * @param cancellable when {@code true}, an interrupt ends the wait at once with a {@link
 *     WaitCancelledException} (the interrupt status stays set); the device may still be using the
 *     request's memory, so the pending request keeps it reachable until the wait worker is done.
 *     When {@code false} (default), an interrupt is remembered and re-asserted after the work has
 *     completed.
 */
public record WaitOptions(boolean spin, long spinNanos, boolean cancellable) {
  /** Spin the default rounds, not cancellable. */
  public static final WaitOptions DEFAULT = new WaitOptions(true, 0, false);

  public WaitOptions {
    if (spinNanos < 0) {
      throw new IllegalArgumentException("spinNanos must be >= 0, got " + spinNanos);
    }
  }

  public WaitOptions withSpin(boolean on) {
    return new WaitOptions(on, on ? spinNanos : 0, cancellable);
  }

  /** Poll for {@code d} before blocking (also on platform threads). */
  public WaitOptions withSpinFor(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("spin duration must be >= 0, got " + d);
    }
    return new WaitOptions(true, d.toNanos(), cancellable);
  }

  public WaitOptions withCancellable(boolean on) {
    return new WaitOptions(spin, spinNanos, on);
  }
}
