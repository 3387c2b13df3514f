package sirocco.runtime.sync;

import java.util.concurrent.CancellationException;

/**
 * A {@link WaitOptions#cancellable() cancellable} wait was interrupted and returned before the
 * device work completed. The work itself is not cancelled: it still runs and may still use the
 * memory it was given, which Sirocco keeps reachable until the wait worker observes completion. The
 * thread's interrupt status is set.
 */
public final class WaitCancelledException extends CancellationException {
  private static final long serialVersionUID = 1L;

  public WaitCancelledException(String message) {
    super(message);
  }
}
