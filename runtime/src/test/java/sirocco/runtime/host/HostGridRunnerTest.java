package sirocco.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.api.Bf16;
import sirocco.runtime.Dim3;
import sirocco.runtime.KernelExecutionException;

class HostGridRunnerTest {
  private static Method kernel(String name) {
    for (Method m : HostTestKernels.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new AssertionError(name);
  }

  @Test
  void blockReductionMatchesFloat64Sum() {
    int blocks = 7;
    SplittableRandom rnd = new SplittableRandom(1);
    float[] in = new float[blocks * 256];
    for (int i = 0; i < in.length; i++) {
      in[i] = (float) rnd.nextDouble(-1, 1);
    }
    float[] out = new float[blocks];
    Arrays.fill(out, Float.NaN);
    HostGridRunner.run(kernel("blockSum"), Dim3.of(blocks), Dim3.of(256), in, out);
    for (int b = 0; b < blocks; b++) {
      double ref = 0;
      for (int i = 0; i < 256; i++) {
        ref += in[b * 256 + i];
      }
      assertEquals(ref, out[b], 1e-4, "block " + b);
    }
  }

  @Test
  void blockPrefixSumIsExact() {
    int blocks = 3;
    SplittableRandom rnd = new SplittableRandom(2);
    int[] in = new int[blocks * 256];
    for (int i = 0; i < in.length; i++) {
      in[i] = rnd.nextInt(-1000, 1000);
    }
    int[] out = new int[in.length];
    Arrays.fill(out, Integer.MIN_VALUE);
    HostGridRunner.run(kernel("blockScan"), Dim3.of(blocks), Dim3.of(256), in, out);
    for (int b = 0; b < blocks; b++) {
      int acc = 0;
      for (int i = 0; i < 256; i++) {
        acc += in[b * 256 + i];
        assertEquals(acc, out[b * 256 + i], "element " + i + " of block " + b);
      }
    }
  }

  @Test
  void warpShufflesExchangeAcrossLanes() {
    int n = 128;
    float[] in = new float[n];
    SplittableRandom rnd = new SplittableRandom(3);
    for (int i = 0; i < n; i++) {
      in[i] = rnd.nextInt(0, 50); // small integers: float sums are exact in any order
    }
    float[] out = new float[4 * n];
    Arrays.fill(out, Float.NaN);
    HostGridRunner.run(kernel("warpOps"), Dim3.of(2), Dim3.of(64), in, out);
    for (int i = 0; i < n; i++) {
      int warpBase = i & ~31;
      int lane = i & 31;
      float all = 0;
      for (int l = 0; l < 32; l++) {
        all += in[warpBase + l];
      }
      assertEquals(all, out[4 * i], "xor all-reduce at " + i);
      if (lane == 0) {
        assertEquals(all, out[4 * i + 1], "down-reduce lands in lane 0");
      }
      float scan = 0;
      for (int l = 0; l <= lane; l++) {
        scan += in[warpBase + l];
      }
      assertEquals(scan, out[4 * i + 2], "up-scan at " + i);
      assertEquals(in[warpBase + 5], out[4 * i + 3], "broadcast of lane 5 at " + i);
    }
  }

  @Test
  void missingBarrierIsObservableAndBarrierFixesIt() {
    int[] out = new int[256];
    HostGridRunner.run(kernel("neighbourNoBarrier"), Dim3.of(1), Dim3.of(256), (Object) out);
    long wrong = 0;
    for (int t = 0; t < 256; t++) {
      if (out[t] != ((t + 1) & 255)) {
        wrong++;
      }
    }
    assertTrue(wrong > 0, "without a barrier some thread must read a slot not yet written");

    int[] fixed = new int[256];
    HostGridRunner.run(kernel("neighbourWithBarrier"), Dim3.of(1), Dim3.of(256), (Object) fixed);
    for (int t = 0; t < 256; t++) {
      assertEquals((t + 1) & 255, fixed[t]);
    }
  }

  @Test
  void threadExceptionNamesBlockAndThread() {
    int[] out = new int[100];
    KernelExecutionException e =
        assertThrows(
            KernelExecutionException.class,
            () -> HostGridRunner.run(kernel("outOfRange"), Dim3.of(4), Dim3.of(32), out, 100));
    assertInstanceOf(ArrayIndexOutOfBoundsException.class, e.getCause());
    assertTrue(e.getMessage().contains("block (3, 0, 0) thread (4, 0, 0)"), e.getMessage());
  }

  @Test
  void splitBarriersAreReportedAsDeadlock() {
    String old = System.setProperty("sirocco.host.barrierTimeoutMs", "300");
    try {
      KernelExecutionException e =
          assertThrows(
              KernelExecutionException.class,
              () ->
                  HostGridRunner.run(
                      kernel("splitBarriers"), Dim3.of(1), Dim3.of(32), (Object) new int[32]));
      assertTrue(e.getMessage().contains("different barrier"), e.getMessage());
    } finally {
      if (old == null) {
        System.clearProperty("sirocco.host.barrierTimeoutMs");
      } else {
        System.setProperty("sirocco.host.barrierTimeoutMs", old);
      }
    }
  }

  @Test
  void atomicsAreAtomicAcrossBlocks() {
    int[] counter = {0};
    float[] sum = {0};
    int[] max = {-1};
    HostGridRunner.run(kernel("atomics"), Dim3.of(16), Dim3.of(64), counter, sum, max);
    assertEquals(1024, counter[0]);
    assertEquals(512f, sum[0]);
    assertEquals(1023, max[0]);
  }

  @Test
  void mmaFollowsThePtxFragmentLayout() {
    SplittableRandom rnd = new SplittableRandom(4);
    short[] a = new short[256];
    short[] b = new short[128];
    float[] c = new float[128];
    for (int i = 0; i < a.length; i++) {
      a[i] = Bf16.fromFloat((float) rnd.nextDouble(-2, 2));
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = Bf16.fromFloat((float) rnd.nextDouble(-2, 2));
      c[i] = (float) rnd.nextDouble(-1, 1);
    }
    float[] d = new float[128];
    Arrays.fill(d, Float.NaN);
    HostGridRunner.run(kernel("mma"), Dim3.of(1), Dim3.of(32), a, b, c, d);
    for (int m = 0; m < 16; m++) {
      for (int n = 0; n < 8; n++) {
        double ref = c[m * 8 + n];
        for (int k = 0; k < 16; k++) {
          ref += (double) Bf16.toFloat(a[m * 16 + k]) * Bf16.toFloat(b[k * 8 + n]);
        }
        assertEquals(ref, d[m * 8 + n], 1e-5, "d[" + m + "][" + n + "]");
      }
    }
  }

  @Test
  void matrixLoadsGiveTheMmaFragments() {
    SplittableRandom rnd = new SplittableRandom(5);
    short[] a = new short[256];
    short[] bt = new short[128];
    float[] c = new float[128];
    for (int i = 0; i < a.length; i++) {
      a[i] = Bf16.fromFloat((float) rnd.nextDouble(-2, 2));
    }
    for (int i = 0; i < bt.length; i++) {
      bt[i] = Bf16.fromFloat((float) rnd.nextDouble(-2, 2));
      c[i] = (float) rnd.nextDouble(-1, 1);
    }
    float[] d = new float[128];
    Arrays.fill(d, Float.NaN);
    assertTrue(KernelFeatures.synchronizesThreads(kernel("matrixMma")));
    HostGridRunner.run(kernel("matrixMma"), Dim3.of(1), Dim3.of(32), a, bt, c, d);
    for (int m = 0; m < 16; m++) {
      for (int n = 0; n < 8; n++) {
        double ref = c[m * 8 + n];
        for (int k = 0; k < 16; k++) {
          ref += (double) Bf16.toFloat(a[m * 16 + k]) * Bf16.toFloat(bt[n * 16 + k]);
        }
        assertEquals(ref, d[m * 8 + n], 1e-5, "d[" + m + "][" + n + "]");
      }
    }
  }

  @Test
  void matrixLoadsRefuseMisalignedIndicesAndGlobalArrays() {
    int[] out = new int[32];
    Throwable e =
        assertThrows(
            RuntimeException.class,
            () -> HostGridRunner.run(kernel("matrixAt"), Dim3.of(1), Dim3.of(32), 6, out));
    assertTrue(rootMessage(e).contains("passed index 6; expected a multiple of 4"), rootMessage(e));
    e =
        assertThrows(
            RuntimeException.class,
            () -> HostGridRunner.run(kernel("matrixAt"), Dim3.of(1), Dim3.of(32), 64, out));
    assertTrue(rootMessage(e).contains("index + 4 <= 64"), rootMessage(e));
    e =
        assertThrows(
            RuntimeException.class,
            () ->
                HostGridRunner.run(
                    kernel("matrixFromGlobal"), Dim3.of(1), Dim3.of(32), new int[64], out));
    assertTrue(rootMessage(e).contains("ctx.allocateIntLocalArray"), rootMessage(e));
  }

  private static String rootMessage(Throwable e) {
    while (e.getCause() != null) {
      e = e.getCause();
    }
    return e.getMessage();
  }

  @Test
  void kernelsWithoutSynchronizationRunSequentially() {
    assertFalse(KernelFeatures.synchronizesThreads(kernel("axpy")));
    assertTrue(KernelFeatures.synchronizesThreads(kernel("blockSum")));
    assertTrue(KernelFeatures.synchronizesThreads(kernel("warpOps")));
    int n = 1000;
    float[] x = new float[n];
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = i;
      y[i] = 1;
    }
    HostGridRunner.run(kernel("axpy"), Dim3.of(4), Dim3.of(256), x, y, 2f, n);
    for (int i = 0; i < n; i++) {
      assertEquals(2f * i + 1, y[i]);
    }
  }

  @Test
  void badArgumentsAreRejectedBeforeRunning() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                HostGridRunner.run(
                    kernel("axpy"), Dim3.of(1), Dim3.of(32), new float[4], new int[4], 1f, 4));
    assertTrue(e.getMessage().contains("argument 2"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            HostGridRunner.run(
                kernel("axpy"), Dim3.of(1), Dim3.of(2048), new float[4], new float[4], 1f, 4));
  }
}
