package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The shared-memory tiled tensor-core kernel on the Java backend, against the float64 reference.
 */
class QmmTiledKernelTest {

  static float[] run(QmmCase c, LaunchPlan plan) {
    return c.runAffine(QmmTiledKernel.class, plan);
  }

  /**
   * Each weight is rounded once to the dtype before the mma (relative error at most 2^-9 for bf16,
   * 2^-11 for f16), so the error bound is that times sum |x w|, plus float accumulation (QmmCase's
   * 2e-5) and half an ulp of the output (added by QmmCase.check).
   */
  static double accRel(int dtype) {
    return (dtype == Quant.F16 ? 0x1p-11 : 0x1p-9) + 2e-5;
  }

  static void check(QmmShape s, LaunchPlan p, long seed, String what) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, p), what + " " + p.describe(), accRel(s.dtype()));
  }

  /** Rows 64, 70 (a partial row tile) and 128; n 128/256, k 128/256; g64; bf16 and f16. */
  @Test
  void rowsFeaturesAndDtypes() {
    long seed = 1;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int[] rnk : new int[][] {{64, 128, 128}, {70, 256, 256}, {128, 128, 256}}) {
        QmmShape s = QmmShape.affine(4, 64, dtype, rnk[0], rnk[1], rnk[2]);
        assertNull(QmmTiledKernel.supports(s), s.toString());
        check(s, QmmTiledKernel.plan(s, 64, 64, 2, 4), seed++, "64x64");
      }
    }
  }

  /** Groups 32 and 128 (two groups per k step, half a group), and 8-bit codes. */
  @Test
  void groupsAndBits() {
    long seed = 100;
    for (int bits : new int[] {4, 8}) {
      for (int g : new int[] {32, 64, 128}) {
        QmmShape s = QmmShape.affine(bits, g, bits == 4 ? Quant.BF16 : Quant.F16, 66, 128, 256);
        assertNull(QmmTiledKernel.supports(s), s.toString());
        check(s, QmmTiledKernel.plan(s, 64, 128, 2, 4), seed++, "groups");
      }
    }
  }

  /**
   * The default plans (128 x 96 with 48 x 32 warps and two slots, 192 / 256 x 96 with 48 x 64 warps
   * for 4-bit codes at 129–512 rows and at least 96 feature blocks, 128 x 128 and 256 x 128 where n
   * is a multiple of 128 only) and the other sweep candidates, with a partial row tile.
   */
  @Test
  void tilings() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 130, 384, 128);
    assertEquals(96, QmmTiledKernel.plan(s).get("bn"));
    assertEquals(2, QmmTiledKernel.plan(s).get("stages"));
    assertEquals(128, QmmTiledKernel.plan(s).get("bm"), "4 feature blocks: 128-row blocks");
    // x by cp.async also for a partly filled block (its rows past the end are skipped).
    assertEquals(1, QmmTiledKernel.plan(s).get("xAsync"), "130 rows: a partly filled block");
    check(s, QmmTiledKernel.plan(s), 7, "default");
    check(s, QmmTiledKernel.plan(s, 128, 96, 3, 4, 2, 0), 8, "x through registers");
    check(s, QmmTiledKernel.plan(s, 192, 96, 3, 8, 2, 1), 12, "192 x 96, a partly filled block");
    QmmShape s8 = QmmShape.affine(8, 64, Quant.BF16, 130, 384, 128);
    assertEquals(96, QmmTiledKernel.plan(s8).get("bn"));
    assertEquals(0, QmmTiledKernel.plan(s8).get("xAsync"), "8-bit keeps x in registers");
    check(s8, QmmTiledKernel.plan(s8), 9, "default 8-bit");
    QmmShape whole = QmmShape.affine(4, 64, Quant.BF16, 256, 384, 128);
    assertEquals(1, QmmTiledKernel.plan(whole).get("xAsync"), "whole 128-row blocks");
    check(whole, QmmTiledKernel.plan(whole), 11, "default, x by cp.async");
    check(whole, QmmTiledKernel.plan(whole, 256, 96, 3, 8, 2, 1), 13, "256 x 96, one block");
    // Rows per block at 12288 features (128 blocks of 96): 128 up to 128 rows; then the 192- or
    // 256-row block needing fewer row blocks (192 at a tie) up to 512 rows; above, 128-feature
    // blocks; 8-bit codes always 128.
    int[][] rowsToBm = {
      {128, 128},
      {129, 192},
      {192, 192},
      {193, 256},
      {256, 256},
      {257, 192},
      {384, 192},
      {385, 256},
      {512, 256}
    };
    for (int[] rb : rowsToBm) {
      LaunchPlan p = QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, rb[0], 12288, 4096));
      assertEquals(rb[1], p.get("bm"), rb[0] + " rows");
      assertEquals(96, p.get("bn"), rb[0] + " rows");
      assertEquals(rb[1] == 128 ? 4 : 8, p.get("nt"), rb[0] + " rows");
    }
    LaunchPlan wide = QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 513, 12288, 4096));
    assertEquals(128, wide.get("bn"), "513 rows: 128-feature blocks");
    assertEquals(128, wide.get("bm"), "513 rows");
    assertEquals(
        128, QmmTiledKernel.plan(QmmShape.affine(8, 64, Quant.BF16, 256, 12288, 4096)).get("bm"));
    // Above 384 rows 128-feature blocks where n allows (fewer blocks, a smaller last wave).
    assertEquals(
        96, QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 384, 384, 128)).get("bn"));
    assertEquals(
        128, QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 385, 384, 128)).get("bn"));
    assertEquals(
        96, QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 385, 288, 128)).get("bn"));
    QmmShape s128 = QmmShape.affine(4, 64, Quant.F16, 130, 256, 128);
    assertEquals(128, QmmTiledKernel.plan(s128).get("bn"), "n not a multiple of 96");
    check(s128, QmmTiledKernel.plan(s128), 10, "default 128x128");
    check(s128, QmmTiledKernel.plan(s128, 256, 128, 4, 8, 2, 1), 14, "256 x 128");
    // n a multiple of 128 only, 14336 (112 blocks of 128): 256 rows per block at 129-256 and
    // 385-512 rows; 257-384 (not timed) and narrower n keep 128.
    int[][] rowsToBm128 = {{128, 128}, {129, 256}, {256, 256}, {300, 128}, {385, 256}, {512, 256}};
    for (int[] rb : rowsToBm128) {
      LaunchPlan p = QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, rb[0], 14336, 4096));
      assertEquals(rb[1], p.get("bm"), "n 14336, " + rb[0] + " rows");
      assertEquals(128, p.get("bn"), "n 14336, " + rb[0] + " rows");
    }
    assertEquals(
        128, QmmTiledKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 256, 4096, 4096)).get("bm"));
    // nt = 1 and 3: a lone last x tile per warp (lanes 16-31 of its matrix load repeat 0-15).
    int[][] tl = {
      {128, 128, 4, 4}, {64, 64, 1, 1}, {64, 192, 3, 4}, {256, 64, 2, 8}, {48, 64, 2, 3}
    };
    for (int[] t : tl) {
      QmmShape s2 = t[1] == 192 ? s : QmmShape.affine(4, 64, Quant.BF16, 130, 256, 128);
      check(s2, QmmTiledKernel.plan(s2, t[0], t[1], t[2], t[3]), 8, "tiling");
    }
  }

  /**
   * Two tile slots (one barrier per k step): 4 k steps so that both slots are written and read
   * twice, a partial row tile, both dtypes, 4- and 8-bit codes, groups of 32 to 128.
   */
  @Test
  void twoStages() {
    long seed = 200;
    int[][] cases = {
      {4, 64, Quant.BF16}, {4, 128, Quant.F16}, {8, 64, Quant.BF16}, {8, 32, Quant.F16}
    };
    for (int[] c : cases) {
      QmmShape s = QmmShape.affine(c[0], c[1], c[2], 70, 256, 256);
      LaunchPlan p = QmmTiledKernel.plan(s, 64, 128, 2, 4, 2);
      assertEquals(2, p.get("stages"));
      assertEquals(2 * (64 + 128) * 128, p.sharedBytes());
      check(s, p, seed++, "2 stages");
      // The x tile by cp.async into the free slot: same results.
      LaunchPlan a = QmmTiledKernel.plan(s, 64, 128, 2, 4, 2, 1);
      assertEquals(1, a.get("xAsync"));
      check(s, a, seed++, "2 stages, x by cp.async");
    }
    assertThrows(
        IllegalArgumentException.class,
        () ->
            QmmTiledKernel.plan(
                QmmShape.affine(4, 64, Quant.BF16, 70, 256, 256), 64, 128, 2, 4, 1, 1));
  }

  @Test
  void supportsNamesReasons() {
    assertTrue(
        QmmTiledKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 63, 128, 128)).contains("rows"));
    assertTrue(
        QmmTiledKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 64, 96, 128)).contains("n "));
    assertTrue(
        QmmTiledKernel.supports(QmmShape.affine(4, 32, Quant.BF16, 64, 128, 96)).contains("k "));
    assertNotNull(QmmTiledKernel.supports(QmmShape.affine(3, 64, Quant.BF16, 64, 128, 128)));
    assertNotNull(QmmTiledKernel.supports(QmmShape.affine(4, 64, Quant.F32, 64, 128, 128)));
    assertNotNull(QmmTiledKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 64, 128, 128)));
    assertNotNull(
        QmmTiledKernel.supports(
            QmmShape.affine(4, 64, Quant.BF16, 64, 128, 128).withTranspose(false)));
  }

  @Test
  void badPlansNameTheArgument() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> QmmTiledKernel.plan(s, 128, 128, 5, 4))
            .getMessage()
            .contains("mt"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> QmmTiledKernel.plan(s, 128, 100, 2, 4))
            .getMessage()
            .contains("bn"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> QmmTiledKernel.plan(s, 256, 256, 4, 8))
            .getMessage()
            .contains("shared"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> QmmTiledKernel.plan(s, 256, 128, 1, 1))
            .getMessage()
            .contains("threads"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> QmmTiledKernel.plan(s, 128, 128, 4, 4, 3))
            .getMessage()
            .contains("stages"));
    QmmShape odd = QmmShape.affine(4, 64, Quant.BF16, 256, 320, 4096);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> QmmTiledKernel.plan(odd, 128, 128, 4, 4))
            .getMessage()
            .contains("divide n"));
  }
}
