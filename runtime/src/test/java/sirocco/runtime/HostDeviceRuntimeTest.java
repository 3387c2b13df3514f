package sirocco.runtime;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.runtime.host.HostDevice;

/** The runtime contract on the Java backend (a 1 GiB "device", so out-of-memory is testable). */
class HostDeviceRuntimeTest extends DeviceRuntimeContract {
  private static final HostDevice DEVICE = new HostDevice(1L << 30);

  @Override
  protected Device device() {
    return DEVICE;
  }

  @Override
  protected long impossibleElements() {
    return 1L << 29; // 2 GiB of floats
  }

  @Test
  void theOutOfMemoryRetryLeavesAPendingKernelFailureForSynchronize() throws Exception {
    HostDevice d = new HostDevice(1L << 20);
    DeviceBuffer b = d.allocate(ElementType.I32, 1);
    d.launch(
        KernelLaunch.of(
            HostDeviceTest.class.getMethod("boom", KernelContext.class, int[].class),
            Dim3.of(1),
            Dim3.of(2),
            b));
    assertThrows(DeviceOutOfMemoryException.class, () -> d.allocate(ElementType.F32, 1L << 20));
    assertThrows(KernelExecutionException.class, d::synchronize, "still reported here");
  }
}
