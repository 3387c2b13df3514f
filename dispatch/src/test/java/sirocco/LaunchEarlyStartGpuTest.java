package sirocco;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import sirocco.dispatch.Internal;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.EarlyStartGpuTest;
import sirocco.runtime.testing.GpuTest;

/**
 * {@link Launch#earlyStart()} through the public API on the GPU, with the runtime test's kernels
 * ({@link EarlyStartGpuTest}): a consumer that waits reads only the slow producer's final values;
 * one that never waits is refused before anything runs.
 */
@GpuTest
public class LaunchEarlyStartGpuTest {
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
            Launch.of(EarlyStartGpuTest::produce)
                .grid(n / 256)
                .block(256)
                .args(buf, n, spins + round));
        rt.run(
            Launch.of(EarlyStartGpuTest::consume)
                .grid(n / 256)
                .block(256)
                .earlyStart()
                .args(buf, out, n));
        float[] got = rt.toFloats(out);
        for (int i = 0; i < n; i++) {
          float want = EarlyStartGpuTest.expected(i, spins + round);
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
                      Launch.of(EarlyStartGpuTest::consumeUnsafely)
                          .grid(1)
                          .block(32)
                          .earlyStart()
                          .args(buf, poisoned, 1)));
      assertTrue(e.getMessage().contains("waitForPriorGrids"), e.getMessage());
      assertEquals(-1f, rt.toFloats(poisoned)[0], "nothing ran");
    }
  }
}
