package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Affine quantize and dequantize kernels on the Java backend. */
class AffineQuantizeKernelTest {
  static final int[] BITS = {2, 3, 4, 5, 6, 8};
  static final int[] GROUPS = {32, 64, 128};
  static final int[] DTYPES = {Quant.BF16, Quant.F16, Quant.F32};

  /** Runs the quantize kernel; returns (wq, scales, biases) with scales/biases as floats. */
  static QuantFormats.Affine quantizeOnKernel(
      float[] w, int rows, int cols, int groupSize, int bits, int dtype) {
    LaunchPlan plan = AffineQuantizeKernel.plan(bits, groupSize, dtype, rows, cols);
    int groups = rows * cols / groupSize;
    int[] wq = TestSupport.intPoisoned(rows * cols * bits / 32);
    if (dtype == Quant.F32) {
      float[] s = TestSupport.floatPoisoned(groups);
      float[] b = TestSupport.floatPoisoned(groups);
      TestSupport.run(AffineQuantizeKernel.class, plan, w.clone(), wq, s, b, groups);
      return new QuantFormats.Affine(
          wq,
          TestSupport.values(dtype, null, s, "scales"),
          TestSupport.values(dtype, null, b, "biases"));
    }
    short[] s = TestSupport.halfPoisoned(groups);
    short[] b = TestSupport.halfPoisoned(groups);
    TestSupport.run(
        AffineQuantizeKernel.class, plan, QuantFormats.toHalfBits(dtype, w), wq, s, b, groups);
    return new QuantFormats.Affine(
        wq,
        TestSupport.values(dtype, s, null, "scales"),
        TestSupport.values(dtype, b, null, "biases"));
  }

  /** Runs the dequantize kernel; returns output values as floats. */
  static float[] dequantizeOnKernel(
      QuantFormats.Affine q, int rows, int cols, int groupSize, int bits, int dtype) {
    LaunchPlan plan = AffineDequantizeKernel.plan(bits, groupSize, dtype, rows, cols);
    int octets = rows * cols / 8;
    if (dtype == Quant.F32) {
      float[] out = TestSupport.floatPoisoned(rows * cols);
      TestSupport.run(
          AffineDequantizeKernel.class, plan, q.wq(), q.scales(), q.biases(), out, octets);
      return TestSupport.values(dtype, null, out, "dequantized");
    }
    short[] out = TestSupport.halfPoisoned(rows * cols);
    TestSupport.run(
        AffineDequantizeKernel.class,
        plan,
        q.wq(),
        QuantFormats.toHalfBits(dtype, q.scales()),
        QuantFormats.toHalfBits(dtype, q.biases()),
        out,
        octets);
    return TestSupport.values(dtype, out, null, "dequantized");
  }

