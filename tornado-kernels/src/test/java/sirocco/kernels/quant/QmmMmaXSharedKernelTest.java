package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The x-in-shared-memory tensor-core kernel ({@link QmmMmaXSharedKernel}) on the Java backend
 * (copies done at once, mma simulated in float, lanes as threads) against the float64 reference
 * with {@link QmmTiledKernel}'s bound (each weight rounded once to the dtype before the mma: {@link
 * QmmTiledKernelTest#accRel}); outputs are poisoned with NaN before every run, so an unwritten
 * element fails.
 */
class QmmMmaXSharedKernelTest {
  static void check(QmmShape s, long seed, LaunchPlan p) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(
        c.runAffine(QmmMmaXSharedKernel.class, p),
        p.describe(),
        QmmTiledKernelTest.accRel(s.dtype()));
  }

  /**
   * The default plan (4 warps of 32 features by 64 rows, 3 slots) over groups 32/64/128 and
   * bf16/f16: 70 rows (a second, partial row block), n = 136 (a partial feature block whose last
   * warp has one 16-feature tile of two past the end), k = 384 (three steps: the slots wrap).
   */
  @Test
  void defaultPlanGroupsDtypes() {
    long seed = 1;
    for (int g : new int[] {32, 64, 128}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        QmmShape s = QmmShape.affine(4, g, dtype, 70, 136, 384);
        assertNull(QmmMmaXSharedKernel.supports(s), s.toString());
        LaunchPlan p = QmmMmaXSharedKernel.plan(s);
        assertEquals(2, p.grid().x(), p.describe());
        assertEquals(2, p.grid().y(), p.describe());
        check(s, seed++, p);
      }
    }
  }

  /**
   * Other tilings: one 16-feature tile per warp, short row tiles, 2 and 4 slots (k = 128 is one
   * step, fewer than the slots ahead), and a block of one warp copying 16 chunks per step.
   */
  @Test
  void explicitPlans() {
    long seed = 50;
    int[][] plans = {{8, 1, 8, 3}, {2, 2, 4, 4}, {4, 2, 2, 2}, {1, 2, 1, 2}, {1, 1, 8, 3}};
    for (int[] t : plans) {
      for (int k : new int[] {128, 512}) {
        QmmShape s = QmmShape.affine(4, 64, t[0] == 2 ? Quant.F16 : Quant.BF16, 13, 72, k);
        check(s, seed++, QmmMmaXSharedKernel.plan(s, t[0], t[1], t[2], t[3]));
      }
    }
  }

  /**
   * The weights through the slots by cp.async ({@code wAsync = 1}): 2, 3 and 4 slots over k = 128
   * (fewer steps than slots ahead), 384 and 1024 (the slots wrap), one and two 16-feature tiles per
   * warp, a partial row block and feature block.
   */
  @Test
  void weightsByAsyncCopy() {
    long seed = 70;
    int[][] plans = {{4, 2, 8, 3}, {4, 2, 8, 2}, {8, 1, 8, 4}, {2, 2, 4, 4}};
    for (int[] t : plans) {
      for (int k : new int[] {128, 384, 1024}) {
        QmmShape s = QmmShape.affine(4, k == 384 ? 128 : 64, Quant.BF16, 70, 136, k);
        LaunchPlan p = QmmMmaXSharedKernel.plan(s, t[0], t[1], t[2], t[3], 1);
        assertEquals(1, p.get("wAsync"));
        check(s, seed++, p);
      }
    }
    QmmShape f16 = QmmShape.affine(4, 32, Quant.F16, 9, 40, 256);
    check(f16, seed, QmmMmaXSharedKernel.plan(f16, 4, 2, 8, 3, 1));
  }

  /** One row, a single feature, and rows that fill a block exactly. */
  @Test
  void edges() {
    QmmShape one = QmmShape.affine(4, 64, Quant.BF16, 1, 1, 256);
    check(one, 90, QmmMmaXSharedKernel.plan(one));
    QmmShape full = QmmShape.affine(4, 128, Quant.F16, 64, 128, 256);
    check(full, 91, QmmMmaXSharedKernel.plan(full));
  }

  /** What it cannot take, and bad plans, are refused with the reason. */
  @Test
  void rejectsWithReasons() {
    String why = QmmMmaXSharedKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 64, 24, 1088));
    assertTrue(why != null && why.startsWith("k must be a multiple of 128"), why);
    why = QmmMmaXSharedKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 64, 24, 512));
    assertTrue(why != null && why.startsWith("affine 4-bit only"), why);
    why = QmmMmaXSharedKernel.supports(QmmShape.affine(4, 64, Quant.F32, 64, 24, 512));
    assertTrue(why != null && why.startsWith("bf16/f16"), why);
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 64, 24, 512);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmMmaXSharedKernel.plan(s, 4, 3, 8, 3));
    assertTrue(e.getMessage().startsWith("wf must be 1..32, mt 1..2"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmMmaXSharedKernel.plan(s, 4, 2, 8, 5));
    assertTrue(e.getMessage().startsWith("stages must be 2..4"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaXSharedKernel.plan(s, 4, 2, 8, 3, 2));
    assertTrue(e.getMessage().startsWith("wAsync must be 0 or 1"), e.getMessage());
    assertEquals(0, QmmMmaXSharedKernel.plan(s).get("wAsync"), "the default: weights in registers");
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaXSharedKernel.plan(s, 32, 1, 1, 2));
    assertTrue(e.getMessage().contains("must split evenly"), e.getMessage());
    QmmShape bad = QmmShape.affine(4, 64, Quant.BF16, 64, 24, 1088);
    e = assertThrows(IllegalArgumentException.class, () -> QmmMmaXSharedKernel.plan(bad));
    assertTrue(e.getMessage().startsWith("s: k must be"), e.getMessage());
  }
}
