package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * {@link LargeSharedKernel} (80 KiB of shared arrays) through the CUDA launch path: the cache opts
 * the function in to its dynamic shared memory when loading it, launches pass it (plus the launch's
 * own bytes, which raise the opt-in), the result is what the inputs give, the occupancy calculator
 * counts the arrays, and a launch over the device's opt-in limit is refused by name before the
 * driver sees it.
 */
@GpuTest
class LargeSharedGpuTest {
  @Test
  void runsWithItsArraysInDynamicSharedMemory() {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    int blocks = 264; // two waves and more on an H200's 132 SMs
    int[] want = LargeSharedKernel.expected(LargeSharedKernel.input(), blocks);
    assertArrayEquals(want, LargeSharedKernel.run(d, blocks, 0));

    try (DeviceBuffer x = d.allocate(ElementType.I32, LargeSharedKernel.WORDS)) {
      KernelLaunch l = KernelLaunch.of(LargeSharedKernel.method(), Dim3.of(1), Dim3.of(256), x, x);
      CudaKernels.Loaded k = d.kernels().load(l);
      assertEquals(81920, k.compiled().dynamicSharedBytes());
      assertEquals(0, k.function().staticSharedBytes(), "the driver sees no static arrays");
      assertTrue(k.dynamicSharedLimit().get() >= 81920, "opted in when loaded");
      int perSm = k.blocksPerMultiprocessor(LargeSharedKernel.BLOCK, 0);
      assertTrue(
          perSm >= 1 && perSm * 81920L <= 228 * 1024,
          "occupancy counts the dynamic arrays: " + perSm);
      // Asking for the largest shared carveout (what -Dsirocco.sharedCarveout=100 sets at load):
      // two blocks of 80 KiB fit sm_80's 164 KiB and sm_90's 228 KiB per SM.
      Cu.functionSetAttribute(
          k.function().handle(), Cu.FUNC_ATTR_PREFERRED_SHARED_MEMORY_CARVEOUT, 100);
      int carved = k.blocksPerMultiprocessor(LargeSharedKernel.BLOCK, 0);
      assertTrue(carved >= 2, "blocks per SM with the largest carveout: " + carved);
    }
    assertArrayEquals(want, LargeSharedKernel.run(d, blocks, 0), "runs with the carveout set");

    // The launch's own dynamic bytes come on top (and raise the opt-in to the sum).
    assertArrayEquals(want, LargeSharedKernel.run(d, blocks, 4096));
    try (DeviceBuffer x = d.allocate(ElementType.I32, LargeSharedKernel.WORDS)) {
      KernelLaunch l = KernelLaunch.of(LargeSharedKernel.method(), Dim3.of(1), Dim3.of(256), x, x);
      assertTrue(d.kernels().load(l).dynamicSharedLimit().get() >= 81920 + 4096);
    }

    int optIn = d.maxSharedBytesPerBlockOptIn();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LargeSharedKernel.run(d, 1, optIn - 81920 + 1));
    assertTrue(
        e.getMessage().startsWith("kernel LargeSharedKernel.largeShared needs "), e.getMessage());
    assertTrue(e.getMessage().contains("more than the " + optIn + " bytes"), e.getMessage());
    // Refused before the driver: the device goes on working.
    assertArrayEquals(
        LargeSharedKernel.expected(LargeSharedKernel.input(), 2), LargeSharedKernel.run(d, 2, 0));
  }
}
