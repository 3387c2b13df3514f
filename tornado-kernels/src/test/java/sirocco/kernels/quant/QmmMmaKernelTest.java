package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The tensor-core kernel on the Java backend (mma simulated in float, lanes as threads). */
class QmmMmaKernelTest {

  static float[] run(QmmCase c, LaunchPlan plan) {
    Object out = c.outArg();
    boolean affine = c.s.mode() == Quant.AFFINE;
    TestSupport.run(
        QmmMmaKernel.class,
        plan,
        c.wq,
        affine ? c.scalesArg() : new short[0],
        affine ? c.biasesArg() : new short[0],
        affine ? new byte[0] : c.fpScales,
        new float[] {c.globalScale},
        c.xArg(),
        out,
        c.s.rows(),
        c.s.n(),
        c.s.k());
    return c.outValues(out);
  }

  static float[] run(QmmCase c) {
    assertNull(QmmMmaKernel.supports(c.s), c.s.toString());
    return run(c, QmmMmaKernel.plan(c.s));
  }

  /**
   * The "quantized matmul over a few rows" case: w [384, 512] bf16, group 64, bits 4 and 8, x {1,
   * 2, 5, 7} rows and [2, 3, 512] folded to 6 rows; rtol 2e-2, atol 2e-1 against the float64
   * dequantize-then-matmul reference (as specified), and our tighter float64 tolerance.
   */
  @Test
  void quantizedMatmulOverAFewRows() {
    for (int bits : new int[] {4, 8}) {
      for (int rows : new int[] {1, 2, 5, 7, 6}) {
        QmmShape s = QmmShape.affine(bits, 64, Quant.BF16, rows, 384, 512);
        QmmCase c = unitNormal(s, 40L * bits + rows);
        float[] y = run(c);
        c.checkMlx(y, "few rows", 2e-2, 2e-1);
        c.check(y, "few rows");
      }
    }
  }

