package sirocco.dispatch.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.Sirocco;
import sirocco.dispatch.Internal;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Stream;

/** The fused combine's counter buffers: one per stream, zeroed when made, grown by doubling. */
class FusedCountersTest {
  private static int[] read(Device d, DeviceBuffer b, Stream s) {
    int[] x = new int[(int) b.length()];
    d.download(b, 0, x, 0, x.length, s);
    return x;
  }

  @Test
  void oneZeroedBufferPerStreamGrownWhenTooSmall() {
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      Device d = Internal.bridge().device(rt);
      Stream s = Internal.bridge().stream(rt);
      DeviceBuffer a = FusedCounters.forStream(d, s, 10);
      assertTrue(a.length() >= FusedCounters.MIN_COUNTERS);
      assertArrayEquals(new int[(int) a.length()], read(d, a, s), "zeroed");
      assertSame(a, FusedCounters.forStream(d, s, a.length()), "kept across calls");
      DeviceBuffer b = FusedCounters.forStream(d, s, a.length() + 1);
      assertNotSame(a, b);
      assertTrue(b.length() >= 2 * a.length(), "grown by at least doubling");
      assertArrayEquals(new int[(int) b.length()], read(d, b, s), "the new buffer is zeroed");
      assertTrue(!a.isClosed(), "the old buffer stays (a captured graph may still use it)");
      Stream other = d.newStream();
      assertNotSame(b, FusedCounters.forStream(d, other, 10), "another stream, another buffer");
    }
  }
}
