package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * Early-start launches (programmatic dependent launch) on a real GPU: a consumer launched early
 * right after a slow producer that releases it at once still reads only the producer's final
 * values, launch after launch and in a replayed graph; a kernel that never waits is refused.
 */
@GpuTest
public class EarlyStartGpuTest {
  /** {@code buf[i]} = an LCG run {@code spins} steps from {@code i}, low 16 bits, as a float. */
  public static void produce(KernelContext ctx, float[] buf, int n, int spins) {
    ctx.releaseDependentGrids(); // the consumer may become resident from here on
    int i = ctx.globalIdx;
    int x = i;
    for (int s = 0; s < spins; s++) {
      x = x * 1664525 + 1013904223;
    }
    if (i < n) {
      buf[i] = (float) (x & 0xFFFF);
    }
  }

  /** {@code out[i] = buf[i] + 1}, after the producer has finished. */
  public static void consume(KernelContext ctx, float[] buf, float[] out, int n) {
    int i = ctx.globalIdx;
    ctx.waitForPriorGrids();
    if (i < n) {
      out[i] = buf[i] + 1f;
    }
  }

  /** Like {@link #consume} without the wait: must not be launched early. */
  public static void consumeUnsafely(KernelContext ctx, float[] buf, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = buf[i] + 1f;
    }
  }

  private static Method kernel(String name) {
    for (Method m : EarlyStartGpuTest.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException(name);
  }

  /** The value {@link #produce} writes at {@code i}, plus one, computed on the host. */
  public static float expected(int i, int spins) {
    int x = i;
    for (int s = 0; s < spins; s++) {
      x = x * 1664525 + 1013904223;
    }
    return (float) (x & 0xFFFF) + 1f;
  }

  private static final int N = 1 << 18;
  private static final Dim3 GRID = Dim3.of(N / 256);
  private static final Dim3 BLOCK = Dim3.of(256);

  private static void queue(
      CudaDevice d, CudaStream s, DeviceBuffer buf, DeviceBuffer out, int spins) {
    int nan = Float.floatToRawIntBits(Float.NaN);
    d.fill32(buf, 0, N, nan, s); // poison: a read before the producer's store sees NaN
    d.fill32(out, 0, N, nan, s);
    d.launch(KernelLaunch.of(kernel("produce"), GRID, BLOCK, buf, N, spins), s);
    d.launch(KernelLaunch.of(kernel("consume"), GRID, BLOCK, buf, out, N).withEarlyStart(true), s);
  }

  private static void check(CudaDevice d, CudaStream s, DeviceBuffer out, int spins, String what) {
    float[] got = new float[N];
    d.download(out, 0, got, 0, N, s);
    s.synchronize();
    for (int i = 0; i < N; i++) {
      if (got[i] != expected(i, spins)) {
        assertEquals(expected(i, spins), got[i], what + ": element " + i);
      }
    }
  }

  @Test
  void anEarlyConsumerReadsOnlyTheProducersFinalValues() {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    assumeTrue(d.supportsEarlyStart(), "early start needs sm_90+ and cuLaunchKernelEx");
    CudaStream s = d.newStream();
    try (DeviceBuffer buf = d.allocate(ElementType.F32, N);
        DeviceBuffer out = d.allocate(ElementType.F32, N)) {
      for (int round = 0; round < 12; round++) {
        int spins = 1 + round * 700; // from nothing to work that outlasts the consumer's launch
        queue(d, s, buf, out, spins);
        check(d, s, out, spins, "round " + round + " (" + spins + " spins)");
      }
      // Captured: the graph keeps the programmatic edge; every replay is checked.
      int spins = 5000;
      queue(d, s, buf, out, spins); // compiles and loads both kernels before capture
      s.synchronize();
      CudaGraph g = CudaGraph.capture(s, () -> queue(d, s, buf, out, spins));
      try (g) {
        for (int r = 0; r < 8; r++) {
          d.fill32(out, 0, N, 0, s);
          g.launch(s);
          check(d, s, out, spins, "graph replay " + r);
        }
      }
    }
  }

  @Test
  void aKernelThatNeverWaitsIsRefusedAndNothingRuns() {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    assumeTrue(d.supportsEarlyStart(), "early start needs sm_90+ and cuLaunchKernelEx");
    try (DeviceBuffer buf = d.allocate(ElementType.F32, N);
        DeviceBuffer out = d.allocate(ElementType.F32, N)) {
      d.fill32(buf, 0, N, Float.floatToRawIntBits(3f), d.defaultStream());
      d.fill32(out, 0, N, Float.floatToRawIntBits(-1f), d.defaultStream());
      KernelLaunch unsafe =
          KernelLaunch.of(kernel("consumeUnsafely"), GRID, BLOCK, buf, out, N).withEarlyStart(true);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> d.launch(unsafe));
      assertTrue(e.getMessage().contains("waitForPriorGrids"), e.getMessage());
      float[] got = new float[N];
      d.download(out, 0, got, 0, N, d.defaultStream());
      d.synchronize();
      assertEquals(-1f, got[0]);
      assertEquals(-1f, got[N - 1]);
      // The same kernel without early start runs as usual.
      d.launch(unsafe.withEarlyStart(false));
      d.download(out, 0, got, 0, N, d.defaultStream());
      d.synchronize();
      assertEquals(4f, got[N - 1]);
    }
  }
}
