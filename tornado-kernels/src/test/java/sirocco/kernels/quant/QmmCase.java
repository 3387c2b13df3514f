package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;

/**
 * One random quantized-matmul problem: weights quantized on the host (the quantize kernels are
 * tested on their own), x, and the arrays each kernel takes, in the dtype's Java representation.
 */
final class QmmCase {
  final QmmShape s;
  final float[] x; // [rows, k] values of the dtype
  final int[] wq;
  final float[] scales; // affine: values of the dtype
  final float[] biases;
  final byte[] fpScales; // fp modes
  final float globalScale;

  QmmCase(QmmShape s, float[] x, float[] w, float globalScale) {
    this.s = s;
    this.x = x;
    this.globalScale = globalScale;
    // w is [n, k] when transposed, [k, n] otherwise; quantized along its last axis.
    int qRows = s.transpose() ? s.n() : s.k();
    int qCols = s.transpose() ? s.k() : s.n();
    if (s.mode() == Quant.AFFINE) {
      QuantFormats.Affine a =
          QuantFormats.quantizeAffine(w, qRows, qCols, s.groupSize(), s.bits(), s.dtype());
      wq = a.wq();
      scales = a.scales();
      biases = a.biases();
      fpScales = null;
    } else {
      QuantFormats.Fp f = QuantFormats.quantizeFp(w, qRows, qCols, s.mode(), globalScale);
      wq = f.wq();
      fpScales = f.scales();
      scales = null;
      biases = null;
    }
  }

  /** Normal x and w scaled by 1/sqrt(k), as MLX's tests draw them. */
  static QmmCase random(QmmShape s, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double sc = 1.0 / Math.sqrt(s.k());
    float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, s.dtype());
    float[] w = TestSupport.normal(rnd, s.n() * s.k(), sc, s.dtype());
    float gs =
        s.mode() == Quant.NVFP4 && seed % 2 == 0
            ? FpQuantizeKernelTest.maxAbs(w)
            : Quant.NO_GLOBAL_SCALE;
    return new QmmCase(s, x, w, gs);
  }

  /** MLX test_qmm's draw: x and w both normal / sqrt(k). */
  static QmmCase mlxScaled(QmmShape s, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double sc = 1.0 / Math.sqrt(s.k());
    float[] x = TestSupport.normal(rnd, s.rows() * s.k(), sc, s.dtype());
    float[] w = TestSupport.normal(rnd, s.n() * s.k(), sc, s.dtype());
    return new QmmCase(s, x, w, Quant.NO_GLOBAL_SCALE);
  }

  Object xArg() {
    return s.dtype() == Quant.F32 ? x.clone() : QuantFormats.toHalfBits(s.dtype(), x);
  }

  Object scalesArg() {
    return s.dtype() == Quant.F32 ? scales.clone() : QuantFormats.toHalfBits(s.dtype(), scales);
  }

  Object biasesArg() {
    return s.dtype() == Quant.F32 ? biases.clone() : QuantFormats.toHalfBits(s.dtype(), biases);
  }

  Object outArg() {
    int len = s.rows() * s.n();
    return s.dtype() == Quant.F32 ? TestSupport.floatPoisoned(len) : TestSupport.halfPoisoned(len);
  }

  float[] outValues(Object out) {
    return s.dtype() == Quant.F32
        ? TestSupport.values(s.dtype(), null, (float[]) out, "out " + s)
        : TestSupport.values(s.dtype(), (short[]) out, null, "out " + s);
  }

  /**
   * Runs an affine matmul kernel whose parameters are {@code (wq, scales, biases, x, out, rows, n,
   * k)} under {@code plan} on this case, the output poisoned first; returns the output's values.
   */
  float[] runAffine(Class<?> kernel, LaunchPlan plan) {
    Object out = outArg();
    TestSupport.run(
        kernel, plan, wq, scalesArg(), biasesArg(), xArg(), out, s.rows(), s.n(), s.k());
    return outValues(out);
  }

  QmmReference.Result reference() {
    return s.mode() == Quant.AFFINE
        ? QmmReference.affine(wq, scales, biases, x, s)
        : QmmReference.fp(wq, fpScales, globalScale, x, s);
  }

  /**
   * Checks every element against the float64 reference: float32 accumulation may differ by a small
   * multiple of 2^-24 times {@code sum |x w|} (we allow 2e-5, several times the random-walk error
   * at k = 4096), and the final rounding to the dtype adds half an ulp of the dtype.
   */
  void check(float[] got, String what) {
    check(got, what, 2e-5);
  }

  void check(float[] got, String what, double accRel) {
    QmmReference.Result ref = reference();
    for (int i = 0; i < got.length; i++) {
      double acc = accRel * ref.magnitude()[i] + 1e-30;
      double tol = acc + TestSupport.halfUlp(s.dtype(), Math.abs(ref.value()[i]) + acc);
      assertEquals(ref.value()[i], got[i], tol, what + " " + s + " element " + i);
    }
  }

  /** MLX-style check: |y - y_ref| <= atol + rtol * |y_ref| against the same float64 reference. */
  void checkMlx(float[] got, String what, double rtol, double atol) {
    QmmReference.Result ref = reference();
    for (int i = 0; i < got.length; i++) {
      double want = ref.value()[i];
      assertEquals(want, got[i], atol + rtol * Math.abs(want), what + " " + s + " element " + i);
    }
  }
}
