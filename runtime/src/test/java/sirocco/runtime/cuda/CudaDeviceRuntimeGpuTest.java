package sirocco.runtime.cuda;

import sirocco.runtime.Device;
import sirocco.runtime.DeviceRuntimeContract;
import sirocco.runtime.Devices;
import sirocco.runtime.testing.GpuTest;

/** The runtime contract on the GPU. Kernel-launching cases need the JIT wired into CUDA launch. */
@GpuTest
class CudaDeviceRuntimeGpuTest extends DeviceRuntimeContract {
  @Override
  protected Device device() {
    return Devices.cuda(0);
  }

  @Override
  protected long impossibleElements() {
    return 1L << 40; // 4 TiB of floats
  }
}
