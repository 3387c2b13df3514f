package sirocco.runtime.sync;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * Waits for device work without holding a virtual thread's carrier for long (GPUToolbox's {@code
 * cooperative_wait}): check once, poll a bounded number of rounds, then hand the blocking driver
 * call to a small pool of platform threads while the caller parks. A platform thread waits
 * directly: the driver's blocking-sync wait sleeps, it does not spin.
 */
public final class CooperativeWait {
  private static final int SPIN_ROUNDS = 32;
  private static final int YIELD_ROUNDS = 224;
  private static final ExecutorService WORKERS =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().daemon().name("sirocco-wait-", 0).factory());

  private CooperativeWait() {}

  /**
   * Returns once {@code done} is true. {@code blockingWait} must block until it is (a driver
   * synchronize); its exception is rethrown in the caller with its own type.
   */
  public static void await(BooleanSupplier done, Runnable blockingWait) {
    if (done.getAsBoolean()) {
      return;
    }
    if (!Thread.currentThread().isVirtual()) {
      blockingWait.run();
      return;
    }
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
    }
    CompletableFuture<Void> handoff = CompletableFuture.runAsync(blockingWait, WORKERS);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          handoff.get();
          return;
        } catch (InterruptedException e) {
          // The device still uses the caller's memory: finish waiting, then re-assert the
          // interrupt.
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
