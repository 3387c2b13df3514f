package sirocco.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The Java backend's transaction barrier against the PTX ISA's description of {@code mbarrier}: a
 * phase ends when its arrivals are in and its announced bytes have landed, in either order; waits
 * go by the parity of the phase; misuse fails loudly instead of hanging or passing.
 */
class MbarrierTest {
  /**
   * Whether a wait for the phase of {@code parity} would return now (a wait with a tiny timeout).
   */
  private static boolean done(long[] bars, int i, int parity) {
    String old = System.getProperty("sirocco.host.barrierTimeoutMs");
    System.setProperty("sirocco.host.barrierTimeoutMs", "0");
    try {
      Mbarrier.waitParity(bars, i, parity);
      return true;
    } catch (IllegalStateException e) {
      assertTrue(e.getMessage().contains("did not complete"), e.getMessage());
      return false;
    } finally {
      if (old == null) {
        System.clearProperty("sirocco.host.barrierTimeoutMs");
      } else {
        System.setProperty("sirocco.host.barrierTimeoutMs", old);
      }
    }
  }

  @Test
  void aPhaseEndsWhenItsArrivalsAreIn() {
    long[] bars = new long[2];
    Mbarrier.init(bars, 1, 3);
    Mbarrier.arrive(bars, 1);
    Mbarrier.arrive(bars, 1);
    assertTrue(!done(bars, 1, 0));
    Mbarrier.arrive(bars, 1);
    assertTrue(done(bars, 1, 0));
    // The next phase (parity 1) has started with the full count again.
    assertTrue(!done(bars, 1, 1));
    Mbarrier.arrive(bars, 1);
    Mbarrier.arrive(bars, 1);
    Mbarrier.arrive(bars, 1);
    assertTrue(done(bars, 1, 1));
    assertTrue(!done(bars, 1, 0)); // the third phase, parity 0 again, is running
  }

  @Test
  void aPhaseWaitsForItsAnnouncedBytesInEitherOrder() {
    long[] bars = new long[1];
    Mbarrier.init(bars, 0, 1);
    Mbarrier.arriveExpectTx(bars, 0, 4096);
    assertTrue(!done(bars, 0, 0), "arrived, bytes missing");
    Mbarrier.completeTx(bars, 0, 1024);
    assertTrue(!done(bars, 0, 0), "3072 bytes missing");
    Mbarrier.completeTx(bars, 0, 3072);
    assertTrue(done(bars, 0, 0));
    // Phase 1: the copy lands before its bytes are announced (the count goes negative).
    Mbarrier.completeTx(bars, 0, 2048);
    assertTrue(!done(bars, 0, 1));
    Mbarrier.arriveExpectTx(bars, 0, 2048);
    assertTrue(done(bars, 0, 1));
  }

  @Test
  void aWaitingThreadResumesWhenAnotherEndsThePhase() throws InterruptedException {
    long[] bars = new long[1];
    Mbarrier.init(bars, 0, 1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread waiter =
        Thread.ofVirtual()
            .start(
                () -> {
                  started.countDown();
                  try {
                    Mbarrier.waitParity(bars, 0, 0);
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
    started.await();
    Mbarrier.arriveExpectTx(bars, 0, 16);
    Mbarrier.completeTx(bars, 0, 16);
    assertTrue(waiter.join(Duration.ofSeconds(30)), "the waiter did not resume");
    assertTrue(failure.get() == null, () -> String.valueOf(failure.get()));
  }

  @Test
  void misuseFailsWithAClearMessage() {
    long[] bars = {0x8BADF00D8BADF00DL};
    IllegalStateException s =
        assertThrows(IllegalStateException.class, () -> Mbarrier.arrive(bars, 0));
    assertTrue(s.getMessage().contains("was not initialised"), s.getMessage());
    Mbarrier.init(bars, 0, 1);
    Mbarrier.arrive(bars, 0); // ends phase 0; phase 1 expects one arrival
    Mbarrier.arrive(bars, 0);
    assertTrue(done(bars, 0, 1));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Mbarrier.init(bars, 0, 0));
    assertTrue(e.getMessage().contains("count must be 1 to 1048575, got 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Mbarrier.init(bars, 0, 1 << 20));
    assertTrue(e.getMessage().contains("count must be 1 to"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> Mbarrier.arriveExpectTx(bars, 0, 1 << 20));
    assertTrue(e.getMessage().contains("bytes must be 0 to 1048575"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Mbarrier.arriveExpectTx(bars, 0, -1));
    assertTrue(e.getMessage().contains("got -1"), e.getMessage());
    assertDoesNotThrow(() -> Mbarrier.arriveExpectTx(bars, 0, Mbarrier.MAX_TX));
  }

  @Test
  void moreArrivalsThanTheCountInOnePhaseFail() {
    long[] bars = new long[1];
    Mbarrier.init(bars, 0, 1);
    Mbarrier.arriveExpectTx(bars, 0, 64); // the arrival is in, the bytes are not
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Mbarrier.arrive(bars, 0));
    assertTrue(e.getMessage().contains("more arrivals than its count"), e.getMessage());
  }
}
