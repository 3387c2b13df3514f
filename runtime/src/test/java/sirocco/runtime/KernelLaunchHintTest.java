package sirocco.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import sirocco.runtime.host.HostDevice;

/**
 * {@link KernelLaunch#minBlocksPerSm()} and {@link KernelLaunch#earlyStart()}: validated, copied,
 * compared; the Java backend ignores both.
 */
class KernelLaunchHintTest {
  private static Method scale() throws NoSuchMethodException {
    for (Method m : HostDeviceTest.class.getMethods()) {
      if (m.getName().equals("scale")) {
        return m;
      }
    }
    throw new NoSuchMethodException("scale");
  }

  @Test
  void theHintIsValidatedWithItsName() throws Exception {
    HostDevice d = new HostDevice();
    DeviceBuffer b = d.allocate(ElementType.F32, 4);
    Method m = scale();
    Object[] args = {b, 2f, 4};
    for (int bad : new int[] {-1, 33, Integer.MAX_VALUE}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> new KernelLaunch(m, Dim3.of(1), Dim3.of(32), 0, args, bad));
      assertTrue(e.getMessage().contains("minBlocksPerSm"), e.getMessage());
      assertTrue(e.getMessage().contains("got " + bad), e.getMessage());
      KernelLaunch plain = KernelLaunch.of(m, Dim3.of(1), Dim3.of(32), args);
      e = assertThrows(IllegalArgumentException.class, () -> plain.withMinBlocksPerSm(bad));
      assertTrue(e.getMessage().contains("minBlocksPerSm"), e.getMessage());
    }
    for (int ok : new int[] {0, 1, 4, 32}) {
      assertEquals(ok, new KernelLaunch(m, Dim3.of(1), Dim3.of(32), 0, args, ok).minBlocksPerSm());
    }
  }

  @Test
  void noHintByDefaultAndWithCopiesTheRest() throws Exception {
    HostDevice d = new HostDevice();
    DeviceBuffer b = d.allocate(ElementType.F32, 4);
    KernelLaunch plain = KernelLaunch.of(scale(), Dim3.of(2), Dim3.of(64, 2), b, 2f, 4);
    assertEquals(0, plain.minBlocksPerSm());
    KernelLaunch hinted = plain.withMinBlocksPerSm(4);
    assertEquals(4, hinted.minBlocksPerSm());
    assertSame(plain.kernel(), hinted.kernel());
    assertEquals(plain.grid(), hinted.grid());
    assertEquals(plain.block(), hinted.block());
    assertEquals(plain.dynamicSharedBytes(), hinted.dynamicSharedBytes());
    assertArrayEquals(plain.args(), hinted.args());
    assertNotEquals(plain, hinted);
    assertEquals(plain, hinted.withMinBlocksPerSm(0));
    assertEquals(hinted, plain.withMinBlocksPerSm(4));
    assertEquals(hinted.hashCode(), plain.withMinBlocksPerSm(4).hashCode());
    assertTrue(hinted.toString().contains("min blocks/SM 4"), hinted.toString());
    assertEquals(-1, plain.toString().indexOf("min blocks"), plain.toString());
  }

  @Test
  void theJavaBackendIgnoresTheHint() throws Exception {
    HostDevice d = new HostDevice();
    float[] data = {1, 2, 3, 4, 5};
    DeviceBuffer a = d.allocate(ElementType.F32, 5);
    DeviceBuffer b = d.allocate(ElementType.F32, 5);
    d.upload(data, 0, a, 0, 5, d.defaultStream());
    d.upload(data, 0, b, 0, 5, d.defaultStream());
    d.launch(KernelLaunch.of(scale(), Dim3.of(1), Dim3.of(32), a, 3f, 5));
    d.launch(KernelLaunch.of(scale(), Dim3.of(1), Dim3.of(32), b, 3f, 5).withMinBlocksPerSm(8));
    float[] x = new float[5];
    float[] y = new float[5];
    d.download(a, 0, x, 0, 5, d.defaultStream());
    d.download(b, 0, y, 0, 5, d.defaultStream());
    assertArrayEquals(new float[] {3, 6, 9, 12, 15}, x);
    assertArrayEquals(x, y);
  }

  @Test
  void earlyStartIsOffByDefaultCopiedAndIgnoredByTheJavaBackend() throws Exception {
    HostDevice d = new HostDevice();
    float[] data = {1, 2, 3, 4, 5};
    DeviceBuffer a = d.allocate(ElementType.F32, 5);
    d.upload(data, 0, a, 0, 5, d.defaultStream());
    KernelLaunch plain = KernelLaunch.of(scale(), Dim3.of(1), Dim3.of(32), a, 3f, 5);
    assertEquals(false, plain.earlyStart());
    assertEquals(
        false, new KernelLaunch(scale(), Dim3.of(1), Dim3.of(32), 0, plain.args(), 0).earlyStart());
    KernelLaunch early = plain.withEarlyStart(true).withMinBlocksPerSm(2);
    assertTrue(early.earlyStart(), "the hint keeps early start");
    assertEquals(2, early.minBlocksPerSm());
    assertNotEquals(plain.withMinBlocksPerSm(2), early);
    assertEquals(plain.withMinBlocksPerSm(2), early.withEarlyStart(false));
    assertTrue(early.toString().endsWith(" early start"), early.toString());
    // The host runs launches in order, and scale() never waits: still fine there.
    d.launch(plain);
    d.launch(plain.withEarlyStart(true));
    float[] x = new float[5];
    d.download(a, 0, x, 0, 5, d.defaultStream());
    assertArrayEquals(new float[] {9, 18, 27, 36, 45}, x);
  }
}
