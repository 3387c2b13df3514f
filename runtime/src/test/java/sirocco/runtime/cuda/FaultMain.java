package sirocco.runtime.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.WaitPool;

/**
 * Run in its own JVM (the error it provokes is sticky and ends the context): a virtual thread waits
 * on a stream whose second kernel stores to an invalid address; the wait has been handed to a wait
 * worker by then (the first kernel spins until the main thread sets a flag). Prints PASS and exits
 * 0 when the worker's {@link CudaException} came back to the virtual thread with its type, its
 * error name and the caller's stack attached; the JVM then exits with the context in an error
 * state, which must print nothing on stderr.
 */
public final class FaultMain {
  private static String ptx(String name) throws IOException {
    try (InputStream in = FaultMain.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  public static void main(String[] args) throws Exception {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    CudaFunction spin = d.loadPtx(ptx("/ptx/spin_on_flag.ptx"), "spin_on_flag");
    CudaFunction fault = d.loadPtx(ptx("/ptx/fault.ptx"), "fault");
    Stream s = d.newStream();
    MappedBuffer flag = d.allocateMapped(ElementType.I32, 1);
    DeviceBuffer out = d.allocate(ElementType.I32, 1, s);
    d.launchFunction(spin, Dim3.of(1), Dim3.of(1), 0, s, flag, out, 20_000_000_000L);
    d.launchFunction(fault, Dim3.of(1), Dim3.of(1), 0, s, 16L);
    AtomicReference<Throwable> caught = new AtomicReference<>();
    Thread vt =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    s.synchronize();
                  } catch (Throwable t) {
                    caught.set(t);
                  }
                });
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (WaitPool.shared().stats().busy() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(1);
    }
    boolean handedOff = WaitPool.shared().stats().busy() > 0;
    flag.setIntVolatile(0, 1);
    vt.join();
    Throwable t = caught.get();
    String verdict;
    if (!handedOff) {
      verdict = "FAIL the wait never reached a wait worker";
    } else if (!(t instanceof CudaException e)) {
      verdict = "FAIL expected a CudaException, got " + t;
    } else if (!e.errorName().equals("CUDA_ERROR_ILLEGAL_ADDRESS")
        && !e.errorName().equals("CUDA_ERROR_LAUNCH_FAILED")) {
      verdict = "FAIL unexpected error " + e.errorName() + ": " + e.getMessage();
    } else if (e.getSuppressed().length == 0) {
      verdict = "FAIL the caller's stack is not attached";
    } else {
      verdict = "PASS " + e.errorName() + " from " + e.call() + " rethrown in the virtual thread";
    }
    System.out.println(verdict);
    System.exit(verdict.startsWith("PASS") ? 0 : 1);
  }
}
