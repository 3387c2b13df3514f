package sirocco.bench;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.runtime.host.HostDevice;

/** {@link GpuTiming#readFloors} refuses bad arguments before it allocates anything. */
class GpuTimingArgumentsTest {
  @Test
  void readFloorsNamesTheBadArgument() {
    HostDevice d = new HostDevice();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GpuTiming.readFloors(null, 64, 1, 1));
    assertTrue(e.getMessage().startsWith("d must be"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> GpuTiming.readFloors(d, 8, 1, 1));
    assertTrue(e.getMessage().startsWith("bytes must be"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> GpuTiming.readFloors(d, 1L << 40, 1, 1));
    assertTrue(e.getMessage().startsWith("bytes must be"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> GpuTiming.readFloors(d, 64, 0, 1));
    assertTrue(e.getMessage().startsWith("copies and samples"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> GpuTiming.readFloors(d, 64, 1, 0));
    assertTrue(e.getMessage().startsWith("copies and samples"), e.getMessage());
  }
}
