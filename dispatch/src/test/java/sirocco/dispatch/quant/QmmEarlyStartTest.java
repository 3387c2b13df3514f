package sirocco.dispatch.quant;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.host.HostDevice;

/**
 * Which quantized-matmul launches start early: by default those of the four kernels that wait for
 * the previous grid before their first read (the split-K and asynchronous-copy tensor-core kernels,
 * qmm-mma and the split-K vector kernel); the property turns it off; no other kernel's (they do not
 * wait).
 */
class QmmEarlyStartTest {
  private static QmmOp.Operands operands(HostDevice d) {
    DeviceBuffer w = d.allocate(ElementType.I32, 1);
    DeviceBuffer h = d.allocate(ElementType.I16, 1);
    return new QmmOp.Operands(w, h, h, null, h, h);
  }

  @Test
  void theDefaultIsTheMeasuredOne() {
    HostDevice d = new HostDevice();
    QmmShape two = QmmShape.affine(4, 64, Quant.BF16, 2, 256, 4096);
    QmmShape one = QmmShape.affine(4, 64, Quant.BF16, 1, 256, 4096);
    assertTrue(QmmOp.launch(d, QmmOp.QMM_MMA_SPLITK, two, operands(d)).earlyStart());
    assertTrue(QmmOp.launch(d, QmmOp.QMM_MMA_ASYNC, two, operands(d)).earlyStart());
    assertTrue(QmmOp.launch(d, QmmOp.QMV_SPLITK, one, operands(d)).earlyStart());
    assertFalse(QmmOp.launch(d, QmmOp.QMV, one, operands(d)).earlyStart(), "it never waits");
    assertTrue(QmmPolicy.earlyStart(QmmOp.QMM_MMA));
    assertFalse(QmmPolicy.earlyStart(QmmOp.QMM_TILED));
  }

  @Test
  void thePropertyForcesTheFourKernelsThatWaitAndNoOther() {
    try {
      System.setProperty(QmmPolicy.EARLY_START_PROPERTY, "true");
      assertTrue(QmmPolicy.earlyStart(QmmOp.QMV_SPLITK));
      assertTrue(QmmPolicy.earlyStart(QmmOp.QMM_MMA_SPLITK));
      assertTrue(QmmPolicy.earlyStart(QmmOp.QMM_MMA));
      assertTrue(QmmPolicy.earlyStart(QmmOp.QMM_MMA_ASYNC));
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMV_ASYNC), "it never waits");
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMM_TILED), "it never waits");
      System.setProperty(QmmPolicy.EARLY_START_PROPERTY, "false");
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMM_MMA_SPLITK));
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMV_SPLITK));
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMM_MMA));
      assertFalse(QmmPolicy.earlyStart(QmmOp.QMM_MMA_ASYNC));
      System.setProperty(QmmPolicy.EARLY_START_PROPERTY, "1");
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> QmmPolicy.earlyStart(QmmOp.QMV_SPLITK));
      assertTrue(e.getMessage().contains("sirocco.qmm.earlyStart"), e.getMessage());
    } finally {
      System.clearProperty(QmmPolicy.EARLY_START_PROPERTY);
    }
  }
}
