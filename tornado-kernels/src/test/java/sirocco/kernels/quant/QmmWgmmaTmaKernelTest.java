package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.api.TileMap;

/**
 * {@link QmmWgmmaTmaKernel} on the Java backend (whose tile copies, transaction barriers and
 * swizzled products follow their documented behaviour) against the float64 reference. On a GPU it
 * has not run yet; the shipped-kernel differential does not take it (its x is a tile map).
 */
class QmmWgmmaTmaKernelTest {
  static float[] run(QmmCase c, LaunchPlan plan) {
    QmmShape s = c.s;
    short[] x = (short[]) c.xArg();
    int[] box = QmmWgmmaTmaKernel.xMapBox();
    long[] xmap = TileMap.forHost(x, 0, s.k(), s.rows(), s.k(), box[0], box[1], 128);
    Object out = c.outArg();
    TestSupport.run(
        QmmWgmmaTmaKernel.class,
        plan,
        c.wq,
        c.scalesArg(),
        c.biasesArg(),
        xmap,
        out,
        s.rows(),
        s.n(),
        s.k());
    return c.outValues(out);
  }

  /**
   * {@link QmmWgmmaKernelTest#SHAPE_CASES}: both dtypes, every group size, one to four warpgroups,
   * partial and double row blocks (rows past the last land as zeros), one to four loop iterations,
   * both pipelines, three to six steps ahead (a slot's barrier goes through several phases at k
   * 512).
   */
  @Test
  void shapesGroupsAndWarpgroups() {
    long seed = 1;
    for (int[] c : QmmWgmmaKernelTest.SHAPE_CASES) {
      QmmShape s = QmmShape.affine(4, c[1], c[0], c[2], c[3], c[4]);
      assertNull(QmmWgmmaTmaKernel.supports(s, true), s.toString());
      LaunchPlan p = QmmWgmmaTmaKernel.plan(s, c[5], c[6], c[7]);
      QmmCase qc = QmmCase.random(s, seed++);
      qc.check(run(qc, p), "qmm-wgmma tma " + p.describe(), QmmTiledKernelTest.accRel(s.dtype()));
    }
  }

  /** Shared bytes as the compiler lays the arrays out: each at a multiple of 1024 bytes. */
  @Test
  void plans() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    LaunchPlan p = QmmWgmmaTmaKernel.plan(s, 3, 1, 4);
    assertEquals("QmmWgmmaTmaKernel.qmm", p.kernel());
    assertEquals(64, p.grid().x());
    assertEquals(2, p.grid().y());
    assertEquals(384, p.block().x());
    // 6 boxes of 16 KiB, 6 barriers (to 99328), 3 pair slots of 192 features x 80 bytes (to
    // 145408), 3 x 192 x 16 bytes of scale/bias runs.
    assertEquals(6 * 16384 + 1024 + 46080 + 9216, p.sharedBytes());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmWgmmaTmaKernel.plan(s, 4, 2, 6));
    assertTrue(e.getMessage().contains("more than sm_90's"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmWgmmaTmaKernel.plan(s, 3, 3, 4));
    assertTrue(e.getMessage().contains("pipe must be 1 or 2"), e.getMessage());
  }
}