  @Test
  void quantizeKernelMatchesFormatBitForBit() {
    int rows = 6;
    int cols = 512;
    for (long seed = 1; seed <= 2; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int dtype : DTYPES) {
        float[] w = TestSupport.normal(rnd, rows * cols, 1.0, dtype);
        for (int bits : BITS) {
          for (int g : GROUPS) {
            String at = "seed=" + seed + " dtype=" + dtype + " bits=" + bits + " group=" + g;
            QuantFormats.Affine want = QuantFormats.quantizeAffine(w, rows, cols, g, bits, dtype);
            QuantFormats.Affine got = quantizeOnKernel(w, rows, cols, g, bits, dtype);
            assertArrayEquals(want.wq(), got.wq(), at);
            assertArrayEquals(want.scales(), got.scales(), at);
            assertArrayEquals(want.biases(), got.biases(), at);
          }
        }
      }
    }
  }

  /**
   * MLX test_quantize_dequantize: |w - w_hat| <= |scale| + 1e-6 per group, all widths/groups. MLX
   * runs it in float32; for bf16/f16 the stored scale and bias are rounded to the dtype after the
   * codes were chosen, which adds up to {@code (2^bits - 1) * halfUlp(scale) + halfUlp(bias)}, and
   * the output's rounding adds {@code halfUlp(w_hat)}; the bound grows by exactly those terms.
   */
  @Test
  void roundTripErrorIsBoundedByTheScale() {
    int rows = 16;
    int cols = 512;
    SplittableRandom rnd = new SplittableRandom(3);
    for (int dtype : DTYPES) {
      float[] w = TestSupport.normal(rnd, rows * cols, 1.0, dtype);
      for (int bits : BITS) {
        for (int g : GROUPS) {
          QuantFormats.Affine q = quantizeOnKernel(w, rows, cols, g, bits, dtype);
          float[] wHat = dequantizeOnKernel(q, rows, cols, g, bits, dtype);
          for (int i = 0; i < w.length; i++) {
            float s = q.scales()[i / g];
            float b = q.biases()[i / g];
            double bound = Math.abs(s) + 1e-6;
            if (dtype != Quant.F32) {
              bound +=
                  ((1 << bits) - 1) * TestSupport.halfUlp(dtype, s)
                      + TestSupport.halfUlp(dtype, b)
                      + TestSupport.halfUlp(dtype, wHat[i]);
            }
            assertTrue(
                Math.abs(w[i] - wHat[i]) <= bound,
                "dtype=" + dtype + " bits=" + bits + " g=" + g + " i=" + i + " w=" + w[i]
                    + " w_hat=" + wHat[i] + " scale=" + s);
          }
        }
      }
    }
  }

  /** MLX: quantizing zeros dequantizes to exactly zero. */
  @Test
  void zerosRoundTripToZero() {
    int rows = 4;
    int cols = 256;
    for (int dtype : DTYPES) {
      for (int bits : BITS) {
        for (int g : GROUPS) {
          float[] w = new float[rows * cols];
          QuantFormats.Affine q = quantizeOnKernel(w, rows, cols, g, bits, dtype);
          float[] wHat = dequantizeOnKernel(q, rows, cols, g, bits, dtype);
          for (int i = 0; i < wHat.length; i++) {
            assertEquals(0f, wHat[i], 0f, "bits=" + bits + " g=" + g + " i=" + i);
          }
        }
      }
    }
  }

  @Test
  void dequantizeKernelMatchesFloat64Reference() {
    int rows = 5;
    int cols = 384;
    for (long seed = 4; seed <= 6; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int dtype : DTYPES) {
        for (int bits : BITS) {
          for (int g : GROUPS) {
            // Arbitrary codes, scales and biases (not only ones a quantizer would produce).
            int[] codes = new int[rows * cols];
            for (int i = 0; i < codes.length; i++) {
              codes[i] = rnd.nextInt(1 << bits);
            }
            int groups = rows * cols / g;
            float[] s = TestSupport.normal(rnd, groups, 0.1, dtype);
            float[] b = TestSupport.normal(rnd, groups, 1.0, dtype);
            QuantFormats.Affine q =
                new QuantFormats.Affine(QuantFormats.pack(codes, rows, cols, bits), s, b);
            float[] got = dequantizeOnKernel(q, rows, cols, g, bits, dtype);
            double[] want = AffineDequantizeKernel.reference(q.wq(), s, b, rows, cols, g, bits);
            for (int i = 0; i < got.length; i++) {
              // fma in float, one rounding to the dtype: within half a dtype ulp (+ float's).
              double tol = TestSupport.halfUlp(dtype, want[i]) + Math.ulp((float) want[i]);
              assertEquals(
                  want[i], got[i], tol, "dtype=" + dtype + " bits=" + bits + " g=" + g + " i=" + i);
            }
          }
        }
      }
    }
  }

  @Test
  void supportsNamesWhatIsWrong() {
    assertNull(AffineQuantizeKernel.supports(4, 64, Quant.BF16, 3, 128));
    assertNotNull(AffineQuantizeKernel.supports(7, 64, Quant.BF16, 3, 128));
    assertTrue(AffineQuantizeKernel.supports(4, 48, Quant.BF16, 3, 128).contains("groupSize"));
    assertTrue(AffineQuantizeKernel.supports(4, 64, Quant.BF16, 3, 96).contains("multiple"));
    assertTrue(AffineQuantizeKernel.supports(4, 64, 9, 3, 128).contains("dtype"));
    assertTrue(AffineDequantizeKernel.supports(1, 64, Quant.F16, 3, 128).contains("bits"));
  }
}
