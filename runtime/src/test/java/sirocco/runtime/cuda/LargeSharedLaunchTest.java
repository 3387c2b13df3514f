package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.jit.CompiledKernel;
import sirocco.jit.Target;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.host.HostDevice;

/**
 * Shared arrays over 48 KiB without a GPU: the Java backend runs {@link LargeSharedKernel} (its
 * arrays are per-block Java arrays there, nothing changes), the CUDA cache compiles it with 80 KiB
 * of dynamic shared memory, and the launch-size arithmetic and opt-in check ({@link
 * LaunchSharedMemory}) give what the CUDA launch path passes to {@code cuLaunchKernel} or the error
 * it throws instead. ({@code LargeSharedGpuTest} launches it on a GPU.)
 */
class LargeSharedLaunchTest {
  private static final int H200 =
      232448; // its CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

  @Test
  void theJavaBackendRunsItUnchanged() {
    int blocks = 3;
    int[] out = LargeSharedKernel.run(new HostDevice(), blocks, 0);
    assertArrayEquals(LargeSharedKernel.expected(LargeSharedKernel.input(), blocks), out);
    // A launch's own dynamic bytes mean nothing to the Java backend either.
    assertArrayEquals(out, LargeSharedKernel.run(new HostDevice(), blocks, 4096));
  }

  @Test
  void forTheGpuItIsCompiledIntoDynamicSharedMemory() {
    DeviceBuffer x = new HostDevice().allocate(ElementType.I32, LargeSharedKernel.WORDS);
    KernelLaunch l = KernelLaunch.of(LargeSharedKernel.method(), Dim3.of(1), Dim3.of(256), x, x);
    for (Target t : List.of(Target.sm80(), Target.sm90())) {
      CompiledKernel k = CudaKernels.compile(CudaKernels.keyOf(l, t), l.args());
      assertEquals(0, k.staticSharedBytes());
      assertEquals(2 * LargeSharedKernel.WORDS * 4, k.dynamicSharedBytes());
      assertTrue(k.ptx().contains(".extern .shared .align 16 .b8 dsmem[];"), k.ptx());
    }
  }

  @Test
  void aLaunchPassesTheKernelsArraysPlusItsOwnBytes() {
    Method m = LargeSharedKernel.method();
    assertEquals(0, LaunchSharedMemory.dynamicBytes(m, 1024, 0, 0, H200), "static only");
    assertEquals(4096, LaunchSharedMemory.dynamicBytes(m, 1024, 0, 4096, H200), "as before");
    assertEquals(81920, LaunchSharedMemory.dynamicBytes(m, 0, 81920, 0, H200));
    assertEquals(86016, LaunchSharedMemory.dynamicBytes(m, 0, 81920, 4096, H200));
    assertEquals(H200, LaunchSharedMemory.dynamicBytes(m, 0, 81920, H200 - 81920, H200), "fits");
    assertEquals(H200 - 16, LaunchSharedMemory.dynamicBytes(m, 16, 0, H200 - 16, H200));
  }

  @Test
  void aBlockOverTheDevicesOptInLimitIsRefusedByName() {
    Method m = LargeSharedKernel.method();
    String msg =
        assertThrows(
                IllegalArgumentException.class,
                () -> LaunchSharedMemory.dynamicBytes(m, 0, 81920, H200 - 81920 + 1, H200))
            .getMessage();
    assertEquals(
        "kernel LargeSharedKernel.largeShared needs 232449 bytes of shared memory per block (0"
            + " static, 81920 for its shared arrays in dynamic shared memory, 150529 dynamic bytes"
            + " the launch asks for), more than the 232448 bytes this device allows a block"
            + " (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
        msg);
    // A device with less opt-in than the target promised (or a static part pushing it over).
    assertThrows(
        IllegalArgumentException.class,
        () -> LaunchSharedMemory.dynamicBytes(m, 0, 166912, 0, 101376));
    assertThrows(
        IllegalArgumentException.class,
        () -> LaunchSharedMemory.dynamicBytes(m, 16, 0, H200 - 15, H200));
  }
}
