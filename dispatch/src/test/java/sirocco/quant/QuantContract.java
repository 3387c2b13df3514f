package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;

/**
 * The quantized-matmul op through the public API, against {@link QRef}'s float64 reference: MLX's
 * python/tests/test_quantized.py cases at MLX's sizes (where MLX crosses a case with several batch
 * sizes, the cases here take them in turn), batch folding and broadcasting, views, dtypes, and the
 * ladder's decision for each path. Subclasses pick the backend; the GPU one also runs the medium
 * size of {@link #everyFormatAtRows1And6} ({@link #big()}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class QuantContract {
  protected abstract Backend backend();

  /** True where the medium size of {@link #everyFormatAtRows1And6} is affordable (the GPU). */
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

  // ---- MLX cases ----

  /**
   * "Quantized matmul over a few rows": w [384, 512] bf16, group 64, bits 4 and 8, x {1, 2, 5, 7}
   * rows and [2, 3, 512]; MLX's rtol 2e-2 / atol 2e-1 against the fp32 (here float64) dequantized
   * reference, and the float64 bound.
   */
  @Test
  public void quantizedMatmulOverAFewRows() {
    long n = 384;
    for (int bits : new int[] {4, 8}) {
      float[] wv = QTest.normal(10 + bits, (int) n * 512, 1.0, DType.BF16);
      QTest.Weights w =
          QTest.quantize(rt, wv, new long[] {n, 512}, DType.BF16, QuantMode.AFFINE, 64, bits);
      for (long[] xs : new long[][] {{1, 512}, {2, 512}, {5, 512}, {7, 512}, {2, 3, 512}}) {
        float[] x =
            QTest.normal(20 + xs.length * 10 + xs[0], (int) QTest.size(xs), 1.0, DType.BF16);
        List<String> ch =
            mm(w, x, xs, DType.BF16, true, DType.BF16, "few rows bits=" + bits, 2e-1, 2e-2);
        long rows = QTest.size(xs) / 512;
        assertEquals(List.of(rows == 1 ? "qmv" : "qmm-mma"), ch, "rows " + rows);
      }
    }
  }

  /** "Rows kernel": K 512 and 1088 (17 groups), rows 2, 3, 5, 8, bf16 and f16: tensor cores. */
  @Test
  public void rowsKernel() {
    for (int k : new int[] {512, 1088}) {
      for (DType t : new DType[] {DType.BF16, DType.F16}) {
        QTest.Weights w =
            weights(
                k + t.ordinal(), new long[] {40, k}, 1 / Math.sqrt(k), t, QuantMode.AFFINE, 64, 4);
        for (int m : new int[] {2, 3, 5, 8}) {
          float[] x = QTest.normal(m * 31L + k, m * k, 1.0, t);
          assertEquals(
              List.of("qmm-mma"), mm(w, x, new long[] {m, k}, t, true, "rows kernel m=" + m));
        }
      }
    }
  }

  /**
   * MLX test_qmv: every group and width; outputs 256 and 67, inputs 64 and 256 (groups above the
   * input skipped), x (3, 1, K) with 2-D w or (B, 1, K) with w (B, N, K); x and w normal / sqrt(K),
   * float32, MLX's 1e-3.
   */
  @Test
  public void mlxQmv() {
    int[] outs = {256, 67};
    int seed = 0;
    for (int g : new int[] {128, 64, 32}) {
      for (int bits : BITS) {
        for (int m : outs) {
          for (int k : new int[] {64, 256}) {
            if (g > k) {
              continue;
            }
            int b = new int[] {0, 1, 3, 8}[seed % 4];
            seed++;
            long[] ws = b == 0 ? new long[] {m, k} : new long[] {b, m, k};
            long[] xs = b == 0 ? new long[] {3, 1, k} : new long[] {b, 1, k};
            QTest.Weights w =
                weights(seed, ws, 1 / Math.sqrt(k), DType.F32, QuantMode.AFFINE, g, bits);
            float[] x = QTest.normal(seed + 500, (int) QTest.size(xs), 1 / Math.sqrt(k), DType.F32);
            List<String> ch =
                mm(
                    w,
                    x,
                    xs,
                    DType.F32,
                    true,
                    DType.F32,
                    "test_qmv g=" + g + " bits=" + bits,
                    1e-3,
                    0);
            assertTrue(ch.stream().allMatch("qmv"::equals), ch.toString());
          }
        }
      }
    }
  }

  /**
   * MLX test_qmm: groups 128/64/32, bits 4/8, rows 8 and 33, K 128/256, N 128; x and w normal /
   * sqrt(K); f16 on tensor cores, MLX's absolute 1.5e-3.
   */
  @Test
  public void mlxQmm() {
    long n = 128;
    for (int g : new int[] {128, 64, 32}) {
      for (int bits : new int[] {4, 8}) {
        int k = g == 32 ? 128 : 256;
        QTest.Weights w =
            weights(
                g * 7L + bits,
                new long[] {n, k},
                1 / Math.sqrt(k),
                DType.F16,
                QuantMode.AFFINE,
                g,
                bits);
        for (int m : new int[] {8, 33}) {
          float[] x = QTest.normal(m + g + bits, m * k, 1 / Math.sqrt(k), DType.F16);
          List<String> ch =
              mm(w, x, new long[] {m, k}, DType.F16, true, DType.F16, "test_qmm", 1.5e-3, 0);
          assertEquals(List.of("qmm-mma"), ch);
        }
      }
    }
  }

  /**
   * MLX test_fp_qmv: outputs 256, 512, 67, 5, 7, K 64 and 256, x (3, 1, K) or (B, 1, K) with B in
   * {1, 3, 8} in turn; plus nvfp4 with K = 48 (a multiple of 16, not 32); unit normal x and w,
   * float32, MLX's 1e-3.
   */
  @Test
  public void mlxFpQmv() {
    int[] outs = {256, 512, 67, 5, 7};
    int seed = 0;
    for (int m : outs) {
      for (int k : new int[] {64, 256}) {
        for (QuantMode mode : FP) {
          int b = new int[] {0, 1, 3, 8}[seed % 4];
          seed++;
          long[] ws = b == 0 ? new long[] {m, k} : new long[] {b, m, k};
          long[] xs = b == 0 ? new long[] {3, 1, k} : new long[] {b, 1, k};
          QTest.Weights w = weights(seed + 77, ws, 1.0, DType.F32, mode, 0, 0);
          float[] x = QTest.normal(seed, (int) QTest.size(xs), 1.0, DType.F32);
          List<String> ch =
              mm(w, x, xs, DType.F32, true, DType.F32, "test_fp_qmv " + mode, 1e-3, 0);
          assertTrue(ch.stream().allMatch("fp-qmv"::equals), ch.toString());
        }
      }
    }
    QTest.Weights w = weights(48, new long[] {128, 48}, 1.0, DType.F32, QuantMode.NVFP4, 16, 4);
    float[] x = QTest.normal(49, 48, 1.0, DType.F32);
    mm(w, x, new long[] {1, 48}, DType.F32, true, DType.F32, "nvfp4 K=48", 1e-3, 0);
  }

  /** MLX test_non_multiples: N 33, 3 and 99; x 1, 10 and 129 rows; both transposes. */
  @Test
  public void mlxNonMultiples() {
    for (int n : new int[] {33, 3}) {
      QTest.Weights w = weights(n, new long[] {n, 256}, 1.0, DType.F32, QuantMode.AFFINE, 64, 4);
      for (int m : new int[] {1, 10}) {
        mm(
            w,
            QTest.normal(m, m * 256, 1.0, DType.F32),
            new long[] {m, 256},
            DType.F32,
            true,
            DType.F32,
            "non-multiple qmv/qmm_t n=" + n,
            1e-3,
            0);
        List<String> ch =
            mm(
                w,
                QTest.normal(m + 1, m * n, 1.0, DType.F32),
                new long[] {m, n},
                DType.F32,
                false,
                DType.F32,
                "non-multiple qvm/qmm n=" + n,
                1e-3,
                0);
        assertEquals(List.of("qvm"), ch);
      }
    }
    QTest.Weights w = weights(99, new long[] {99, 256}, 1.0, DType.F32, QuantMode.AFFINE, 64, 4);
    int rows = 129;
    mm(
        w,
        QTest.normal(129, rows * 256, 1.0, DType.F32),
        new long[] {rows, 256},
        DType.F32,
        true,
        DType.F32,
        "non-multiple 99",
        1e-3,
        0);
  }

  /**
   * MLX test_qmv_small_non_multiples: (M, K, N) = (1, 32, 3), (2, 32, 10), (1, 32, 5), (4, 32, 7)
   * at affine 4 and 6 bits (group 32) and nvfp4.
   */
  @Test
  public void mlxSmallNonMultiples() {
    int[][] mkn = {{1, 32, 3}, {2, 32, 10}, {1, 32, 5}, {4, 32, 7}};
    Object[][] settings = {
      {QuantMode.AFFINE, 32, 4}, {QuantMode.AFFINE, 32, 6}, {QuantMode.NVFP4, 16, 4}
    };
    for (int[] c : mkn) {
      for (Object[] s : settings) {
        QuantMode mode = (QuantMode) s[0];
        QTest.Weights w =
            weights(
                c[2] * 3L + c[0],
                new long[] {c[2], c[1]},
                1.0,
                DType.F32,
                mode,
                (int) s[1],
                (int) s[2]);
        mm(
            w,
            QTest.normal(c[0] + c[2], c[0] * c[1], 1.0, DType.F32),
            new long[] {c[0], c[1]},
            DType.F32,
            true,
            DType.F32,
            "small non-multiple " + mode,
            1e-3,
            0);
      }
    }
  }

  /**
   * MLX test_small_matrix: w (8, 256), (1, 8, 256), (3, 8, 256); x (3, 1, 256), (3, 4, 256), (3,
   * 10, 256) transposed, and (3, 1, 8), (3, 10, 8) not transposed: 2-D weights fold x's rows, a
   * batch of 1 broadcasts against x's 3, a batch of 3 pairs with it.
   */
  @Test
  public void mlxSmallMatrix() {
    for (long[] ws : new long[][] {{8, 256}, {1, 8, 256}, {3, 8, 256}}) {
      QTest.Weights w =
          weights(ws.length * 10L + ws[0], ws, 1.0, DType.F32, QuantMode.AFFINE, 64, 4);
      for (long[] xs : new long[][] {{3, 1, 256}, {3, 4, 256}, {3, 10, 256}}) {
        mm(
            w,
            QTest.normal(xs[1], (int) QTest.size(xs), 1.0, DType.F32),
            xs,
            DType.F32,
            true,
            DType.F32,
            "small matrix qmv/qmm_t",
            1e-3,
            0);
      }
      for (long[] xs : new long[][] {{3, 1, 8}, {3, 10, 8}}) {
        mm(
            w,
            QTest.normal(xs[1] + 5, (int) QTest.size(xs), 1.0, DType.F32),
            xs,
            DType.F32,
            false,
            DType.F32,
            "small matrix qvm/qmm",
            1e-3,
            0);
      }
    }
  }

  /** MLX test_qvm / test_fp_qvm (shrunk): transpose=false for every width and fp mode. */
  @Test
  public void mlxQvm() {
    int seed = 0;
    for (int bits : BITS) {
      for (int g : new int[] {32, 128}) {
        QTest.Weights w =
            weights(seed++, new long[] {67, 128}, 1.0, DType.F32, QuantMode.AFFINE, g, bits);
        List<String> ch =
            mm(
                w,
                QTest.normal(seed, 67, 1.0, DType.F32),
                new long[] {1, 67},
                DType.F32,
                false,
                DType.F32,
                "test_qvm bits=" + bits,
                1e-3,
                0);
        assertEquals(List.of("qvm"), ch);
      }
    }
    for (QuantMode mode : FP) {
      for (DType t : new DType[] {DType.F32, DType.BF16}) {
        QTest.Weights w = weights(seed++, new long[] {32, 256}, 1.0, t, mode, 0, 0);
        mm(
            w,
            QTest.normal(seed, 2 * 32, 1.0, t),
            new long[] {2, 32},
            t,
            false,
            t,
            "test_fp_qvm " + mode + " " + t,
            -1,
            0);
      }
    }
  }

  // ---- every format at rows 1 and 6 ----

  /**
   * Every affine width (group 64) and fp mode at rows 1 and 6, bf16: 2048 x 4096 on the GPU, 128 x
   * 512 on the Java backend. Also checks the ladder's choice: tensor cores for affine 4/8-bit at 6
   * rows, the vector kernels otherwise (fp modes stay on fp-qmv below 8 rows).
   */
  @Test
  public void everyFormatAtRows1And6() {
    long n = big() ? 2048 : 128;
    long k = big() ? 4096 : 512;
    float[] wv = QTest.normal(4096, (int) (n * k), 1 / Math.sqrt(k), DType.BF16);
    float[] x6 = QTest.normal(4097, (int) (6 * k), 1.0, DType.BF16);
    float[] x1 = java.util.Arrays.copyOf(x6, (int) k);
    Object[][] formats = {
      {QuantMode.AFFINE, 2}, {QuantMode.AFFINE, 3}, {QuantMode.AFFINE, 4}, {QuantMode.AFFINE, 5},
      {QuantMode.AFFINE, 6}, {QuantMode.AFFINE, 8}, {QuantMode.MXFP4, 4}, {QuantMode.NVFP4, 4},
      {QuantMode.MXFP8, 8}
    };
    List<String> failures = new java.util.ArrayList<>();
    for (Object[] f : formats) {
      QuantMode mode = (QuantMode) f[0];
      int bits = (int) f[1];
      String what = mode + (mode == QuantMode.AFFINE ? " " + bits + "-bit" : "");
      collect(
          failures,
          what,
          () -> {
            QTest.Weights w =
                QTest.quantize(rt, wv, new long[] {n, k}, DType.BF16, mode, group(mode, 64), bits);
            List<String> c1 = mm(w, x1, new long[] {1, k}, DType.BF16, true, what + " rows 1");
            List<String> c6 = mm(w, x6, new long[] {6, k}, DType.BF16, true, what + " rows 6");
            boolean affine = mode == QuantMode.AFFINE;
            assertEquals(List.of(affine ? "qmv" : "fp-qmv"), c1, what);
            assertEquals(
                List.of(affine ? (bits == 4 || bits == 8 ? "qmm-mma" : "qmv") : "fp-qmv"),
                c6,
                what);
            close(w.q());
          });
    }
    report(failures);
  }

  /**
   * Runs one case of a sweep, keeping its failure instead of stopping the sweep, so that one GPU
   * run reports every failing case at once.
   */
  protected static void collect(List<String> failures, String what, Runnable body) {
    try {
      body.run();
    } catch (AssertionError | RuntimeException e) {
      failures.add(what + ": " + e);
    }
  }

  /** Fails with every collected failure, one per line. */
  protected static void report(List<String> failures) {
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size() + " case(s) failed:\n  " + String.join("\n  ", failures));
    }
  }

  /** nvfp4 with a global scale (max|w|) through both fp paths: fp-qmv (3 rows), qmm-mma (9). */
  @Test
  public void nvfp4WithAGlobalScale() {
    float[] wv = QTest.normal(60, 48 * 256, 0.05, DType.BF16);
    float amax = 0;
    for (float v : wv) {
      amax = Math.max(amax, Math.abs(v));
    }
    QTest.Weights w =
        QTest.quantize(rt, wv, new long[] {48, 256}, DType.BF16, QuantMode.NVFP4, 16, 4, amax);
    assertTrue(w.q().globalScale() != null);
    for (int rows : new int[] {3, 9}) {
      List<String> ch =
          mm(
              w,
              QTest.normal(61 + rows, rows * 256, 1, DType.BF16),
              new long[] {rows, 256},
              DType.BF16,
              true,
              "nvfp4 global scale rows=" + rows);
      assertEquals(List.of(rows < 8 ? "fp-qmv" : "qmm-mma"), ch);
    }
  }

  // ---- shapes ----

  /** x's leading axes fold into rows of one launch with 2-D weights: [2, 1, K] is 2 rows. */
  @Test
  public void batchAxesFoldIntoRows() {
    QTest.Weights w = weights(1, new long[] {24, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    List<String> ch =
        mm(
            w,
            QTest.normal(2, 2 * 128, 1.0, DType.BF16),
            new long[] {2, 1, 128},
            DType.BF16,
            true,
            "[2,1,K] folded");
    assertEquals(
        List.of("qmm-mma"), ch, "two folded rows take the tensor-core kernel in one launch");
    ch =
        mm(
            w,
            QTest.normal(3, 2 * 3 * 2 * 128, 1.0, DType.BF16),
            new long[] {2, 3, 2, 128},
            DType.BF16,
            true,
            "[2,3,2,K] folded");
    assertEquals(List.of("qmm-mma"), ch);
    ch = mm(w, QTest.normal(4, 128, 1.0, DType.BF16), new long[] {128}, DType.BF16, true, "1-D x");
    assertEquals(List.of("qmv"), ch);
  }

  /** Batched weights broadcast against x's batch axes as MLX/numpy do. */
  @Test
  public void batchedWeightsBroadcast() {
    QTest.Weights w4 = weights(5, new long[] {4, 16, 64}, 0.2, DType.F32, QuantMode.AFFINE, 32, 4);
    mm(
        w4,
        QTest.normal(6, 2 * 3 * 64, 1.0, DType.F32),
        new long[] {2, 1, 3, 64},
        DType.F32,
        true,
        "x [2,1,3,K] w [4,N,K] -> [2,4,3,N]");
    mm(
        w4,
        QTest.normal(7, 64, 1.0, DType.F32),
        new long[] {64},
        DType.F32,
        true,
        "1-D x with w [4,N,K] -> [4,N]");
    mm(
        w4,
        QTest.normal(8, 2 * 64, 1.0, DType.F32),
        new long[] {1, 2, 64},
        DType.F32,
        true,
        "x [1,2,K] w [4,N,K] -> [4,2,N]");
    QTest.Weights w2 = weights(9, new long[] {2, 64, 32}, 0.2, DType.BF16, QuantMode.MXFP4, 32, 4);
    mm(
        w2,
        QTest.normal(10, 2 * 5 * 64, 1.0, DType.BF16),
        new long[] {2, 5, 64},
        DType.BF16,
        false,
        "x [2,5,K] with w [2,K,N] not transposed");
  }

  /** Empty outputs come back with the right shape and dtype and nothing is launched; K = 0 is 0. */
  @Test
  public void emptyOutputsLaunchNothing() {
    QTest.Weights w = weights(11, new long[] {16, 64}, 0.2, DType.BF16, QuantMode.AFFINE, 64, 4);
    for (long[] xs : new long[][] {{0, 64}, {2, 0, 64}, {0, 3, 64}}) {
      Tensor x = rt.zeros(DType.BF16, xs);
      Tensor[] y = new Tensor[1];
      List<Decision> ds = QTest.decisions(() -> y[0] = rt.quantizedMatmul(x, w.q(), true));
      long[] want = xs.clone();
      want[want.length - 1] = 16;
      assertArrayEquals(want, y[0].shape());
      assertEquals(DType.BF16, y[0].dtype());
      assertTrue(QTest.qmmChoices(ds).isEmpty(), "nothing may be launched for an empty output");
      assertEquals(0, rt.toFloats(y[0]).length);
    }
    // N = 0: weights [0, K].
    QTest.Weights none =
        QTest.quantize(rt, new float[0], new long[] {0, 64}, DType.BF16, QuantMode.AFFINE, 64, 4);
    assertArrayEquals(new long[] {0, 8}, none.q().wq().shape());
    Tensor x = QTest.upload(rt, QTest.normal(12, 3 * 64, 1, DType.BF16), DType.BF16, 3, 64);
    List<Decision> ds =
        QTest.decisions(
            () ->
                assertArrayEquals(
                    new long[] {3, 0}, rt.quantizedMatmul(x, none.q(), true).shape()));
    assertTrue(QTest.qmmChoices(ds).isEmpty());
    // A batch of 0 weight matrices.
    QTest.Weights zeroBatch =
        QTest.quantize(
            rt, new float[0], new long[] {0, 16, 64}, DType.BF16, QuantMode.AFFINE, 64, 4);
    assertArrayEquals(new long[] {0, 3, 16}, rt.quantizedMatmul(x, zeroBatch.q(), true).shape());
    // K = 0: every output is an empty sum.
    QTest.Weights k0 =
        QTest.quantize(rt, new float[0], new long[] {5, 0}, DType.F32, QuantMode.AFFINE, 32, 4);
    Tensor y = rt.quantizedMatmul(rt.zeros(DType.F32, 2, 0), k0.q(), true);
    assertArrayEquals(new long[] {2, 5}, y.shape());
    assertArrayEquals(new float[10], rt.toFloats(y));
  }

  /** Views of x (transposed, offset slices, many strided axes) are made contiguous first. */
  @Test
  public void nonContiguousX() {
    QTest.Weights w = weights(13, new long[] {24, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 32, 8);
    // x stored [K, M], read as its transpose [M, K].
    int m = 3;
    float[] stored = QTest.normal(14, 128 * m, 1, DType.BF16);
    Tensor st = QTest.upload(rt, stored, DType.BF16, 128, m);
    Tensor xT = st.transpose(0, 1);
    float[] logical = new float[m * 128];
    for (int i = 0; i < m; i++) {
      for (int kk = 0; kk < 128; kk++) {
        logical[i * 128 + kk] = stored[kk * m + i];
      }
    }
    QTest.check(
        rt,
        rt.quantizedMatmul(xT, w.q(), true),
        QRef.matmul(logical, new long[] {m, 128}, w.wHat(), w.shape(), true),
        DType.BF16,
        "transposed view");
    // An offset slice (contiguous, not at element 0).
    Tensor big = QTest.upload(rt, QTest.normal(15, 5 * 128, 1, DType.BF16), DType.BF16, 5, 128);
    Tensor rows = big.slice(0, 2, 4);
    float[] sl = java.util.Arrays.copyOfRange(rt.toFloats(big), 2 * 128, 4 * 128);
    QTest.check(
        rt,
        rt.quantizedMatmul(rows, w.q(), true),
        QRef.matmul(sl, new long[] {2, 128}, w.wHat(), w.shape(), true),
        DType.BF16,
        "offset slice");
    // Five strided axes: [2, 3, 2, 2, K] with axes 0 and 2 swapped and a step along K... as views:
    float[] base = QTest.normal(16, 2 * 3 * 2 * 2 * 256, 1, DType.BF16);
    Tensor t =
        QTest.upload(rt, base, DType.BF16, 2, 3, 2, 2, 256).slice(4, 64, 192).transpose(0, 2);
    float[] expect = rt.toFloats(t); // the view's logical elements, gathered on the host
    QTest.check(
        rt,
        rt.quantizedMatmul(t, w.q(), true),
        QRef.matmul(expect, t.shape(), w.wHat(), w.shape(), true),
        DType.BF16,
        "5-D strided view");
  }

  /** Weights given as views (e.g. slices of a larger quantized matrix) work too. */
  @Test
  public void quantizedWeightsAsViews() {
    QTest.Weights w = weights(17, new long[] {32, 128}, 0.1, DType.F16, QuantMode.AFFINE, 64, 4);
    Quantized q = w.q();
    Quantized rows =
        new Quantized(
            q.wq().slice(0, 8, 24),
            q.scales().slice(0, 8, 24),
            q.biases().slice(0, 8, 24),
            64,
            4,
            QuantMode.AFFINE);
    double[] wHat = java.util.Arrays.copyOfRange(w.wHat(), 8 * 128, 24 * 128);
    float[] x = QTest.normal(18, 2 * 128, 1, DType.F16);
    Tensor y = rt.quantizedMatmul(QTest.upload(rt, x, DType.F16, 2, 128), rows, true);
    QTest.check(
        rt,
        y,
        QRef.matmul(x, new long[] {2, 128}, wHat, new long[] {16, 128}, true),
        DType.F16,
        "sliced weights");
  }

  /** Output dtypes: affine promotes x with the scales (MLX), fp modes keep x's dtype. */
  @Test
  public void dtypesPromoteAsMlx() {
    QTest.Weights bf = weights(19, new long[] {16, 64}, 0.2, DType.BF16, QuantMode.AFFINE, 64, 4);
    mm(
        bf,
        QTest.normal(20, 2 * 64, 1, DType.F32),
        new long[] {2, 64},
        DType.F32,
        true,
        DType.F32,
        "f32 x, bf16 scales -> f32",
        -1,
        0);
    mm(
        bf,
        QTest.normal(21, 2 * 64, 1, DType.F16),
        new long[] {2, 64},
        DType.F16,
        true,
        DType.F32,
        "f16 x, bf16 scales -> f32",
        -1,
        0);
    QTest.Weights f32 = weights(22, new long[] {16, 64}, 0.2, DType.F32, QuantMode.AFFINE, 64, 4);
    mm(
        f32,
        QTest.normal(23, 2 * 64, 1, DType.BF16),
        new long[] {2, 64},
        DType.BF16,
        true,
        DType.F32,
        "bf16 x, f32 scales -> f32",
        -1,
        0);
    QTest.Weights fp = weights(24, new long[] {16, 64}, 0.2, DType.F32, QuantMode.MXFP8, 32, 8);
    for (DType t : new DType[] {DType.BF16, DType.F16, DType.F32}) {
      mm(fp, QTest.normal(25, 2 * 64, 1, t), new long[] {2, 64}, t, true, t, "mxfp8 x " + t, -1, 0);
    }
  }

  // ---- the ladder ----

  /** The reason the default policy gives each vector-path variant it does not use. */
  static final String VARIANTS_OFF =
      "qmv-warp: policy: the vector path uses qmv (-Dsirocco.qmm.qmvVariant); qmv-persistent:"
          + " policy: the vector path uses qmv (-Dsirocco.qmm.qmvVariant); qmv-splitk: policy: the"
          + " vector path uses qmv (-Dsirocco.qmm.qmvVariant)";

  /** Each rung, and the decision as reported (chosen kernel and every earlier rejection). */
  @Test
  public void eachLadderPathReportsItsDecision() {
    QTest.Weights a4 = weights(30, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    assertEquals(
        "quantizedMatmul -> qmv (rejected: qmm-mma: policy: affine weights use the vector path"
            + " below 2 rows (rows=1); "
            + VARIANTS_OFF
            + ")",
        explain(a4, DType.BF16, 1, true));
    assertEquals("quantizedMatmul -> qmm-mma", explain(a4, DType.BF16, 2, true));
    String qvm =
        explain(
            weights(31, new long[] {128, 32}, 0.1, DType.BF16, QuantMode.AFFINE, 32, 4),
            DType.BF16,
            3,
            false);
    assertTrue(
        qvm.startsWith("quantizedMatmul -> qvm (rejected: qmm-mma: transposed weights only"), qvm);
    assertTrue(
        qvm.endsWith(
            "qmv: transposed weights only (w [n, k]); transpose=false uses AffineQvmKernel; fp-qmv:"
                + " fp modes only (affine uses AffineQmvKernel))"),
        qvm);
    QTest.Weights a3 = weights(32, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 3);
    String three = explain(a3, DType.BF16, 4, true);
    assertTrue(
        three.startsWith("quantizedMatmul -> qmv (rejected: qmm-mma: affine bits 4 and 8 only"),
        three);
    assertTrue(three.contains("qmv-warp: bits 2, 4 or 8 only"), three);
    QTest.Weights f = weights(33, new long[] {32, 128}, 0.1, DType.F32, QuantMode.AFFINE, 64, 4);
    String f32 = explain(f, DType.F32, 4, true);
    assertTrue(
        f32.startsWith(
            "quantizedMatmul -> qmv (rejected: qmm-mma: bf16/f16 activations only (tensor cores);"
                + " f32 uses the vector path; qmv-warp: bf16/f16 activations only"),
        f32);
    QTest.Weights nv = weights(34, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.NVFP4, 16, 4);
    String fp = explain(nv, DType.BF16, 7, true);
    assertTrue(
        fp.startsWith(
            "quantizedMatmul -> fp-qmv (rejected: qmm-mma: policy: fp-mode weights use the vector"
                + " path below 8 rows (rows=7); qmv-warp: affine mode only"),
        fp);
    assertTrue(fp.endsWith("qmv: affine mode only (fp modes use FpQmvKernel))"), fp);
    assertEquals("quantizedMatmul -> qmm-mma", explain(nv, DType.BF16, 8, true));
  }

  /**
   * The faster vector-path variants (qperf), each switched on by the policy property and run
   * through the op: affine 2/4/8-bit (split-K: 4/8) in bf16 and f16 at 1 to 3 rows (tensor cores
   * held off with the row threshold), every element against float64.
   */
  @Test
  public void qmvVariantsThroughTheOp() {
    long seed = 90;
    try {
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1000");
      List<String> failures = new java.util.ArrayList<>();
      for (String v : new String[] {"qmv-warp", "qmv-persistent", "qmv-splitk"}) {
        System.setProperty("sirocco.qmm.qmvVariant", v);
        for (int bits : new int[] {2, 4, 8}) {
          if (bits == 2 && v.equals("qmv-splitk")) {
            continue;
          }
          for (DType t : new DType[] {DType.BF16, DType.F16}) {
            long sd = seed;
            seed += 3;
            String what = v + " bits=" + bits + " " + t;
            collect(
                failures,
                what,
                () -> {
                  QTest.Weights w =
                      weights(
                          sd,
                          new long[] {40, 1152},
                          1 / Math.sqrt(1152),
                          t,
                          QuantMode.AFFINE,
                          64,
                          bits);
                  for (int rows : new int[] {1, 3}) {
                    float[] x = QTest.normal(sd + rows, rows * 1152, 1, t);
                    List<String> ch =
                        mm(w, x, new long[] {rows, 1152}, t, true, what + " rows=" + rows);
                    assertEquals(List.of(v), ch, what);
                  }
                  close(w.q());
                });
          }
        }
      }
      report(failures);
    } finally {
      System.clearProperty("sirocco.qmm.qmvVariant");
      System.clearProperty("sirocco.qmm.mmaMinRows.affine");
    }
  }

  /** The policy's row thresholds can be changed without rebuilding (system properties). */
  @Test
  public void policyThresholdsAreProperties() {
    QTest.Weights a4 = weights(35, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    QTest.Weights mx = weights(36, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.MXFP4, 32, 4);
    try {
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1");
      System.setProperty("sirocco.qmm.mmaMinRows.fp", "2");
      assertEquals("quantizedMatmul -> qmm-mma", explain(a4, DType.BF16, 1, true));
      assertEquals("quantizedMatmul -> qmm-mma", explain(mx, DType.BF16, 2, true));
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1000");
      assertTrue(explain(a4, DType.BF16, 8, true).startsWith("quantizedMatmul -> qmv"));
    } finally {
      System.clearProperty("sirocco.qmm.mmaMinRows.affine");
      System.clearProperty("sirocco.qmm.mmaMinRows.fp");
    }
  }

  /** Runs x [rows, K] against w, checks the result, and returns the reported decision. */
  protected String explain(QTest.Weights w, DType t, int rows, boolean transpose) {
    long k = transpose ? w.shape()[1] : w.shape()[0];
    float[] x = QTest.normal(rows * 101L, (int) (rows * k), 1, t);
    Tensor xt = QTest.upload(rt, x, t, rows, k);
    Tensor[] y = new Tensor[1];
    List<Decision> ds = QTest.decisions(() -> y[0] = rt.quantizedMatmul(xt, w.q(), transpose));
    QTest.check(
        rt,
        y[0],
        QRef.matmul(x, new long[] {rows, k}, w.wHat(), w.shape(), transpose),
        y[0].dtype(),
        "decision case");
    List<Decision> q = ds.stream().filter(d -> d.op().equals("quantizedMatmul")).toList();
    assertEquals(1, q.size(), ds.toString());
    return q.get(0).explain();
  }

  protected static void close(Quantized q) {
    q.wq().close();
    q.scales().close();
    if (q.biases() != null) {
      q.biases().close();
    }
  }
}
