package sirocco.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import sirocco.Backend;
import sirocco.Sirocco;
import sirocco.dispatch.Internal;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.WaitKernels;
import sirocco.runtime.sync.WaitPool;

/**
 * One exit variant, run by {@link ExitVariants} in its own JVM: {@code ExitVariantChild VARIANT
 * BACKEND LONG_MS WORK}. It queues long device work (a busy-wait kernel of LONG_MS, or with WORK =
 * {@code copy} a chain of large device copies, CUDA only), then leaves the JVM the way the variant
 * says while that work is still running. It prints progress markers on stdout (the parent waits for
 * {@code RUNNING} before sending SIGTERM) and, by design, nothing on stderr: anything there means
 * Sirocco printed something while the JVM went down.
 */
public final class ExitVariantChild {
  private final Backend backend;
  private final long longMillis;
  private final boolean copies;
  private final PrintStream out = System.out;

  private ExitVariantChild(Backend backend, long longMillis, boolean copies) {
    this.backend = backend;
    this.longMillis = longMillis;
    this.copies = copies;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.out.println("usage: ExitVariantChild VARIANT java|cuda LONG_MS kernel|copy");
      System.exit(2);
    }
    Backend b = Backend.valueOf(args[1].toUpperCase(java.util.Locale.ROOT));
    new ExitVariantChild(b, Long.parseLong(args[2]), args[3].equals("copy")).run(args[0]);
  }

  private Device device() {
    return backend == Backend.CUDA ? Devices.cuda(0) : Devices.java();
  }

  private DeviceBuffer copyA;
  private DeviceBuffer copyB;

  /** Queues the long work on {@code s} and returns without waiting. */
  private void longWork(Device d, Stream s) {
    longWork(d, s, 1);
  }

  /**
   * Queues the long work on {@code s}; with copies, {@code share} streams split one LONG_MS of
   * copies between them.
   */
  private synchronized void longWork(Device d, Stream s, int share) {
    if (copies) {
      // Copies between two 256 MiB buffers shared by every stream of the process (so 16 processes
      // at once need 8 GiB): 8 per millisecond of LONG_MS, roughly LONG_MS on an H200 (a 256 MiB
      // device-to-device copy moves 512 MiB, about 0.13 ms at 4 TB/s). Approximate by design.
      long n = 1L << 26;
      if (copyA == null) {
        copyA = d.allocate(ElementType.F32, n, d.defaultStream());
        copyB = d.allocate(ElementType.F32, n, d.defaultStream());
        d.defaultStream().synchronize();
      }
      for (long i = 0; i < Math.max(1, 8 * longMillis / share); i++) {
        d.copy(copyA, 0, copyB, 0, n, s);
      }
      return;
    }
    DeviceBuffer out = d.allocate(ElementType.I32, 1, s);
    d.launch(
        KernelLaunch.of(
            WaitKernels.busyWaitKernel(), Dim3.of(1), Dim3.of(1), out, longMillis * 1_000_000L),
        s);
    d.releaseAfter(s, out);
  }

  /** The public API's path: Sirocco.open, its stream, a tensor, long work. */
  private Sirocco openAndQueue() {
    Sirocco rt = Sirocco.open(backend);
    var bridge = Internal.bridge();
    rt.fromFloats(new float[1024]);
    longWork(bridge.device(rt), bridge.stream(rt));
    return rt;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Thread platform(String name, Runnable r) {
    return Thread.ofPlatform().name(name).start(r);
  }

  private void run(String variant) throws Exception {
    switch (variant) {
      case "default-return" -> {
        openAndQueue();
        out.println("RUNNING");
        // return from main with the work in flight
      }
      case "default-exit" -> {
        openAndQueue();
        out.println("RUNNING");
        System.exit(3);
      }
      case "thread-exit" -> {
        Thread t =
            platform(
                "exiter",
                () -> {
                  openAndQueue();
                  out.println("RUNNING");
                  System.exit(3);
                });
        t.join();
        sleep(60_000); // never reached in a correct run: the other thread exits the JVM
      }
      case "main-op-thread-exit" -> {
        Sirocco rt = openAndQueue();
        CountDownLatch waiting = new CountDownLatch(1);
        platform(
            "exiter",
            () -> {
              try {
                waiting.await();
              } catch (InterruptedException e) {
                return;
              }
              sleep(100);
              System.exit(3);
            });
        out.println("RUNNING");
        waiting.countDown();
        rt.synchronize(); // waiting on the long work when the other thread exits
        sleep(60_000);
      }
      case "stream-return" -> {
        Device d = device();
        Stream s = d.newStream();
        longWork(d, s);
        out.println("RUNNING");
      }
      case "stream-thread-exit" -> {
        Thread t =
            platform(
                "exiter",
                () -> {
                  Device d = device();
                  Stream s = d.newStream();
                  longWork(d, s);
                  out.println("RUNNING");
                  System.exit(3);
                });
        t.join();
        sleep(60_000);
      }
      case "virtual-wait-exit" -> {
        Device d = device();
        Stream s = d.newStream();
        longWork(d, s);
        Thread.ofVirtual().name("waiter").start(s::synchronize);
        // Exit once the virtual thread's wait has been handed to a wait worker.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (WaitPool.shared().stats().busy() == 0 && System.nanoTime() - deadline < 0) {
          sleep(1);
        }
        out.println("RUNNING");
        System.exit(3);
      }
      case "many-waiters-exit" -> {
        Device d = device();
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
          Stream s = d.newStream();
          longWork(d, s, 64);
          streams.add(s);
        }
        for (Stream s : streams) {
          Thread.ofVirtual().start(s::synchronize);
        }
        sleep(200);
        out.println("RUNNING");
        System.exit(3);
      }
      case "sigterm" -> {
        Sirocco rt = openAndQueue();
        out.println("RUNNING");
        out.flush();
        rt.synchronize(); // the parent sends SIGTERM now
        sleep(60_000);
      }
      case "halt" -> {
        openAndQueue();
        out.println("RUNNING");
        Runtime.getRuntime().halt(3);
      }
      case "cleaner-exit" -> {
        Device d = device();
        Stream s = d.newStream();
        longWork(d, s);
        for (int i = 0; i < 2000; i++) {
          d.allocate(ElementType.F32, 1024, s); // dropped: freed by cleaners, racing the exit
        }
        System.gc();
        out.println("RUNNING");
        System.exit(3);
      }
      case "completion-exit" -> {
        Device d = device();
        Stream s = d.newStream();
        longWork(d, s);
        for (int i = 0; i < 100; i++) {
          d.releaseAfter(s, d.allocate(ElementType.F32, 1024, s));
        }
        sleep(50);
        out.println("RUNNING");
        System.exit(3);
      }
      default -> {
        out.println("unknown variant " + variant);
        System.exit(2);
      }
    }
  }
}
