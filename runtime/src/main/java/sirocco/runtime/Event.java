package sirocco.runtime;

/** A point in a stream's work: complete once everything queued before it has finished. */
public interface Event {
  boolean isComplete();

  /** Waits for completion, as {@link Stream#synchronize()} waits. */
  void synchronize();

  /** Milliseconds of device time between {@code earlier} and this event; both must be complete. */
  float elapsedMillisSince(Event earlier);
}
