package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** fp-mode quantize and dequantize kernels on the Java backend, with MLX's round-trip cases. */
class FpQuantizeKernelTest {
  static final int[] MODES = {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8};
  static final int[] DTYPES = {Quant.BF16, Quant.F16, Quant.F32};

  static QuantFormats.Fp quantizeOnKernel(
      float[] w, int rows, int cols, int mode, int dtype, float globalScale) {
    LaunchPlan plan = FpQuantizeKernel.plan(mode, dtype, rows, cols);
    int groups = rows * cols / Quant.modeGroupSize(mode, 0);
    int[] wq = TestSupport.intPoisoned(rows * cols * Quant.elementBits(mode, 0) / 32);
    byte[] s = TestSupport.bytePoisoned(groups);
    Object win = dtype == Quant.F32 ? w.clone() : QuantFormats.toHalfBits(dtype, w);
    TestSupport.run(FpQuantizeKernel.class, plan, win, wq, s, new float[] {globalScale}, groups);
    return new QuantFormats.Fp(wq, s);
  }

  static float[] dequantizeOnKernel(
      QuantFormats.Fp q, int rows, int cols, int mode, int dtype, float globalScale) {
    LaunchPlan plan = FpDequantizeKernel.plan(mode, dtype, rows, cols);
    int octets = rows * cols / 8;
    float[] gs = {globalScale};
    if (dtype == Quant.F32) {
      float[] out = TestSupport.floatPoisoned(rows * cols);
      TestSupport.run(FpDequantizeKernel.class, plan, q.wq(), q.scales(), gs, out, octets);
      return TestSupport.values(dtype, null, out, "dequantized");
    }
    short[] out = TestSupport.halfPoisoned(rows * cols);
    TestSupport.run(FpDequantizeKernel.class, plan, q.wq(), q.scales(), gs, out, octets);
    return TestSupport.values(dtype, out, null, "dequantized");
  }

