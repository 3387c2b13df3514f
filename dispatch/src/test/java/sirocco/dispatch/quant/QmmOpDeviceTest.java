package sirocco.dispatch.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;

/** The quantized-matmul ladder on devices that cannot run every rung (no launches). */
class QmmOpDeviceTest {
  /**
   * The wgmma rung, opted in, runs only where the device can: sm_90 or the Java backend. On any
   * other device the ladder passes it over with the device's reason (it used to be chosen and then
   * refused at launch).
   */
  @Test
  void wgmmaOptInFallsThroughOffHopper() {
    QmmShape s = QmmOpTest.affine(4, Quant.BF16, 256);
    try {
      System.setProperty(QmmPolicy.WGMMA_MIN_ROWS_PROPERTY, "128");
      assertEquals("qmm-wgmma", QmmOp.decide(s).chosen());
      assertEquals("qmm-wgmma", QmmOp.decide(s, 90).chosen());
      assertEquals("qmm-wgmma", QmmOp.decide(s, QmmOp.ANY_DEVICE).chosen());
      for (int sm : new int[] {80, 89, 100, 120}) {
        var d = QmmOp.decide(s, sm);
        assertEquals("qmm-tiled", d.chosen(), "sm_" + sm);
        assertTrue(
            d.explain()
                .contains(
                    "qmm-wgmma: needs an sm_90 (Hopper) device (wgmma); this one is sm_" + sm),
            d.explain());
      }
      // Below the opted-in rows the policy's reason comes first, whatever the device.
      assertTrue(
          QmmOp.decide(s.withRows(64), 80)
              .explain()
              .contains("qmm-wgmma: policy: below 128 rows (rows=64"),
          QmmOp.decide(s.withRows(64), 80).explain());
    } finally {
      System.clearProperty(QmmPolicy.WGMMA_MIN_ROWS_PROPERTY);
    }
    // Both warpgroup rungs are Hopper's.
    assertEquals(
        QmmOp.candidates(s).subList(2, QmmOp.candidates(s).size()), QmmOp.candidates(s, 80));
    assertEquals(List.of("qmm-wgmma", "qmm-wgmma-tma"), QmmOp.candidates(s, 90).subList(0, 2));
    // Off by default: the same choice on every device.
    assertEquals("qmm-tiled", QmmOp.decide(s, 90).chosen());
    assertTrue(
        QmmOp.decide(s, 80).explain().contains(QmmOpTest.WGMMA_OFF), QmmOp.decide(s, 80).explain());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmOp.decide(s, 9));
    assertTrue(e.getMessage().startsWith("sm must be a compute capability"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmOp.decide(null, 90));
    assertTrue(e.getMessage().startsWith("shape must be a QmmShape"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmOp.sm(null));
    assertTrue(e.getMessage().startsWith("device must be a Device"), e.getMessage());
  }
}
