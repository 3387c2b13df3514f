package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The streaming tensor-core kernel ({@link QmvMmaKernel}) on the Java backend (mma simulated in
 * float, lanes as threads) against the float64 reference with the bound of the other quant kernels
 * ({@link QmmCase#check}); outputs are poisoned with NaN before every run, so an unwritten element
 * fails.
 */
class QmvMmaKernelTest {
  static void check(QmmShape s, long seed, LaunchPlan p) {
    QmmCase c = QmmCase.random(s, seed);
    Object out = c.outArg();
    TestSupport.run(
        QmvMmaKernel.class,
        p,
        c.wq,
        c.scalesArg(),
        c.biasesArg(),
        c.xArg(),
        out,
        c.s.rows(),
        c.s.n(),
        c.s.k());
    c.check(c.outValues(out), p.describe());
  }

  static void check(QmmShape s, long seed) {
    assertNull(QmvMmaKernel.supports(s), s.toString());
    check(s, seed, QmvMmaKernel.plan(s));
  }

  /**
   * Groups 32/64/128 (1, 2 and 4 groups per k-step: columns carry row and group), bf16/f16, rows 1
   * to past one pass (g32: 2 rows per pass, so 3 rows is two row tiles, the second partial); n = 40
   * is 2.5 tiles (the last tile's rows clamp to feature 39 and store nothing past it).
   */
  @Test
  void defaultPlanGroupsDtypesRows() {
    long seed = 1;
    for (int g : new int[] {32, 64, 128}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {1, 2, 3, 5, 9}) {
          check(QmmShape.affine(4, g, dtype, rows, 40, 512), seed++);
        }
      }
    }
  }

  /** The benchmarked k at rows 1 and 4: 4 warps of 8 k-steps, depth 4. */
  @Test
  void k4096() {
    for (int rows : new int[] {1, 4}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, rows, 24, 4096);
      LaunchPlan p = QmvMmaKernel.plan(s);
      assertEquals(4, p.get("warps"));
      assertEquals(8, p.get("steps"));
      assertEquals(4, p.get("depth"));
      assertEquals(rows, p.get("mr"));
      check(s, 70 + rows, p);
    }
  }

  /**
   * Every depth against step counts that it does not divide (the last block of slots partly empty,
   * the refills clamped to the last step) and warps 1, 2, 8; k = 384 and 640 have 3 and 5 k-steps
   * (one warp).
   */
  @Test
  void depthsAndStepCounts() {
    long seed = 100;
    for (int depth = 1; depth <= 4; depth++) {
      for (int k : new int[] {384, 640, 1024}) {
        QmmShape s = QmmShape.affine(4, 64, depth % 2 == 0 ? Quant.F16 : Quant.BF16, 2, 24, k);
        int warps = QmvMmaKernel.defaultWarps(s);
        check(s, seed++, QmvMmaKernel.plan(s, warps, depth));
      }
    }
    QmmShape s = QmmShape.affine(4, 128, Quant.BF16, 8, 20, 2048);
    check(s, seed++, QmvMmaKernel.plan(s, 8, 2));
    check(s, seed++, QmvMmaKernel.plan(s, 2, 3));
    // Staging after the first weight requests (the other order).
    check(s, seed++, QmvMmaKernel.plan(s, 4, 4, 0));
    check(
        QmmShape.affine(4, 32, Quant.F16, 3, 24, 512),
        seed++,
        QmvMmaKernel.plan(QmmShape.affine(4, 32, Quant.F16, 3, 24, 512), 2, 2, 0));
  }

  /** n smaller than one tile, and a single feature. */
  @Test
  void tinyN() {
    check(QmmShape.affine(4, 64, Quant.BF16, 4, 9, 512), 200);
    check(QmmShape.affine(4, 32, Quant.F16, 1, 1, 256), 201);
  }

  /** Refusals name the reason; bad plans name the argument. */
  @Test
  void rejectsWithReasons() {
    String why = QmvMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 1088));
    assertTrue(why != null && why.startsWith("k must be a multiple of 128"), why);
    why = QmvMmaKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("affine 4-bit only"), why);
    why = QmvMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 128 * 200));
    assertTrue(why != null && why.startsWith("k too large"), why);
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 24, 384);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmvMmaKernel.plan(s, 2, 4));
    assertTrue(
        e.getMessage().startsWith("warps must be 1, 2, 4 or 8 and divide the 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmvMmaKernel.plan(s, 1, 5));
    assertTrue(e.getMessage().startsWith("depth must be 1..4"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmvMmaKernel.plan(s, 1, 2, 2));
    assertTrue(e.getMessage().startsWith("early must be 0 or 1"), e.getMessage());
  }
}
