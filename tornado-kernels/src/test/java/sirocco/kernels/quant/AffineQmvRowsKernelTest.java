package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The multi-row vector kernel ({@link AffineQmvRowsKernel}) on the Java backend against the float64
 * reference ({@link QmmCase#check}: the bound the other qmv tests use), outputs poisoned with NaN
 * before every run and every element checked. Shapes are small (the Java backend runs a block's 256
 * threads for real, and a shuffle costs tens of µs there).
 */
class AffineQmvRowsKernelTest {
  static float[] run(QmmCase c, LaunchPlan plan) {
    Object out = c.outArg();
    TestSupport.run(
        AffineQmvRowsKernel.class,
        plan,
        AffineQmvRowsKernel.arguments(
            c.s,
            c.wq,
            c.scalesArg(),
            c.biasesArg(),
            c.xArg(),
            out,
            TestSupport.halfPoisoned(1),
            TestSupport.floatPoisoned(1)));
    return c.outValues(out);
  }

  static void check(QmmShape s, long seed, LaunchPlan plan) {
    assertNull(AffineQmvRowsKernel.supports(s), s.toString());
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, plan), plan.describe());
  }

  /**
   * Every width × group × dtype with the default plan; the rows cycle through 2, 3, 5 and 8 (so
   * each row count meets every width and dtype). n = 37 leaves a partial block (16 features) and a
   * warp whose second feature is past n; k = 384 is 12 units (lanes 12–31 idle), k = 1152 (every
   * fourth case) 36 (lanes 0–3 take two units).
   */
  @Test
  void everyWidthGroupAndDtypeMatchesFloat64() {
    int[] rows = {2, 3, 5, 8};
    int i = 0;
    for (int dtype : new int[] {Quant.BF16, Quant.F16, Quant.F32}) {
      for (int bits : AffineQuantizeKernelTest.BITS) {
        for (int g : AffineQuantizeKernelTest.GROUPS) {
          int m = rows[i % rows.length];
          int k = i % 4 == 3 ? 1152 : 384;
          QmmShape s = QmmShape.affine(bits, g, dtype, m, 13, k);
          LaunchPlan p = AffineQmvRowsKernel.plan(s);
          assertEquals(m, p.get("xRows"), p.describe()); // up to 8 rows: one row block
          check(s, 700 + i, p);
          i++;
        }
      }
    }
  }

  /**
   * Rows not a multiple of the rows per block (the last block clamps its loads and stores only its
   * own rows), every width, one and two features per warp in turn; n = 19 is two column blocks at
   * two features per warp.
   */
  @Test
  void rowBlocksAndFeaturesPerWarp() {
    int[][] rowsAndBlock = {{5, 2}, {8, 3}, {3, 8}, {7, 4}, {2, 1}, {6, 5}};
    for (int i = 0; i < AffineQuantizeKernelTest.BITS.length; i++) {
      int[] rb = rowsAndBlock[i];
      int dtype = i % 3 == 0 ? Quant.F32 : i % 3 == 1 ? Quant.BF16 : Quant.F16;
      QmmShape s = QmmShape.affine(AffineQuantizeKernelTest.BITS[i], 64, dtype, rb[0], 19, 256);
      check(s, 800 + i, AffineQmvRowsKernel.plan(s, rb[1], 1 + i % 2));
    }
  }

  /** More rows than one block takes: 9 rows run as 2 blocks of 5 (20 would be 3 of 7). */
  @Test
  void moreRowsThanOneBlock() {
    assertEquals(7, AffineQmvRowsKernel.defaultXRows(20));
    QmmShape s = QmmShape.affine(3, 32, Quant.F32, 9, 13, 256);
    LaunchPlan p = AffineQmvRowsKernel.plan(s);
    assertEquals(2, p.grid().y(), p.describe());
    assertEquals(5, p.get("xRows"), p.describe());
    check(s, 900, p);
  }

  @Test
  void defaultRowsPerBlock() {
    int[] want = {1, 2, 3, 4, 5, 6, 7, 8, 5, 5, 6, 6, 7, 7, 8, 8, 6};
    for (int r = 1; r <= want.length; r++) {
      assertEquals(want[r - 1], AffineQmvRowsKernel.defaultXRows(r), "rows=" + r);
    }
    LaunchPlan p = AffineQmvRowsKernel.plan(QmmShape.affine(5, 64, Quant.F32, 6, 12288, 4096));
    assertEquals(768, p.grid().x(), p.describe());
    assertEquals(1, p.grid().y(), p.describe());
    assertThrows(
        IllegalArgumentException.class,
        () -> AffineQmvRowsKernel.plan(QmmShape.affine(4, 64, Quant.F32, 6, 64, 64), 9, 2));
    assertThrows(
        IllegalArgumentException.class,
        () -> AffineQmvRowsKernel.plan(QmmShape.affine(4, 64, Quant.F32, 6, 64, 64), 4, 4));
    assertThrows(
        IllegalArgumentException.class,
        () -> AffineQmvRowsKernel.plan(QmmShape.affine(4, 64, Quant.F32, 65536, 64, 64), 1, 2));
    assertEquals(
        8192,
        AffineQmvRowsKernel.plan(QmmShape.affine(4, 64, Quant.F32, 65536, 64, 64)).grid().y());
  }

  /**
   * MLX test_qmv_affine_bias_sum_precision on 3 rows (signs alternate by row): zero scales and unit
   * biases make the product sum(x); only a float accumulation of the x sums gives it exactly.
   */
  @Test
  void biasSumIsAccumulatedInFloat() {
    int n = 5;
    int k = 512;
    int rows = 3;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      float denom = dtype == Quant.F16 ? 2048f : 256f;
      for (int bits : AffineQuantizeKernelTest.BITS) {
        float[] pat = {1f, 1f / denom, -1f, 0f};
        short[] x = new short[rows * k];
        for (int i = 0; i < x.length; i++) {
          int sign = (i / k) % 2 == 0 ? 1 : -1;
          x[i] = QuantFormats.toHalfBits(dtype, sign * pat[i % 4]);
        }
        int groups = n * k / 64;
        float[] ones = new float[groups];
        Arrays.fill(ones, 1f);
        short[] out = TestSupport.halfPoisoned(rows * n);
        QmmShape s = QmmShape.affine(bits, 64, dtype, rows, n, k);
        TestSupport.run(
            AffineQmvRowsKernel.class,
            AffineQmvRowsKernel.plan(s),
            AffineQmvRowsKernel.arguments(
                s,
                new int[n * k * bits / 32],
                QuantFormats.toHalfBits(dtype, new float[groups]),
                QuantFormats.toHalfBits(dtype, ones),
                x,
                out,
                new short[1],
                new float[1]));
        for (int i = 0; i < out.length; i++) {
          float want = ((i / n) % 2 == 0 ? 1 : -1) * k / (4 * denom);
          assertEquals(
              want,
              QuantMath.halfToFloat(out[i], dtype),
              0f,
              "dtype=" + dtype + " bits=" + bits + " element " + i);
        }
      }
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    assertNull(AffineQmvRowsKernel.supports(QmmShape.affine(3, 64, Quant.F32, 4, 8, 128)));
    assertTrue(
        AffineQmvRowsKernel.supports(
                QmmShape.affine(4, 64, Quant.BF16, 2, 128, 128).withTranspose(false))
            .contains("transpose"));
    assertTrue(
        AffineQmvRowsKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 2, 8, 128))
            .contains("affine"));
    assertTrue(
        AffineQmvRowsKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 2, 8, 96))
            .contains("multiple"));
    assertTrue(
        AffineQmvRowsKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 524281, 8, 64))
            .contains("at most 524280 rows"));
  }
}
