package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.ElementType;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.SingleCarrierMain;
import sirocco.runtime.sync.WaitCancelledException;
import sirocco.runtime.sync.WaitOptions;
import sirocco.runtime.sync.WaitPool;
import sirocco.runtime.testing.ChildJvm;
import sirocco.runtime.testing.GpuTest;
import sirocco.runtime.testing.StallDump;

/**
 * Cooperative waits on the GPU. The kernels here are hand-written PTX test fixtures (a flag spinner
 * with a 20 s give-up ({@link PtxSpinner}), a faulting store), so these run before the JIT is wired
 * into CUDA launches; the Java-kernel versions are in {@code CudaDeviceRuntimeGpuTest} and the
 * {@code cuda} scenario of {@link SingleCarrierMain}. No assertion is about elapsed time.
 */
@GpuTest
class CudaWaitGpuTest {
  private static CudaDevice device() {
    return (CudaDevice) Devices.cuda(0);
  }

  private static void awaitTrue(String what, java.util.function.BooleanSupplier c)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("never happened: " + what);
      }
      Thread.sleep(5);
    }
  }

  private static void oneCarrier(String scenario) throws Exception {
    ChildJvm.Result r =
        ChildJvm.run(
            List.of(
                "-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1"),
            SingleCarrierMain.class,
            List.of(scenario),
            120);
    System.out.println("single carrier " + scenario + ": " + r.stdout().strip());
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals("", r.stderr(), "nothing on stderr");
  }

  @Test
  void oneCarrierVirtualThreadsShareItWhileAKernelSpinsOnMappedMemory() throws Exception {
    oneCarrier("cuda-ptx");
  }

  @Test
  void oneCarrierWithTheJavaSpinKernel() throws Exception {
    // Needs the JIT wired into CudaKernels.launch.
    oneCarrier("cuda");
  }

  @Test
  void driverErrorsComeBackToTheVirtualThreadWithTheirType() throws Exception {
    ChildJvm.Result r = ChildJvm.run(List.of(), FaultMain.class, List.of(), 120);
    System.out.println("fault: " + r.stdout().strip());
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.stdout().contains("PASS"), r.toString());
    assertEquals("", r.stderr(), "exiting with a sticky error prints nothing");
  }

  @Test
  void eightStreamsOfShortWaitsBesideOneLongWaitAndACancelledOne() throws Exception {
    CudaDevice d = device();
    Stream longStream = d.newStream();
    // Streams first: cuStreamCreate may wait for running kernels (StreamCreationGpuTest).
    List<Stream> streams = new ArrayList<>();
    for (int v = 0; v < 8; v++) {
      streams.add(d.newStream());
    }
    PtxSpinner spinner = new PtxSpinner(longStream);
    Thread longWait = Thread.ofVirtual().start(longStream::synchronize);
    AtomicReference<Throwable> cancelled = new AtomicReference<>();
    Thread cancellable =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    longStream.synchronize(WaitOptions.DEFAULT.withCancellable(true));
                  } catch (Throwable t) {
                    cancelled.set(t);
                  }
                });
    List<Thread> shorts = new ArrayList<>();
    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicInteger done = new AtomicInteger();
    AtomicReference<long[]> slowest = new AtomicReference<>(new long[4]);
    long shortsStart = System.nanoTime();
    for (Stream s : streams) {
      shorts.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      float[] data = new float[4096];
                      for (int i = 0; i < 10; i++) {
                        long t0 = System.nanoTime();
                        try (DeviceBuffer a = d.allocate(ElementType.F32, 4096, s);
                            DeviceBuffer b = d.allocate(ElementType.F32, 4096, s)) {
                          long t1 = System.nanoTime();
                          d.upload(data, 0, a, 0, 4096, s);
                          long t2 = System.nanoTime();
                          d.copy(a, 0, b, 0, 4096, s);
                          s.synchronize(WaitOptions.DEFAULT.withSpin(i % 2 == 0));
                          long t3 = System.nanoTime();
                          // Where a short wait got stuck behind the long kernel, if one did.
                          slowest.accumulateAndGet(
                              new long[] {t3 - t0, t1 - t0, t2 - t1, t3 - t2},
                              (x, y) -> x[0] >= y[0] ? x : y);
                        }
                        done.incrementAndGet();
                      }
                    } catch (Throwable t) {
                      error.set(t);
                    }
                  }));
    }
    try (StallDump watch = StallDump.after(5, "8x10 short waits beside one long wait")) {
      for (Thread t : shorts) {
        t.join();
      }
    }
    long[] w = slowest.get();
    System.out.printf(
        "8x10 short waits: %.1f ms in all; slowest round %.1f ms (allocate %.1f, upload %.1f,"
            + " copy + synchronize %.1f)%n",
        (System.nanoTime() - shortsStart) / 1e6, w[0] / 1e6, w[1] / 1e6, w[2] / 1e6, w[3] / 1e6);
    assertNull(error.get());
    assertEquals(80, done.get());
    assertTrue(longWait.isAlive(), "the long wait is still outstanding");
    cancellable.interrupt();
    cancellable.join();
    assertInstanceOf(WaitCancelledException.class, cancelled.get());
    assertFalse(longStream.isIdle(), "the kernel still spins");
    assertEquals(1, spinner.finish(), "the kernel saw the flag");
    longWait.join();
    WaitPool.Stats s = WaitPool.shared().stats();
    System.out.println("wait pool after 8x10 beside one long wait: " + s);
  }

  @Test
  void sixtyFourContextWideWaitsLeaveNoOverflowThreadsBehind() throws Exception {
    CudaDevice d = device();
    Stream s = d.newStream();
    PtxSpinner spinner = new PtxSpinner(s);
    List<Thread> waiters = new ArrayList<>();
    AtomicReference<Throwable> error = new AtomicReference<>();
    for (int i = 0; i < 64; i++) {
      waiters.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      d.contextSynchronize(WaitOptions.DEFAULT);
                    } catch (Throwable t) {
                      error.set(t);
                    }
                  }));
    }
    awaitTrue(
        "every context-wide wait is with a worker or queued",
        () -> {
          WaitPool.Stats st = WaitPool.shared().stats();
          return st.busy() + st.pending() >= 64;
        });
    WaitPool.Stats during = WaitPool.shared().stats();
    System.out.println("wait pool with 64 context-wide waits: " + during);
    assertTrue(during.liveCore() <= WaitPool.MAX_CORE_WORKERS, during.toString());
    assertEquals(1, spinner.finish());
    for (Thread t : waiters) {
      t.join();
    }
    assertNull(error.get());
    awaitTrue(
        "overflow workers exit after their keep-alive",
        () -> WaitPool.shared().stats().liveOverflow() == 0);
    awaitTrue(
        "no overflow thread remains",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("sirocco-wait-overflow")));
  }
}
