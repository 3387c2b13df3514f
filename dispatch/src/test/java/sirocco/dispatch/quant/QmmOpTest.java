package sirocco.dispatch.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;
import sirocco.quant.QRef;
import sirocco.quant.QTest;

/**
 * The ladder and its policy on shapes (no launches), and the op's host-side mechanics: launches of
 * at most {@link QmmOp#rowLimit} rows, strided-view coalescing.
 */
class QmmOpTest {
  /** The warpgroup (wgmma) rung's reason under the default policy (every shape). */
  static final String WGMMA_OFF =
      "qmm-wgmma: policy: not used by default (sm_90 only; run 115, H100: 99.3 against"
          + " qmm-tiled's 91.6 µs at 256 rows; -Dsirocco.qmm.wgmmaMinRows=N)";

  /** The tile-copy warpgroup rung's reason under the default policy (every shape). */
  static final String WGMMA_TMA_OFF =
      "qmm-wgmma-tma: policy: not used by default (sm_90 only; run 116: not yet run on a GPU;"
          + " -Dsirocco.qmm.wgmmaTmaMinRows=N)";

  /** The first rejections of every explanation: the two opt-in rungs, off by default. */
  static final String XSHARED_OFF =
      WGMMA_OFF
          + "; "
          + WGMMA_TMA_OFF
          + "; qmm-mma-xshared: policy: not used by default (run 100: at best 2% under qmm-tiled at"
          + " 256 rows, slower at 128 and 512; -Dsirocco.qmm.xsharedMinRows=N)";

  static QmmShape affine(int bits, int dtype, int rows) {
    return QmmShape.affine(bits, 64, dtype, rows, 12288, 4096);
  }

