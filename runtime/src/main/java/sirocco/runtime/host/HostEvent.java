package sirocco.runtime.host;

import sirocco.runtime.Event;
import sirocco.runtime.sync.WaitOptions;

/** A Java-backend event: the point its stream reaches when the task recorded before it has run. */
final class HostEvent implements Event {
  final HostStream stream;
  long sequence;
  private volatile long reachedNanos = -1;

  HostEvent(HostStream stream) {
    this.stream = stream;
  }

  void reached() {
    reachedNanos = System.nanoTime();
  }

  @Override
  public boolean isComplete() {
    return stream.isCompleted(sequence);
  }

  @Override
  public void synchronize(WaitOptions options) {
    stream.awaitSequence(sequence, options);
  }

  @Override
  public float elapsedMillisSince(Event earlier) {
    if (!(earlier instanceof HostEvent e) || e.reachedNanos < 0 || reachedNanos < 0) {
      throw new IllegalStateException("both events must be complete Java-backend events");
    }
    return (reachedNanos - e.reachedNanos) / 1e6f;
  }
}
