package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.DType;
import sirocco.QuantMode;

/**
 * MLX's python/tests/test_quantized.py cases of {@link QuantContract} at MLX's sizes (where MLX
 * crosses a case with several batch sizes, the cases here take them in turn), against {@link
 * QRef}'s float64 reference and MLX's own tolerances.
 */
public abstract class QuantMlxCases extends QuantHarness {
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
        assertEquals(
            List.of(rows == 1 ? "qmv" : QTest.affineTensorCore(bits, DType.BF16, rows, 512, 64)),
            ch,
            "rows " + rows);
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
              List.of(QTest.affineTensorCore(4, t, m, k, 64)),
              mm(w, x, new long[] {m, k}, t, true, "rows kernel m=" + m));
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
            // (3, 1, K) folds into 3 rows of one launch; (B, 1, K) against (B, N, K) is B launches
            // of one row each.
            String want = b == 0 ? "qmv-rows" : "qmv";
            assertTrue(ch.stream().allMatch(want::equals), ch.toString());
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
          assertEquals(List.of(QTest.affineTensorCore(bits, DType.F16, m, k, g)), ch);
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
}
