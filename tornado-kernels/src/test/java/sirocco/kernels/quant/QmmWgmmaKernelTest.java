package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sirocco.api.Int4;

/**
 * The warpgroup tensor-core kernel on the Java backend (whose warpgroup product follows the
 * documented operand layouts), against the float64 reference; the GPU runs the same cases in the
 * shipped-kernel differential suite.
 */
class QmmWgmmaKernelTest {

  /** dtype, group, rows, n, k, wg, pipe, ahead: see {@link #shapesGroupsAndWarpgroups}. */
  static final int[][] SHAPE_CASES = {
    {Quant.BF16, 64, 70, 192, 128, 3, 1, 4},
    {Quant.F16, 32, 64, 128, 384, 2, 1, 3},
    {Quant.BF16, 128, 130, 64, 256, 1, 1, 5},
    {Quant.F16, 64, 128, 128, 128, 2, 1, 3},
    {Quant.BF16, 64, 70, 192, 512, 3, 2, 4},
    {Quant.F16, 32, 130, 128, 256, 2, 2, 6},
    {Quant.BF16, 128, 70, 128, 384, 2, 1, 4},
    {Quant.F16, 64, 64, 64, 512, 1, 2, 3},
    {Quant.F16, 32, 70, 256, 256, 4, 2, 5},
  };

  static float[] run(QmmCase c, LaunchPlan plan) {
    return c.runAffine(QmmWgmmaKernel.class, plan);
  }

