package sirocco.runtime.sync;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.CudaFunction;
import sirocco.runtime.host.HostDevice;

/**
 * Run in a JVM with one carrier thread ({@code -Djdk.virtualThreadScheduler.parallelism=1
 * -Djdk.virtualThreadScheduler.maxPoolSize=1}). Virtual thread A waits for work that only virtual
 * thread B, on the same carrier, can finish; B waits until A's wait has been handed to a wait
 * worker (so the carrier really was given back), then finishes it. Prints PASS and exits 0, or
 * prints FAIL and the reason and exits 1. Scenarios:
 *
 * <ul>
 *   <li>{@code java} / {@code cuda}: A launches {@link WaitKernels#spinOnFlag} on the device and
 *       synchronizes its stream; B sets the flag in mapped host memory. The kernel gives up after
 *       20 s, so a regression fails instead of hanging. {@code cuda-ptx}: the same with a
 *       hand-written PTX spin kernel (runs before the JIT is wired into CUDA launches).
 *   <li>{@code pinned}: A waits through {@link CooperativeWait} on a blocking call that pins its
 *       thread (a native {@code usleep} loop), as a driver call would; B sets the condition.
 * </ul>
 */
public final class SingleCarrierMain {
  private static final long GIVE_UP_NANOS = 20_000_000_000L;

  public static void main(String[] args) throws Throwable {
    String scenario = args.length > 0 ? args[0] : "java";
    int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism", -1);
    if (carriers != 1) {
      System.out.println("FAIL: needs -Djdk.virtualThreadScheduler.parallelism=1, got " + carriers);
      System.exit(1);
    }
    String failure =
        switch (scenario) {
          case "java" -> device(new HostDevice());
          case "cuda" -> device(Devices.cuda(0));
          case "cuda-ptx" -> device(Devices.cuda(0), ptxSpin());
          case "pinned" -> pinned();
          default -> "unknown scenario " + scenario;
        };
    if (failure == null) {
      System.out.println("PASS " + scenario);
      System.exit(0);
    }
    System.out.println("FAIL " + scenario + ": " + failure);
    System.exit(1);
  }

  /**
   * B's side: wait until A's wait is with a worker, then act. B parks between looks (which gives
   * the carrier back as yielding did): a yield loop took the pool's lock for {@code stats()} back
   * to back, and the non-fair lock could then keep the worker that must take it to count itself
   * busy waiting for 15 s on a loaded two-core machine (CI, 2026-12-06: "A's wait never reached a
   * wait worker" with the kernel then seeing the flag).
   */
  private static boolean awaitHandOff(WaitPool pool) {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (pool.stats().busy() == 0) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(200_000);
    }
    return true;
  }

  /** Launches the spin kernel on a stream. */
  interface SpinLauncher {
    void launch(Device d, MappedBuffer flag, DeviceBuffer out, Stream s);
  }

  private static SpinLauncher ptxSpin() throws java.io.IOException {
    String ptx;
    try (var in = SingleCarrierMain.class.getResourceAsStream("/ptx/spin_on_flag.ptx")) {
      ptx = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    CudaDevice cuda = (CudaDevice) Devices.cuda(0);
    CudaFunction f = cuda.loadPtx(ptx, "spin_on_flag");
    return (d, flag, out, s) ->
        cuda.launchFunction(f, Dim3.of(1), Dim3.of(1), 0, s, flag, out, GIVE_UP_NANOS);
  }

  private static String device(Device d) throws InterruptedException {
    return device(
        d,
        (dev, flag, out, s) ->
            dev.launch(
                KernelLaunch.of(
                    WaitKernels.spinOnFlagKernel(),
                    Dim3.of(1),
                    Dim3.of(1),
                    flag,
                    out,
                    GIVE_UP_NANOS),
                s));
  }

  private static String device(Device d, SpinLauncher spin) throws InterruptedException {
    MappedBuffer flag = d.allocateMapped(ElementType.I32, 1);
    DeviceBuffer out = d.allocate(ElementType.I32, 1);
    Stream s = d.newStream();
    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicBoolean handOffSeen = new AtomicBoolean();
    CountDownLatch launched = new CountDownLatch(1);
    Thread a =
        Thread.ofVirtual()
            .name("A")
            .start(
                () -> {
                  try {
                    spin.launch(d, flag, out, s);
                    launched.countDown();
                    s.synchronize();
                  } catch (Throwable t) {
                    error.set(t);
                    launched.countDown();
                  }
                });
    Thread b =
        Thread.ofVirtual()
            .name("B")
            .start(
                () -> {
                  try {
                    launched.await();
                    Thread.yield();
                    handOffSeen.set(awaitHandOff(WaitPool.shared()));
                    flag.setIntVolatile(0, 1);
                  } catch (Throwable t) {
                    error.set(t);
                  }
                });
    a.join();
    b.join();
    if (error.get() != null) {
      error.get().printStackTrace(System.out);
      return "error: " + error.get();
    }
    int[] result = new int[1];
    d.download(out, 0, result, 0, 1, s);
    if (result[0] != WaitKernels.FLAG_SEEN) {
      return "the kernel gave up (result " + result[0] + "): B never ran while A waited";
    }
    if (!handOffSeen.get()) {
      return "A's wait never reached a wait worker";
    }
    return null;
  }

  private static String pinned() throws Throwable {
    MethodHandle usleep =
        Linker.nativeLinker()
            .downcallHandle(
                Linker.nativeLinker().defaultLookup().find("usleep").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    AtomicBoolean done = new AtomicBoolean();
    AtomicBoolean gaveUp = new AtomicBoolean();
    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicBoolean handOffSeen = new AtomicBoolean();
    Runnable blocking =
        () -> {
          // A native sleep loop: whichever thread runs this cannot unmount, as in a driver call.
          long deadline = System.nanoTime() + GIVE_UP_NANOS;
          while (!done.get()) {
            if (System.nanoTime() - deadline > 0) {
              gaveUp.set(true);
              return;
            }
            try {
              int rc = (int) usleep.invokeExact(1000);
            } catch (Throwable t) {
              throw new IllegalStateException(t);
            }
          }
        };
    Thread a =
        Thread.ofVirtual()
            .name("A")
            .start(
                () -> {
                  try {
                    CooperativeWait.await(done::get, blocking);
                  } catch (Throwable t) {
                    error.set(t);
                  }
                });
    Thread b =
        Thread.ofVirtual()
            .name("B")
            .start(
                () -> {
                  Thread.yield();
                  handOffSeen.set(awaitHandOff(WaitPool.shared()));
                  done.set(true);
                });
    a.join();
    b.join();
    if (error.get() != null) {
      return "error: " + error.get();
    }
    if (gaveUp.get()) {
      return "the blocking call gave up: B never ran while A waited";
    }
    if (!handOffSeen.get()) {
      return "A's wait never reached a wait worker";
    }
    return null;
  }
}
