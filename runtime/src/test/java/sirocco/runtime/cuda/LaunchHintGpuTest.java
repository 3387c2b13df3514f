package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * The occupancy hint on the GPU: a hinted launch loads its own variant (the driver accepts {@code
 * .maxntid}/{@code .minnctapersm} and the launch's block fits it), computes the same result, and
 * the driver's compiler keeps the registers within what the hint allows.
 */
@GpuTest
class LaunchHintGpuTest {
  @Test
  void aHintedLaunchIsItsOwnVariantWithTheSameResult() throws Exception {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    Method m = null;
    for (Method c : KernelVariantKeyTest.class.getMethods()) {
      if (c.getName().equals("scaled")) {
        m = c;
      }
    }
    int n = 1000;
    float[] in = new float[n];
    for (int i = 0; i < n; i++) {
      in[i] = i * 0.5f - 7;
    }
    float[][] out = new float[2][n];
    CudaKernels.Loaded[] loaded = new CudaKernels.Loaded[2];
    for (int hint = 0; hint < 2; hint++) {
      try (DeviceBuffer x = d.allocate(ElementType.F32, n)) {
        d.upload(in, 0, x, 0, n, d.defaultStream());
        // 13 is a factor no other test specializes, so both variants are compiled here.
        KernelLaunch l = KernelLaunch.of(m, Dim3.of((n + 127) / 128), Dim3.of(128), x, n, 13);
        if (hint == 1) {
          l = l.withMinBlocksPerSm(16); // 16 blocks of 128 threads: at most 32 registers
        }
        // Misses, not size: after a whole suite the cache is at its capacity and stays there.
        long before = d.kernels().misses();
        d.launch(l);
        d.download(x, 0, out[hint], 0, n, d.defaultStream());
        d.synchronize();
        assertEquals(before + 1, d.kernels().misses(), "a new variant for hint " + hint);
        loaded[hint] = d.kernels().load(l);
      }
    }
    assertArrayEquals(out[0], out[1]);
    assertEquals(in[3] * 13, out[0][3]);
    assertNotSame(loaded[0], loaded[1]);
    assertTrue(loaded[1].compiled().ptx().contains(".minnctapersm 16\n"));
    assertTrue(loaded[1].function().registers() <= 32, "registers " + loaded[1].function());
  }
}