  @Test
  void quantizeKernelMatchesFormatBitForBit() {
    int rows = 6;
    int cols = 256;
    for (long seed = 1; seed <= 3; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int dtype : DTYPES) {
        float[] w = TestSupport.normal(rnd, rows * cols, seed == 3 ? 1e-3 : 1.0, dtype);
        for (int mode : MODES) {
          float[] gss =
              mode == Quant.NVFP4 ? new float[] {Quant.NO_GLOBAL_SCALE, 3.25f} : new float[] {1f};
          for (float gs : gss) {
            String at = "seed=" + seed + " dtype=" + dtype + " mode=" + mode + " gs=" + gs;
            QuantFormats.Fp want = QuantFormats.quantizeFp(w, rows, cols, mode, gs);
            QuantFormats.Fp got = quantizeOnKernel(w, rows, cols, mode, dtype, gs);
            assertArrayEquals(want.wq(), got.wq(), at);
            assertArrayEquals(want.scales(), got.scales(), at);
          }
        }
      }
    }
  }

  private static final float[] LUT = {
    0f, 0.5f, 1f, 1.5f, 2f, 3f, 4f, 6f, -0f, -0.5f, -1f, -1.5f, -2f, -3f, -4f, -6f
  };

  /** MLX test_mxfp4/test_nvfp4_quantize_dequantize: LUT values (+3e-6, bf16) come back exactly. */
  @Test
  void fp4LutValuesRoundTripExactly() {
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4}) {
      int g = Quant.modeGroupSize(mode, 0);
      int rows = 16;
      int cols = 128;
      SplittableRandom rnd = new SplittableRandom(21);
      float[] w = new float[rows * cols];
      for (int i = 0; i < w.length; i++) {
        float v = (i % g == 0) ? 6f : LUT[rnd.nextInt(16)];
        w[i] = QuantFormats.roundTo(Quant.BF16, v + 3e-6f);
      }
      for (float gs : new float[] {Quant.NO_GLOBAL_SCALE, maxAbs(w)}) {
        if (mode == Quant.MXFP4 && gs != Quant.NO_GLOBAL_SCALE) {
          continue;
        }
        QuantFormats.Fp q = quantizeOnKernel(w, rows, cols, mode, Quant.BF16, gs);
        float[] wHat = dequantizeOnKernel(q, rows, cols, mode, Quant.BF16, gs);
        for (int i = 0; i < w.length; i++) {
          assertEquals(w[i], wHat[i], 1e-5 + 1e-5 * Math.abs(w[i]), "mode=" + mode + " i=" + i);
        }
      }
    }
  }

  /** MLX: a per-16 scale represents groups whose magnitudes alternate between 6*2^-9 and 6. */
  @Test
  void nvfp4AlternatingGroupMagnitudes() {
    int rows = 64;
    int cols = 16;
    float[] w = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        w[r * cols + k] = r % 2 == 0 ? 6f * 0x1p-9f : 6f;
      }
    }
    QuantFormats.Fp q =
        quantizeOnKernel(w, rows, cols, Quant.NVFP4, Quant.BF16, Quant.NO_GLOBAL_SCALE);
    float[] wHat =
        dequantizeOnKernel(q, rows, cols, Quant.NVFP4, Quant.BF16, Quant.NO_GLOBAL_SCALE);
    for (int i = 0; i < w.length; i++) {
      assertEquals(w[i], wHat[i], 1e-6 + 1e-5 * Math.abs(w[i]), "i=" + i);
    }
  }

  /** MLX test_mxfp8_quantize_dequantize: uniform(-1, 1) bf16 within rtol=atol=0.1. */
  @Test
  void mxfp8RoundTripIsClose() {
    int rows = 64;
    int cols = 32;
    SplittableRandom rnd = new SplittableRandom(22);
    float[] w = new float[rows * cols];
    for (int i = 0; i < w.length; i++) {
      w[i] = QuantFormats.roundTo(Quant.BF16, (float) (2 * rnd.nextDouble() - 1));
    }
    QuantFormats.Fp q = quantizeOnKernel(w, rows, cols, Quant.MXFP8, Quant.BF16, 1f);
    float[] wHat = dequantizeOnKernel(q, rows, cols, Quant.MXFP8, Quant.BF16, 1f);
    for (int i = 0; i < w.length; i++) {
      assertEquals(w[i], wHat[i], 0.1 + 0.1 * Math.abs(w[i]), "i=" + i);
    }
  }

  /** MLX test_mxfp8_block_scale_does_not_saturate: block maxima lose at most half an E4M3 step. */
  @Test
  void mxfp8BlockScaleDoesNotSaturate() {
    int blocks = 512;
    int g = 32;
    SplittableRandom rnd = new SplittableRandom(0);
    float[] w = new float[blocks * g];
    for (int b = 0; b < blocks; b++) {
      double sweep = Math.exp((double) b / blocks * Math.log(2.0));
      for (int j = 0; j < g; j++) {
        w[b * g + j] = (float) (TestSupport.gaussian(rnd) * sweep);
      }
    }
    QuantFormats.Fp q = quantizeOnKernel(w, blocks, g, Quant.MXFP8, Quant.F32, 1f);
    float[] wHat = dequantizeOnKernel(q, blocks, g, Quant.MXFP8, Quant.F32, 1f);
    double worst = 0;
    for (int b = 0; b < blocks; b++) {
      double amax = 0;
      double hmax = 0;
      for (int j = 0; j < g; j++) {
        amax = Math.max(amax, Math.abs(w[b * g + j]));
        hmax = Math.max(hmax, Math.abs(wHat[b * g + j]));
      }
      worst = Math.max(worst, Math.abs(amax - hmax) / amax);
    }
    assertTrue(worst < 0.0626, "worst relative loss of a block maximum: " + worst);
  }

  @Test
  void zerosRoundTripToZero() {
    for (int mode : MODES) {
      for (int dtype : DTYPES) {
        int rows = 8;
        int cols = 64;
        float[] w = new float[rows * cols];
        QuantFormats.Fp q = quantizeOnKernel(w, rows, cols, mode, dtype, Quant.NO_GLOBAL_SCALE);
        float[] wHat = dequantizeOnKernel(q, rows, cols, mode, dtype, Quant.NO_GLOBAL_SCALE);
        for (float v : wHat) {
          assertEquals(0f, v, 0f, "mode=" + mode + " dtype=" + dtype);
        }
      }
    }
  }

  @Test
  void dequantizeKernelMatchesFloat64Reference() {
    int rows = 4;
    int cols = 128;
    for (long seed = 5; seed <= 7; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int mode : MODES) {
        int bits = Quant.elementBits(mode, 0);
        int g = Quant.modeGroupSize(mode, 0);
        int[] codes = new int[rows * cols];
        for (int i = 0; i < codes.length; i++) {
          int c = rnd.nextInt(1 << bits);
          codes[i] = (bits == 8 && (c & 0x7F) == 0x7F) ? c - 1 : c; // NaN codes tested below
        }
        byte[] scales = new byte[rows * cols / g];
        for (int i = 0; i < scales.length; i++) {
          scales[i] =
              (byte)
                  (mode == Quant.NVFP4
                      ? rnd.nextInt(0x7F)
                      : 127 + rnd.nextInt(-20, 6)); // finite, and within f16 range
        }
        float gs = mode == Quant.NVFP4 ? 5.5f : 1f;
        QuantFormats.Fp q = new QuantFormats.Fp(QuantFormats.pack(codes, rows, cols, bits), scales);
        double[] want = FpDequantizeKernel.reference(q.wq(), scales, rows, cols, mode, gs);
        for (int dtype : DTYPES) {
          float[] got = dequantizeOnKernel(q, rows, cols, mode, dtype, gs);
          for (int i = 0; i < got.length; i++) {
            // One float product (exact for mx modes) and one rounding to the dtype.
            double tol = TestSupport.halfUlp(dtype, want[i]) + Math.ulp((float) want[i]);
            assertEquals(want[i], got[i], tol, "mode=" + mode + " dtype=" + dtype + " i=" + i);
          }
        }
      }
    }
  }

  @Test
  void mxfp8NanCodesDecodeToNan() {
    int[] codes = new int[32];
    codes[3] = 0x7F;
    codes[9] = 0xFF;
    QuantFormats.Fp q =
        new QuantFormats.Fp(QuantFormats.pack(codes, 1, 32, 8), new byte[] {(byte) 127});
    LaunchPlan plan = FpDequantizeKernel.plan(Quant.MXFP8, Quant.F32, 1, 32);
    float[] out = TestSupport.floatPoisoned(32);
    java.util.Arrays.fill(out, 42f);
    TestSupport.run(FpDequantizeKernel.class, plan, q.wq(), q.scales(), new float[] {1f}, out, 4);
    for (int i = 0; i < 32; i++) {
      assertEquals(i == 3 || i == 9, Float.isNaN(out[i]), "i=" + i);
    }
  }

  @Test
  void supportsNamesWhatIsWrong() {
    assertNull(FpQuantizeKernel.supports(Quant.NVFP4, Quant.BF16, 2, 48));
    assertTrue(FpQuantizeKernel.supports(Quant.MXFP4, Quant.BF16, 2, 48).contains("group"));
    assertTrue(FpQuantizeKernel.supports(Quant.AFFINE, Quant.BF16, 2, 64).contains("mode"));
  }

  static float maxAbs(float[] w) {
    float m = 0;
    for (float v : w) {
      m = Math.max(m, Math.abs(v));
    }
    return m;
  }
}
