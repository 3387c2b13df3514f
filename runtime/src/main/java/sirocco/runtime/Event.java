package sirocco.runtime;

import sirocco.runtime.sync.WaitOptions;

/** A point in a stream's work: complete once everything queued before it has finished. */
public interface Event {
  boolean isComplete();

  /** Waits for completion, as {@link Stream#synchronize()} waits. */
  default void synchronize() {
    synchronize(WaitOptions.DEFAULT);
  }

  /** {@link #synchronize()} with options. */
  void synchronize(WaitOptions options);

  /** Milliseconds of device time between {@code earlier} and this event; both must be complete. */
  float elapsedMillisSince(Event earlier);
}
