package sirocco.dispatch.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.dispatch.OccupancyHints;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.host.HostDevice;

/** A {@link LaunchPlan}'s occupancy hint reaches the {@link KernelLaunch} dispatch builds. */
class PlanHintTest {
  @Test
  void theSplitKRungPlansWithTheHintUnlessTurnedOff() {
    QmmShape f16 = QmmShape.affine(4, 64, Quant.F16, 1, 12288, 4096);
    try {
      assertTrue(OccupancyHints.enabled());
      LaunchPlan on = QmmOp.plan(QmmOp.QMV_SPLITK, f16, 132);
      assertEquals(6, on.minBlocksPerSm());
      assertEquals(768, on.grid().x());
      System.setProperty(OccupancyHints.PROPERTY, "false");
      assertFalse(OccupancyHints.enabled());
      LaunchPlan off = QmmOp.plan(QmmOp.QMV_SPLITK, f16, 132);
      assertEquals(0, off.minBlocksPerSm());
      assertEquals(615, off.grid().x(), "the grid of 5 blocks per SM, as before hints");
    } finally {
      System.clearProperty(OccupancyHints.PROPERTY);
    }
  }

  @Test
  void thePlansHintIsTheLaunchs() {
    HostDevice d = new HostDevice();
    DeviceBuffer wq = d.allocate(ElementType.I32, 1);
    DeviceBuffer half = d.allocate(ElementType.I16, 1);
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 256, 4096);
    LaunchPlan p = AffineQmvSplitKKernel.plan(s, 132);
    Object[] runtime = {wq, half, half, half, half, 1, 256, 4096};
    KernelLaunch plain = QuantKernels.launch(p.withMinBlocksPerSm(0), runtime);
    assertEquals(0, plain.minBlocksPerSm());
    LaunchPlan hintedPlan = p.withMinBlocksPerSm(6);
    assertEquals(6, hintedPlan.minBlocksPerSm());
    assertTrue(hintedPlan.describe().contains("minBlocksPerSm=6"), hintedPlan.describe());
    KernelLaunch hinted = QuantKernels.launch(hintedPlan, runtime);
    assertEquals(6, hinted.minBlocksPerSm());
    assertEquals(plain.grid(), hinted.grid());
    assertEquals(plain.block(), hinted.block());
    assertArrayEquals(plain.args(), hinted.args());
    assertEquals(plain, hinted.withMinBlocksPerSm(0));
    assertThrows(IllegalArgumentException.class, () -> p.withMinBlocksPerSm(33));
    assertThrows(IllegalArgumentException.class, () -> p.withMinBlocksPerSm(-1));
  }
}