  /**
   * The benchmark shape under the measured default policy (bench/RESULTS.md runs 9 and 13):
   * tensor cores from 1 row for 4-bit g64/g128 (the async kernel, run 98) and from 2 rows for g32
   * and 8-bit, split-K qmv below; qmv-rows from 2 rows for the other widths and f32 (not measured
   * yet); fp modes on the vector path at 1–2 rows.
   */
  @Test
  void policyOnTheBenchmarkShape() {
    assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 1)).chosen());
    assertEquals(
        "qmm-mma-async", QmmOp.decide(QmmShape.affine(4, 128, Quant.F16, 1, 12288, 4096)).chosen());
    var g32 = QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 1, 12288, 4096));
    assertEquals("qmv-splitk", g32.chosen());
    assertTrue(
        g32.explain()
            .contains(
                "qmm-mma-async: policy: affine weights use the vector path below 2 rows (rows=1;"
                    + " from 1 with groups of 64 or 128)"),
        g32.explain());
    assertEquals("qmv-splitk", QmmOp.decide(affine(8, Quant.F16, 1)).chosen());
    for (int rows : new int[] {2, 3, 4, 6, 7, 8, 16, 32, 256, 65535}) {
      // 4-bit: the asynchronous-copy split-K tensor-core kernel up to 32 rows (run 89; two row
      // tiles per warp above 8, run 100), the register one up to 72 rows (two row tiles, run 75),
      // the tiled kernel at 256 rows and at 65535 (255 rows in its last block; runs 53, 55); 8-bit
      // qmm-mma below 192.
      boolean tiled = rows == 256 || rows == 65535;
      assertEquals(
          rows <= 32
              ? "qmm-mma-async"
              : rows <= 72 ? "qmm-mma-splitk" : tiled ? "qmm-tiled" : "qmm-mma",
          QmmOp.decide(affine(4, Quant.BF16, rows)).chosen(),
          "rows " + rows);
      assertEquals(
          tiled ? "qmm-tiled" : "qmm-mma",
          QmmOp.decide(affine(8, Quant.F16, rows)).chosen(),
          "rows " + rows);
    }
    // What tensor cores do not take: qmv-rows from 1 row with bf16 x (run 89), f32 x one row at
    // a time at 1 row and qmv-rows from 2. 2- and 6-bit codes take the pipelined split-K kernel at
    // every row count (run 106).
    assertEquals(Integer.MAX_VALUE, QmmPolicy.MMA_ASYNC_MAX_ROWS_2_6_BIT);
    for (int bits : new int[] {2, 3, 5, 6}) {
      assertEquals("qmv", QmmOp.decide(affine(bits, Quant.F32, 1)).chosen());
      for (int rows : new int[] {1, 2, 6, 8, 9, 72, 73, 65535}) {
        boolean async =
            bits == 2
                || bits == 6 && QmmPolicy.ASYNC_6BIT
                || (bits == 3 || bits == 5) && QmmPolicy.ASYNC_3_5_BIT;
        assertEquals(
            async ? "qmm-mma-async" : "qmv-rows",
            QmmOp.decide(affine(bits, Quant.BF16, rows)).chosen(),
            bits + "-bit, rows " + rows);
      }
    }
    for (int bits : new int[] {4, 8}) {
      assertEquals("qmv", QmmOp.decide(affine(bits, Quant.F32, 1)).chosen());
      assertEquals("qmv-rows", QmmOp.decide(affine(bits, Quant.F32, 6)).chosen());
    }
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8}) {
      // From 1 row (run 105), f32 x on the vector path.
      assertEquals(
          "qmm-mma-fp-async", QmmOp.decide(QmmShape.fp(mode, Quant.BF16, 1, 12288, 4096)).chosen());
      // The pipelined split-K kernel up to FP_ASYNC_MAX_ROWS, qmm-mma above.
      String e2m1 = "qmm-mma-fp-async";
      int max = QmmPolicy.fpAsyncMaxRows(mode);
      assertEquals(mode == Quant.MXFP4 ? 32 : 16, max);
      for (int rows : new int[] {2, 3, 6, 8, 16, max}) {
        assertEquals(e2m1, QmmOp.decide(QmmShape.fp(mode, Quant.BF16, rows, 12288, 4096)).chosen());
      }
      assertEquals(
          "qmm-mma", QmmOp.decide(QmmShape.fp(mode, Quant.BF16, max + 1, 12288, 4096)).chosen());
      assertEquals("fp-qmv", QmmOp.decide(QmmShape.fp(mode, Quant.F32, 8, 12288, 4096)).chosen());
    }
    assertEquals("qvm", QmmOp.decide(affine(4, Quant.BF16, 6).withTranspose(false)).chosen());
  }

  /**
   * 6-bit codes go to qmm-mma-async by default ({@link QmmPolicy#ASYNC_6BIT}, run 106) at every row
   * count, and back to the vector path with the property off; the rejection then names it.
   */
  @Test
  void sixBitAsyncIsAPolicySwitch() {
    assertEquals(true, QmmPolicy.ASYNC_6BIT);
    for (int rows : new int[] {1, 6, 73}) {
      assertEquals("qmm-mma-async", QmmOp.decide(affine(6, Quant.BF16, rows)).chosen());
      assertEquals("qmm-mma-async", QmmOp.decide(affine(6, Quant.F16, rows)).chosen());
    }
    assertEquals(
        "qmv-rows", QmmOp.decide(QmmShape.affine(6, 32, Quant.BF16, 1, 12288, 4096)).chosen());
    assertEquals("qmv", QmmOp.decide(affine(6, Quant.F32, 1)).chosen());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> QmmPolicy.mmaVariantRejects("qmm-mma-async", null));
    assertTrue(e.getMessage().startsWith("s must be a QmmShape"), e.getMessage());
    try {
      System.setProperty(QmmPolicy.ASYNC_6BIT_PROPERTY, "false");
      String why = QmmOp.decide(affine(6, Quant.BF16, 6)).explain();
      assertTrue(why.startsWith("quantizedMatmul -> qmv-rows (rejected"), why);
      assertTrue(
          why.contains(
              "qmm-mma-async: policy: 6-bit codes use the vector path"
                  + " (-Dsirocco.qmm.async6Bit=false)"),
          why);
      assertEquals("qmm-mma-async", QmmOp.decide(affine(2, Quant.BF16, 6)).chosen(), "2-bit");
    } finally {
      System.clearProperty(QmmPolicy.ASYNC_6BIT_PROPERTY);
    }
  }

  /**
   * 3- and 5-bit codes go to qmm-mma-async at every row count from 1 row ({@link
   * QmmPolicy#ASYNC_3_5_BIT}, runs 108-109) and stay on qmv-rows at g32 (which the kernel refuses);
   * with the property off they stay there at every row count and the rejection names it.
   */
  @Test
  void threeAndFiveBitAsyncIsAPolicySwitch() {
    assertEquals(true, QmmPolicy.ASYNC_3_5_BIT);
    for (int bits : new int[] {3, 5}) {
      for (int rows : new int[] {1, 2, 6, 73, 256}) {
        assertEquals(
            "qmm-mma-async",
            QmmOp.decide(affine(bits, Quant.BF16, rows)).chosen(),
            bits + "-bit, " + rows + " rows");
        assertEquals("qmm-mma-async", QmmOp.decide(affine(bits, Quant.F16, rows)).chosen());
      }
      // f16 x from 1 row (qmv-rows is slower with f16).
      assertEquals("qmm-mma-async", QmmOp.decide(affine(bits, Quant.F16, 1)).chosen());
      assertEquals(
          "qmv-rows", QmmOp.decide(QmmShape.affine(bits, 32, Quant.BF16, 6, 12288, 4096)).chosen());
    }
    try {
      System.setProperty(QmmPolicy.ASYNC_3_5_BIT_PROPERTY, "false");
      for (int bits : new int[] {3, 5}) {
        String why = QmmOp.decide(affine(bits, Quant.BF16, 6)).explain();
        assertTrue(why.startsWith("quantizedMatmul -> qmv-rows (rejected"), why);
        assertTrue(
            why.contains(
                "qmm-mma-async: policy: 3- and 5-bit codes use the vector path"
                    + " (-Dsirocco.qmm.async35Bit=false)"),
            why);
      }
      assertEquals("qmm-mma-async", QmmOp.decide(affine(2, Quant.BF16, 6)).chosen(), "2-bit");
    } finally {
      System.clearProperty(QmmPolicy.ASYNC_3_5_BIT_PROPERTY);
    }
  }

  /**
   * The vector-path variant is the policy's: split-K by default (measured fastest), another by
   * property. One row of 4-bit g32 (g64/g128 go to tensor cores from 1 row).
   */
  @Test
  void qmvVariantPolicy() {
    assertEquals("qmv-splitk", QmmPolicy.QMV_VARIANT);
    try {
      for (String v :
          new String[] {"qmv", "qmv-warp", "qmv-persistent", "qmv-splitk", "qmv-async"}) {
        System.setProperty(QmmPolicy.QMV_VARIANT_PROPERTY, v);
        assertEquals(v, QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 1, 12288, 4096)).chosen());
        assertEquals(v, QmmOp.decide(affine(8, Quant.BF16, 1)).chosen());
        assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 3)).chosen());
        assertEquals(
            "qmv-rows",
            QmmOp.decide(QmmShape.affine(5, 32, Quant.BF16, 1, 12288, 4096)).chosen(),
            "5-bit g32 falls through");
        assertEquals("qmv", QmmOp.decide(affine(4, Quant.F32, 1)).chosen(), "f32 falls through");
      }
      System.setProperty(QmmPolicy.QMV_VARIANT_PROPERTY, "qmv-splitk");
      assertEquals(
          "qmv-rows",
          QmmOp.decide(QmmShape.affine(5, 32, Quant.BF16, 1, 12288, 4096)).chosen(),
          "split-K: 4/8-bit");
    } finally {
      System.clearProperty(QmmPolicy.QMV_VARIANT_PROPERTY);
    }
  }

  /**
   * qmv-rows takes what would fall to one-row-at-a-time qmv from {@link
   * QmmPolicy#QMV_ROWS_MIN_ROWS} rows, up to the maximum; both are properties. Its plan puts up to
   * 8 rows of x in one row block, more rows in even blocks.
   */
  @Test
  void qmvRowsPolicy() {
    assertEquals(2, QmmPolicy.QMV_ROWS_MIN_ROWS);
    assertEquals(1, QmmPolicy.QMV_ROWS_MIN_ROWS_HALF);
    // 3/5 bits with bf16/f16 x from 1 row (run 89); f32 x keeps one row to qmv. 2- and 6-bit
    // bf16/f16 go to tensor cores (run 106) unless their group is 32.
    for (int bits : new int[] {2, 3, 5, 6}) {
      // 3- and 5-bit bf16 too since run 109 (pairs by byte permute).
      boolean tc =
          bits == 2
              || bits == 6 && QmmPolicy.ASYNC_6BIT
              || (bits == 3 || bits == 5) && QmmPolicy.ASYNC_3_5_BIT;
      String half = tc ? "qmm-mma-async" : "qmv-rows";
      assertEquals(half, QmmOp.decide(affine(bits, Quant.BF16, 1)).chosen());
      // f16 3/5-bit: the async kernel from 1 row.
      boolean f16Async = half.equals("qmm-mma-async") || QmmPolicy.ASYNC_3_5_BIT;
      assertEquals(
          f16Async ? "qmm-mma-async" : half, QmmOp.decide(affine(bits, Quant.F16, 1)).chosen());
      assertEquals("qmv", QmmOp.decide(affine(bits, Quant.F32, 1)).chosen());
    }
    for (int bits : new int[] {2, 6}) {
      assertEquals(
          "qmv-rows",
          QmmOp.decide(QmmShape.affine(bits, 32, Quant.BF16, 1, 12288, 4096)).chosen(),
          bits + "-bit g32");
    }
    assertEquals("qmv", QmmOp.decide(affine(4, Quant.F32, 1)).chosen());
    assertEquals("qmv-rows", QmmOp.decide(affine(4, Quant.F32, 2)).chosen());
    try {
      // 5-bit on the vector path at every row count, so qmv-rows' own bounds decide.
      System.setProperty(QmmPolicy.ASYNC_3_5_BIT_PROPERTY, "false");
      System.setProperty(QmmPolicy.QMV_ROWS_MIN_PROPERTY, "3");
      assertEquals("qmv", QmmOp.decide(affine(5, Quant.BF16, 2)).chosen());
      assertEquals("qmv-rows", QmmOp.decide(affine(5, Quant.BF16, 3)).chosen());
      System.setProperty(QmmPolicy.QMV_ROWS_MAX_PROPERTY, "8");
      assertEquals("qmv-rows", QmmOp.decide(affine(5, Quant.BF16, 8)).chosen());
      String why = QmmOp.decide(affine(5, Quant.BF16, 9)).explain();
      assertTrue(why.startsWith("quantizedMatmul -> qmv (rejected"), why);
      assertTrue(why.contains("qmv-rows: policy: at most 8 rows (rows=9;"), why);
    } finally {
      System.clearProperty(QmmPolicy.ASYNC_3_5_BIT_PROPERTY);
      System.clearProperty(QmmPolicy.QMV_ROWS_MIN_PROPERTY);
      System.clearProperty(QmmPolicy.QMV_ROWS_MAX_PROPERTY);
    }
    var p = QmmOp.plan("qmv-rows", affine(6, Quant.F32, 6), 132);
    assertEquals("AffineQmvRowsKernel.qmv", p.kernel());
    assertEquals(6, p.get("xRows"), p.describe());
    assertEquals(2, p.get("rowsPerWarp"), p.describe());
    p = QmmOp.plan("qmv-rows", affine(3, Quant.BF16, 9), 132);
    assertEquals(5, p.get("xRows"), p.describe());
    assertEquals(2, p.grid().y(), p.describe());
  }

  /**
   * The asynchronous-copy split-K tensor-core rung is the default variant up to 8 rows where it
   * takes the shape, the register split-K rung above (up to 16 rows, 72 where its plan holds two
   * row tiles per warp); the policy's switch forces one; shapes neither takes fall through.
   */
  @Test
  void mmaVariantPolicy() {
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> QmmPolicy.mmaVariant(null));
    assertTrue(bad.getMessage().startsWith("s must be a QmmShape"), bad.getMessage());
    assertEquals(8, QmmPolicy.MMA_ASYNC_MAX_ROWS);
    assertEquals(16, QmmPolicy.MMA_SPLITK_MAX_ROWS);
    assertEquals(
        "quantizedMatmul -> qmm-mma-async (rejected: "
            + XSHARED_OFF
            + "; qmm-tiled: fewer than 64 rows (a block tile"
            + " is 64-256 rows of x; fewer rows use qmm-mma))",
        QmmOp.decide(affine(4, Quant.BF16, 4)).explain());
    for (int rows : new int[] {2, 3, 8}) {
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, rows)).chosen());
    }
    // Above 8 rows two row tiles per warp (g64/g128) keep the async kernel up to 72 rows, with
    // the two-tile plan; one tile (g32) hands 9+ rows to the register kernel.
    assertEquals(72, QmmPolicy.MMA_ASYNC_TWO_TILES_MAX_ROWS);
    for (int rows : new int[] {9, 16, 32, 33, 48, 72}) {
      QmmShape s = affine(4, Quant.BF16, rows);
      assertEquals("qmm-mma-async", QmmOp.decide(s).chosen(), "rows " + rows);
      assertEquals(2, QmmOp.plan("qmm-mma-async", s, 132).get("rt"), "rows " + rows);
    }
    assertEquals(1, QmmOp.plan("qmm-mma-async", affine(4, Quant.BF16, 8), 132).get("rt"));
    IllegalArgumentException noShape =
        assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.rowTiles(null));
    assertTrue(noShape.getMessage().startsWith("s must be a QmmShape"), noShape.getMessage());
    IllegalArgumentException noRows =
        assertThrows(IllegalArgumentException.class, () -> affine(4, Quant.BF16, 8).withRows(0));
    assertTrue(noRows.getMessage().startsWith("r (rows of x) must be >= 1"), noRows.getMessage());
    // Above 72 rows the register kernel keeps the shapes whose tiled grid is too small (4096
    // features), and the ladder says why the async kernel stopped.
    var above = QmmOp.decide(QmmShape.affine(4, 64, Quant.BF16, 80, 4096, 4096));
    assertEquals("qmm-mma-splitk", above.chosen(), above.explain());
    assertTrue(
        above
            .explain()
            .contains(
                "qmm-mma-async: policy: at most 72 rows, qmm-mma-splitk above (rows=80;"
                    + " -Dsirocco.qmm.mmaVariant)"),
        above.explain());
    // g32 holds two row tiles too since run 103 (its 128 registers spill 80 bytes, and it is
    // faster all the same).
    QmmShape g32rows9 = QmmShape.affine(4, 32, Quant.BF16, 9, 12288, 4096);
    assertEquals("qmm-mma-async", QmmOp.decide(g32rows9).chosen());
    assertEquals(2, QmmOp.plan(QmmOp.QMM_MMA_ASYNC, g32rows9, 132).get("rt"));
    assertEquals(1, QmmMmaAsyncKernel.rowTiles(g32rows9.withRows(8)));
    // f16 x takes both since the unpacking offset is 64 (1024 failed MLX's bound, run 24).
    assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.F16, 5)).chosen());
    assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.F16, 12)).chosen());
    assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.F16, 40)).chosen());
    assertEquals("qmm-tiled", QmmOp.decide(affine(4, Quant.F16, 73)).chosen());
    // Where the async kernel cannot take the shape (k 384 g128: one group per warp slice) the
    // split-K kernel serves, and the ladder gives the kernel's reason, not a policy.
    var oneGroup = QmmOp.decide(QmmShape.affine(4, 128, Quant.BF16, 4, 12288, 384));
    assertEquals("qmm-mma-splitk", oneGroup.chosen(), oneGroup.explain());
    assertTrue(
        oneGroup
            .explain()
            .contains(
                "qmm-mma-async: 2, 4 or 8 groups per warp slice (each row's scales are one"
                    + " 4/8/16-byte copy), got 1"),
        oneGroup.explain());
    // 1 row keeps the row threshold where the async kernel does not take the shape; with two row
    // tiles per warp (g64, g32) the async kernel up to 72 rows (the register kernel's two-tile
    // limit too), from 73 the tiled kernel; 8-bit and f32 fall through.
    assertEquals(
        "qmv-splitk", QmmOp.decide(QmmShape.affine(4, 128, Quant.BF16, 1, 12288, 384)).chosen());
    assertEquals(72, QmmPolicy.MMA_SPLITK_MAX_ROWS_TWO_TILES);
    for (int rows : new int[] {33, 63, 64, 72}) {
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, rows)).chosen());
    }
    assertEquals("qmm-tiled", QmmOp.decide(affine(4, Quant.BF16, 73)).chosen());
    QmmShape g32 = QmmShape.affine(4, 32, Quant.BF16, 17, 12288, 4096);
    assertEquals("qmm-mma-async", QmmOp.decide(g32).chosen());
    assertEquals(
        "qmm-mma-async",
        QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 72, 12288, 4096)).chosen());
    assertEquals(
        "qmm-tiled", QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 73, 12288, 4096)).chosen());
    assertEquals("qmm-mma", QmmOp.decide(affine(8, Quant.BF16, 4)).chosen());
    assertEquals("qmv-rows", QmmOp.decide(affine(4, Quant.F32, 4)).chosen());
    try {
      System.setProperty(QmmPolicy.AFFINE_PROPERTY, "1");
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 1)).chosen());
      // The property bounds whichever split-K kernel is in force (here the async one).
      System.setProperty(QmmPolicy.MMA_SPLITK_MAX_ROWS_PROPERTY, "40");
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 40)).chosen());
      assertEquals("qmm-mma", QmmOp.decide(affine(4, Quant.BF16, 41)).chosen());
      assertEquals("qmm-mma-async", QmmOp.decide(g32).chosen());
      System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, QmmOp.QMM_MMA_SPLITK);
      assertEquals("qmm-mma-splitk", QmmOp.decide(affine(4, Quant.F16, 5)).chosen());
      System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, QmmOp.QMM_MMA);
      assertEquals(
          "quantizedMatmul -> qmm-mma (rejected: "
              + XSHARED_OFF
              + "; qmm-tiled: fewer than 64 rows (a block tile is"
              + " 64-256 rows of x; fewer rows use qmm-mma); qmm-mma-async: policy: tensor cores"
              + " use qmm-mma (-Dsirocco.qmm.mmaVariant); qmm-mma-splitk: policy: tensor cores"
              + " use qmm-mma (-Dsirocco.qmm.mmaVariant); qmm-mma-fp-async: fp modes only (mxfp4,"
              + " nvfp4, mxfp8); affine weights use the affine tensor-core rungs)",
          QmmOp.decide(affine(4, Quant.BF16, 4)).explain());
      // The pipelined variant by property, with the split-K row limit; 8-bit falls through.
      System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, QmmOp.QMM_MMA_ASYNC);
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 8)).chosen());
      // Forced, it takes up to 72 rows with two row tiles per warp (g64, g32), 16 with one,
      // whatever the split-K plan would hold; from 73 (n = 12288) the tiled kernel.
      System.clearProperty(QmmPolicy.MMA_SPLITK_MAX_ROWS_PROPERTY);
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 72)).chosen());
      assertEquals("qmm-tiled", QmmOp.decide(affine(4, Quant.BF16, 73)).chosen());
      assertEquals(
          "qmm-mma",
          QmmOp.decide(QmmShape.affine(4, 64, Quant.BF16, 73, 12288 + 64, 4096)).chosen());
      assertEquals(
          "qmm-mma-async",
          QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 16, 12288, 4096)).chosen());
      assertEquals("qmm-mma-async", QmmOp.decide(g32).chosen());
      assertEquals("qmm-mma-async", QmmOp.decide(affine(4, Quant.BF16, 1)).chosen());
      assertEquals("qmm-mma", QmmOp.decide(affine(8, Quant.BF16, 4)).chosen());
    } finally {
      System.clearProperty(QmmPolicy.MMA_VARIANT_PROPERTY);
      System.clearProperty(QmmPolicy.AFFINE_PROPERTY);
      System.clearProperty(QmmPolicy.MMA_SPLITK_MAX_ROWS_PROPERTY);
    }
    var p = QmmOp.plan(QmmOp.QMM_MMA_SPLITK, affine(4, Quant.BF16, 8), 132);
    assertEquals("QmmMmaSplitKKernel.qmm", p.kernel());
    assertEquals(16, p.get("ks"), p.describe());
    assertEquals(8, p.get("wps"), p.describe());
    assertEquals(512, p.block().x(), p.describe());
    assertTrue(p.grid().x() <= 132, p.describe());
  }

  /**
   * The fp rung's policy: from FP_ASYNC_MIN_ROWS to FP_ASYNC_MAX_ROWS rows, the fp property moving
   * the lower bound, its own property the upper, the variant switch sending fp shapes to qmm-mma.
   */
  @Test
  void fpAsyncPolicy() {
    QmmShape mx = QmmShape.fp(Quant.MXFP4, Quant.BF16, 1, 12288, 4096);
    assertNull(QmmPolicy.fpAsyncRejects(mx));
    assertEquals(
        "policy: more than 32 rows use qmm-mma (rows=33; -Dsirocco.qmm.fpAsyncMaxRows)",
        QmmPolicy.fpAsyncRejects(mx.withRows(33)));
    assertEquals(
        "policy: more than 16 rows use qmm-mma (rows=17; -Dsirocco.qmm.fpAsyncMaxRows)",
        QmmPolicy.fpAsyncRejects(QmmShape.fp(Quant.NVFP4, Quant.BF16, 17, 12288, 4096)));
    try {
      System.setProperty(QmmPolicy.FP_PROPERTY, "3");
      assertEquals(
          "policy: fp-mode weights use the vector path below 3 rows (rows=2;"
              + " -Dsirocco.qmm.mmaMinRows.fp)",
          QmmPolicy.fpAsyncRejects(mx.withRows(2)));
      assertEquals("fp-qmv", QmmOp.decide(mx.withRows(2)).chosen());
      System.setProperty(QmmPolicy.FP_ASYNC_MAX_ROWS_PROPERTY, "4");
      assertEquals("qmm-mma-fp-async", QmmOp.decide(mx.withRows(4)).chosen());
      assertEquals("qmm-mma", QmmOp.decide(mx.withRows(5)).chosen());
      System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, QmmOp.QMM_MMA);
      assertEquals("qmm-mma", QmmOp.decide(mx.withRows(4)).chosen());
      System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, QmmOp.QMM_MMA_FP_ASYNC);
      assertEquals("qmm-mma-fp-async", QmmOp.decide(mx.withRows(4)).chosen());
    } finally {
      System.clearProperty(QmmPolicy.FP_PROPERTY);
      System.clearProperty(QmmPolicy.FP_ASYNC_MAX_ROWS_PROPERTY);
      System.clearProperty(QmmPolicy.MMA_VARIANT_PROPERTY);
    }
    // f32 x and untransposed weights stay off it whatever the rows.
    assertEquals(
        "fp-qmv", QmmOp.decide(QmmShape.fp(Quant.MXFP4, Quant.F32, 4, 12288, 4096)).chosen());
    assertThrows(IllegalArgumentException.class, () -> QmmPolicy.fpAsyncRejects(null));
    assertThrows(
        IllegalArgumentException.class,
        () -> QmmPolicy.fpAsyncRejects(QmmShape.affine(4, 64, Quant.BF16, 2, 12288, 4096)));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmPolicy.fpAsyncMaxRows(Quant.AFFINE));
    assertTrue(e.getMessage().startsWith("mode must be an fp mode"), e.getMessage());
  }

  @Test
  void candidatesLeaveThePolicyOut() {
    assertEquals(
        List.of(
            "qmm-mma-xshared",
            "qmm-mma-async",
            "qmm-mma-splitk",
            "qmm-mma",
            "qmv-warp",
            "qmv-persistent",
            "qmv-splitk",
            "qmv-async",
            "qmv-rows",
            "qmv"),
        QmmOp.candidates(affine(4, Quant.BF16, 1)));
    assertEquals(
        List.of("qmm-mma-async", "qmv-warp", "qmv-persistent", "qmv-rows", "qmv"),
        QmmOp.candidates(affine(2, Quant.F16, 1)));
    assertEquals(
        List.of("qmm-mma-async", "qmv-rows", "qmv"), QmmOp.candidates(affine(3, Quant.F16, 1)));
    assertEquals(
        List.of("qmm-mma-fp-async", "qmm-mma", "fp-qmv"),
        QmmOp.candidates(QmmShape.fp(Quant.NVFP4, Quant.BF16, 6, 12288, 4096)));
    assertEquals(
        List.of("qmm-mma", "fp-qmv"),
        QmmOp.candidates(QmmShape.fp(Quant.MXFP8, Quant.BF16, 6, 12288, 32)));
    assertEquals(
        List.of("qmm-mma-async", "qmv-rows", "qmv"), QmmOp.candidates(affine(3, Quant.BF16, 6)));
    assertEquals(
        List.of("qmv-rows", "qmv"),
        QmmOp.candidates(QmmShape.affine(5, 32, Quant.BF16, 6, 12288, 4096)));
    assertEquals(List.of("qvm"), QmmOp.candidates(affine(4, Quant.BF16, 6).withTranspose(false)));
    assertEquals(
        List.of(
            "qmm-wgmma",
            "qmm-wgmma-tma",
            "qmm-mma-xshared",
            "qmm-tiled",
            "qmm-mma-async",
            "qmm-mma-splitk",
            "qmm-mma-fp-async",
            "qmm-mma",
            "qmv-warp",
            "qmv-persistent",
            "qmv-splitk",
            "qmv-async",
            "qmv-rows",
            "qmv",
            "fp-qmv",
            "qvm"),
        QmmOp.rungs());
    assertThrows(
        IllegalArgumentException.class, () -> QmmOp.kernelRejects("nope", affine(4, 0, 1)));
  }

  /** Every format, dtype, row count and layout the op accepts has a rung (no launch here). */
  @Test
  void everyValidatedShapeHasARung() {
    int[][] formats = {
      {Quant.AFFINE, 2, 32}, {Quant.AFFINE, 3, 64}, {Quant.AFFINE, 4, 128}, {Quant.AFFINE, 5, 32},
      {Quant.AFFINE, 6, 64}, {Quant.AFFINE, 8, 128}, {Quant.MXFP4, 4, 32}, {Quant.NVFP4, 4, 16},
      {Quant.MXFP8, 8, 32}
    };
    for (int[] f : formats) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16, Quant.F32}) {
        for (int rows : new int[] {1, 2, 7, 8, 33, 65535}) {
          for (boolean t : new boolean[] {true, false}) {
            for (int[] nk : new int[][] {{3 * f[2], 5 * f[2]}, {f[2], f[2]}, {12288, 4096}}) {
              QmmShape s = new QmmShape(f[0], f[1], f[2], dtype, rows, nk[0], nk[1], t);
              int limit = QmmOp.rowLimit(nk[0], nk[1]);
              QmmShape chunk =
                  new QmmShape(f[0], f[1], f[2], dtype, Math.min(rows, limit), nk[0], nk[1], t);
              assertTrue(QmmOp.decide(chunk).chosen() != null, s.toString());
            }
          }
        }
      }
    }
  }

  @Test
  void rowLimitKeepsGridAndIndexWithin32Bits() {
    assertEquals(65535, QmmOp.rowLimit(12288, 4096));
    assertEquals((Integer.MAX_VALUE - 1) / 200_000, QmmOp.rowLimit(200_000, 64));
    assertEquals((Integer.MAX_VALUE - 1) / 100_000, QmmOp.rowLimit(64, 100_000));
  }

  /**
   * The tiled rung's measured rule: from 64 rows where n is a multiple of 96, from 96 where it is a
   * multiple of 128 only, never otherwise; 8-bit codes from 160 rows; never with fewer than 96
   * blocks. The property replaces the rule by a row threshold.
   */
  @Test
  void tiledRungFollowsItsMeasuredRule() {
    for (int rows : new int[] {73, 128, 192, 257, 320, 512, 1024, 1216}) {
      assertEquals("qmm-tiled", QmmOp.decide(affine(4, Quant.BF16, rows)).chosen(), "rows " + rows);
    }
    // 64-72 rows: the pipelined split-K kernel with two row tiles per warp (runs 76-77 for the
    // register one, run 102 for this one), and the reason says so.
    var splitK = QmmOp.decide(affine(4, Quant.BF16, 64));
    assertEquals("qmm-mma-async", splitK.chosen());
    assertTrue(
        splitK.explain().contains("72 rows qmm-mma-async (two row tiles per warp) is faster"),
        splitK.explain());
    // Where the register kernel is forced, it keeps those rows from the tiled kernel too.
    System.setProperty(QmmPolicy.MMA_VARIANT_PROPERTY, "qmm-mma-splitk");
    try {
      var forced = QmmOp.decide(affine(4, Quant.BF16, 64));
      assertEquals("qmm-mma-splitk", forced.chosen());
      assertTrue(
          forced.explain().contains("72 rows qmm-mma-splitk (two row tiles"), forced.explain());
    } finally {
      System.clearProperty(QmmPolicy.MMA_VARIANT_PROPERTY);
    }
    // g32 holds two row tiles per warp since run 103: the async kernel up to 72 rows too.
    assertEquals(
        "qmm-mma-async",
        QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 64, 12288, 4096)).chosen());
    assertEquals("qmm-tiled", QmmOp.decide(affine(8, Quant.F16, 256)).chosen());
    assertEquals("qmm-tiled", QmmOp.decide(affine(8, Quant.BF16, 160)).chosen());
    var eight = QmmOp.decide(affine(8, Quant.BF16, 128));
    assertEquals("qmm-mma", eight.chosen());
    assertTrue(eight.explain().contains("below 160 rows"), eight.explain());
    // 4096 features: 32 blocks per 128 rows; the grid reaches 96 blocks at 257 rows. Until then
    // the split-K kernel (two row tiles per warp) takes them; with one (g32) qmm-mma.
    var few = QmmOp.decide(QmmShape.affine(4, 64, Quant.BF16, 256, 4096, 4096));
    assertEquals("qmm-mma-splitk", few.chosen());
    assertTrue(few.explain().contains("64 blocks, under 96"), few.explain());
    assertEquals(
        "qmm-mma", QmmOp.decide(QmmShape.affine(4, 32, Quant.BF16, 256, 4096, 4096)).chosen());
    assertEquals(
        "qmm-tiled", QmmOp.decide(QmmShape.affine(4, 64, Quant.BF16, 257, 4096, 4096)).chosen());
    var below = QmmOp.decide(affine(4, Quant.BF16, 63));
    assertTrue(below.explain().contains("qmm-tiled: "), below.explain());
    assertFalse("qmm-tiled".equals(below.chosen()), below.explain());
    QmmShape n128 = QmmShape.affine(4, 64, Quant.BF16, 95, 16384, 4096);
    assertEquals("qmm-mma", QmmOp.decide(n128).chosen());
    assertTrue(
        QmmOp.decide(n128).explain().contains("below 96 rows"), QmmOp.decide(n128).explain());
    assertEquals(
        "qmm-tiled", QmmOp.decide(QmmShape.affine(4, 64, Quant.BF16, 96, 16384, 4096)).chosen());
    QmmShape n64 = QmmShape.affine(4, 64, Quant.BF16, 256, 12288 + 64, 4096);
    assertTrue(
        QmmOp.decide(n64).explain().contains("96- or 128-feature"), QmmOp.decide(n64).explain());
    System.setProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY, "100000");
    try {
      assertEquals("qmm-mma", QmmOp.decide(affine(4, Quant.BF16, 256)).chosen());
    } finally {
      System.clearProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY);
    }
  }

  /**
   * With the policy's property qmm-tiled runs through the op on any n (Java backend) and matches
   * the float64 reference within the weights' bf16 rounding.
   */
  @Test
  void tiledRungRunsWhenThePolicyAllowsIt() {
    QmmShape s = affine(4, Quant.BF16, 70);
    System.setProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY, "1000");
    try {
      assertEquals("qmm-mma-async", QmmOp.decide(s).chosen());
    } finally {
      System.clearProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY);
    }
    System.setProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY, "64");
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      assertEquals("qmm-tiled", QmmOp.decide(s).chosen());
      DType t = DType.BF16;
      float[] wv = QTest.normal(5, 128 * 128, 0.1, t);
      QTest.Weights w = QTest.quantize(rt, wv, new long[] {128, 128}, t, QuantMode.AFFINE, 64, 4);
      float[] x = QTest.normal(6, 70 * 128, 1, t);
      Tensor[] y = new Tensor[1];
      var ds =
          QTest.decisions(
              () -> y[0] = rt.quantizedMatmul(QTest.upload(rt, x, t, 70, 128), w.q(), true));
      assertEquals(List.of("qmm-tiled"), QTest.qmmChoices(ds));
      QTest.check(
          rt,
          y[0],
          QRef.matmul(x, new long[] {70, 128}, w.wHat(), w.shape(), true),
          t,
          "tiled",
          0x1p-9 + 2e-5);
    } finally {
      System.clearProperty(QmmPolicy.TILED_MIN_ROWS_PROPERTY);
    }
  }

  /**
   * qmm-mma-xshared is off by default (its one reason, first, for every shape) and runs through the
   * op from the property's row count (Java backend), matching the float64 reference within the
   * weights' rounding to the dtype; below that count, and where the kernel cannot take the shape,
   * it says why.
   */
  @Test
  void xsharedRungRunsWhenThePolicyAllowsIt() {
    assertEquals(Integer.MAX_VALUE, QmmPolicy.XSHARED_MIN_ROWS);
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> QmmPolicy.xsharedRejects(null));
    assertTrue(bad.getMessage().startsWith("s must be a QmmShape"), bad.getMessage());
    bad =
        assertThrows(
            IllegalArgumentException.class, () -> QmmPolicy.mmaMinRows(affine(4, 0, 1), null));
    assertTrue(bad.getMessage().startsWith("rung must be a rung name"), bad.getMessage());
    bad =
        assertThrows(
            IllegalArgumentException.class, () -> QmmPolicy.mmaRejects(null, QmmOp.QMM_MMA));
    assertTrue(bad.getMessage().startsWith("s must be a QmmShape"), bad.getMessage());
    QmmShape s = affine(4, Quant.F16, 70);
    assertTrue(QmmOp.decide(s).explain().contains(XSHARED_OFF), QmmOp.decide(s).explain());
    System.setProperty(QmmPolicy.XSHARED_MIN_ROWS_PROPERTY, "64");
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      assertEquals("qmm-mma-xshared", QmmOp.decide(s).chosen());
      String few = QmmOp.decide(affine(4, Quant.F16, 63)).explain();
      assertTrue(
          few.contains(
              "qmm-mma-xshared: policy: below 64 rows (rows=63; -Dsirocco.qmm.xsharedMinRows=N)"),
          few);
      String k64 = QmmOp.decide(QmmShape.affine(4, 64, Quant.F16, 70, 128, 64)).explain();
      assertTrue(k64.contains("qmm-mma-xshared: k must be a multiple of 128"), k64);
      DType t = DType.F16;
      float[] wv = QTest.normal(7, 136 * 256, 0.1, t);
      QTest.Weights w = QTest.quantize(rt, wv, new long[] {136, 256}, t, QuantMode.AFFINE, 64, 4);
      float[] x = QTest.normal(8, 70 * 256, 1, t);
      Tensor[] y = new Tensor[1];
      var ds =
          QTest.decisions(
              () -> y[0] = rt.quantizedMatmul(QTest.upload(rt, x, t, 70, 256), w.q(), true));
      assertEquals(List.of("qmm-mma-xshared"), QTest.qmmChoices(ds));
      QTest.check(
          rt,
          y[0],
          QRef.matmul(x, new long[] {70, 256}, w.wHat(), w.shape(), true),
          t,
          "xshared",
          0x1p-11 + 2e-5);
    } finally {
      System.clearProperty(QmmPolicy.XSHARED_MIN_ROWS_PROPERTY);
    }
  }

  /** Rows beyond the per-launch limit go in several launches (here a limit of 3 forced). */
  @Test
  void rowsBeyondTheLimitRunInSeveralLaunches() {
    // Chunks of 3 and 2 rows would take different kernels under the default policy; pin one.
    System.setProperty(QmmPolicy.AFFINE_PROPERTY, "2");
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      QmmOp.setRowLimitForTests(3);
      for (DType t : new DType[] {DType.BF16, DType.F32}) {
        float[] wv = QTest.normal(1, 24 * 128, 0.1, t);
        QTest.Weights w = QTest.quantize(rt, wv, new long[] {24, 128}, t, QuantMode.AFFINE, 64, 4);
        float[] x = QTest.normal(2, 8 * 128, 1, t);
        Tensor xt = QTest.upload(rt, x, t, 2, 4, 128);
        Tensor[] y = new Tensor[1];
        var ds = QTest.decisions(() -> y[0] = rt.quantizedMatmul(xt, w.q(), true));
        QTest.check(
            rt,
            y[0],
            QRef.matmul(x, new long[] {2, 4, 128}, w.wHat(), w.shape(), true),
            t,
            "chunked " + t);
        // 8 rows as 3 + 3 + 2: one decision reported per distinct choice.
        assertEquals(
            List.of(t == DType.F32 ? "qmv-rows" : t == DType.F16 ? "qmm-mma" : "qmm-mma-async"),
            QTest.qmmChoices(ds),
            t.toString());
      }
      // Batched weights with chunked rows: x [2, 5, K] against w [2, N, K].
      float[] wv = QTest.normal(3, 2 * 16 * 64, 0.1, DType.F16);
      QTest.Weights w =
          QTest.quantize(rt, wv, new long[] {2, 16, 64}, DType.F16, QuantMode.AFFINE, 32, 8);
      float[] x = QTest.normal(4, 2 * 5 * 64, 1, DType.F16);
      Tensor y = rt.quantizedMatmul(QTest.upload(rt, x, DType.F16, 2, 5, 64), w.q(), true);
      QTest.check(
          rt,
          y,
          QRef.matmul(x, new long[] {2, 5, 64}, w.wHat(), w.shape(), true),
          DType.F16,
          "batched, chunked");
    } finally {
      QmmOp.setRowLimitForTests(0);
      System.clearProperty(QmmPolicy.AFFINE_PROPERTY);
    }
  }

  @Test
  void coalescingDropsUnitAxesAndMergesContiguousNeighbours() {
    long[][] c = OpLauncher.coalesce(new long[] {2, 1, 3, 4}, new long[] {12, 99, 4, 1});
    assertArrayEquals(new long[] {24}, c[0]);
    assertArrayEquals(new long[] {1}, c[1]);
    c = OpLauncher.coalesce(new long[] {3, 2, 4}, new long[] {4, 12, 1});
    assertArrayEquals(new long[] {3, 2, 4}, c[0]);
    assertArrayEquals(new long[] {4, 12, 1}, c[1]);
    c = OpLauncher.coalesce(new long[] {1, 1}, new long[] {5, 7});
    assertEquals(0, c[0].length);
  }

  @Test
  void launchRefusesARungThatCannotComputeTheShape() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                QmmOp.launch(
                    null,
                    "qmm-mma",
                    affine(3, Quant.BF16, 4),
                    new QmmOp.Operands(null, null, null, null, null, null)));
    assertTrue(e.getMessage().contains("affine bits 4 and 8 only"), e.getMessage());
  }

  @Test
  void launchWithAnExplicitPlanRefusesANullPlan() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                QmmOp.launch(
                    null,
                    "qmm-mma",
                    (sirocco.kernels.quant.LaunchPlan) null,
                    affine(4, Quant.BF16, 4),
                    new QmmOp.Operands(null, null, null, null, null, null)));
    assertTrue(e.getMessage().startsWith("p must be a plan"), e.getMessage());
  }
}