  static void check(QmmShape s, LaunchPlan p, long seed) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, p), "qmm-wgmma " + p.describe(), QmmTiledKernelTest.accRel(s.dtype()));
  }

  /**
   * Both dtypes, every group size, one to four warpgroups, a partial row block (70 rows) and two
   * row blocks (130), one to four loop iterations (k 128 to 512), both pipelines, copies three to
   * six steps ahead (with k 128 the prologue requests every step), an odd count of groups per row
   * (k 384, group 128: the last feature's last scale is the high half of the arrays' last pair).
   */
  @Test
  void shapesGroupsAndWarpgroups() {
    long seed = 1;
    for (int[] c : SHAPE_CASES) {
      QmmShape s = QmmShape.affine(4, c[1], c[0], c[2], c[3], c[4]);
      assertNull(QmmWgmmaKernel.supports(s, true), s.toString());
      check(s, QmmWgmmaKernel.plan(s, c[5], c[6], c[7]), seed++);
    }
  }

  /** The x tile's k order: every (row, k) of a slot at its own half, inside the slot. */
  @Test
  void sharedLayoutIsABijection() {
    Set<Integer> seen = new HashSet<>();
    for (int row = 0; row < QmmWgmmaKernel.ROWS; row++) {
      for (int kk = 0; kk < QmmWgmmaKernel.BK; kk++) {
        int h = QmmWgmmaKernel.sharedHalf(row, kk);
        assertTrue(h >= 0 && h < QmmWgmmaKernel.SLOT_HALVES, "half " + h);
        assertTrue(seen.add(h), "row " + row + " k " + kk + " collides at half " + h);
      }
    }
    assertEquals(QmmWgmmaKernel.ROWS * QmmWgmmaKernel.BK, seen.size());
  }

  /**
   * The x copies: the 1024 cells of a tile are its 128 rows x 8 chunks once each, and each quarter
   * warp (8 consecutive cells, served together by a 16-byte copy) reads one row's 128 contiguous
   * bytes of x (a whole line) and writes 8 different 16-byte bank groups of shared memory.
   */
  @Test
  void copyCellsCoverTheTileCoalescedAndConflictFree() {
    Set<Integer> chunks = new HashSet<>();
    for (int q = 0; q < 1024 / 8; q++) {
      Set<Integer> rowsOfQuarter = new HashSet<>();
      Set<Integer> bankGroups = new HashSet<>();
      int minChunk = 8;
      int maxChunk = -1;
      for (int cell = 8 * q; cell < 8 * q + 8; cell++) {
        int row = QmmWgmmaKernel.cellRow(cell);
        int c = QmmWgmmaKernel.cellChunk(cell);
        assertTrue(row >= 0 && row < 128 && c >= 0 && c < 8, "cell " + cell);
        assertTrue(chunks.add(8 * row + c), "cell " + cell + " repeats row " + row + " chunk " + c);
        rowsOfQuarter.add(row);
        minChunk = Math.min(minChunk, c);
        maxChunk = Math.max(maxChunk, c);
        int bytes = 2 * QmmWgmmaKernel.sharedHalf(row, 8 * c);
        assertEquals(0, bytes % 16, "cell " + cell + " lands off a 16-byte row");
        bankGroups.add((bytes / 16) % 8);
      }
      assertEquals(1, rowsOfQuarter.size(), "quarter " + q + " rows");
      assertEquals(0, minChunk, "quarter " + q + ": from the row's first chunk");
      assertEquals(7, maxChunk, "quarter " + q + ": to its last");
      assertEquals(8, bankGroups.size(), "quarter " + q + " bank groups");
    }
    assertEquals(1024, chunks.size());
  }

  /**
   * Each thread's copy plan (its first cell's offsets and a count, the rest by a fixed stride)
   * reaches exactly the cells {@code tid + 128 wg i} of the tile that hold rows of x, at the x and
   * shared offsets the cell mapping and the layout give them: every (row, chunk) of the block's
   * rows once, for one to four warpgroups, full and partial row blocks.
   */
  @Test
  void copyPlansReachEveryCellOfTheRowsOnce() {
    int k = 384;
    for (int wg = 1; wg <= 4; wg++) {
      int threads = 128 * wg;
      for (int[] rr : new int[][] {{0, 256}, {128, 256}, {128, 198}, {0, 1}, {256, 261}}) {
        int r0 = rr[0];
        int rows = rr[1];
        int lim = Math.min(128, rows - r0);
        Set<Integer> reached = new HashSet<>();
        for (int tid = 0; tid < threads; tid++) {
          Int4 cp = QmmWgmmaKernel.copyPlan(tid, r0, rows, k, 7, wg);
          assertEquals(7, cp.w());
          for (int i = 0; i < (8 + wg - 1) / wg; i++) {
            int cell = tid + threads * i;
            int row = QmmWgmmaKernel.cellRow(cell);
            int c = QmmWgmmaKernel.cellChunk(cell);
            boolean holdsX = cell < 1024 && row < lim;
            String at = "wg " + wg + " rows " + r0 + ".." + rows + " tid " + tid + " cell " + i;
            assertEquals(holdsX, i < cp.z(), at);
            if (holdsX) {
              assertEquals((r0 + row) * k + 8 * c, cp.x() + 16 * wg * i * k, at);
              assertEquals(QmmWgmmaKernel.sharedHalf(row, 8 * c), cp.y() + 128 * wg * i, at);
              assertTrue(reached.add(8 * row + c), at + " repeats row " + row + " chunk " + c);
            }
          }
        }
        assertEquals(8 * lim, reached.size(), "wg " + wg + " rows " + r0 + ".." + rows);
      }
    }
  }

  @Test
  void supportsNamesWhatItRejects() {
    QmmShape ok = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    assertNull(QmmWgmmaKernel.supports(ok, true));
    assertTrue(QmmWgmmaKernel.supports(ok, false).contains("sm_90"));
    assertTrue(QmmWgmmaKernel.supports(ok.withRows(16), true).contains("64 rows"));
    assertNotNull(QmmWgmmaKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 256, 128, 256), true));
    assertNotNull(QmmWgmmaKernel.supports(QmmShape.affine(4, 64, Quant.F32, 256, 128, 256), true));
    assertTrue(
        QmmWgmmaKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 256, 96, 256), true)
            .contains("multiple of 64"));
    assertTrue(
        QmmWgmmaKernel.supports(QmmShape.affine(4, 32, Quant.BF16, 256, 128, 192), true)
            .contains("multiple of 128"));
    assertTrue(QmmWgmmaKernel.supports(ok.withTranspose(false), true).contains("transposed"));
  }

  /**
   * The fragment reads of one instruction: lanes (g, t) of a warp read 8 bytes at word {@code
   * FEATURE_WORDS g + 2 s} (+ 8 in an odd step); the 8 features' reads must take 16 different
   * banks.
   */
  @Test
  void fragmentReadsOfAWarpTakeDistinctBanks() {
    for (int odd = 0; odd < 2; odd++) {
      for (int s = 0; s < 4; s++) {
        Set<Integer> banks = new HashSet<>();
        for (int g = 0; g < 8; g++) {
          int word = QmmWgmmaKernel.FEATURE_WORDS * g + 8 * odd + 2 * s;
          banks.add(word % 32);
          banks.add((word + 1) % 32);
        }
        assertEquals(16, banks.size(), "odd " + odd + ", product " + s);
      }
    }
    assertEquals(0, QmmWgmmaKernel.FEATURE_WORDS % 4, "16-byte copies need 16-byte rows");
  }

  /**
   * The slot counts against the barrier rule, written from the loop's order of events rather than
   * run: one block barrier per iteration (before even step j), after which every warpgroup is done
   * with the products of steps up to j - pipe and every thread with the fragments of steps up to j
   * - 1. A request after barrier j (steps j + ahead and j + 1 + ahead, and the even one's pair) may
   * only refill a slot whose previous step (or pair) is done by then. The counts must be the least
   * that satisfy this: a race the Java backend, with its copies landing at once, cannot show.
   */
  @Test
  void slotCountsAreTheLeastTheBarrierRuleAllows() {
    for (int pipe = 1; pipe <= 2; pipe++) {
      for (int ahead = 3; ahead <= 6; ahead++) {
        int stages = QmmWgmmaKernel.stages(pipe, ahead);
        int pairs = QmmWgmmaKernel.pairSlots(ahead);
        String at = "pipe " + pipe + ", ahead " + ahead;
        assertTrue(safe(stages, pairs, pipe, ahead), at);
        assertFalse(safe(stages - 1, pairs, pipe, ahead), at + ": one slot fewer is also safe");
        assertFalse(
            safe(stages, pairs - 1, pipe, ahead), at + ": one pair slot fewer is also safe");
      }
    }
  }

  private static boolean safe(int stages, int pairs, int pipe, int ahead) {
    for (int j = 0; j < 64; j += 2) {
      for (int step = j + ahead; step <= j + 1 + ahead; step++) {
        if (step - stages > j - pipe) {
          return false; // the slot's previous step may still be read by a product
        }
        int pair = step / 2;
        if (step % 2 == 0 && 2 * (pair - pairs) + 1 > j - 1) {
          return false; // the pair slot's previous odd step may still be dequantized
        }
      }
    }
    return true;
  }

  @Test
  void plans() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 256, 12288, 4096);
    LaunchPlan p = QmmWgmmaKernel.plan(s);
    assertEquals(3, p.get("wg"));
    assertEquals(64, p.grid().x());
    assertEquals(2, p.grid().y());
    assertEquals(384, p.block().x());
    assertEquals(4, QmmWgmmaKernel.plan(s.withRows(512)).grid().y());
    assertEquals(
        2, QmmWgmmaKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 256, 256, 256)).get("wg"));
    assertEquals(2, p.get("pipe"));
    assertEquals(3, p.get("ahead"));
    // A slot per step in flight and one more (ahead + pipe + 1): the 128 x 64 bf16 x tile (16
    // KiB, 128 bytes of bank padding). A pair slot per step pair in flight and one more ((ahead +
    // 1) / 2 + 1): per feature two steps' 16 words and 4 of padding, then 4 scales and 4 biases.
    assertEquals(6 * 16512 + 3 * 192 * (80 + 16), p.sharedBytes());
    assertEquals(7 * 16512 + 3 * 192 * (80 + 16), QmmWgmmaKernel.plan(s, 3, 2, 4).sharedBytes());
    int largest = QmmWgmmaKernel.plan(s, 4, 2, 5).sharedBytes();
    assertEquals(8 * 16512 + 4 * 256 * (80 + 16), largest);
    assertTrue(largest <= 227 * 1024, "fits sm_90's 227 KiB: " + largest);
    assertEquals(largest, QmmWgmmaKernel.plan(s, 4, 1, 6).sharedBytes());
    IllegalArgumentException big =
        assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 4, 2, 6));
    assertTrue(big.getMessage().contains("246912 bytes of shared memory"), big.getMessage());
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 5, 1, 3));
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 3, 3, 3));
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 3, 1, 2));
    assertThrows(IllegalArgumentException.class, () -> QmmWgmmaKernel.plan(s, 3, 1, 7));
    assertThrows(
        IllegalArgumentException.class,
        () -> QmmWgmmaKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 256, 128, 256), 3, 1, 3));
  }
}
