package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.testing.GpuTest;

/**
 * Host-side cost of the FFM launch path and of synchronize, measured on the GPU and printed for
 * bench/RESULTS.md. Not a timed assertion: the only checks are that the numbers exist and are
 * finite.
 */
@GpuTest
class LaunchOverheadGpuTest {
  private static String ptx(String name) throws IOException {
    try (InputStream in = LaunchOverheadGpuTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static double[] stats(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return new double[] {s[s.length / 2] / 1e3, s[s.length / 10] / 1e3, s[s.length * 9 / 10] / 1e3};
  }

  @Test
  void launchAndSynchronizeOverhead() throws Exception {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    CudaFunction f = d.loadPtx(ptx("/ptx/empty.ptx"), "empty");
    CudaStream s = d.defaultStream();
    DeviceBuffer buf = d.allocate(ElementType.F32, 1);
    Dim3 one = Dim3.of(1);
    for (int i = 0; i < 2000; i++) {
      d.launchFunction(f, one, one, 0, s, buf, 1);
    }
    s.synchronize();

    // Launch cost: batches of 256 launches (well under the driver's queue depth), synchronized
    // between
    // batches; only the launch calls are timed.
    int batches = 200;
    long[] perLaunch = new long[batches];
    for (int b = 0; b < batches; b++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 256; i++) {
        d.launchFunction(f, one, one, 0, s, buf, 1);
      }
      perLaunch[b] = (System.nanoTime() - t0) / 256;
      s.synchronize();
    }
    double[] launch = stats(perLaunch);

    // Raw cuLaunchKernel with the same prepared parameter block, to separate Sirocco's packing from
    // FFM.
    long[] rawLaunch = new long[batches];
    for (int b = 0; b < batches; b++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 256; i++) {
        Cu.launchKernel(f.handle(), 1, 1, 1, 1, 1, 1, 0, s.handle, s.argPointers);
      }
      rawLaunch[b] = (System.nanoTime() - t0) / 256;
      s.synchronize();
    }
    double[] raw = stats(rawLaunch);

    // Launch + synchronize round trip: Sirocco's synchronize (event + blocking-sync wait) against a
    // raw
    // cuStreamSynchronize, from a platform thread.
    int n = 2000;
    long[] ours = new long[n];
    long[] rawSync = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      d.launchFunction(f, one, one, 0, s, buf, 1);
      s.synchronize();
      ours[i] = System.nanoTime() - t0;
      t0 = System.nanoTime();
      d.launchFunction(f, one, one, 0, s, buf, 1);
      d.makeCurrent();
      Cu.streamSynchronize(s.handle);
      rawSync[i] = System.nanoTime() - t0;
    }
    double[] sync = stats(ours);
    double[] syncRaw = stats(rawSync);

    // The same round trip from a virtual thread (cooperative wait).
    long[] virt = new long[n];
    AtomicReference<Throwable> error = new AtomicReference<>();
    Thread vt =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    for (int i = 0; i < n; i++) {
                      long t0 = System.nanoTime();
                      d.launchFunction(f, one, one, 0, s, buf, 1);
                      s.synchronize();
                      virt[i] = System.nanoTime() - t0;
                    }
                  } catch (Throwable t) {
                    error.set(t);
                  }
                });
    vt.join();
    if (error.get() != null) {
      throw new AssertionError(error.get());
    }
    double[] sv = stats(virt);

    System.out.printf(
        "launch-overhead | Sirocco launchFunction host us/launch: p50 %.2f p10 %.2f p90 %.2f%n",
        launch[0], launch[1], launch[2]);
    System.out.printf(
        "launch-overhead | raw cuLaunchKernel via FFM host us/launch: p50 %.2f p10 %.2f p90 %.2f%n",
        raw[0], raw[1], raw[2]);
    System.out.printf(
        "launch-overhead | launch+synchronize (Sirocco, platform thread) us: p50 %.2f p10 %.2f p90 %.2f%n",
        sync[0], sync[1], sync[2]);
    System.out.printf(
        "launch-overhead | launch+cuStreamSynchronize (raw) us: p50 %.2f p10 %.2f p90 %.2f%n",
        syncRaw[0], syncRaw[1], syncRaw[2]);
    System.out.printf(
        "launch-overhead | launch+synchronize (Sirocco, virtual thread) us: p50 %.2f p10 %.2f p90 %.2f%n",
        sv[0], sv[1], sv[2]);
    assertTrue(Double.isFinite(launch[0]) && launch[0] > 0);
    buf.close();
  }
}
