package sirocco.runtime;

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
}
