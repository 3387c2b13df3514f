package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The tile-streaming tensor-core kernel ({@link QmvMmaKernel}) on the Java backend (copies done at
 * once, mma simulated in float, lanes as threads) against the float64 reference with the bound of
 * the other quant kernels ({@link QmmCase#check}); outputs are poisoned with NaN before every run,
 * so an unwritten element fails.
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
   * Groups 32/64/128 (4, 2 and 1 groups per k-step: columns carry row and group), bf16/f16, rows 1
   * to past one pass (g32: 2 rows per pass, so 3 rows is two row tiles, the second partial); n = 40
   * is 2.5 tiles (the last tile's rows clamp to feature 39 and store nothing past it).
   */
  @Test
  void defaultPlanGroupsDtypesRows() {
    long seed = 1;
    for (int g : new int[] {32, 64, 128}) {
      int k = g == 128 ? 1024 : 512; // a multiple of 8 groups
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {1, 2, 3, 5, 9}) {
          check(QmmShape.affine(4, g, dtype, rows, 40, k), seed++);
        }
      }
    }
  }

  /** The benchmarked k at rows 1 and 4: 4 warps of 8 k-steps. */
  @Test
  void k4096() {
    for (int rows : new int[] {1, 4}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, rows, 24, 4096);
      LaunchPlan p = QmvMmaKernel.plan(s);
      assertEquals(4, p.get("warps"));
      assertEquals(8, p.get("steps"));
      assertEquals(rows, p.get("mr"));
      check(s, 70 + rows, p);
    }
  }

  /** Warps 1, 2, 4, 8 over 2 to 16 k-steps each (k = 1024 and 2048). */
  @Test
  void warpSplits() {
    long seed = 100;
    for (int warps : new int[] {1, 2, 4, 8}) {
      for (int k : new int[] {1024, 2048}) {
        QmmShape s = QmmShape.affine(4, 64, warps % 2 == 0 ? Quant.F16 : Quant.BF16, 2, 24, k);
        check(s, seed++, QmvMmaKernel.plan(s, warps));
      }
    }
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
    String why = QmvMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 1152));
    assertTrue(why != null && why.startsWith("k must be a multiple of 256"), why);
    why = QmvMmaKernel.supports(QmmShape.affine(4, 128, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.contains("(4 groups)"), why);
    why = QmvMmaKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("affine 4-bit only"), why);
    why = QmvMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 16384));
    assertTrue(why != null && why.startsWith("k too large"), why);
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 24, 768);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmvMmaKernel.plan(s, 4));
    assertTrue(
        e.getMessage().startsWith("warps must be 1, 2, 4 or 8 and divide the 6"), e.getMessage());
  }
}