  /** The "rows kernel" case: k 512 and 1088 (17 groups of 64), 2, 3, 5 and 8 rows. */
  @Test
  void rowsKernel() {
    for (int k : new int[] {512, 1088}) {
      for (int rows : new int[] {2, 3, 5, 8}) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          QmmShape s = QmmShape.affine(4, 64, dtype, rows, 40, k);
          QmmCase c = QmmCase.random(s, 3L * k + rows + dtype);
          c.check(run(c), "rows kernel");
        }
      }
    }
  }

  @Test
  void affineBitsGroupsDtypesAndRowTiers() {
    long seed = 300;
    for (int bits : new int[] {4, 8}) {
      for (int g : new int[] {32, 64, 128}) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          for (int rows : new int[] {1, 12, 33}) {
            QmmShape s = QmmShape.affine(bits, g, dtype, rows, 40, 256);
            QmmCase c = QmmCase.random(s, seed++);
            c.check(run(c), "affine");
          }
        }
      }
    }
  }

  @Test
  void fpModes() {
    long seed = 400;
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {3, 20}) {
          QmmShape s = QmmShape.fp(mode, dtype, rows, 24, 256);
          QmmCase c = QmmCase.random(s, seed++); // nvfp4: even seeds use a global scale
          c.check(run(c), "fp");
          QmmCase c2 = QmmCase.random(s, seed++);
          c2.check(run(c2), "fp");
        }
      }
    }
    // nvfp4 with k a multiple of 32 but not 64: one word per lane.
    QmmShape s = QmmShape.fp(Quant.NVFP4, Quant.BF16, 5, 16, 96);
    QmmCase c = QmmCase.random(s, 7);
    c.check(run(c), "nvfp4 k=96");
  }

  /** Every tiling the plan can pick, and others, give the same answer. */
  @Test
  void explicitTilings() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 20, 72, 512);
    QmmCase c = QmmCase.random(s, 99);
    int[][] tilings = {{1, 1, 1, 1}, {1, 4, 1, 8}, {2, 2, 2, 2}, {2, 4, 4, 1}, {1, 2, 3, 2}};
    for (int[] tl : tilings) {
      c.check(
          run(c, QmmMmaKernel.plan(s, tl[0], tl[1], tl[2], tl[3])),
          "tiling " + tl[0] + tl[1] + tl[2] + tl[3]);
    }
  }

  /**
   * Two and three chunks in flight ({@code depth}), with the 1–8-row tiling (2x1x1x8, rows 1..8 in
   * turn) and the 16-row one (1x2x1x4, 16 rows) in every mode and dtype: k gives 11 or 27 chunks of
   * 64 (22 or 54 of 32 for mxfp4/mxfp8), so warps get fewer chunks than depth, more, and different
   * counts (tails); n = 24 leaves a partial feature block.
   */
  @Test
  void chunksInFlight() {
    // mode, bits, group (fp modes: their own)
    int[][] modes = {
      {Quant.AFFINE, 4, 64}, {Quant.AFFINE, 8, 64}, {Quant.MXFP4}, {Quant.NVFP4}, {Quant.MXFP8}
    };
    int i = 0;
    for (int[] m : modes) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int depth : new int[] {2, 3}) {
          int k = (i % 2 == 0 ? 27 : 11) * 64;
          int rows = 1 + i % 8;
          QmmShape s = shape(m, dtype, rows, k);
          QmmCase c = QmmCase.random(s, 500L + i);
          String what = s + " depth " + depth;
          c.check(run(c, QmmMmaKernel.plan(s, 2, 1, 1, 8, depth)), what);
          QmmShape s16 = shape(m, dtype, 16, k);
          QmmCase c16 = QmmCase.random(s16, 600L + i);
          c16.check(run(c16, QmmMmaKernel.plan(s16, 1, 2, 1, 4, depth)), what + " 16 rows");
          i++;
        }
      }
    }
  }

  static QmmShape shape(int[] m, int dtype, int rows, int k) {
    return m[0] == Quant.AFFINE
        ? QmmShape.affine(m[1], m[2], dtype, rows, 24, k)
        : QmmShape.fp(m[0], dtype, rows, 24, k);
  }

  @Test
  void planDepth() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 4, 64, 4096);
    assertEquals(1, QmmMmaKernel.plan(s).get("depth"));
    assertEquals(3, QmmMmaKernel.plan(s, 2, 1, 1, 8, 3).get("depth"));
    assertThrows(IllegalArgumentException.class, () -> QmmMmaKernel.plan(s, 2, 1, 1, 8, 0));
    assertThrows(IllegalArgumentException.class, () -> QmmMmaKernel.plan(s, 2, 1, 1, 8, 4));
  }

  /**
   * MLX test_qmm (shrunk): groups 128/64/32, bits 4/8, rows 8 and 33, k 128/256, f16, x and w
   * normal/sqrt(k), absolute tolerance 1.5e-3.
   */
  @Test
  void mlxQmm() {
    for (int g : new int[] {128, 64, 32}) {
      for (int bits : new int[] {4, 8}) {
        for (int rows : new int[] {8, 33}) {
          for (int k : new int[] {128, 256}) {
            QmmShape s = QmmShape.affine(bits, g, Quant.F16, rows, 128, k);
            QmmCase c = QmmCase.mlxScaled(s, 11L * g + bits + rows + k);
            float[] y = run(c);
            c.checkMlx(y, "test_qmm", 0, 1.5e-3);
            c.check(y, "test_qmm");
          }
        }
      }
    }
  }

  /** MLX test_qmv_affine_bias_sum_precision through the tensor-core path (bits 4 and 8). */
  @Test
  void biasSumIsAccumulatedInFloat() {
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      float denom = dtype == Quant.F16 ? 2048f : 256f;
      for (int bits : new int[] {4, 8}) {
        for (int sign : new int[] {-1, 1}) {
          int n = 12;
          int k = 512;
          int g = 64;
          float[] pat = {1f, 1f / denom, -1f, 0f};
          short[] x = new short[k];
          for (int i = 0; i < k; i++) {
            x[i] = QuantFormats.toHalfBits(dtype, sign * pat[i % 4]);
          }
          int groups = n * k / g;
          float[] ones = new float[groups];
          java.util.Arrays.fill(ones, 1f);
          QmmShape s = QmmShape.affine(bits, g, dtype, 1, n, k);
          short[] out = TestSupport.halfPoisoned(n);
          TestSupport.run(
              QmmMmaKernel.class,
              QmmMmaKernel.plan(s),
              new int[n * k * bits / 32],
              QuantFormats.toHalfBits(dtype, new float[groups]),
              QuantFormats.toHalfBits(dtype, ones),
              new byte[0],
              new float[] {1f},
              x,
              out,
              1,
              n,
              k);
          for (int j = 0; j < n; j++) {
            assertEquals(
                sign * k / (4 * denom),
                QuantMath.halfToFloat(out[j], dtype),
                0f,
                "dtype=" + dtype + " bits=" + bits);
          }
        }
      }
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    assertNull(QmmMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 4, 8, 128)));
    assertTrue(
        QmmMmaKernel.supports(QmmShape.affine(4, 64, Quant.F32, 4, 8, 128)).contains("bf16/f16"));
    assertTrue(
        QmmMmaKernel.supports(QmmShape.affine(3, 64, Quant.BF16, 4, 8, 128))
            .contains("bits 4 and 8"));
    assertTrue(
        QmmMmaKernel.supports(QmmShape.fp(Quant.NVFP4, Quant.BF16, 4, 8, 48)).contains("32"));
    assertTrue(
        QmmMmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 4, 128, 128).withTranspose(false))
            .contains("transposed"));
  }

  /** x and w unit normal (the few-rows case's draw). */
  static QmmCase unitNormal(QmmShape s, long seed) {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, s.dtype());
    float[] w = TestSupport.normal(rnd, s.n() * s.k(), 1.0, s.dtype());
    return new QmmCase(s, x, w, Quant.NO_GLOBAL_SCALE);
  }
}
