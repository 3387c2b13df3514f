package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.quant.QmmPolicy;

/**
 * The quantized-matmul op through the public API, against {@link QRef}'s float64 reference: MLX's
 * python/tests/test_quantized.py cases at MLX's sizes (where MLX crosses a case with several batch
 * sizes, the cases here take them in turn), batch folding and broadcasting, views, dtypes, and the
 * ladder's decision for each path. Subclasses pick the backend; the GPU one also runs the medium
 * size of {@link #everyFormatAtRows1And6} ({@link #big()}).
 *
 * <p>The MLX cases are in {@link QuantMlxCases}, the runtime, the pinned policy and the shared
 * helpers in {@link QuantHarness}; JUnit runs the inherited cases in every subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class QuantContract extends QuantMlxCases {
  // ---- every format at rows 1 and 6 ----

  /**
   * Every affine width (group 64) and fp mode at rows 1 and 6, bf16: 2048 x 4096 on the GPU, 128 x
   * 512 on the Java backend. Also checks the ladder's choice: tensor cores for affine 2/4/6/8-bit
   * at 6 rows, qmv-rows for the other widths, the vector kernels otherwise (fp modes stay on fp-qmv
   * below 8 rows).
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
            boolean oddWidth = bits == 2 || bits == 3 || bits == 5 || bits == 6;
            assertEquals(List.of(affine ? (oddWidth ? "qmv-rows" : "qmv") : "fp-qmv"), c1, what);
            assertEquals(
                List.of(affine ? QTest.affineTensorCore(bits, DType.BF16, 6, k, 64) : "fp-qmv"),
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

  /**
   * nvfp4 with a global scale (max|w|) through the three fp paths under the pinned policy
   * (QuantHarness: fp tensor cores from 8 rows): fp-qmv (3 rows), qmm-mma-fp-async (9) and qmm-mma
   * (17, above {@link QmmPolicy#FP_ASYNC_MAX_ROWS}).
   */
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
    for (int rows : new int[] {3, 9, 17}) {
      List<String> ch =
          mm(
              w,
              QTest.normal(61 + rows, rows * 256, 1, DType.BF16),
              new long[] {rows, 256},
              DType.BF16,
              true,
              "nvfp4 global scale rows=" + rows);
      assertEquals(List.of(rows < 8 ? "fp-qmv" : rows <= 16 ? "qmm-mma-fp-async" : "qmm-mma"), ch);
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
        List.of("qmm-mma-async"),
        ch,
        "two folded rows take the asynchronous-copy split-K tensor-core kernel in one launch");
    ch =
        mm(
            w,
            QTest.normal(3, 2 * 3 * 2 * 128, 1.0, DType.BF16),
            new long[] {2, 3, 2, 128},
            DType.BF16,
            true,
            "[2,3,2,K] folded");
    assertEquals(
        List.of("qmm-mma-async"),
        ch,
        "twelve folded rows take it too, with two row tiles per warp, in one launch");
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

  /** Why the tiled tensor-core rung does not take fewer than 64 rows. */
  static final String TILED_FEW_ROWS =
      "qmm-tiled: fewer than 64 rows (a block tile is 64-256 rows of x; fewer rows use qmm-mma)";

  /** Why the warpgroup rung is not used: its policy, first, for every shape. */
  static final String WGMMA_OFF =
      "qmm-wgmma: policy: not used by default (sm_90 only; run 115, H100: 99.3 against"
          + " qmm-tiled's 91.6 µs at 256 rows; -Dsirocco.qmm.wgmmaMinRows=N)";

  /** The tile-copy warpgroup rung's reason under the default policy (every shape). */
  static final String WGMMA_TMA_OFF =
      "qmm-wgmma-tma: policy: not used by default (sm_90 only; run 116: not yet run on a GPU;"
          + " -Dsirocco.qmm.wgmmaTmaMinRows=N)";

  /**
   * Why the warpgroup and x-in-shared-memory rungs are not used: their policies, first, for every
   * shape.
   */
  static final String XSHARED_OFF =
      WGMMA_OFF
          + "; "
          + WGMMA_TMA_OFF
          + "; qmm-mma-xshared: policy: not used by default (run 100: at best 2% under qmm-tiled at"
          + " 256 rows, slower at 128 and 512; -Dsirocco.qmm.xsharedMinRows=N)";

  /** The first three rungs' reasons below 64 rows under the default policy. */
  static final String LADDER_HEAD = XSHARED_OFF + "; " + TILED_FEW_ROWS;

  /**
   * The reasons the first two rungs give below 64 rows with the tensor-core variant pinned to
   * qmm-mma ({@link #pinnedToQmmMma}): too few rows for the tiled kernel, and the split-K rung is
   * not the variant in force.
   */
  static final String MMA_VARIANT_OFF =
      LADDER_HEAD
          + "; qmm-mma-async: policy: tensor cores use qmm-mma (-Dsirocco.qmm.mmaVariant)"
          + "; qmm-mma-splitk: policy: tensor cores use qmm-mma (-Dsirocco.qmm.mmaVariant)"
          + "; qmm-mma-fp-async: fp modes only (mxfp4, nvfp4, mxfp8); affine weights use the"
          + " affine tensor-core rungs";

  /** {@link #MMA_VARIANT_OFF} for fp-mode weights, which the fp rung could take. */
  static final String MMA_VARIANT_OFF_FP =
      LADDER_HEAD
          + "; qmm-mma-async: policy: tensor cores use qmm-mma (-Dsirocco.qmm.mmaVariant)"
          + "; qmm-mma-splitk: policy: tensor cores use qmm-mma (-Dsirocco.qmm.mmaVariant)"
          + "; qmm-mma-fp-async: policy: tensor cores use qmm-mma (-Dsirocco.qmm.mmaVariant)";

  /**
   * The pipelined tensor-core rung's reason under the default policy above the {@code max} rows it
   * takes ({@link QmmPolicy#MMA_ASYNC_MAX_ROWS} with one row tile per warp, {@link
   * QmmPolicy#MMA_ASYNC_TWO_TILES_MAX_ROWS} with two; the split-K register kernel is the variant in
   * force).
   */
  static String asyncOff(int max, int rows) {
    return "qmm-mma-async: policy: at most "
        + max
        + " rows, qmm-mma-splitk above (rows="
        + rows
        + "; -Dsirocco.qmm.mmaVariant)";
  }

  /**
   * The pipelined tensor-core rung's own reason for k = 64 (one group per warp slice), which the
   * ladder reports instead of a policy.
   */
  static final String ASYNC_ONE_GROUP =
      "qmm-mma-async: 2, 4 or 8 groups per warp slice (each row's scales are one 4/8/16-byte"
          + " copy), got 1";

  /** What the op reports when it chooses qmm-mma with the variant pinned to it. */
  static final String QMM_MMA = "quantizedMatmul -> qmm-mma (rejected: " + MMA_VARIANT_OFF + ")";

  /** {@link #QMM_MMA} for fp-mode weights. */
  static final String QMM_MMA_FP =
      "quantizedMatmul -> qmm-mma (rejected: " + MMA_VARIANT_OFF_FP + ")";

  /** The reason the default policy gives qmv-rows at 1 row. */
  static final String ROWS_OFF =
      "qmv-rows: policy: below 2 rows the vector path runs one row at a time (rows=1;"
          + " -Dsirocco.qmm.qmvRowsMinRows)";

  /** The reason the default policy gives each vector-path variant it does not use. */
  static final String VARIANTS_OFF =
      "qmv-warp: policy: the vector path uses qmv (-Dsirocco.qmm.qmvVariant); qmv-persistent:"
          + " policy: the vector path uses qmv (-Dsirocco.qmm.qmvVariant); qmv-splitk: policy: the"
          + " vector path uses qmv (-Dsirocco.qmm.qmvVariant); qmv-async: policy: the vector path"
          + " uses qmv (-Dsirocco.qmm.qmvVariant)";

  /**
   * Runs {@code body} with the tensor-core variant pinned to qmm-mma (the {@code
   * -Dsirocco.qmm.mmaVariant} switch): the ladder-text and threshold tests below are about how
   * rungs report and which thresholds apply, written against qmm-mma's reasons; the default
   * variant's own choices are checked by {@link #defaultTensorCoreVariants}.
   */
  static void pinnedToQmmMma(Runnable body) {
    String previous = System.getProperty(QmmPolicy.MMA_VARIANT_PROPERTY);
    System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, "qmm-mma");
    try {
      body.run();
    } finally {
      if (previous == null) {
        System.clearProperty(QmmPolicy.MMA_VARIANT_PROPERTY);
      } else {
        System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, previous);
      }
    }
  }

  /**
   * Under the default policy, 4-bit affine bf16 weights at 2-72 rows take the asynchronous-copy
   * split-K tensor-core kernel where its plan holds two row tiles per warp above 8 rows (g64; runs
   * 89, 100, 102; g32 since run 103), then (32 features: no tiled kernel) qmm-mma; 1 row the vector
   * path, 8-bit qmm-mma; the decision says why.
   */
  @Test
  public void defaultTensorCoreVariants() {
    QTest.Weights a4 = weights(37, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    for (int rows : new int[] {2, 8, 9, 16, 17, 32, 33, 48}) {
      assertEquals(
          "quantizedMatmul -> qmm-mma-async (rejected: " + LADDER_HEAD + ")",
          explain(a4, DType.BF16, rows, true),
          "rows " + rows);
    }
    // From 64 rows the tiled kernel's reason is a policy (32 features: no timed block width).
    String at72 = explain(a4, DType.BF16, 72, true);
    assertTrue(at72.startsWith("quantizedMatmul -> qmm-mma-async (rejected: "), at72);
    String at73 = explain(a4, DType.BF16, 73, true);
    assertTrue(at73.startsWith("quantizedMatmul -> qmm-mma (rejected: "), at73);
    assertTrue(at73.contains("; " + asyncOff(72, 73) + "; "), at73);
    assertTrue(at73.contains("qmm-mma-splitk: policy: more than 72 rows use qmm-mma"), at73);
    QTest.Weights g32 = weights(39, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 32, 4);
    // g32 holds two row tiles too since run 103: the async kernel above 8 rows as at g64.
    for (int rows : new int[] {9, 17, 48}) {
      assertEquals(
          "quantizedMatmul -> qmm-mma-async (rejected: " + LADDER_HEAD + ")",
          explain(g32, DType.BF16, rows, true),
          "g32 rows " + rows);
    }
    assertTrue(
        explain(a4, DType.BF16, 1, true).startsWith("quantizedMatmul -> qmv"),
        "1 row stays on the vector path");
    QTest.Weights a8 = weights(38, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 8);
    String eight = explain(a8, DType.BF16, 4, true);
    assertTrue(
        eight.startsWith(
            "quantizedMatmul -> qmm-mma (rejected: "
                + LADDER_HEAD
                + "; qmm-mma-async: affine 2-, 3-, 4-, 5- or 6-bit only"),
        eight);
    assertTrue(eight.contains("; qmm-mma-splitk: affine 4-bit only"), eight);
    close(a4.q());
    close(a8.q());
    close(g32.q());
  }

  /** Each rung, and the decision as reported (chosen kernel and every earlier rejection). */
  @Test
  public void eachLadderPathReportsItsDecision() {
    pinnedToQmmMma(this::eachLadderPathReportsItsDecisionPinned);
  }

  private void eachLadderPathReportsItsDecisionPinned() {
    QTest.Weights a4 = weights(30, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    assertEquals(
        "quantizedMatmul -> qmv (rejected: "
            + MMA_VARIANT_OFF
            + "; qmm-mma: policy: affine weights use the vector path below 2 rows (rows=1); "
            + VARIANTS_OFF
            + "; "
            + ROWS_OFF
            + ")",
        explain(a4, DType.BF16, 1, true));
    assertEquals(QMM_MMA, explain(a4, DType.BF16, 2, true));
    String qvm =
        explain(
            weights(31, new long[] {128, 32}, 0.1, DType.BF16, QuantMode.AFFINE, 32, 4),
            DType.BF16,
            3,
            false);
    assertTrue(
        qvm.startsWith(
            "quantizedMatmul -> qvm (rejected: "
                + MMA_VARIANT_OFF
                + "; qmm-mma: transposed weights only"),
        qvm);
    assertTrue(
        qvm.endsWith(
            "qmv: transposed weights only (w [n, k]); transpose=false uses QvmKernel; fp-qmv:"
                + " fp modes only (affine uses AffineQmvKernel))"),
        qvm);
    QTest.Weights a3 = weights(32, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 3);
    String three = explain(a3, DType.BF16, 4, true);
    assertTrue(
        three.startsWith(
            "quantizedMatmul -> qmv-rows (rejected: "
                + MMA_VARIANT_OFF
                + "; qmm-mma: affine bits 4 and 8 only"),
        three);
    assertTrue(three.contains("qmv-warp: bits 2, 4 or 8 only"), three);
    // 3-bit bf16 from 1 row takes qmv-rows (run 89); f32 x keeps one row on qmv.
    String threeOne = explain(a3, DType.BF16, 1, true);
    assertTrue(threeOne.startsWith("quantizedMatmul -> qmv-rows (rejected: "), threeOne);
    QTest.Weights f3 = weights(35, new long[] {32, 128}, 0.1, DType.F32, QuantMode.AFFINE, 64, 3);
    assertTrue(
        explain(f3, DType.F32, 1, true).endsWith("; " + ROWS_OFF + ")"),
        "3-bit f32, 1 row: qmv, qmv-rows rejected by the policy");
    close(f3.q());
    QTest.Weights f = weights(33, new long[] {32, 128}, 0.1, DType.F32, QuantMode.AFFINE, 64, 4);
    String f32 = explain(f, DType.F32, 4, true);
    assertTrue(
        f32.startsWith(
            "quantizedMatmul -> qmv-rows (rejected: "
                + MMA_VARIANT_OFF
                + "; qmm-mma: bf16/f16 activations only (tensor"
                + " cores); f32 uses the vector path; qmv-warp: bf16/f16 activations only"),
        f32);
    QTest.Weights nv = weights(34, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.NVFP4, 16, 4);
    String fp = explain(nv, DType.BF16, 7, true);
    assertTrue(
        fp.startsWith(
            "quantizedMatmul -> fp-qmv (rejected: "
                + MMA_VARIANT_OFF_FP
                + "; qmm-mma: policy: fp-mode weights use the vector"
                + " path below 8 rows (rows=7); qmv-warp: affine mode only"),
        fp);
    assertTrue(fp.endsWith("qmv: affine mode only (fp modes use FpQmvKernel))"), fp);
    assertTrue(fp.contains("qmv-rows: affine mode only (fp modes use FpQmvKernel)"), fp);
    assertEquals(QMM_MMA_FP, explain(nv, DType.BF16, 8, true));
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

  /**
   * The split-K tensor-core kernel through the op, switched on by the policy property (with the row
   * threshold at 1): 4-bit g64 in bf16 and f16 at 1, 3, 8 and 11 rows (two row tiles), n = 40 (2.5
   * batches of 16 features), k = 1152 (18 groups: 6 warps of 192); every element against float64.
   * 8-bit shapes fall through to qmm-mma.
   */
  @Test
  public void mmaSplitKThroughTheOp() {
    try {
      System.setProperty("sirocco.qmm.mmaVariant", "qmm-mma-splitk");
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1");
      List<String> failures = new java.util.ArrayList<>();
      long seed = 120;
      for (DType t : new DType[] {DType.BF16, DType.F16}) {
        long sd = seed;
        seed += 5;
        collect(
            failures,
            "qmm-mma-splitk " + t,
            () -> {
              QTest.Weights w =
                  weights(
                      sd, new long[] {40, 1152}, 1 / Math.sqrt(1152), t, QuantMode.AFFINE, 64, 4);
              for (int rows : new int[] {1, 3, 8, 11}) {
                float[] x = QTest.normal(sd + rows, rows * 1152, 1, t);
                List<String> ch = mm(w, x, new long[] {rows, 1152}, t, true, t + " rows=" + rows);
                assertEquals(List.of("qmm-mma-splitk"), ch, t + " rows=" + rows);
              }
              close(w.q());
            });
      }
      QTest.Weights w8 =
          weights(seed, new long[] {24, 256}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 8);
      String d = explain(w8, DType.BF16, 2, true);
      assertTrue(
          d.startsWith(
              "quantizedMatmul -> qmm-mma (rejected: "
                  + LADDER_HEAD
                  + "; "
                  + "qmm-mma-async: policy: tensor cores use qmm-mma-splitk"
                  + " (-Dsirocco.qmm.mmaVariant)"
                  + "; qmm-mma-splitk: affine 4-bit only"),
          d);
      close(w8.q());
      report(failures);
    } finally {
      System.clearProperty("sirocco.qmm.mmaVariant");
      System.clearProperty("sirocco.qmm.mmaMinRows.affine");
    }
  }

  /**
   * qmv-rows through the op: every affine width in bf16, f16 and f32 at 2, 3, 5 and 8 rows in turn
   * (and 13 rows, two row blocks of 7, at 3 bits), n = 24 (not a multiple of 16 features per
   * block), k = 128; the decision reported (the rungs above it rejected with their reasons) and
   * every element against float64. Tensor cores keep affine 4/8-bit bf16/f16; those run on qmv-rows
   * too with tensor cores held off by the row threshold.
   */
  @Test
  public void qmvRowsThroughTheOp() {
    pinnedToQmmMma(this::qmvRowsThroughTheOpPinned);
  }

  private void qmvRowsThroughTheOpPinned() {
    int[] rows = {2, 3, 5, 8};
    List<String> failures = new java.util.ArrayList<>();
    int i = 0;
    for (DType t : new DType[] {DType.BF16, DType.F16, DType.F32}) {
      for (int bits : BITS) {
        int m = bits == 3 && t == DType.F16 ? 13 : rows[i % rows.length];
        int seed = 70 + i++;
        boolean mma = t != DType.F32 && (bits == 4 || bits == 8);
        String what = bits + "-bit " + t + " rows=" + m;
        collect(
            failures,
            what,
            () -> {
              QTest.Weights w =
                  weights(seed, new long[] {24, 128}, 0.1, t, QuantMode.AFFINE, 64, bits);
              if (mma) {
                assertEquals(QMM_MMA, explain(w, t, m, true));
                System.setProperty("sirocco.qmm.mmaMinRows.affine", "1000");
              }
              try {
                String d = explain(w, t, m, true);
                assertTrue(
                    d.startsWith(
                        "quantizedMatmul -> qmv-rows (rejected: "
                            + MMA_VARIANT_OFF
                            + "; qmm-mma: "),
                    d);
                assertTrue(d.contains("; qmv-splitk: "), d);
              } finally {
                System.setProperty("sirocco.qmm.mmaMinRows.affine", "2"); // the pinned policy
              }
              close(w.q());
            });
      }
    }
    report(failures);
  }

  /** The policy's row thresholds can be changed without rebuilding (system properties). */
  @Test
  public void policyThresholdsAreProperties() {
    pinnedToQmmMma(this::policyThresholdsArePropertiesPinned);
  }

  private void policyThresholdsArePropertiesPinned() {
    QTest.Weights a4 = weights(35, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.AFFINE, 64, 4);
    QTest.Weights mx = weights(36, new long[] {32, 128}, 0.1, DType.BF16, QuantMode.MXFP4, 32, 4);
    try {
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1");
      System.setProperty("sirocco.qmm.mmaMinRows.fp", "2");
      assertEquals(QMM_MMA, explain(a4, DType.BF16, 1, true));
      assertEquals(QMM_MMA_FP, explain(mx, DType.BF16, 2, true));
      System.setProperty("sirocco.qmm.mmaMinRows.affine", "1000");
      assertTrue(explain(a4, DType.BF16, 8, true).startsWith("quantizedMatmul -> qmv-rows"));
      System.setProperty("sirocco.qmm.qmvRowsMinRows", "4");
      String three = explain(a4, DType.BF16, 3, true);
      assertTrue(three.startsWith("quantizedMatmul -> qmv (rejected"), three);
      assertTrue(
          three.endsWith(
              "qmv-rows: policy: below 4 rows the vector path runs one row at a time (rows=3;"
                  + " -Dsirocco.qmm.qmvRowsMinRows))"),
          three);
      System.setProperty("sirocco.qmm.qmvRowsMaxRows", "5");
      String six = explain(a4, DType.BF16, 6, true);
      assertTrue(
          six.endsWith("qmv-rows: policy: at most 5 rows (rows=6; -Dsirocco.qmm.qmvRowsMaxRows))"),
          six);
      assertTrue(explain(a4, DType.BF16, 5, true).startsWith("quantizedMatmul -> qmv-rows"));
    } finally {
      System.clearProperty("sirocco.qmm.mmaMinRows.affine");
      System.clearProperty("sirocco.qmm.mmaMinRows.fp");
      System.clearProperty("sirocco.qmm.qmvRowsMinRows");
      System.clearProperty("sirocco.qmm.qmvRowsMaxRows");
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
