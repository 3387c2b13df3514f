package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.LaunchBounds;
import sirocco.jit.PtxResources;
import sirocco.jit.PtxValidator;
import sirocco.jit.Target;

/**
 * The split-K tensor-core kernel ({@link QmmMmaSplitKKernel}) on the Java backend (mma simulated in
 * float, lanes as threads) against the float64 reference with the bound of the other quant kernels
 * ({@link QmmCase#check}); outputs are poisoned with NaN before every run, so an unwritten element
 * fails.
 */
class QmmMmaSplitKKernelTest {
  static final int SMS = 132;

  static float[] run(QmmCase c, LaunchPlan plan) {
    return c.runAffine(QmmMmaSplitKKernel.class, plan);
  }

  static void check(QmmShape s, long seed, LaunchPlan p) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, p), p.describe());
  }

  static void check(QmmShape s, long seed) {
    assertNull(QmmMmaSplitKKernel.supports(s), s.toString());
    check(s, seed, QmmMmaSplitKKernel.plan(s, SMS));
  }

  /**
   * The default plan over groups 32/64/128, bf16/f16 and rows 1, 3, 8 and 12 (two row tiles, the
   * second partial); n = 40 is 2.5 batches of 16 features. k = 512 splits over 2 (g32: 2, g128: 2)
   * warps of 256 k; k = 1088 (17 groups of 64) over 17 warps of 64 k.
   */
  @Test
  void defaultPlanGroupsDtypesRows() {
    long seed = 1;
    for (int g : new int[] {32, 64, 128}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {1, 3, 8, 12}) {
          check(QmmShape.affine(4, g, dtype, rows, 40, 512), seed++);
        }
      }
    }
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 5, 24, 1088);
    assertEquals(17, QmmMmaSplitKKernel.plan(s, SMS).get("ks"));
    assertEquals(2, QmmMmaSplitKKernel.plan(s, SMS).get("wps"));
    check(s, seed++);
  }

  /**
   * Group counts per warp slice other than 4 and 8 (one load per scale): k = 1152 gives 6 warps of
   * 3 groups (g64), 9 warps of 1 group (g128) and 6 warps of 6 groups (g32).
   */
  @Test
  void unalignedGroupsPerSlice() {
    long seed = 50;
    int[][] want = {{64, 6, 6}, {128, 9, 4}, {32, 6, 6}}; // group, ks, wps
    for (int[] w : want) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        QmmShape s = QmmShape.affine(4, w[0], dtype, 3, 40, 1152);
        LaunchPlan p = QmmMmaSplitKKernel.plan(s, SMS);
        assertEquals(w[1], p.get("ks"), p.describe());
        assertEquals(w[2], p.get("wps"), p.describe());
        check(s, seed++, p);
      }
    }
  }

  /** The benchmarked k: 16 warps of 256 k (8 words per lane per row), rows 1 and 8. */
  @Test
  void k4096() {
    for (int rows : new int[] {1, 8}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, rows, 24, 4096);
      LaunchPlan p = QmmMmaSplitKKernel.plan(s, SMS);
      assertEquals(16, p.get("ks"));
      assertEquals(8, p.get("wps"));
      check(s, 70 + rows, p);
    }
  }

  /**
   * Persistent blocks walking many batches (one or three blocks for 2–6 batches: the double-
   * buffered slab is reused), both tile counts, k splits of 2, 4 and 8 warps at k = 512 (slices of
   * 8, 4 and 2 words per lane), and a partial last batch.
   */
  @Test
  void persistentBlocksAndExplicitPlans() {
    long seed = 100;
    for (int mt : new int[] {1, 2}) {
      for (int ks : new int[] {2, 4, 8}) {
        for (int sms : new int[] {1, 3}) {
          QmmShape s =
              QmmShape.affine(4, 64, (ks + mt) % 2 == 0 ? Quant.BF16 : Quant.F16, 7, 88, 512);
          LaunchPlan p = QmmMmaSplitKKernel.plan(s, sms, ks, mt, 1);
          assertEquals(sms, p.grid().x(), p.describe());
          check(s, seed++, p);
        }
      }
    }
    // Two blocks per SM, rows 2 and 16 (two full row tiles).
    QmmShape s = QmmShape.affine(4, 128, Quant.BF16, 16, 72, 1024);
    check(s, seed++, QmmMmaSplitKKernel.plan(s, 2, 4, 2, 2));
    s = QmmShape.affine(4, 32, Quant.F16, 2, 72, 256);
    check(s, seed++, QmmMmaSplitKKernel.plan(s, 2, 1, 1, 2));
  }

  /**
   * Two row tiles per warp (rt = 2): 9 to 32 rows (a partial second tile, a partial second block
   * row), both feature-tile counts, k splits of 2 to 8 warps, every group size and both dtypes.
   */
  @Test
  void twoRowTilesPerWarp() {
    long seed = 300;
    int[][] cases = {
      {9, 1, 2, 64, Quant.BF16},
      {16, 1, 4, 64, Quant.BF16},
      {16, 2, 4, 128, Quant.F16},
      {23, 1, 8, 32, Quant.F16},
      {32, 2, 2, 64, Quant.BF16},
      {13, 1, 4, 128, Quant.BF16}
    };
    for (int[] c : cases) {
      QmmShape s = QmmShape.affine(4, c[3], c[4], c[0], 88, 512);
      LaunchPlan p = QmmMmaSplitKKernel.plan(s, 3, c[2], c[1], 1, 2);
      assertEquals(2, p.get("rt"));
      assertEquals((c[0] + 15) / 16, p.grid().y(), p.describe());
      check(s, seed++, p);
    }
    assertMessage(
        "rt",
        () ->
            QmmMmaSplitKKernel.plan(
                QmmShape.affine(4, 64, Quant.BF16, 16, 88, 512), 3, 2, 1, 1, 3));
  }

  /**
   * The default plan's row tiles: two above 8 rows (g64, g128), hinted to one 512-thread block per
   * SM; one at 8 rows, for g32 (spills at 128 registers) and where k needs more than 16 warps.
   */
  @Test
  void defaultRowTiles() {
    QmmShape s16 = QmmShape.affine(4, 64, Quant.BF16, 16, 12288, 4096);
    LaunchPlan p = QmmMmaSplitKKernel.plan(s16, 132);
    assertEquals(2, p.get("rt"));
    assertEquals(1, p.grid().y());
    assertEquals(1, p.minBlocksPerSm());
    assertEquals(128, p.grid().x()); // 768 batches of 16 features, 6 per block
    QmmShape s17 = QmmShape.affine(4, 64, Quant.BF16, 17, 12288, 4096);
    assertEquals(2, QmmMmaSplitKKernel.plan(s17, 132).grid().y());
    QmmShape s8 = QmmShape.affine(4, 64, Quant.BF16, 8, 12288, 4096);
    assertEquals(1, QmmMmaSplitKKernel.plan(s8, 132).get("rt"));
    assertEquals(
        1,
        QmmMmaSplitKKernel.plan(QmmShape.affine(4, 32, Quant.BF16, 16, 12288, 4096), 132)
            .get("rt"));
    assertEquals(
        2,
        QmmMmaSplitKKernel.plan(QmmShape.affine(4, 128, Quant.F16, 9, 12288, 4096), 132).get("rt"));
    // k = 1088: 17 warps of 64 k, more than 16 warps of 128 registers fit.
    assertEquals(
        1,
        QmmMmaSplitKKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 16, 24, 1088), 132).get("rt"));
  }

  /** n smaller than one batch, and a single feature. */
  @Test
  void tinyN() {
    check(QmmShape.affine(4, 64, Quant.BF16, 4, 9, 512), 200);
    check(QmmShape.affine(4, 64, Quant.F16, 1, 1, 512), 201);
  }

  /** MLX test_qmv_affine_bias_sum_precision: the bias term is accumulated in float. */
  @Test
  void biasSumIsAccumulatedInFloat() {
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      float denom = dtype == Quant.F16 ? 2048f : 256f;
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
        QmmShape s = QmmShape.affine(4, g, dtype, 1, n, k);
        short[] out = TestSupport.halfPoisoned(n);
        TestSupport.run(
            QmmMmaSplitKKernel.class,
            QmmMmaSplitKKernel.plan(s, SMS),
            new int[n * k / 8],
            QuantFormats.toHalfBits(dtype, new float[groups]),
            QuantFormats.toHalfBits(dtype, ones),
            x,
            out,
            1,
            n,
            k);
        for (int j = 0; j < n; j++) {
          assertEquals(
              sign * k / (4 * denom), QuantMath.halfToFloat(out[j], dtype), 0f, "dtype=" + dtype);
        }
      }
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    assertNull(QmmMmaSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 8, 8, 4096)));
    assertTrue(
        QmmMmaSplitKKernel.supports(QmmShape.affine(4, 64, Quant.F32, 4, 8, 128))
            .contains("bf16/f16"));
    assertTrue(
        QmmMmaSplitKKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 4, 8, 128))
            .contains("4-bit only"));
    assertTrue(
        QmmMmaSplitKKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 4, 8, 128))
            .contains("affine"));
    assertTrue(
        QmmMmaSplitKKernel.supports(
                QmmShape.affine(4, 64, Quant.BF16, 4, 128, 128).withTranspose(false))
            .contains("transposed"));
    // 37 groups: no divisor <= 32 gives slices of at most 256 k.
    String why = QmmMmaSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 4, 8, 37 * 64));
    assertTrue(why.contains("split evenly") && why.contains("37 groups"), why);
    // k = 8192: 32 warps of 256 k would need more registers than a 1024-thread block has.
    why = QmmMmaSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 4, 8, 8192));
    assertTrue(why.contains("registers fitting an SM") && why.contains("128 groups"), why);
    assertNull(QmmMmaSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 4, 8, 2048)));
  }

  @Test
  void badPlansNameTheArgument() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 4, 64, 4096);
    assertMessage("ks", () -> QmmMmaSplitKKernel.plan(s, SMS, 8, 1, 1)); // 512 k per warp
    assertMessage("ks", () -> QmmMmaSplitKKernel.plan(s, SMS, 24, 1, 1)); // does not divide 64
    assertMessage("ks", () -> QmmMmaSplitKKernel.plan(s, SMS, 64, 1, 1));
    assertMessage("mt", () -> QmmMmaSplitKKernel.plan(s, SMS, 16, 3, 1));
    assertMessage("blocksPerSm", () -> QmmMmaSplitKKernel.plan(s, SMS, 16, 1, 0));
    assertMessage("smCount", () -> QmmMmaSplitKKernel.plan(s, 0, 16, 1, 1));
    QmmShape wide = QmmShape.affine(4, 32, Quant.BF16, 4, 64, 8192);
    assertMessage("ks*mt", () -> QmmMmaSplitKKernel.plan(wide, SMS, 32, 2, 1));
  }

  /**
   * The variants plans launch at k = 4096 (16 warps of 8 words per lane) and k = 4096 over 32 warps
   * (4 words), every group size and dtype, one and two tiles (two with the plan's occupancy hint
   * where the assumed registers do not fit a block of 16 warps), compiled for sm_90 by the
   * in-process ptxas 12.0: no spills, and unhinted ones within {@link QmmMmaSplitKKernel#registers}
   * (the count the plan sizes its grid and block by: above it a 512-thread block could fail to
   * launch). Two tiles at groups of 32 are left out: they spill at the 128 registers one block of
   * 16 warps allows.
   */
  @Test
  void plannedVariantsKeepToTheirRegisters() {
    assertTrue(PtxValidator.isAvailable(), "JCuda's nvPTXCompiler must load for this test");
    Method m = TestSupport.kernel(QmmMmaSplitKKernel.class, "qmm");
    for (int g : new int[] {32, 64, 128}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int ks : new int[] {16, 32}) {
          for (int mt : new int[] {1, 2}) {
            for (int rt : new int[] {1, 2}) {
              if ((ks == 32 && mt == 2) || (g == 32 && mt == 2)) {
                continue;
              }
              if (rt == 2 && (ks == 32 || mt == 2 || g == 32)) {
                // ks 32 and mt 2: the shared slab and sums would take more than 48 KiB; g32:
                // spills 32 B at the 128 registers of the hint, so the default plan keeps rt = 1.
                continue;
              }
              QmmShape s = QmmShape.affine(4, g, dtype, 16, 12288, 4096);
              LaunchPlan p = QmmMmaSplitKKernel.plan(s, SMS, ks, mt, 1, rt);
              Map<String, Object> specs = new LinkedHashMap<>(p.specialize());
              LaunchBounds b =
                  p.minBlocksPerSm() > 0
                      ? new LaunchBounds(p.block().x(), 1, 1, p.minBlocksPerSm())
                      : null;
              CompiledKernel k = KernelCompiler.compile(m, specs, Target.sm90(), b);
              PtxResources r = PtxValidator.validate(k);
              String what = p.describe() + ": " + r.log();
              assertEquals(0, r.spillStoreBytes(), what);
              assertEquals(0, r.spillLoadBytes(), what);
              int assumed = QmmMmaSplitKKernel.registers(g, p.get("wps"), mt, rt);
              assertTrue(r.registers() <= assumed || b != null, r.registers() + " > " + what);
              assertTrue(QmmMmaSplitKKernel.fits(ks, r.registers()), what);
              assertEquals(!QmmMmaSplitKKernel.fits(ks, assumed), b != null, "hinted " + what);
            }
          }
        }
      }
    }
  }

  static void assertMessage(String name, org.junit.jupiter.api.function.Executable e) {
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
    assertTrue(ex.getMessage().contains(name), ex.getMessage());
  }
}
