package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.Bf16;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.dispatch.quant.QmmPolicy;
import sirocco.kernels.quant.QmmMmaAsyncFpKernel;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;

/** Test helpers for the quantization ops: inputs, quantized weights with references, checks. */
public final class QTest {
  private QTest() {}

  /** Normal values times {@code scale}, rounded to {@code dtype} (values of the dtype). */
  public static float[] normal(long seed, int n, double scale, DType dtype) {
    SplittableRandom rnd = new SplittableRandom(seed);
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      double u = 1.0 - rnd.nextDouble();
      double g = Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * rnd.nextDouble());
      v[i] = round(dtype, (float) (g * scale));
    }
    return v;
  }

  public static float round(DType dtype, float v) {
    return switch (dtype) {
      case BF16 -> Bf16.toFloat(Bf16.fromFloat(v));
      case F16 -> Float.float16ToFloat(Float.floatToFloat16(v));
      default -> v;
    };
  }

  /** A tensor of {@code dtype} holding {@code v} (already values of the dtype). */
  public static Tensor upload(Sirocco rt, float[] v, DType dtype, long... shape) {
    return switch (dtype) {
      case F32 -> rt.fromFloats(v, shape);
      case BF16 -> {
        short[] s = new short[v.length];
        for (int i = 0; i < v.length; i++) {
          s[i] = Bf16.fromFloat(v[i]);
        }
        yield rt.fromBf16(s, shape);
      }
      case F16 -> {
        short[] s = new short[v.length];
        for (int i = 0; i < v.length; i++) {
          s[i] = Float.floatToFloat16(v[i]);
        }
        yield rt.fromF16(s, shape);
      }
      default -> throw new IllegalArgumentException("not a floating dtype: " + dtype);
    };
  }

  public static long size(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  /**
   * Weights quantized by the op under test, with the float64 dequantization of exactly what it
   * produced (read back from the device).
   *
   * @param shape the logical (unpacked) shape of w, {@code [..., rows, cols]}
   */
  public record Weights(Quantized q, long[] shape, double[] wHat) {}

  public static Weights quantize(
      Sirocco rt, float[] w, long[] shape, DType dtype, QuantMode mode, int group, int bits) {
    return quantize(rt, w, shape, dtype, mode, group, bits, null);
  }

  public static Weights quantize(
      Sirocco rt,
      float[] w,
      long[] shape,
      DType dtype,
      QuantMode mode,
      int group,
      int bits,
      Float globalScale) {
    Tensor wt = upload(rt, w, dtype, shape);
    Tensor gs = globalScale == null ? null : rt.fromFloats(new float[] {globalScale}, 1);
    Quantized q = rt.quantize(wt, group, bits, mode, gs);
    wt.close();
    return new Weights(q, shape.clone(), dequantized(rt, q, shape));
  }

  /** The float64 dequantization of {@code q} (logical shape {@code shape}). */
  public static double[] dequantized(Sirocco rt, Quantized q, long[] shape) {
    long cols = shape[shape.length - 1];
    long rows = shape[shape.length - 2];
    long matrices = size(shape) / Math.max(1, rows * cols);
    if (rows * cols == 0) {
      return new double[0];
    }
    int[] wq = rt.toInts(q.wq());
    boolean affine = q.mode() == QuantMode.AFFINE;
    float[] scales = affine ? rt.toFloats(q.scales()) : null;
    float[] biases = affine ? rt.toFloats(q.biases()) : null;
    byte[] fp = affine ? null : rt.toBytes(q.scales());
    double gs = q.globalScale() == null ? 2688.0 : rt.toFloats(q.globalScale())[0];
    return QRef.dequantize(
        q.mode().name(), q.bits(), q.groupSize(), wq, scales, biases, fp, gs, matrices, rows, cols);
  }

  /**
   * Half the relative spacing of {@code dtype} values: 2^-8 for bf16, 2^-11 for f16, 2^-24 for f32.
   */
  public static double halfUlpRelative(DType dtype) {
    return switch (dtype) {
      case BF16 -> 0x1p-8;
      case F16 -> 0x1p-11;
      default -> 0x1p-24;
    };
  }

  /** Half the spacing of {@code dtype} values near {@code v}. */
  public static double halfUlp(DType dtype, double v) {
    double a = Math.abs(v);
    return switch (dtype) {
      case BF16 -> Math.max(Math.ulp((float) a), 0x1p-133) * 65536.0 / 2.0;
      case F16 -> Math.max(Math.ulp((float) a) * 8192.0, 0x1p-24) / 2.0;
      default -> Math.ulp((float) a) / 2.0;
    };
  }

  /**
   * Checks {@code y} against the reference: its shape and dtype, and every element within {@code
   * accRel·Σ|x·w|} (float32 accumulation, 2e-5 leaves several times the random-walk error at k =
   * 4096) plus half an ulp of the output dtype (the final rounding). Returns the worst ratio of
   * error to tolerance.
   */
  public static double check(
      Sirocco rt, Tensor y, QRef.Product ref, DType dtype, String what, double accRel) {
    assertArrayEquals(ref.shape(), y.shape(), what + ": shape");
    assertEquals(dtype, y.dtype(), what + ": dtype");
    float[] got = rt.toFloats(y);
    double worst = 0;
    for (int i = 0; i < got.length; i++) {
      double want = ref.value()[i];
      double acc = accRel * ref.magnitude()[i] + 1e-30;
      double tol = acc + halfUlp(dtype, Math.abs(want) + acc);
      double err = Math.abs(got[i] - want);
      if (!(err <= tol)) {
        throw new AssertionError(
            what
                + ": element "
                + i
                + " of "
                + Arrays.toString(y.shape())
                + " is "
                + got[i]
                + ", float64 reference "
                + want
                + " (error "
                + err
                + " > tolerance "
                + tol
                + ")");
      }
      worst = Math.max(worst, err / tol);
    }
    return worst;
  }

  public static double check(Sirocco rt, Tensor y, QRef.Product ref, DType dtype, String what) {
    return check(rt, y, ref, dtype, what, 2e-5);
  }

  /** MLX's form: every |y − ref| ≤ atol + rtol·|ref|. */
  public static void checkMlx(
      Sirocco rt, Tensor y, QRef.Product ref, String what, double rtol, double atol) {
    float[] got = rt.toFloats(y);
    for (int i = 0; i < got.length; i++) {
      double want = ref.value()[i];
      double err = Math.abs(got[i] - want);
      if (!(err <= atol + rtol * Math.abs(want))) {
        throw new AssertionError(
            what + ": element " + i + " is " + got[i] + ", reference " + want + " (MLX bound)");
      }
    }
  }

  /**
   * Runs {@code x · ŵᵀ} ({@code transpose}) or {@code x · ŵ} through {@link
   * Sirocco#quantizedMatmul}, checks shape, dtype and every element against {@link QRef#matmul}
   * with {@link #check}'s bound, and also MLX's bound when {@code mlxAtol >= 0}; returns the rungs
   * the op chose (one per launch).
   *
   * <p>The tensor-core rung multiplies weights dequantized into the activation dtype (as MLX's qmm
   * does), so its products carry up to half an ulp of that dtype beyond float32 accumulation: its
   * bound adds {@link #halfUlpRelative}(xType)·Σ|x·w|.
   */
  public static List<String> multiply(
      Sirocco rt,
      Weights w,
      float[] x,
      long[] xShape,
      DType xType,
      boolean transpose,
      DType outType,
      String what,
      double mlxAtol,
      double mlxRtol) {
    Tensor xt = upload(rt, x, xType, xShape);
    Tensor[] y = new Tensor[1];
    List<Decision> ds = decisions(() -> y[0] = rt.quantizedMatmul(xt, w.q(), transpose));
    QRef.Product ref = QRef.matmul(x, xShape, w.wHat(), w.shape(), transpose);
    List<String> chosen = qmmChoices(ds);
    double accRel = 2e-5 + (chosen.contains("qmm-mma") ? halfUlpRelative(xType) : 0);
    check(rt, y[0], ref, outType, what, accRel);
    if (mlxAtol >= 0) {
      checkMlx(rt, y[0], ref, what + " (MLX tolerance)", mlxRtol, mlxAtol);
    }
    y[0].close();
    xt.close();
    return chosen;
  }

  /** The decisions reported while {@code body} runs. */
  public static List<Decision> decisions(Runnable body) {
    List<Decision> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (AutoCloseable h = Explain.listen(seen::add)) {
      body.run();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new ArrayList<>(seen);
  }

  /** The chosen variants of the quantizedMatmul decisions among {@code ds}. */
  public static List<String> qmmChoices(List<Decision> ds) {
    List<String> out = new ArrayList<>();
    for (Decision d : ds) {
      if (d.op().equals("quantizedMatmul")) {
        out.add(d.chosen());
      }
    }
    return out;
  }

  /**
   * Whether the default policy runs fp-mode weights on {@code qmm-mma-fp-async}: bf16/f16 x, a
   * shape the kernel takes (its k split, transposed weights), {@link QmmPolicy#FP_ASYNC_MIN_ROWS}
   * to {@link QmmPolicy#fpAsyncMaxRows} rows.
   */
  static boolean fpAsync(QuantMode mode, DType t, long rows, long k, boolean transpose) {
    if (t == DType.F32 || mode == QuantMode.AFFINE) {
      return false;
    }
    int m =
        switch (mode) {
          case MXFP4 -> Quant.MXFP4;
          case NVFP4 -> Quant.NVFP4;
          default -> Quant.MXFP8;
        };
    int dtype = t == DType.F16 ? Quant.F16 : Quant.BF16;
    QmmShape s = QmmShape.fp(m, dtype, (int) rows, 64, (int) k).withTranspose(transpose);
    return QmmMmaAsyncFpKernel.supports(s) == null
        && rows >= QmmPolicy.FP_ASYNC_MIN_ROWS
        && rows <= QmmPolicy.fpAsyncMaxRows(m);
  }

  /**
   * Fewest rows at which affine weights go to tensor cores by default: {@link
   * QmmPolicy#AFFINE_ASYNC_MIN_ROWS} where {@code qmm-mma-async} takes the shape (2, 4 or 6 bits)
   * with groups of 64 or 128, else {@link QmmPolicy#AFFINE_MMA_MIN_ROWS}.
   */
  static int affineTensorCoreMinRows(int bits, DType t, long k, int group) {
    if (asyncWidth(bits) && t != DType.F32 && group >= 64) {
      int dtype = t == DType.F16 ? Quant.F16 : Quant.BF16;
      QmmShape s = QmmShape.affine(bits, group, dtype, 1, 64, (int) k);
      if (QmmMmaAsyncKernel.supports(s) == null) {
        return QmmPolicy.AFFINE_ASYNC_MIN_ROWS;
      }
    }
    return QmmPolicy.AFFINE_MMA_MIN_ROWS;
  }

  /**
   * The tensor-core rung the default policy runs for transposed affine weights at {@link
   * #affineTensorCoreMinRows}+ rows of bf16 or f16 x: up to {@link QmmPolicy#MMA_ASYNC_MAX_ROWS}
   * rows the asynchronous-copy split-K kernel where it takes the shape (2, 4 or 8 groups per warp
   * slice), up to {@link QmmPolicy#MMA_ASYNC_TWO_TILES_MAX_ROWS} where its plan holds two row tiles
   * per warp, else the split-K kernel where it takes the shape (4-bit, k splitting evenly over its
   * warps, at most {@link QmmPolicy#MMA_SPLITK_MAX_ROWS} rows, or {@link
   * QmmPolicy#MMA_SPLITK_MAX_ROWS_TWO_TILES} where its plan holds two row tiles per warp), else
   * qmm-mma. 2-bit codes (and 6-, 3- and 5-bit ones where {@link QmmPolicy#ASYNC_6BIT} and {@link
   * QmmPolicy#ASYNC_3_5_BIT}) go to the async kernel at any row count where it takes them, else to
   * qmv-rows.
   */
  static String affineTensorCore(int bits, DType t, long rows, long k, int group) {
    if (asyncWidth(bits) && t != DType.F32) {
      int dtype = t == DType.F16 ? Quant.F16 : Quant.BF16;
      QmmShape s = QmmShape.affine(bits, group, dtype, (int) rows, 64, (int) k);
      if (QmmMmaAsyncKernel.supports(s) == null
          && (bits != 4 && rows <= QmmPolicy.MMA_ASYNC_MAX_ROWS_2_6_BIT
              || rows <= QmmPolicy.MMA_ASYNC_MAX_ROWS
              || rows <= QmmPolicy.MMA_ASYNC_TWO_TILES_MAX_ROWS
                  && QmmMmaAsyncKernel.rowTiles(s) == 2)) {
        return "qmm-mma-async";
      }
      int max =
          QmmMmaSplitKKernel.rowTiles(s) == 2
              ? QmmPolicy.MMA_SPLITK_MAX_ROWS_TWO_TILES
              : QmmPolicy.MMA_SPLITK_MAX_ROWS;
      if (rows <= max && QmmMmaSplitKKernel.supports(s) == null) {
        return "qmm-mma-splitk";
      }
    }
    // 2-, 3-, 5- and 6-bit codes have no other tensor-core kernel: the rows kernel takes them.
    return bits == 4 || bits == 8 ? "qmm-mma" : "qmv-rows";
  }

  /**
   * Widths the default gives the async kernel: 4 and 2 bits, 6 where {@link QmmPolicy#ASYNC_6BIT},
   * 3 and 5 where {@link QmmPolicy#ASYNC_3_5_BIT} (run 108).
   */
  static boolean asyncWidth(int bits) {
    return bits == 4
        || bits == 2
        || bits == 6 && QmmPolicy.ASYNC_6BIT
        || (bits == 3 || bits == 5) && QmmPolicy.ASYNC_3_5_BIT;
  }
}
