package sirocco;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import sirocco.dispatch.Internal;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.sync.WaitKernels;

/** Sirocco.synchronize(SyncOptions) on the Java backend. */
class SyncOptionsTest {
  @Test
  void optionsAreImmutableAndChecked() {
    SyncOptions d = SyncOptions.defaults();
    SyncOptions c = d.spin(false).cancellable(true);
    assertTrue(d.spin() && !d.cancellable(), "defaults unchanged");
    assertFalse(c.spin());
    assertTrue(c.cancellable());
    assertEquals(2_000, d.spinFor(Duration.ofNanos(2_000)).spinNanos());
    assertThrows(IllegalArgumentException.class, () -> d.spinFor(Duration.ofNanos(-1)));
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      assertThrows(IllegalArgumentException.class, () -> rt.synchronize(null));
    }
  }

  @Test
  void aCancellableSynchronizeReturnsOnInterruptAndTheWorkGoesOn() throws Exception {
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      Device device = Internal.bridge().device(rt);
      MappedBuffer flag = device.allocateMapped(ElementType.I32, 1);
      DeviceBuffer out = device.allocate(ElementType.I32, 1);
      device.launch(
          KernelLaunch.of(
              WaitKernels.spinOnFlagKernel(), Dim3.of(1), Dim3.of(1), flag, out, 20_000_000_000L),
          Internal.bridge().stream(rt));
      AtomicReference<Throwable> caught = new AtomicReference<>();
      Thread vt =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      rt.synchronize(SyncOptions.defaults().cancellable(true));
                    } catch (Throwable t) {
                      caught.set(t);
                    }
                  });
      Thread.sleep(50);
      vt.interrupt();
      vt.join();
      assertInstanceOf(CancellationException.class, caught.get());
      flag.setIntVolatile(0, 1);
      rt.synchronize(SyncOptions.defaults().spin(false));
      int[] r = new int[1];
      device.download(out, 0, r, 0, 1, Internal.bridge().stream(rt));
      assertEquals(WaitKernels.FLAG_SEEN, r[0]);
      out.close();
      flag.close();
    }
  }
}
