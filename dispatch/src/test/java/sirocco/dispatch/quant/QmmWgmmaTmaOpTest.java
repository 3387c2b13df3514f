package sirocco.dispatch.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;
import sirocco.quant.QRef;
import sirocco.quant.QTest;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.ElementType;

/**
 * {@value QmmOp#QMM_WGMMA_TMA} through the op when opted in (the op builds x's tile map and frees
 * it after the launch), and {@link QmmOp#launch}'s refusal of operands without a map for it, or
 * with one for another rung.
 */
class QmmWgmmaTmaOpTest {
  @Test
  void optedInTheOpRunsItWithAMapOfX() {
    System.setProperty(QmmPolicy.WGMMA_TMA_MIN_ROWS_PROPERTY, "64");
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 70, 192, 256);
      assertEquals("qmm-wgmma-tma", QmmOp.decide(s).chosen());
      DType t = DType.BF16;
      float[] wv = QTest.normal(17, 192 * 256, 0.1, t);
      QTest.Weights w = QTest.quantize(rt, wv, new long[] {192, 256}, t, QuantMode.AFFINE, 64, 4);
      float[] x = QTest.normal(18, 70 * 256, 1, t);
      Tensor[] y = new Tensor[1];
      var ds =
          QTest.decisions(
              () -> y[0] = rt.quantizedMatmul(QTest.upload(rt, x, t, 70, 256), w.q(), true));
      assertEquals(List.of("qmm-wgmma-tma"), QTest.qmmChoices(ds));
      QTest.check(
          rt,
          y[0],
          QRef.matmul(x, new long[] {70, 256}, w.wHat(), w.shape(), true),
          t,
          "wgmma-tma",
          0x1p-9 + 2e-5);
    } finally {
      System.clearProperty(QmmPolicy.WGMMA_TMA_MIN_ROWS_PROPERTY);
    }
  }

  @Test
  void aLaunchNeedsTheMapExactlyForThisRung() {
    Device d = Devices.java();
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 128, 192, 256);
    DeviceBuffer wq = d.allocate(ElementType.I32, 192 * 256 / 8);
    DeviceBuffer sc = d.allocate(ElementType.I16, 192 * 4);
    DeviceBuffer bi = d.allocate(ElementType.I16, 192 * 4);
    DeviceBuffer x = d.allocate(ElementType.I16, 128 * 256);
    DeviceBuffer out = d.allocate(ElementType.I16, 128 * 192);
    DeviceBuffer map = QmmOp.xTileMap(d, s, x, d.defaultStream());
    try {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  QmmOp.launch(
                      d, "qmm-wgmma-tma", s, new QmmOp.Operands(wq, sc, bi, null, x, out)));
      assertTrue(e.getMessage().contains("o.xMap must be QmmOp.xTileMap"), e.getMessage());
      e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  QmmOp.launch(
                      d, "qmm-wgmma", s, new QmmOp.Operands(wq, sc, bi, null, x, out, map)));
      assertTrue(e.getMessage().contains("o.xMap is for qmm-wgmma-tma only"), e.getMessage());
      assertEquals(
          "QmmWgmmaTmaKernel.qmm",
          QmmOp.launch(d, "qmm-wgmma-tma", s, new QmmOp.Operands(wq, sc, bi, null, x, out, map))
                  .kernel()
                  .getDeclaringClass()
                  .getSimpleName()
              + ".qmm");
      e =
          assertThrows(
              IllegalArgumentException.class, () -> QmmOp.xTileMap(d, s, null, d.defaultStream()));
      assertTrue(e.getMessage().contains("must not be null"), e.getMessage());
    } finally {
      for (DeviceBuffer b : List.of(wq, sc, bi, x, out, map)) {
        b.close();
      }
    }
  }
}
