package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The warpgroup tensor-core kernel on the Java backend (whose warpgroup product follows the
 * documented operand layouts), against the float64 reference; the GPU runs the same cases in the
 * shipped-kernel differential suite.
 */
class QmmWgmmaKernelTest {

  static float[] run(QmmCase c, LaunchPlan plan) {
    return c.runAffine(QmmWgmmaKernel.class, plan);
  }

  static void check(QmmShape s, LaunchPlan p, long seed) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, p), "qmm-wgmma " + p.describe(), QmmTiledKernelTest.accRel(s.dtype()));
  }

  /**
   * Both dtypes, every group size, one to three warpgroups, a partial row block (70 rows) and two
   * row blocks (130), one to four loop iterations (k 128 to 512), both pipelines.
   */
  @Test
  void shapesGroupsAndWarpgroups() {
    long seed = 1;
    int[][] cases = {
      // dtype, group, rows, n, k, wg, pipe
      {Quant.BF16, 64, 70, 192, 128, 3, 1},
      {Quant.F16, 32, 64, 128, 384, 2, 1},
      {Quant.BF16, 128, 130, 64, 256, 1, 1},
      {Quant.F16, 64, 128, 128, 128, 2, 1},
      {Quant.BF16, 64, 70, 192, 512, 3, 2},
      {Quant.F16, 32, 130, 128, 256, 2, 2},
    };
    for (int[] c : cases) {
      QmmShape s = QmmShape.affine(4, c[1], c[0], c[2], c[3], c[4]);
      assertNull(QmmWgmmaKernel.supports(s, true), s.toString());
      check(s, QmmWgmmaKernel.plan(s, c[5], c[6]), seed++);
    }
  }

  /** The x tile's k order: every (row, k) of a slot at its own half, inside the slot. */
  @Test
  void sharedLayoutIsABijection() {
    Set<Integer> seen = new HashSet<>();
    for (int row = 0; row < QmmWgmmaKernel.ROWS; row++) {
      for (int kk = 0; kk < QmmWgmmaKernel.BK; kk++) {
        int h = QmmWgmmaKernel.sharedHalf(row, kk);
        assertTrue(h >= 0 && h < QmmWgmmaKernel.SLOT_HALVES, "half " + h);
        assertTrue(seen.add(h), "row " + row + " k " + kk + " collides at half " + h);
      }
    }
    assertEquals(QmmWgmmaKernel.SLOT_HALVES, seen.size());
  }

  @Test
  void supportsNamesWhatItRejects() {
    QmmShape ok = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    assertNull(QmmWgmmaKernel.supports(ok, true));
    assertTrue(QmmWgmmaKernel.supports(ok, false).contains("sm_90"));
    assertTrue(QmmWgmmaKernel.supports(ok.withRows(16), true).contains("64 rows"));
    assertNotNull(QmmWgmmaKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 256, 128, 256), true));
    assertNotNull(QmmWgmmaKernel.supports(QmmShape.affine(4, 64, Quant.F32, 256, 128, 256), true));
    assertTrue(
        QmmWgmmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 256, 96, 256), true)
            .contains("multiple of 64"));
    assertTrue(
        QmmWgmmaKernel.supports(QmmShape.affine(4, 32, Quant.BF16, 256, 128, 192), true)
            .contains("multiple of 128"));
    assertTrue(QmmWgmmaKernel.supports(ok.withTranspose(false), true).contains("transposed"));
  }

  @Test
  void plans() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    LaunchPlan p = QmmWgmmaKernel.plan(s);
    assertEquals(3, p.get("wg"));
    assertEquals(64, p.grid().x());
    assertEquals(2, p.grid().y());
    assertEquals(384, p.block().x());
    assertEquals(4, QmmWgmmaKernel.plan(s.withRows(512)).grid().y());
    assertEquals(
        2, QmmWgmmaKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 256, 256, 256)).get("wg"));
    assertEquals(1, p.get("pipe"));
    assertEquals(3 * 16384, p.sharedBytes());
    assertEquals(4 * 16384, QmmWgmmaKernel.plan(s, 3, 2).sharedBytes());
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 5, 1));
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 3, 3));
    assertThrows(
        IllegalArgumentException.class,
        () -> QmmWgmmaKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 256, 128, 256), 3, 1));
  }
}
