package sirocco;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.dispatch.Internal;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.testing.GpuTest;

/**
 * {@link Launch#earlyStart()} through the public API on the GPU: a consumer that waits reads only
 * the slow producer's final values; one that never waits is refused before anything runs.
 */
@GpuTest
public class LaunchEarlyStartGpuTest {
  /** {@code buf[i]} = an LCG run {@code spins} steps from {@code i}, low 16 bits. */
  public static void produce(KernelContext ctx, float[] buf, int n, int spins) { // [n]
    ctx.releaseDependentGrids();
    int i = ctx.globalIdx;
    int x = i;
    for (int s = 0; s < spins; s++) {
      x = x * 1664525 + 1013904223;
    }
    if (i < n) {
      buf[i] = (float) (x & 0xFFFF);
    }
  }

  /** {@code out[i] = buf[i] + 1} once the producer has finished. */
  public static void consume(KernelContext ctx, float[] buf, float[] out, int n) { // [n] each
    int i = ctx.globalIdx;
    ctx.waitForPriorGrids();
    if (i < n) {
      out[i] = buf[i] + 1f;
    }
  }

  /** The same without the wait. */
  public static void consumeUnsafely(KernelContext ctx, float[] buf, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = buf[i] + 1f;
    }
  }

  @Test
  void anEarlyConsumerSeesTheProducersValuesAndANonWaitingOneIsRefused() {
    int n = 1 << 18;
    int spins = 3000;
    try (Sirocco rt = Sirocco.open(Backend.CUDA)) {
      assumeTrue(
          ((CudaDevice) Internal.bridge().device(rt)).supportsEarlyStart(),
          "early start needs sm_90+ and cuLaunchKernelEx: " + rt.describe());
      Tensor buf = rt.fromFloats(new float[n]);
      Tensor out = rt.fromFloats(new float[n]);
      for (int round = 0; round < 4; round++) {
        rt.run(
            Launch.of(LaunchEarlyStartGpuTest::produce)
                .grid(n / 256)
                .block(256)
                .args(buf, n, spins + round));
        rt.run(
            Launch.of(LaunchEarlyStartGpuTest::consume)
                .grid(n / 256)
                .block(256)
                .earlyStart()
                .args(buf, out, n));
        float[] got = rt.toFloats(out);
        for (int i = 0; i < n; i++) {
          int x = i;
          for (int s = 0; s < spins + round; s++) {
            x = x * 1664525 + 1013904223;
          }
          float want = (float) (x & 0xFFFF) + 1f;
          if (got[i] != want) {
            assertEquals(want, got[i], "round " + round + ", element " + i);
          }
        }
      }
      Tensor poisoned = rt.fromFloats(new float[] {-1f});
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  rt.run(
                      Launch.of(LaunchEarlyStartGpuTest::consumeUnsafely)
                          .grid(1)
                          .block(32)
                          .earlyStart()
                          .args(buf, poisoned, 1)));
      assertTrue(e.getMessage().contains("waitForPriorGrids"), e.getMessage());
      assertEquals(-1f, rt.toFloats(poisoned)[0], "nothing ran");
    }
  }
}
