package sirocco.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.runtime.host.HostDevice;

/** Public: its kernels must be accessible, as any kernel class must be. */
public class HostDeviceTest {
  public static void scale(KernelContext ctx, float[] x, float factor, int n) { // [n]
    int i = ctx.globalIdx;
    if (i < n) {
      x[i] *= factor;
    }
  }

  public static void boom(KernelContext ctx, int[] x) { // [1]
    x[ctx.globalIdx] = 1;
  }

  private static Method method(String name) throws NoSuchMethodException {
    for (Method m : HostDeviceTest.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new NoSuchMethodException(name);
  }

  @Test
  void uploadLaunchDownloadRunInStreamOrder() throws Exception {
    HostDevice d = new HostDevice();
    float[] data = {1, 2, 3, 4, 5};
    DeviceBuffer b = d.allocate(ElementType.F32, 5);
    d.upload(data, 0, b, 0, 5, d.defaultStream());
    data[0] = 100; // the upload snapshot is unaffected
    for (int k = 0; k < 3; k++) {
      d.launch(KernelLaunch.of(method("scale"), Dim3.of(1), Dim3.of(32), b, 2f, 5));
    }
    float[] out = new float[5];
    d.download(b, 0, out, 0, 5, d.defaultStream());
    assertArrayEquals(new float[] {8, 16, 24, 32, 40}, out);
    assertEquals(20, d.memoryStats().usedBytes());
    b.close();
    assertEquals(0, d.memoryStats().usedBytes());
  }

  @Test
  void kernelFailureIsRethrownAtSynchronize() throws Exception {
    HostDevice d = new HostDevice();
    DeviceBuffer b = d.allocate(ElementType.I32, 1);
    d.launch(KernelLaunch.of(method("boom"), Dim3.of(1), Dim3.of(2), b));
    KernelExecutionException e = assertThrows(KernelExecutionException.class, d::synchronize);
    assertTrue(e.getMessage().contains("HostDeviceTest.boom"), e.getMessage());
    d.synchronize(); // reported once
  }

  @Test
  void eventsCompleteInOrderAndTime() throws Exception {
    HostDevice d = new HostDevice();
    Stream s = d.newStream();
    Event start = s.record();
    DeviceBuffer b = d.allocate(ElementType.F32, 1000);
    d.launch(KernelLaunch.of(method("scale"), Dim3.of(4), Dim3.of(256), b, 2f, 1000), s);
    Event end = s.record();
    end.synchronize();
    assertTrue(start.isComplete());
    assertTrue(end.elapsedMillisSince(start) >= 0);
    assertTrue(s.isIdle());
  }

  @Test
  void launchArgumentsAreCheckedWithTheirNames() throws Exception {
    HostDevice d = new HostDevice();
    DeviceBuffer ints = d.allocate(ElementType.I32, 4);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> KernelLaunch.of(method("scale"), Dim3.of(1), Dim3.of(32), ints, 2f, 4));
    assertTrue(e.getMessage().contains("argument 1 (x)"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> KernelLaunch.of(method("scale"), Dim3.of(1), Dim3.of(32), ints, 2.0, 4));
    assertTrue(e.getMessage().contains("argument 1"), e.getMessage());
  }

  @Test
  void badCopiesChangeNothing() {
    HostDevice d = new HostDevice();
    DeviceBuffer b = d.allocate(ElementType.F32, 4);
    d.upload(new float[] {1, 2, 3, 4}, 0, b, 0, 4, d.defaultStream());
    assertThrows(
        IllegalArgumentException.class,
        () -> d.upload(new float[4], 0, b, 2, 4, d.defaultStream()));
    assertThrows(
        IllegalArgumentException.class, () -> d.upload(new int[4], 0, b, 0, 4, d.defaultStream()));
    float[] out = new float[4];
    d.download(b, 0, out, 0, 4, d.defaultStream());
    assertArrayEquals(new float[] {1, 2, 3, 4}, out);
  }

  @Test
  void discoveryFallsBackToJavaWithAReason() {
    Devices.Choice c = Devices.best();
    assertTrue(c.reason() != null && !c.reason().isBlank());
    if (Devices.cudaUnavailableReason() != null) {
      assertEquals(Device.Kind.JAVA, c.device().kind());
      assertTrue(c.reason().contains("Java backend"), c.reason());
    } else {
      assertEquals(Device.Kind.CUDA, c.device().kind());
    }
  }
}
