package sirocco.runtime.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import sirocco.runtime.testing.ChildJvm;

/**
 * The wait protocol with a simulated device: a "blocking wait" that sleeps until a latch opens.
 * Checks who runs the blocking call, how errors and interrupts come back, and what the worker pool
 * leaves behind. Nothing here asserts on elapsed time.
 */
class CooperativeWaitTest {
  /** A simulated piece of device work: done once {@link #finish()} is called. */
  static final class FakeWork {
    final CountDownLatch latch = new CountDownLatch(1);
    final AtomicInteger polls = new AtomicInteger();
    final AtomicReference<Thread> blockedOn = new AtomicReference<>();
    final AtomicInteger blockCalls = new AtomicInteger();

    boolean poll() {
      polls.incrementAndGet();
      return latch.getCount() == 0;
    }

    void block() {
      blockCalls.incrementAndGet();
      blockedOn.set(Thread.currentThread());
      boolean interrupted = false;
      while (true) {
        try {
          latch.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    void finish() {
      latch.countDown();
    }
  }

  private static Thread virtual(Runnable r) {
    return Thread.ofVirtual().start(r);
  }

  private static void awaitTrue(String what, java.util.function.BooleanSupplier c)
      throws InterruptedException {
    // A bounded wait for a condition (not a speed claim): fails only if it never becomes true.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("never happened: " + what);
      }
      Thread.sleep(5);
    }
  }

