package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fp-mode vector path on the Java backend. */
class FpQmvKernelTest {
  static final int[] MODES = {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8};

  static float[] run(QmmCase c, LaunchPlan plan) {
    Object out = c.outArg();
    TestSupport.run(
        FpQmvKernel.class,
        plan,
        c.wq,
        c.fpScales,
        new float[] {c.globalScale},
        c.xArg(),
        out,
        c.s.n(),
        c.s.k());
    return c.outValues(out);
  }

  static float[] run(QmmCase c) {
    assertNull(FpQmvKernel.supports(c.s), c.s.toString());
    return run(c, FpQmvKernel.plan(c.s));
  }

  @Test
  void everyModeAndDtypeMatchesFloat64() {
    long seed = 200;
    for (int mode : MODES) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16, Quant.F32}) {
        for (int rows : new int[] {1, 3}) {
          // seed parity alternates nvfp4 between no global scale and max|w|
          QmmShape s = QmmShape.fp(mode, dtype, rows, 37, 1120);
          QmmCase c = QmmCase.random(s, seed++);
          c.check(run(c), "fp qmv");
          QmmCase c2 = QmmCase.random(s, seed++);
          c2.check(run(c2, FpQmvKernel.plan(s, 4)), "fp qmv rowsPerWarp=4");
        }
      }
    }
  }

  /**
   * MLX test_fp_qmv: outputs 256, 67, 5, 7 (5 and 7 are below one warp's rows), k 64 and 256,
   * batches folded into 3 rows; plus nvfp4 with k = 48 (a multiple of 16 but not 32). MLX's tests
   * use unscaled normal x and w here and a 2e-2 absolute tolerance on CUDA; we check both that and
   * the float64 tolerance.
   */
  @Test
  void mlxFpQmvShapes() {
    for (int n : new int[] {256, 67, 5, 7}) {
      for (int k : new int[] {64, 256}) {
        for (int mode : MODES) {
          QmmShape s = QmmShape.fp(mode, Quant.F32, 3, n, k);
          QmmCase c = unscaled(s, 17L * n + k + mode);
          float[] y = run(c);
          c.check(y, "test_fp_qmv");
          c.checkMlx(y, "test_fp_qmv", 0, 2e-2);
        }
      }
    }
    QmmShape s = QmmShape.fp(Quant.NVFP4, Quant.F32, 1, 128, 48);
    QmmCase c = unscaled(s, 48);
    c.check(run(c), "nvfp4 k=48");
  }

  /** MLX test_fp_qmv_fast_unaligned_n (shrunk): small output counts, k 544 (not 512-aligned). */
  @Test
  void unalignedOutputCounts() {
    for (int n : new int[] {1, 3, 9, 17}) {
      for (int mode : MODES) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          QmmShape s = QmmShape.fp(mode, dtype, 1, n, 544);
          QmmCase c = QmmCase.random(s, 7L * n + 544 + dtype);
          c.check(run(c), "unaligned n");
        }
      }
    }
  }

  static QmmCase unscaled(QmmShape s, long seed) {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, s.dtype());
    float[] w = TestSupport.normal(rnd, s.n() * s.k(), 1.0, s.dtype());
    return new QmmCase(s, x, w, Quant.NO_GLOBAL_SCALE);
  }

  @Test
  void supportsRejectsWithReasons() {
    assertNull(FpQmvKernel.supports(QmmShape.fp(Quant.NVFP4, Quant.BF16, 1, 8, 48)));
    assertTrue(
        FpQmvKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 1, 8, 48)).contains("multiple"));
    assertTrue(
        FpQmvKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 128)).contains("fp modes"));
    assertTrue(
        FpQmvKernel.supports(new QmmShape(Quant.MXFP4, 4, 64, Quant.BF16, 1, 8, 128, true))
            .contains("groupSize"));
    assertTrue(
        FpQmvKernel.supports(new QmmShape(Quant.MXFP8, 4, 32, Quant.BF16, 1, 8, 128, true))
            .contains("bits"));
  }
}
