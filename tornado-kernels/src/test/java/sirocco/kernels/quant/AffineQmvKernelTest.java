package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The CUDA-core vector path (qmv) on the Java backend. */
class AffineQmvKernelTest {

  static float[] run(QmmCase c, LaunchPlan plan) {
    Object out = c.outArg();
    TestSupport.run(
        AffineQmvKernel.class,
        plan,
        c.wq,
        c.scalesArg(),
        c.biasesArg(),
        c.xArg(),
        out,
        c.s.n(),
        c.s.k());
    return c.outValues(out);
  }

  static float[] run(QmmCase c) {
    assertNull(AffineQmvKernel.supports(c.s), c.s.toString());
    return run(c, AffineQmvKernel.plan(c.s));
  }

  @Test
  void everyWidthGroupAndDtypeMatchesFloat64() {
    int[] dtypes = {Quant.BF16, Quant.F16, Quant.F32};
    long seed = 100;
    for (int dtype : dtypes) {
      for (int bits : AffineQuantizeKernelTest.BITS) {
        for (int g : AffineQuantizeKernelTest.GROUPS) {
          // n = 37 leaves a partial warp and a partial block; k = 1152 gives lanes 1 or 2 units.
          QmmShape s = QmmShape.affine(bits, g, dtype, 2, 37, 1152);
          QmmCase c = QmmCase.random(s, seed++);
          c.check(run(c), "qmv");
        }
      }
    }
  }

  @Test
  void rowsPerWarpVariantsAgree() {
    for (int r : new int[] {1, 2, 4}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 45, 256);
      QmmCase c = QmmCase.random(s, 7 + r);
      c.check(run(c, AffineQmvKernel.plan(s, r)), "rowsPerWarp=" + r);
    }
  }

  /**
   * MLX test_qmv (shrunk for the Java backend): output sizes 67 (every group) and 256 (group 64), k
   * 64 and 256, batches folded into 2 rows; MLX's absolute tolerance 1e-3 as well as ours.
   */
  @Test
  void mlxQmvShapes() {
    for (int g : new int[] {128, 64, 32}) {
      for (int bits : AffineQuantizeKernelTest.BITS) {
        for (int n : new int[] {256, 67}) {
          for (int k : new int[] {64, 256}) {
            if (g > k || (n == 256 && g != 64)) {
              continue;
            }
            QmmShape s = QmmShape.affine(bits, g, Quant.F32, 2, n, k);
            QmmCase c = QmmCase.mlxScaled(s, 1000L * bits + n + k + g);
            float[] y = run(c);
            c.check(y, "test_qmv");
            c.checkMlx(y, "test_qmv", 0, 1e-3);
          }
        }
      }
    }
  }

  /** MLX test_qmv_small_non_multiples: (rows, k, n) tiny shapes at 4 and 6 bits, group 32. */
  @Test
  void mlxSmallNonMultiples() {
    int[][] cases = {{1, 32, 3}, {2, 32, 10}, {1, 32, 5}, {4, 32, 7}};
    for (int[] mkn : cases) {
      for (int bits : new int[] {4, 6}) {
        for (int dtype : new int[] {Quant.F32, Quant.BF16}) {
          QmmShape s = QmmShape.affine(bits, 32, dtype, mkn[0], mkn[2], mkn[1]);
          QmmCase c = QmmCase.random(s, 31L * mkn[2] + bits);
          c.check(run(c), "small non-multiple");
        }
      }
    }
  }

  /** MLX test_non_multiples: 33, 3 and 99 outputs with 1, 10 and 129 rows (transposed). */
  @Test
  void mlxNonMultiples() {
    int[][] cases = {{1, 33}, {10, 33}, {1, 3}, {10, 3}, {129, 99}};
    for (int[] mn : cases) {
      QmmShape s = QmmShape.affine(4, 64, Quant.F32, mn[0], mn[1], 256);
      QmmCase c = QmmCase.random(s, mn[0] * 1000L + mn[1]);
      c.check(run(c), "non-multiple");
    }
  }

  /**
   * MLX test_qmv_affine_bias_sum_precision: zero scales and unit biases make the product sum(x) for
   * x = tile([1, 1/denom, -1, 0]); 1 + 1/denom rounds back to 1 in the input type, so only a float
   * accumulation of the group sums gives the exact sign * k / (4 * denom).
   */
  @Test
  void biasSumIsAccumulatedInFloat() {
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      float denom = dtype == Quant.F16 ? 2048f : 256f;
      for (int n : new int[] {1, 4, 8, 12}) {
        for (int k : new int[] {64, 96, 512}) {
          for (int g : new int[] {32, 64}) {
            if (k % g != 0) {
              continue;
            }
            for (int sign : new int[] {-1, 1}) {
              for (int bits : AffineQuantizeKernelTest.BITS) {
                float[] pat = {1f, 1f / denom, -1f, 0f};
                short[] x = new short[k];
                for (int i = 0; i < k; i++) {
                  x[i] = QuantFormats.toHalfBits(dtype, sign * pat[i % 4]);
                }
                int groups = n * k / g;
                short[] scales = QuantFormats.toHalfBits(dtype, new float[groups]);
                float[] ones = new float[groups];
                java.util.Arrays.fill(ones, 1f);
                short[] biases = QuantFormats.toHalfBits(dtype, ones);
                int[] wq = new int[n * k * bits / 32];
                short[] out = TestSupport.halfPoisoned(n);
                QmmShape s = QmmShape.affine(bits, g, dtype, 1, n, k);
                TestSupport.run(
                    AffineQmvKernel.class,
                    AffineQmvKernel.plan(s),
                    wq,
                    scales,
                    biases,
                    x,
                    out,
                    n,
                    k);
                float want = sign * k / (4 * denom);
                for (int j = 0; j < n; j++) {
                  assertEquals(
                      want,
                      QuantMath.halfToFloat(out[j], dtype),
                      0f,
                      "dtype=" + dtype + " n=" + n + " k=" + k + " g=" + g + " bits=" + bits);
                }
              }
            }
          }
        }
      }
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    assertNull(AffineQmvKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 128)));
    assertTrue(
        AffineQmvKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 96))
            .contains("multiple"));
    assertTrue(
        AffineQmvKernel.supports(
                QmmShape.affine(4, 64, Quant.BF16, 1, 128, 128).withTranspose(false))
            .contains("transpose"));
    assertNotNull(AffineQmvKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 1, 8, 128)));
    assertTrue(
        AffineQmvKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 0, 8, 128))
            .contains("positive"));
    assertTrue(
        AffineQmvKernel.supports(QmmShape.affine(7, 64, Quant.BF16, 1, 8, 128)).contains("bits"));
  }
}
