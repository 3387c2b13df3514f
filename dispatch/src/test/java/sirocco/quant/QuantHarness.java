package sirocco.quant;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Sirocco;

/**
 * What the quantized-matmul cases of {@link QuantContract} run on: the runtime of the backend a
 * subclass picks, the ladder policy the cases pin, and the helpers that build weights and multiply
 * through the op.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class QuantHarness {
  protected abstract Backend backend();

  /**
   * True where the medium size of {@link QuantContract#everyFormatAtRows1And6} is affordable (the
   * GPU).
   */
  protected boolean big() {
    return backend() == Backend.CUDA;
  }

  protected Sirocco rt;

  @BeforeAll
  void open() {
    rt = Sirocco.open(backend());
  }

  @BeforeEach
  void pinPolicy() {
    // These cases walk specific ladder paths (qmv at 1 row, tensor cores from 2 rows, fp modes on
    // the vector path up to 7 rows), so they pin the policy they were written for; the policy is
    // an input of the ladder. The default policy (set from measurements) is tested on shapes in
    // sirocco.dispatch.quant.QmmOpTest and through the op in QmmDefaultPolicyContract.
    System.setProperty(sirocco.dispatch.quant.QmmPolicy.AFFINE_PROPERTY, "2");
    System.setProperty(sirocco.dispatch.quant.QmmPolicy.FP_PROPERTY, "8");
    System.setProperty(sirocco.dispatch.quant.QmmPolicy.QMV_VARIANT_PROPERTY, "qmv");
  }

  @AfterAll
  void close() {
    System.clearProperty(sirocco.dispatch.quant.QmmPolicy.AFFINE_PROPERTY);
    System.clearProperty(sirocco.dispatch.quant.QmmPolicy.FP_PROPERTY);
    System.clearProperty(sirocco.dispatch.quant.QmmPolicy.QMV_VARIANT_PROPERTY);
    if (rt != null) {
      rt.close();
    }
  }

  // ---- helpers ----

  /** Multiplies through the op, checks against float64 ({@link QTest#multiply}); the rungs. */
  protected List<String> mm(
      QTest.Weights w,
      float[] x,
      long[] xShape,
      DType xType,
      boolean transpose,
      DType outType,
      String what,
      double mlxAtol,
      double mlxRtol) {
    return QTest.multiply(rt, w, x, xShape, xType, transpose, outType, what, mlxAtol, mlxRtol);
  }

  protected List<String> mm(
      QTest.Weights w, float[] x, long[] xShape, DType t, boolean transpose, String what) {
    return mm(w, x, xShape, t, transpose, t, what, -1, 0);
  }

  protected QTest.Weights weights(
      long seed, long[] shape, double scale, DType t, QuantMode mode, int group, int bits) {
    float[] w = QTest.normal(seed, (int) QTest.size(shape), scale, t);
    return QTest.quantize(rt, w, shape, t, mode, group(mode, group), bits(mode, bits));
  }

  protected static int group(QuantMode m, int affineGroup) {
    return switch (m) {
      case AFFINE -> affineGroup;
      case NVFP4 -> 16;
      default -> 32;
    };
  }

  protected static int bits(QuantMode m, int affineBits) {
    return switch (m) {
      case AFFINE -> affineBits;
      case MXFP8 -> 8;
      default -> 4;
    };
  }

  protected static final QuantMode[] FP = {QuantMode.MXFP4, QuantMode.NVFP4, QuantMode.MXFP8};
  protected static final int[] BITS = {2, 3, 4, 5, 6, 8};
}
