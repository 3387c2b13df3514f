package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.quant.QuantFormats;

/**
 * {@code rt.quantize} and {@code rt.dequantize} through the public API: the packed format against
 * the kernels' host-side definition of MLX's format ({@link QuantFormats}, bit for bit), MLX's
 * round-trip cases, dequantization against {@link QRef}'s float64 decoding, output dtypes and empty
 * inputs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class QuantizeContract {
  protected abstract Backend backend();

  protected Sirocco rt;

  @BeforeAll
  void open() {
    rt = Sirocco.open(backend());
  }

  @AfterAll
  void close() {
    if (rt != null) {
      rt.close();
    }
  }

  static int code(DType t) {
    return switch (t) {
      case BF16 -> Quant.BF16;
      case F16 -> Quant.F16;
      default -> Quant.F32;
    };
  }

  static int code(QuantMode m) {
    return switch (m) {
      case AFFINE -> Quant.AFFINE;
      case MXFP4 -> Quant.MXFP4;
      case NVFP4 -> Quant.NVFP4;
      case MXFP8 -> Quant.MXFP8;
    };
  }

  /**
   * Every affine width and group and every fp mode, in every dtype, on 3-D weights (leading axes
   * fold into rows): the same words and scales as the format's host definition.
   */
  @Test
  public void quantizeIsTheMlxFormatBitForBit() {
    long[] shape = {2, 3, 256};
    int rows = 6;
    int cols = 256;
    long seed = 0;
    for (DType t : new DType[] {DType.BF16, DType.F16, DType.F32}) {
      for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
        for (int g : new int[] {32, 64, 128}) {
          float[] w = QTest.normal(seed++, rows * cols, 0.3, t);
          Quantized q = rt.quantize(QTest.upload(rt, w, t, shape), g, bits, QuantMode.AFFINE);
          QuantFormats.Affine want = QuantFormats.quantizeAffine(w, rows, cols, g, bits, code(t));
          String what = "affine " + t + " bits=" + bits + " g=" + g;
          assertArrayEquals(new long[] {2, 3, cols * bits / 32}, q.wq().shape(), what);
          assertArrayEquals(new long[] {2, 3, cols / g}, q.scales().shape(), what);
          assertEquals(t, q.scales().dtype(), what);
          assertEquals(t, q.biases().dtype(), what);
          assertArrayEquals(want.wq(), rt.toInts(q.wq()), what + ": words");
          assertArrayEquals(want.scales(), rt.toFloats(q.scales()), what + ": scales");
          assertArrayEquals(want.biases(), rt.toFloats(q.biases()), what + ": biases");
        }
      }
      for (QuantMode m : new QuantMode[] {QuantMode.MXFP4, QuantMode.NVFP4, QuantMode.MXFP8}) {
        for (boolean global : new boolean[] {false, true}) {
          if (global && m != QuantMode.NVFP4) {
            continue;
          }
          float[] w = QTest.normal(seed++, rows * cols, 0.3, t);
          float gs = global ? maxAbs(w) : Quant.NO_GLOBAL_SCALE;
          Tensor gst = global ? rt.fromFloats(new float[] {gs}, 1) : null;
          int group = m == QuantMode.NVFP4 ? 16 : 32;
          int bits = m == QuantMode.MXFP8 ? 8 : 4;
          Quantized q = rt.quantize(QTest.upload(rt, w, t, shape), group, bits, m, gst);
          QuantFormats.Fp want = QuantFormats.quantizeFp(w, rows, cols, code(m), gs);
          String what = m + " " + t + (global ? " with global scale" : "");
          assertEquals(DType.U8, q.scales().dtype(), what);
          assertNull(q.biases(), what);
          assertArrayEquals(new long[] {2, 3, cols / group}, q.scales().shape(), what);
          assertArrayEquals(want.wq(), rt.toInts(q.wq()), what + ": words");
          assertArrayEquals(want.scales(), rt.toBytes(q.scales()), what + ": scale codes");
        }
      }
    }
  }

  static float maxAbs(float[] w) {
    float m = 0;
    for (float v : w) {
      m = Math.max(m, Math.abs(v));
    }
    return m;
  }

  /**
   * MLX test_quantize_dequantize: w (128, 512) normal, every group and width, |w − ŵ| ≤ |scale| of
   * its group; zeros come back as exact zeros.
   */
  @Test
  public void mlxAffineRoundTrip() {
    float[] w = QTest.normal(1, 128 * 512, 1.0, DType.F32);
    Tensor wt = rt.fromFloats(w, 128, 512);
    Tensor zeros = rt.zeros(DType.F32, 256, 512);
    for (int gs : new int[] {32, 64, 128}) {
      for (int b : new int[] {2, 3, 5, 6, 4, 8}) {
        Quantized q = rt.quantize(wt, gs, b, QuantMode.AFFINE);
        float[] hat = rt.toFloats(rt.dequantize(q));
        float[] scales = rt.toFloats(q.scales());
        for (int i = 0; i < w.length; i++) {
          float s = Math.abs(scales[i / gs]);
          assertTrue(
              Math.abs(w[i] - hat[i]) <= s + 1e-6,
              "gs=" + gs + " bits=" + b + " element " + i + ": " + w[i] + " vs " + hat[i]);
        }
        Quantized qz = rt.quantize(zeros, gs, b, QuantMode.AFFINE);
        for (float v : rt.toFloats(rt.dequantize(qz))) {
          assertEquals(0f, v, "zeros gs=" + gs + " bits=" + b);
        }
      }
    }
  }

  /**
   * MLX test_mxfp4/nvfp4/mxfp8_quantize_dequantize: fp4 grid values with the group maximum 6 round
   * trip within 1e-5 (nvfp4 also with a global scale of max|w|), mxfp8 of uniform(−1, 1) within
   * 1e-1, zeros exactly.
   */
  @Test
  public void mlxFpRoundTrips() {
    float[] lut = {0, .5f, 1, 1.5f, 2, 3, 4, 6, -0f, -.5f, -1, -1.5f, -2, -3, -4, -6};
    SplittableRandom rnd = new SplittableRandom(5);
    for (QuantMode m : new QuantMode[] {QuantMode.MXFP4, QuantMode.NVFP4}) {
      int group = m == QuantMode.NVFP4 ? 16 : 32;
      float[] w = new float[128 * 512];
      for (int i = 0; i < w.length; i++) {
        w[i] = i % group == 0 ? 6 : lut[rnd.nextInt(16)];
        w[i] = QTest.round(DType.BF16, w[i] + 3e-6f);
      }
      Tensor wt = QTest.upload(rt, w, DType.BF16, 128, 512);
      for (boolean global : new boolean[] {false, true}) {
        if (global && m != QuantMode.NVFP4) {
          continue;
        }
        Tensor gs = global ? rt.fromFloats(new float[] {maxAbs(w)}, 1) : null;
        Quantized q = rt.quantize(wt, group, 4, m, gs);
        Tensor hat = rt.dequantize(q);
        assertEquals(DType.BF16, hat.dtype());
        float[] h = rt.toFloats(hat);
        for (int i = 0; i < w.length; i++) {
          assertEquals(
              w[i], h[i], 1e-5 + 1e-5 * Math.abs(w[i]), m + " global=" + global + " @" + i);
        }
      }
    }
    float[] u = new float[512 * 32];
    for (int i = 0; i < u.length; i++) {
      u[i] = QTest.round(DType.BF16, (float) (2 * rnd.nextDouble() - 1));
    }
    float[] h =
        rt.toFloats(
            rt.dequantize(
                rt.quantize(QTest.upload(rt, u, DType.BF16, 512, 32), 32, 8, QuantMode.MXFP8)));
    for (int i = 0; i < u.length; i++) {
      assertEquals(u[i], h[i], 1e-1 + 1e-1 * Math.abs(u[i]), "mxfp8 @" + i);
    }
    Tensor zeros = rt.zeros(DType.F32, 256, 512);
    for (QuantMode m : new QuantMode[] {QuantMode.MXFP4, QuantMode.NVFP4, QuantMode.MXFP8}) {
      int group = m == QuantMode.NVFP4 ? 16 : 32;
      int bits = m == QuantMode.MXFP8 ? 8 : 4;
      for (float v : rt.toFloats(rt.dequantize(rt.quantize(zeros, group, bits, m)))) {
        assertEquals(0f, v, m + " zeros");
      }
    }
  }

  /**
   * dequantize against the float64 decoding of the same words: one rounding of the float result to
   * the output dtype (plus one float32 rounding inside), in each dtype dequantize offers.
   */
  @Test
  public void dequantizeMatchesFloat64InEachDtype() {
    long[] shape = {3, 16, 128};
    Object[][] cases = {
      {QuantMode.AFFINE, 64, 4, DType.BF16}, {QuantMode.AFFINE, 32, 3, DType.F16},
      {QuantMode.AFFINE, 128, 6, DType.F32}, {QuantMode.MXFP4, 32, 4, DType.BF16},
      {QuantMode.NVFP4, 16, 4, DType.F16}, {QuantMode.MXFP8, 32, 8, DType.F32}
    };
    long seed = 40;
    for (Object[] c : cases) {
      QuantMode m = (QuantMode) c[0];
      DType t = (DType) c[3];
      float[] w = QTest.normal(seed++, (int) QTest.size(shape), 0.5, t);
      QTest.Weights q = QTest.quantize(rt, w, shape, t, m, (int) c[1], (int) c[2]);
      DType natural = m == QuantMode.AFFINE ? t : DType.BF16;
      DType[] outs =
          m == QuantMode.AFFINE
              ? new DType[] {null, DType.F32}
              : new DType[] {null, DType.BF16, DType.F16, DType.F32};
      for (DType o : outs) {
        Tensor hat = o == null ? rt.dequantize(q.q()) : rt.dequantize(q.q(), o);
        DType want = o == null ? natural : o;
        String what = m + " " + t + " -> " + want;
        assertEquals(want, hat.dtype(), what);
        assertArrayEquals(shape, hat.shape(), what);
        float[] h = rt.toFloats(hat);
        for (int i = 0; i < h.length; i++) {
          double ref = q.wHat()[i];
          double tol = 2 * Math.ulp((float) Math.abs(ref)) + QTest.halfUlp(want, Math.abs(ref));
          assertEquals(ref, h[i], tol, what + " @" + i);
        }
      }
    }
  }

  /** Empty inputs give empty outputs of the right shapes, with nothing launched. */
  @Test
  public void emptyInputs() {
    Quantized q = rt.quantize(rt.zeros(DType.BF16, 0, 64), 64, 4, QuantMode.AFFINE);
    assertArrayEquals(new long[] {0, 8}, q.wq().shape());
    assertArrayEquals(new long[] {0, 1}, q.scales().shape());
    assertArrayEquals(new long[] {0, 64}, rt.dequantize(q).shape());
    Quantized k0 = rt.quantize(rt.zeros(DType.F32, 4, 0), 32, 8, QuantMode.MXFP8);
    assertArrayEquals(new long[] {4, 0}, k0.wq().shape());
    assertArrayEquals(new long[] {4, 0}, rt.dequantize(k0).shape());
  }

  /** A global scale is nvfp4's only: elsewhere it is refused by name. */
  @Test
  public void globalScaleIsNvfp4Only() {
    Tensor w = rt.zeros(DType.BF16, 4, 64);
    Tensor g = rt.fromFloats(new float[] {1f}, 1);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> rt.quantize(w, 32, 4, QuantMode.MXFP4, g));
    assertTrue(e.getMessage().contains("globalScale"), e.getMessage());
  }
}
