package sirocco.runtime;

import sirocco.runtime.sync.WaitOptions;

/**
 * An ordered queue of device work. Work on one stream runs in order; work on different streams may
 * overlap. Waiting never spins a core: see {@link #synchronize()}.
 */
public interface Stream {
  Device device();

  /**
   * Waits until all work queued so far has finished and rethrows the first failure of that work.
   * From a virtual thread the wait is cooperative (the carrier is not held for long); from a
   * platform thread it blocks without spinning. It waits on the stream itself and never on the
   * device's completion worker.
   */
  default void synchronize() {
    synchronize(WaitOptions.DEFAULT);
  }

  /** {@link #synchronize()} with options: spinning, a spin duration, cancellation. */
  void synchronize(WaitOptions options);

  /** True when all work queued so far has finished. */
  boolean isIdle();

  /** Records an event that completes when the work queued so far has finished. */
  Event record();

  /**
   * Makes later work on this stream wait for {@code event} (which may come from another stream).
   */
  void waitFor(Event event);

  /**
   * True while Sirocco records this stream's work into a graph ({@code CudaGraph.capture}) instead
   * of running it; ops may then choose launches for graph replay. Capture begun outside Sirocco is
   * not seen. False on streams that cannot be captured.
   */
  default boolean capturing() {
    return false;
  }
}
