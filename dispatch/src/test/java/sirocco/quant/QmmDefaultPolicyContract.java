package sirocco.quant;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Sirocco;
import sirocco.dispatch.quant.QmmPolicy;

/**
 * The quantized-matmul op under its <em>default</em> policy ({@link QmmPolicy}'s constants, no
 * property set), through the public API against {@link QRef}'s float64 reference: MLX's {@code
 * test_qmm} widened to every affine width (2, 3, 4, 5, 6, 8) and group (32, 64, 128) with a
 * non-multiple output count (N = 67) where the format allows it, both transposes, batched weights
 * broadcast as MLX does, and the fp modes at 1–7 rows. {@link QuantContract} pins a policy of its
 * own to walk particular rungs; these cases take whatever the shipped policy chooses, and assert
 * that it is the documented choice ({@link #expected}).
 *
 * <p>Bound, per element: {@code 2e-5·Σ|x·w| + ½ ulp(out dtype)} (float32 accumulation and the final
 * rounding; on the tensor-core rung also ½ ulp of the activation dtype times {@code Σ|x·w|}, for
 * weights dequantized into it), see {@link QTest#multiply}; on MLX's own cases (f16) also MLX's
 * absolute 1.5e-3.
 *
 * <p>Sizes: {@link #big()} (the GPU subclass) runs MLX's full row and K lists and both half dtypes;
 * the Java backend runs a subset of rows and K (each list says which), so that this class adds well
 * under a minute to CI.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class QmmDefaultPolicyContract {
  protected abstract Backend backend();

  /** True where MLX's full sizes are affordable (the GPU). */
  protected boolean big() {
    return backend() == Backend.CUDA;
  }

  protected Sirocco rt;

  /** Rungs chosen per test, printed after it: which kernels the default policy exercised. */
  private final Map<String, Integer> rungs = new TreeMap<>();

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

  @BeforeEach
  void defaultPolicy() {
    System.clearProperty(QmmPolicy.AFFINE_PROPERTY);
    System.clearProperty(QmmPolicy.FP_PROPERTY);
    System.clearProperty(QmmPolicy.QMV_VARIANT_PROPERTY);
    System.clearProperty(QmmPolicy.QMV_ROWS_MIN_PROPERTY);
    System.clearProperty(QmmPolicy.QMV_ROWS_MAX_PROPERTY);
    rungs.clear();
  }

  // ---- the policy as documented (docs/QUANT.md, QmmPolicy) ----

  /**
   * The rung the default policy picks for one launch: {@code qmm-mma-fp-async} where {@link
   * QTest#fpAsync} holds, else tensor cores ({@code qmm-mma}, or {@code qmm-mma-splitk} where it
   * takes affine weights: {@link QTest#affineTensorCore}; transposed, bf16/f16, affine 4/8-bit or
   * an fp mode, nvfp4 with K a multiple of 32) from {@link QTest#affineTensorCoreMinRows} / {@link
   * QmmPolicy#FP_MMA_MIN_ROWS} rows; below that the vector variant {@link QmmPolicy#QMV_VARIANT}
   * where it takes the width (bf16/f16; split-K: 4/8 bits; warp and persistent: 2/4/8), else {@code
   * qmv-rows} from {@link QmmPolicy#QMV_ROWS_MIN_ROWS} rows ({@link
   * QmmPolicy#QMV_ROWS_MIN_ROWS_HALF} for 2/3/5/6 bits with bf16/f16 x) and {@code qmv} below; fp
   * modes {@code fp-qmv}; {@code transpose=false} always {@code qvm}.
   */
  static String expected(
      QuantMode mode, int bits, DType t, long rows, boolean transpose, long k, int group) {
    if (!transpose) {
      return "qvm";
    }
    if (QTest.fpAsync(mode, t, rows, k, transpose)) {
      return "qmm-mma-fp-async";
    }
    boolean half = t == DType.BF16 || t == DType.F16;
    boolean affine = mode == QuantMode.AFFINE;
    if (affine
        && bits != 4
        && QTest.asyncWidth(bits)
        && half
        && rows >= QTest.affineTensorCoreMinRows(bits, t, k, group)) {
      // 2-, 3-, 5- and 6-bit codes: only qmm-mma-async on tensor cores (runs 106, 108), where it
      // takes them.
      String tc = QTest.affineTensorCore(bits, t, rows, k, group);
      if (tc.equals("qmm-mma-async")) {
        return tc;
      }
    }
    boolean mmaCan =
        half && (affine ? bits == 4 || bits == 8 : mode != QuantMode.NVFP4 || k % 32 == 0);
    int min = affine ? QTest.affineTensorCoreMinRows(bits, t, k, group) : QmmPolicy.FP_MMA_MIN_ROWS;
    if (mmaCan && rows >= min) {
      return affine ? QTest.affineTensorCore(bits, t, rows, k, group) : "qmm-mma";
    }
    if (!affine) {
      return "fp-qmv";
    }
    String v = QmmPolicy.QMV_VARIANT;
    boolean variantTakes =
        half
            && switch (v) {
              case "qmv-splitk" -> bits == 4 || bits == 8;
              case "qmv-warp", "qmv-persistent" -> bits == 2 || bits == 4 || bits == 8;
              default -> false;
            };
    if (variantTakes) {
      return v;
    }
    boolean oddWidth = bits == 2 || bits == 3 || bits == 5 || bits == 6;
    int minRows = half && oddWidth ? QmmPolicy.QMV_ROWS_MIN_ROWS_HALF : QmmPolicy.QMV_ROWS_MIN_ROWS;
    return rows >= minRows && rows <= QmmPolicy.QMV_ROWS_MAX_ROWS ? "qmv-rows" : "qmv";
  }

  // ---- helpers ----

  /** Normal weights times {@code scale}, quantized by the op, with their float64 dequantization. */
  QTest.Weights weights(
      long seed, long[] shape, double scale, DType t, QuantMode mode, int group, int bits) {
    float[] w = QTest.normal(seed, (int) QTest.size(shape), scale, t);
    return QTest.quantize(
        rt, w, shape, t, mode, QuantContract.group(mode, group), QuantContract.bits(mode, bits));
  }

  /**
   * Runs one product, checks it against float64 (and MLX's bound when {@code mlxAtol >= 0}), and
   * asserts that every launch took {@code rung}.
   */
  void run(
      QTest.Weights w,
      long[] xShape,
      DType t,
      boolean transpose,
      String rung,
      String what,
      double mlxAtol,
      long seed) {
    float[] x =
        QTest.normal(seed, (int) QTest.size(xShape), 1 / Math.sqrt(xShape[xShape.length - 1]), t);
    List<String> ch = QTest.multiply(rt, w, x, xShape, t, transpose, t, what, mlxAtol, 0);
    for (String c : ch) {
      rungs.merge(c, 1, Integer::sum);
    }
    if (ch.isEmpty() || !ch.stream().allMatch(rung::equals)) {
      throw new AssertionError(what + ": expected every launch on " + rung + ", got " + ch);
    }
  }

  /** Fails with every failure of a sweep; prints which rungs the sweep ran either way. */
  void report(String test, List<String> failures) {
    System.out.println("QmmDefaultPolicy " + backend() + " " + test + ": rungs " + rungs);
    QuantContract.report(failures);
  }

  private static String fmt(QuantMode mode, int bits, int group) {
    return mode == QuantMode.AFFINE ? "affine " + bits + "-bit g" + group : mode.toString();
  }

  // ---- MLX test_qmm, every width ----

  /**
   * MLX's {@code test_qmm}, widened from its bits 1/2/4/8 to every width MLX's CUDA backend takes
   * (2, 3, 4, 5, 6, 8), groups 128/64/32, N 128 and, for transposed weights (quantized along K),
   * the non-multiple 67 (a non-transposed w {@code [K, N]} is quantized along N, which must be a
   * multiple of the group: N 128 only). x and w normal / √K, f16 (MLX's GPU dtype) with MLX's
   * absolute 1.5e-3, and bf16 on the GPU. Rows: MLX's 8, 32, 33, 64 on the GPU; here 8 and 33 in
   * turn, one per weight matrix (33: a partial tile on every rung); K: MLX's 128 and 256 on the
   * GPU; here 128 (256 for group 128, so that it has two groups).
   */
  @Test
  public void mlxQmmEveryWidthGroupAndN() {
    int[] mlxRows = {8, 32, 33, 64};
    int turn = 0;
    DType[] types = big() ? new DType[] {DType.F16, DType.BF16} : new DType[] {DType.F16};
    List<String> failures = new ArrayList<>();
    long seed = 1000;
    for (int g : new int[] {128, 64, 32}) {
      int[] ks = big() ? new int[] {128, 256} : new int[] {Math.max(128, 2 * g)};
      for (int bits : QuantContract.BITS) {
        for (boolean transpose : new boolean[] {true, false}) {
          for (int n : transpose ? new int[] {128, 67} : new int[] {128}) {
            for (int k : ks) {
              if (g > k || (!transpose && g > n)) {
                continue;
              }
              for (DType t : types) {
                long sd = seed++;
                int[] rowList = big() ? mlxRows : new int[] {turn++ % 2 == 0 ? 8 : 33};
                String what =
                    "test_qmm "
                        + fmt(QuantMode.AFFINE, bits, g)
                        + " N="
                        + n
                        + " K="
                        + k
                        + " transpose="
                        + transpose
                        + " "
                        + t;
                QuantContract.collect(
                    failures,
                    what,
                    () -> {
                      long[] ws = transpose ? new long[] {n, k} : new long[] {k, n};
                      QTest.Weights w =
                          weights(sd, ws, 1 / Math.sqrt(k), t, QuantMode.AFFINE, g, bits);
                      for (int m : rowList) {
                        run(
                            w,
                            new long[] {m, k},
                            t,
                            transpose,
                            expected(QuantMode.AFFINE, bits, t, m, transpose, k, g),
                            what + " M=" + m,
                            t == DType.F16 ? 1.5e-3 : -1,
                            sd * 31 + m);
                      }
                      QuantContract.close(w.q());
                    });
              }
            }
          }
        }
      }
    }
    report("mlxQmmEveryWidthGroupAndN", failures);
  }

  // ---- rows 1–7: where the default policy switches kernels ----

  /**
   * Every affine width at 1 to 7 rows (the policy's switch from the vector variant to tensor cores
   * lies in this range), group 64, N = 67 outputs, bf16 (and f16 and f32 on the GPU): each row
   * count on the documented rung and against float64. K 256 here, 4096 on the GPU (the benchmark's
   * K).
   */
  @Test
  public void affineRows1To7EveryWidth() {
    int k = big() ? 4096 : 256;
    DType[] types =
        big() ? new DType[] {DType.BF16, DType.F16, DType.F32} : new DType[] {DType.BF16};
    List<String> failures = new ArrayList<>();
    long seed = 2000;
    for (DType t : types) {
      for (int bits : QuantContract.BITS) {
        long sd = seed++;
        String what = "rows 1-7 " + fmt(QuantMode.AFFINE, bits, 64) + " " + t;
        QuantContract.collect(
            failures,
            what,
            () -> {
              QTest.Weights w =
                  weights(sd, new long[] {67, k}, 1 / Math.sqrt(k), t, QuantMode.AFFINE, 64, bits);
              for (int m = 1; m <= 7; m++) {
                run(
                    w,
                    new long[] {m, k},
                    t,
                    true,
                    expected(QuantMode.AFFINE, bits, t, m, true, k, 64),
                    what + " M=" + m,
                    -1,
                    sd * 17 + m);
              }
              QuantContract.close(w.q());
            });
      }
    }
    report("affineRows1To7EveryWidth", failures);
  }

  /**
   * mxfp4, nvfp4 and mxfp8 at 1 to 7 rows (the "fp modes at 2–7 rows" question, decided by
   * measurement: tensor cores from {@link QmmPolicy#FP_MMA_MIN_ROWS} rows), N = 67, bf16 and f16
   * (and f32 on the GPU, which stays on fp-qmv); nvfp4 also with K = 48, which tensor cores cannot
   * take (not a multiple of 32), so it stays on fp-qmv at every row count. K 256 here, 4096 on the
   * GPU.
   */
  @Test
  public void fpModesRows1To7() {
    int k = big() ? 4096 : 256;
    DType[] types =
        big()
            ? new DType[] {DType.BF16, DType.F16, DType.F32}
            : new DType[] {DType.BF16, DType.F16};
    List<String> failures = new ArrayList<>();
    long seed = 3000;
    for (DType t : types) {
      for (QuantMode mode : QuantContract.FP) {
        for (int kk : mode == QuantMode.NVFP4 ? new int[] {k, 48} : new int[] {k}) {
          long sd = seed++;
          String what = "rows 1-7 " + mode + " K=" + kk + " " + t;
          QuantContract.collect(
              failures,
              what,
              () -> {
                QTest.Weights w = weights(sd, new long[] {67, kk}, 1.0, t, mode, 0, 0);
                for (int m = 1; m <= 7; m++) {
                  run(
                      w,
                      new long[] {m, kk},
                      t,
                      true,
                      expected(mode, 4, t, m, true, kk, 0),
                      what + " M=" + m,
                      -1,
                      sd * 13 + m);
                }
                QuantContract.close(w.q());
              });
        }
      }
    }
    report("fpModesRows1To7", failures);
  }

  // ---- batched weights ----

  /**
   * Batched weights for every format, broadcast against x's batch axes as MLX/numpy do: w {@code
   * [3, N, K]} with x {@code [3, M, K]} (paired), {@code [2, 1, M, K]} (x broadcast over w's batch:
   * output {@code [2, 3, M, N]}) and {@code [M, K]} (x shared by every matrix); w {@code [1, N, K]}
   * with x {@code [3, M, K]}; MLX's {@code test_qmv} form x {@code [B, 1, K]}; and {@code
   * transpose=false} with w {@code [3, K, N]}. M = 5 (tensor cores where the format allows, under
   * the default policy), N = 67 (transposed), bf16, K 128 (GPU: 1024). The affine widths take the
   * groups in turn.
   */
  @Test
  public void batchedWeightsEveryFormat() {
    int k = big() ? 1024 : 128;
    int m = 5;
    int n = 67;
    DType t = DType.BF16;
    Object[][] formats = {
      {QuantMode.AFFINE, 2, 32}, {QuantMode.AFFINE, 3, 64}, {QuantMode.AFFINE, 4, 128},
      {QuantMode.AFFINE, 5, 32}, {QuantMode.AFFINE, 6, 64}, {QuantMode.AFFINE, 8, 128},
      {QuantMode.MXFP4, 4, 32}, {QuantMode.NVFP4, 4, 16}, {QuantMode.MXFP8, 8, 32}
    };
    List<String> failures = new ArrayList<>();
    long seed = 4000;
    for (Object[] f : formats) {
      QuantMode mode = (QuantMode) f[0];
      int bits = (int) f[1];
      int g = (int) f[2];
      long sd = seed++;
      String what = "batched " + fmt(mode, bits, g);
      QuantContract.collect(
          failures,
          what,
          () -> {
            QTest.Weights w3 =
                weights(sd, new long[] {3, n, k}, 1 / Math.sqrt(k), t, mode, g, bits);
            String mma = expected(mode, bits, t, m, true, k, g);
            run(w3, new long[] {3, m, k}, t, true, mma, what + " x [3,M,K]", -1, sd + 1);
            run(w3, new long[] {2, 1, m, k}, t, true, mma, what + " x [2,1,M,K]", -1, sd + 2);
            run(w3, new long[] {m, k}, t, true, mma, what + " x [M,K]", -1, sd + 3);
            run(
                w3,
                new long[] {3, 1, k},
                t,
                true,
                expected(mode, bits, t, 1, true, k, g),
                what + " x [B,1,K] (test_qmv)",
                -1,
                sd + 4);
            QuantContract.close(w3.q());
            QTest.Weights w1 =
                weights(sd + 5, new long[] {1, n, k}, 1 / Math.sqrt(k), t, mode, g, bits);
            // Weights [1, N, K] broadcast: x's batch folds into 3·M rows of one launch, which
            // the policy may send elsewhere than M rows (4-bit: 15 rows are past the async
            // kernel's 8).
            run(
                w1,
                new long[] {3, m, k},
                t,
                true,
                expected(mode, bits, t, 3L * m, true, k, g),
                what + " w [1,N,K]",
                -1,
                sd + 6);
            QuantContract.close(w1.q());
            QTest.Weights wt =
                weights(sd + 7, new long[] {3, k, 128}, 1 / Math.sqrt(k), t, mode, g, bits);
            run(wt, new long[] {3, m, k}, t, false, "qvm", what + " transpose=false", -1, sd + 8);
            QuantContract.close(wt.q());
          });
    }
    report("batchedWeightsEveryFormat", failures);
  }
}