  @Test
  void platformThreadBlocksDirectlyWithoutPolling() {
    FakeWork w = new FakeWork();
    w.finish();
    FakeWork pending = new FakeWork();
    // Completed work: one check, no blocking call.
    CooperativeWait.await(w::poll, w::block);
    assertEquals(1, w.polls.get());
    assertEquals(0, w.blockCalls.get());
    // Pending work: one check, then the blocking call on this very thread.
    Thread finisher =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (pending.blockedOn.get() == null) {
                    Thread.onSpinWait();
                  }
                  pending.finish();
                });
    CooperativeWait.await(pending::poll, pending::block);
    assertSame(Thread.currentThread(), pending.blockedOn.get());
    assertEquals(1, pending.polls.get(), "a platform thread does not poll");
    assertTrue(
        assertDoesJoin(finisher), "the finisher ends once the blocking call has been reached");
  }

  @Test
  void aSpinDurationMakesEvenAPlatformThreadPollForThatLongBeforeBlocking() {
    WaitOptions spin20ms = WaitOptions.DEFAULT.withSpinFor(java.time.Duration.ofMillis(20));
    // Work that completes during the spin: polled until then, never reaches the blocking call.
    FakeWork soon = new FakeWork();
    AtomicInteger left = new AtomicInteger(50);
    CooperativeWait.await(
        () -> {
          if (left.decrementAndGet() == 0) {
            soon.finish();
          }
          return soon.poll();
        },
        soon::block,
        spin20ms);
    assertEquals(50, soon.polls.get(), "polled until the work completed");
    assertEquals(0, soon.blockCalls.get());
    // Work still pending after the spin: it blocks on this thread, once, after at least 20 ms.
    FakeWork late = new FakeWork();
    Thread finisher =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (late.blockedOn.get() == null) {
                    Thread.onSpinWait();
                  }
                  late.finish();
                });
    long t0 = System.nanoTime();
    CooperativeWait.await(late::poll, late::block, spin20ms);
    long waited = System.nanoTime() - t0;
    assertSame(Thread.currentThread(), late.blockedOn.get());
    assertEquals(1, late.blockCalls.get());
    assertTrue(late.polls.get() > 1, "polled during the spin: " + late.polls.get());
    assertTrue(waited >= 20_000_000, "the spin lasted its duration: " + waited + " ns");
    assertTrue(assertDoesJoin(finisher));
    assertThrows(
        IllegalArgumentException.class,
        () -> WaitOptions.DEFAULT.withSpinFor(java.time.Duration.ofMillis(-1)));
  }

  private static boolean assertDoesJoin(Thread t) {
    try {
      t.join();
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  @Test
  void virtualThreadPollsThenHandsTheBlockingCallToAWorker() throws Exception {
    WaitPool pool = new WaitPool("test-wait", 2, 4, 60_000, 60_000);
    FakeWork w = new FakeWork();
    AtomicReference<Throwable> error = new AtomicReference<>();
    Thread vt =
        virtual(
            () -> {
              try {
                CooperativeWait.await(w::poll, w::block, WaitOptions.DEFAULT, null, pool);
              } catch (Throwable t) {
                error.set(t);
              }
            });
    awaitTrue("the blocking call reached a worker", () -> w.blockedOn.get() != null);
    Thread worker = w.blockedOn.get();
    assertFalse(worker.isVirtual(), "blocking calls run on platform threads");
    assertTrue(worker.getName().startsWith("test-wait-"), worker.getName());
    assertTrue(worker.isDaemon(), "wait workers never keep the JVM alive");
    assertEquals(
        1 + CooperativeWait.SPIN_ROUNDS + CooperativeWait.YIELD_ROUNDS,
        w.polls.get(),
        "one check, then the bounded polling rounds, then the hand-off");
    w.finish();
    vt.join();
    assertNull(error.get());
    assertEquals(1, w.blockCalls.get());
  }

  @Test
  void pollRoundPropertiesAcceptCountsAndRejectAnythingElse() {
    assertEquals(32, CooperativeWait.parseRounds(null, 32), "unset: the default");
    assertEquals(32, CooperativeWait.parseRounds("  ", 32), "blank: the default");
    assertEquals(0, CooperativeWait.parseRounds("0", 32));
    assertEquals(64, CooperativeWait.parseRounds(" 64 ", 224));
    assertEquals(-1, CooperativeWait.parseRounds("-1", 32));
    assertEquals(-1, CooperativeWait.parseRounds("lots", 32));
    assertEquals(-1, CooperativeWait.parseRounds("1000001", 32));
  }

  @Test
  void noSpinHandsOffAfterOneCheck() throws Exception {
    WaitPool pool = new WaitPool("test-nospin", 1, 0, 60_000, 60_000);
    FakeWork w = new FakeWork();
    Thread vt =
        virtual(
            () ->
                CooperativeWait.await(
                    w::poll, w::block, WaitOptions.DEFAULT.withSpin(false), null, pool));
    awaitTrue("hand-off", () -> w.blockedOn.get() != null);
    assertEquals(1, w.polls.get());
    w.finish();
    vt.join();
  }

  @Test
  void workCompletingWhilePollingNeverReachesAWorker() throws Exception {
    WaitPool pool = new WaitPool("test-poll", 1, 0, 60_000, 60_000);
    AtomicInteger polls = new AtomicInteger();
    AtomicInteger blocks = new AtomicInteger();
    Thread vt =
        virtual(
            () ->
                CooperativeWait.await(
                    () -> polls.incrementAndGet() >= 10,
                    blocks::incrementAndGet,
                    WaitOptions.DEFAULT,
                    null,
                    pool));
    vt.join();
    assertEquals(10, polls.get());
    assertEquals(0, blocks.get());
    assertEquals(0, pool.stats().started(), "no worker was started");
  }

  /** A made-up failure type, to check the type survives the hand-off. */
  static final class DeviceLost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeviceLost(String m) {
      super(m);
    }
  }

  /**
   * One handed-off virtual thread at a time parks with a bound (the tick that keeps a carrier's
   * sleep short), the others park until unparked, and the tick is free again however a wait ends.
   */
  @Test
  void oneWaiterTicksDuringAHandOffAndReleasesTheTickHoweverItsWaitEnds() throws Exception {
    assumeTrue(CooperativeWait.HANDOFF_PARK_NANOS > 0, "hand-off tick disabled by property");
    WaitPool pool = new WaitPool("test-tick", 3, 0, 60_000, 60_000);
    FakeWork a = new FakeWork();
    FakeWork b = new FakeWork();
    WaitOptions noSpin = WaitOptions.DEFAULT.withSpin(false);
    Thread va = virtual(() -> CooperativeWait.await(a::poll, a::block, noSpin, null, pool));
    Thread vb = virtual(() -> CooperativeWait.await(b::poll, b::block, noSpin, null, pool));
    awaitTrue("both handed off", () -> a.blockedOn.get() != null && b.blockedOn.get() != null);
    long before = CooperativeWait.ticks();
    Thread.sleep(50);
    assertEquals(1, CooperativeWait.tickers(), "one of the two waiters ticks");
    long ticks = CooperativeWait.ticks() - before;
    assertTrue(ticks >= 5, "the ticking waiter wakes while it waits (200 µs bound): " + ticks);
    a.finish();
    b.finish();
    va.join();
    vb.join();
    assertEquals(0, CooperativeWait.tickers(), "released after a normal return");
    // A worker's exception.
    Thread ve =
        virtual(
            () -> {
              try {
                CooperativeWait.await(
                    () -> false,
                    () -> {
                      throw new IllegalStateException("simulated");
                    },
                    noSpin,
                    null,
                    pool);
              } catch (IllegalStateException expected) {
                // the rethrow itself is tested elsewhere
              }
            });
    ve.join();
    assertEquals(0, CooperativeWait.tickers(), "released after a rethrown error");
    // A cancelled wait.
    FakeWork c = new FakeWork();
    Thread vc =
        virtual(
            () -> {
              try {
                CooperativeWait.await(c::poll, c::block, noSpin.withCancellable(true), null, pool);
              } catch (WaitCancelledException expected) {
                // returns at once, tested elsewhere
              }
            });
    awaitTrue("hand-off", () -> c.blockedOn.get() != null);
    awaitTrue("the waiter took the tick", () -> CooperativeWait.tickers() == 1);
    vc.interrupt();
    vc.join();
    assertEquals(0, CooperativeWait.tickers(), "released after a cancelled wait");
    c.finish();
    awaitTrue("the worker finished", () -> pool.stats().busy() == 0);
  }

  @Test
  void theWorkersExceptionIsRethrownInTheCallerWithItsType() throws Exception {
    WaitPool pool = new WaitPool("test-error", 1, 0, 60_000, 60_000);
    DeviceLost thrown = new DeviceLost("simulated CUDA_ERROR_ILLEGAL_ADDRESS");
    AtomicReference<Throwable> caught = new AtomicReference<>();
    Thread vt =
        virtual(
            () -> {
              try {
                CooperativeWait.await(
                    () -> false,
                    () -> {
                      throw thrown;
                    },
                    WaitOptions.DEFAULT.withSpin(false),
                    null,
                    pool);
              } catch (Throwable t) {
                caught.set(t);
              }
            });
    vt.join();
    assertSame(thrown, caught.get(), "the same exception, type and all");
    assertEquals(1, thrown.getSuppressed().length, "with the caller's stack attached");
    assertInstanceOf(CooperativeWait.WaitedHere.class, thrown.getSuppressed()[0]);
    // Errors too.
    AtomicReference<Throwable> caughtError = new AtomicReference<>();
    Thread vt2 =
        virtual(
            () -> {
              try {
                CooperativeWait.await(
                    () -> false,
                    () -> {
                      throw new StackOverflowError("simulated");
                    },
                    WaitOptions.DEFAULT.withSpin(false),
                    null,
                    pool);
              } catch (Throwable t) {
                caughtError.set(t);
              }
            });
    vt2.join();
    assertInstanceOf(StackOverflowError.class, caughtError.get());
  }

  @Test
  void anInterruptIsRememberedAndReassertedAfterTheWorkCompletes() throws Exception {
    WaitPool pool = new WaitPool("test-interrupt", 1, 0, 60_000, 60_000);
    FakeWork w = new FakeWork();
    AtomicBoolean returnedEarly = new AtomicBoolean();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    AtomicBoolean doneAtReturn = new AtomicBoolean();
    Thread vt =
        virtual(
            () -> {
              CooperativeWait.await(w::poll, w::block, WaitOptions.DEFAULT, null, pool);
              doneAtReturn.set(w.latch.getCount() == 0);
              interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
    awaitTrue("hand-off", () -> w.blockedOn.get() != null);
    vt.interrupt();
    vt.join(200);
    returnedEarly.set(!vt.isAlive());
    assertFalse(returnedEarly.get(), "the wait continues after an interrupt");
    w.finish();
    vt.join();
    assertTrue(doneAtReturn.get(), "returned only once the work was done");
    assertTrue(interruptedAfter.get(), "the interrupt is re-asserted");
  }

  @Test
  void aCancellableWaitReturnsAtOnceAndKeepsTheRequestMemoryAlive() throws Exception {
    WaitPool pool = new WaitPool("test-cancel", 1, 0, 60_000, 60_000);
    FakeWork w = new FakeWork();
    AtomicReference<Throwable> caught = new AtomicReference<>();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Object[] memory = {new byte[1 << 20]};
    WeakReference<Object> memoryRef = new WeakReference<>(memory[0]);
    Thread vt =
        virtual(
            () -> {
              try {
                Object keep = memory[0];
                memory[0] = null;
                CooperativeWait.await(
                    w::poll, w::block, WaitOptions.DEFAULT.withCancellable(true), keep, pool);
              } catch (Throwable t) {
                caught.set(t);
                interruptedAfter.set(Thread.currentThread().isInterrupted());
              }
            });
    awaitTrue("hand-off", () -> w.blockedOn.get() != null);
    vt.interrupt();
    vt.join();
    assertInstanceOf(WaitCancelledException.class, caught.get());
    assertTrue(interruptedAfter.get(), "the interrupt status stays set");
    assertEquals(1, w.latch.getCount(), "the work itself is still running");
    System.gc();
    assertNotNull(memoryRef.get(), "the request's memory stays reachable while the worker waits");
    assertEquals(1, pool.stats().busy());
    w.finish();
    awaitTrue("the worker finished", () -> pool.stats().busy() == 0);
  }

  @Test
  void cancellableFromAPlatformThreadAlsoReturnsOnInterrupt() throws Exception {
    WaitPool pool = new WaitPool("test-cancel-platform", 1, 0, 60_000, 60_000);
    FakeWork w = new FakeWork();
    AtomicReference<Throwable> caught = new AtomicReference<>();
    Thread pt =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    CooperativeWait.await(
                        w::poll, w::block, WaitOptions.DEFAULT.withCancellable(true), null, pool);
                  } catch (Throwable t) {
                    caught.set(t);
                  }
                });
    awaitTrue("hand-off", () -> w.blockedOn.get() != null);
    assertTrue(w.blockedOn.get() != pt, "the blocking call went to a worker");
    pt.interrupt();
    pt.join();
    assertInstanceOf(WaitCancelledException.class, caught.get());
    w.finish();
  }

  @Test
  void whenEveryWorkerIsBusyAPollableWaitKeepsPolling() throws Exception {
    WaitPool pool = new WaitPool("test-busy", 1, 8, 60_000, 60_000);
    FakeWork longWork = new FakeWork();
    Thread longWait =
        virtual(
            () ->
                CooperativeWait.await(
                    longWork::poll, longWork::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("the long wait holds the only core worker", () -> longWork.blockedOn.get() != null);
    FakeWork shortWork = new FakeWork();
    Thread shortWait =
        virtual(
            () ->
                CooperativeWait.await(
                    shortWork::poll, shortWork::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("the short wait polls", () -> shortWork.polls.get() > 300);
    shortWork.finish();
    shortWait.join();
    assertEquals(0, shortWork.blockCalls.get(), "finished by polling, no worker needed");
    assertEquals(0, pool.stats().liveOverflow(), "pollable waits never start overflow workers");
    longWork.finish();
    longWait.join();
  }

  @Test
  void eightTimesTenShortWaitsBesideOneLongWait() throws Exception {
    WaitPool pool = new WaitPool("test-8x10", 4, 8, 60_000, 60_000);
    FakeWork longWork = new FakeWork();
    Thread longWait =
        virtual(
            () ->
                CooperativeWait.await(
                    longWork::poll, longWork::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("the long wait is with a worker", () -> longWork.blockedOn.get() != null);
    List<Thread> shorts = new ArrayList<>();
    AtomicInteger completed = new AtomicInteger();
    for (int v = 0; v < 8; v++) {
      shorts.add(
          virtual(
              () -> {
                for (int i = 0; i < 10; i++) {
                  FakeWork w = new FakeWork();
                  // Finished by another thread shortly, as a short kernel would be.
                  Thread.ofVirtual()
                      .start(
                          () -> {
                            try {
                              Thread.sleep(1);
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                            w.finish();
                          });
                  CooperativeWait.await(
                      w::poll, w::block, WaitOptions.DEFAULT.withSpin(i % 2 == 0), null, pool);
                  completed.incrementAndGet();
                }
              }));
    }
    for (Thread t : shorts) {
      t.join();
    }
    assertEquals(80, completed.get());
    assertEquals(1, longWork.latch.getCount(), "the long wait is still outstanding");
    assertTrue(longWait.isAlive());
    WaitPool.Stats s = pool.stats();
    assertTrue(s.peakLive() <= 4, "at most 4 workers for pollable waits: " + s);
    assertEquals(0, s.liveOverflow(), s.toString());
    longWork.finish();
    longWait.join();
  }

  @Test
  void sixtyFourDeviceWideWaitsLeaveNoThreadsAfterTheKeepAlive() throws Exception {
    WaitPool pool = new WaitPool("test-64", 4, 16, 200, 200);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger inBlockingCall = new AtomicInteger();
    AtomicInteger maxConcurrent = new AtomicInteger();
    Runnable deviceWide =
        () -> {
          maxConcurrent.accumulateAndGet(inBlockingCall.incrementAndGet(), Math::max);
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            inBlockingCall.decrementAndGet();
          }
        };
    List<Thread> waiters = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      // done == null: a non-pollable wait, such as cuCtxSynchronize.
      waiters.add(
          virtual(() -> CooperativeWait.await(null, deviceWide, WaitOptions.DEFAULT, null, pool)));
    }
    awaitTrue("4 core + 16 overflow workers busy", () -> inBlockingCall.get() == 20);
    WaitPool.Stats during = pool.stats();
    assertEquals(44, during.pending(), "the rest queue for a free worker: " + during);
    release.countDown();
    for (Thread t : waiters) {
      t.join();
    }
    assertEquals(20, maxConcurrent.get(), "overflow is bounded");
    awaitTrue("every worker exited after the keep-alive", () -> pool.stats().live() == 0);
    awaitTrue(
        "no test-64 threads remain",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("test-64")));
  }

  @Test
  void idleWorkersAreReusedLastInFirstOut() throws Exception {
    WaitPool pool = new WaitPool("test-lifo", 2, 0, 60_000, 60_000);
    FakeWork a = new FakeWork();
    FakeWork b = new FakeWork();
    Thread ta =
        virtual(() -> CooperativeWait.await(a::poll, a::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("a with a worker", () -> a.blockedOn.get() != null);
    Thread tb =
        virtual(() -> CooperativeWait.await(b::poll, b::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("b with a worker", () -> b.blockedOn.get() != null);
    a.finish();
    ta.join();
    awaitTrue("a's worker idle", () -> pool.stats().idle() == 1);
    b.finish();
    tb.join();
    awaitTrue("both idle", () -> pool.stats().idle() == 2);
    FakeWork c = new FakeWork();
    Thread tc =
        virtual(() -> CooperativeWait.await(c::poll, c::block, WaitOptions.DEFAULT, null, pool));
    awaitTrue("c with a worker", () -> c.blockedOn.get() != null);
    assertSame(b.blockedOn.get(), c.blockedOn.get(), "the most recently idle worker is taken");
    c.finish();
    tc.join();
  }

  @Test
  void malformedWaitSettingsAreReportedByEveryUseNamingTheProperty() throws Exception {
    // A bad pool size fails the pool and every wait that would use it, naming the property.
    List<String> pool = childLines("-Dsirocco.wait.coreWorkers=9");
    for (String line : pool) {
      assertTrue(
          line.contains("IllegalArgumentException: ")
              && line.contains("sirocco.wait.coreWorkers")
              && line.contains("got 9"),
          line);
    }
    // Bad poll rounds leave the pool usable and fail each wait.
    List<String> rounds = childLines("-Dsirocco.wait.yieldRounds=lots");
    assertEquals(List.of("pool ok", "pool ok"), List.of(rounds.get(0), rounds.get(2)));
    for (String line : List.of(rounds.get(1), rounds.get(3))) {
      assertTrue(
          line.startsWith("wait IllegalArgumentException: ")
              && line.contains("-Dsirocco.wait.yieldRounds")
              && line.contains("'lots'"),
          line);
    }
  }

  private static List<String> childLines(String setting) throws Exception {
    ChildJvm.Result r = ChildJvm.run(List.of(setting), BadWaitSettingsMain.class, List.of(), 60);
    assertEquals(0, r.exitCode(), r.toString());
    List<String> lines = r.stdout().lines().toList();
    assertEquals(4, lines.size(), r.toString());
    return lines;
  }

  @Test
  void oneCarrierIsEnoughBothForDeviceWaitsAndPinnedBlockingCalls() throws Exception {
    for (String scenario : List.of("java", "pinned")) {
      ChildJvm.Result r =
          ChildJvm.run(
              List.of(
                  "-Djdk.virtualThreadScheduler.parallelism=1",
                  "-Djdk.virtualThreadScheduler.maxPoolSize=1",
                  "-Dsirocco.forceJava=true"),
              SingleCarrierMain.class,
              List.of(scenario),
              90);
      assertEquals(0, r.exitCode(), r.toString());
      assertTrue(r.stdout().contains("PASS " + scenario), r.toString());
      assertEquals("", r.stderr(), "nothing on stderr");
    }
  }
}
