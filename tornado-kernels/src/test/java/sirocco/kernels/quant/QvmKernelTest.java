package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Non-transposed weights ({@code transpose=false}) on the Java backend. */
class QvmKernelTest {

  static float[] run(QmmCase c) {
    assertNull(QvmKernel.supports(c.s), c.s.toString());
    Object out = c.outArg();
    boolean affine = c.s.mode() == Quant.AFFINE;
    boolean f32 = c.s.dtype() == Quant.F32;
    TestSupport.run(
        QvmKernel.class,
        QvmKernel.plan(c.s),
        c.wq,
        affine ? c.scalesArg() : (f32 ? new float[0] : new short[0]),
        affine ? c.biasesArg() : (f32 ? new float[0] : new short[0]),
        affine ? new byte[0] : c.fpScales,
        new float[] {c.globalScale},
        c.xArg(),
        out,
        c.s.rows(),
        c.s.n(),
        c.s.k());
    return c.outValues(out);
  }

  static QmmShape nt(int mode, int bits, int g, int dtype, int rows, int n, int k) {
    return new QmmShape(mode, bits, g, dtype, rows, n, k, false);
  }

  @Test
  void affineEveryWidthGroupAndDtype() {
    long seed = 500;
    for (int dtype : new int[] {Quant.BF16, Quant.F16, Quant.F32}) {
      for (int bits : AffineQuantizeKernelTest.BITS) {
        for (int g : AffineQuantizeKernelTest.GROUPS) {
          QmmCase c = QmmCase.random(nt(Quant.AFFINE, bits, g, dtype, 5, 128, 40), seed++);
          c.check(run(c), "qvm");
        }
      }
    }
  }

  @Test
  void fpModes() {
    long seed = 600;
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16, Quant.F32}) {
        for (int rows : new int[] {1, 6}) {
          QmmShape s =
              nt(
                  mode,
                  Quant.elementBits(mode, 0),
                  Quant.modeGroupSize(mode, 0),
                  dtype,
                  rows,
                  96,
                  33);
          QmmCase c = QmmCase.random(s, seed++);
          c.check(run(c), "fp qvm");
        }
      }
    }
  }

  /**
   * MLX test_small_matrix / test_non_multiples / test_qvm (shrunk): w [k, n] with k = 8, 33, 3, 67
   * and n = 256, rows 1, 3 and 10.
   */
  @Test
  void mlxNonTransposedShapes() {
    int[][] cases = {{1, 8}, {10, 8}, {1, 33}, {10, 33}, {1, 3}, {10, 3}, {3, 67}};
    for (int[] mk : cases) {
      QmmShape s = nt(Quant.AFFINE, 4, 64, Quant.F32, mk[0], 256, mk[1]);
      QmmCase c = QmmCase.random(s, 13L * mk[0] + mk[1]);
      c.check(run(c), "non-transposed");
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    assertTrue(
        QvmKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 64, 128))
            .contains("non-transposed"));
    assertTrue(
        QvmKernel.supports(nt(Quant.AFFINE, 4, 64, Quant.BF16, 1, 96, 128)).contains("multiple"));
    assertNull(QvmKernel.supports(nt(Quant.NVFP4, 4, 16, Quant.BF16, 1, 48, 5)));
  }
}
