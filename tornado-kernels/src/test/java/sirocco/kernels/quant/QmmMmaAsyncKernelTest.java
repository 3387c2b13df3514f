package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The pipelined split-K tensor-core kernel ({@link QmmMmaAsyncKernel}) on the Java backend (copies
 * done at once, mma simulated in float, lanes as threads) against the float64 reference with the
 * bound of the other quant kernels ({@link QmmCase#check}); outputs are poisoned with NaN before
 * every run, so an unwritten element fails.
 */
class QmmMmaAsyncKernelTest {
  static final int SMS = 132;

  static void check(QmmShape s, long seed, LaunchPlan p) {
    check(QmmCase.random(s, seed), p);
  }

  static void check(QmmCase c, LaunchPlan p) {
    c.check(c.runAffine(QmmMmaAsyncKernel.class, p), p.describe());
  }

  static void check(QmmShape s, long seed) {
    assertNull(QmmMmaAsyncKernel.supports(s), s.toString());
    check(s, seed, QmmMmaAsyncKernel.plan(s, SMS));
  }

  /**
   * The default plan over groups 32/64/128 (k = 512: 2 warps of 8, 4 and 2 groups), bf16/f16 and
   * rows 1, 3, 8 and 12 (two row tiles, the second partial); n = 40 is 2.5 batches.
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
  }

  /** The benchmarked k: 16 warps of 256 k, 3 stages, rows 1 and 8. */
  @Test
  void k4096() {
    for (int rows : new int[] {1, 8}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, rows, 24, 4096);
      LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS);
      assertEquals(16, p.get("ks"));
      assertEquals(8, p.get("wps"));
      assertEquals(QmmMmaAsyncKernel.STAGES, p.get("stages"));
      check(s, 70 + rows, p);
    }
  }

  /**
   * fu = 1 ({@link QmmMmaFragments#fragA4Fma}: bf16 4-bit half read in place by fma.bf16x2, x of
   * those slots times 4): groups 32/64/128, one and two row tiles, k = 4096 with 16 warps, an
   * early-refill and a round plan, the all-positive x of the bias-term case, against the float64
   * reference; and its refusals for f16 and 6-bit, and for values other than 0 and 1.
   */
  @Test
  void fmaUnpackingOfBf16FourBitCodes() {
    long seed = 900;
    for (int g : new int[] {32, 64, 128}) {
      for (int rows : new int[] {1, 8, 12}) {
        QmmShape s = QmmShape.affine(4, g, Quant.BF16, rows, 40, 512);
        int rt = QmmMmaAsyncKernel.rowTiles(s);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, 2, 2, 2, rt, 1, 0, 1, 1);
        assertEquals(1, p.get("fu"), p.describe());
        check(s, seed++, p);
      }
    }
    QmmShape big = QmmShape.affine(4, 64, Quant.BF16, 5, 24, 4096);
    check(big, seed++, QmmMmaAsyncKernel.plan(big, SMS, 16, 2, 1, 1, 0, 1, 1));
    check(big, seed++, QmmMmaAsyncKernel.plan(big, 1, 16, 3, 1, 1, 1, 1, 1));
    check(big, seed++, QmmMmaAsyncKernel.plan(big, 1, 16, 2, 1, 1, 0, 3, 1));
    QmmShape pos = QmmShape.affine(4, 64, Quant.BF16, 12, 40, 1024);
    check(
        positiveX(pos, new java.util.SplittableRandom(78)),
        QmmMmaAsyncKernel.plan(pos, SMS, 4, 2, 2, 1, 0, 1, 1));

    for (QmmShape other :
        new QmmShape[] {
          QmmShape.affine(4, 64, Quant.F16, 1, 40, 512),
          QmmShape.affine(2, 64, Quant.F16, 1, 40, 512),
          QmmShape.affine(6, 64, Quant.BF16, 1, 40, 512)
        }) {
      assertEquals(0, QmmMmaAsyncKernel.plan(other, 2, 2, 2, 1, 1, 0, 1, 0).get("fu"));
      IllegalArgumentException r =
          assertThrows(
              IllegalArgumentException.class,
              () -> QmmMmaAsyncKernel.plan(other, 2, 2, 2, 1, 1, 0, 1, 1));
      assertTrue(r.getMessage().contains("fu=1"), r.getMessage());
    }
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 40, 512);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> QmmMmaAsyncKernel.plan(s, 2, 2, 2, 1, 1, 0, 1, 2));
    assertTrue(e.getMessage().contains("fu"), e.getMessage());
    // The default: 1 for bf16 4- and 2-bit with one row tile, 0 with two tiles and elsewhere.
    assertEquals(1, QmmMmaAsyncKernel.plan(s, SMS).get("fu"));
    assertEquals(
        1, QmmMmaAsyncKernel.plan(QmmShape.affine(2, 64, Quant.BF16, 8, 40, 512), SMS).get("fu"));
    assertEquals(
        0, QmmMmaAsyncKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 12, 40, 512), SMS).get("fu"));
    assertEquals(
        0, QmmMmaAsyncKernel.plan(QmmShape.affine(4, 64, Quant.F16, 1, 40, 512), SMS).get("fu"));
    assertEquals(
        0, QmmMmaAsyncKernel.plan(QmmShape.affine(6, 64, Quant.BF16, 1, 40, 512), SMS).get("fu"));
    assertEquals(1, QmmMmaAsyncKernel.plan(s, SMS, 2, 2, 1, 1, 0, 1).get("fu"));
    assertEquals(0, QmmMmaAsyncKernel.plan(s, SMS, 2, 2, 2, 1, 0, 1).get("fu"));
    assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.fmaUnpack(null, 1));
    IllegalArgumentException badRt =
        assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.fmaUnpack(s, 3));
    assertTrue(badRt.getMessage().startsWith("rt must be 1 or 2"), badRt.getMessage());
  }

  /**
   * The bias term on the tensor cores ({@code QmmMmaAsyncKernel.biasTerm}: x sums split in three
   * bf16 parts) where it is largest against the result and the sums need all of a float's bits: x
   * all positive, |N(0, 1)| (values from about 2^-8 to 4, so a group's sum X carries about 20
   * significant bits and |X| = Σ|x|; the offset part -128·scale·X then outweighs the bound by ~10
   * at a relative error of 2^-18). g32/g64/g128, one and two row tiles, the float64 bound of the
   * other cases. Checked to fail with two parts (X to 2^-17), as the random cases above also did.
   */
  @Test
  void biasTermHoldsFloatPrecisionForLargeXSums() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(77);
    for (int g : new int[] {32, 64, 128}) {
      for (int rows : new int[] {3, 12}) {
        QmmShape s = QmmShape.affine(4, g, Quant.BF16, rows, 40, 1024);
        QmmCase c = positiveX(s, rnd);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS);
        assertEquals(rows > 8 ? 2 : 1, p.get("rt"), p.describe());
        check(c, p);
      }
    }
  }

  /**
   * Few persistent blocks walking many batches for 2, 3 and 4 stages, so the stages wrap around and
   * the last refills fall past the end; k splits of 2 and 4 warps (8 and 4 words per lane).
   */
  @Test
  void stagesWrapAroundInPersistentBlocks() {
    long seed = 100;
    for (int stages : new int[] {2, 3, 4}) {
      for (int ks : new int[] {2, 4}) {
        for (int sms : new int[] {1, 3}) {
          QmmShape s = QmmShape.affine(4, 64, ks == 4 ? Quant.F16 : Quant.BF16, 5, 120, 512);
          LaunchPlan p = QmmMmaAsyncKernel.plan(s, sms, ks, stages);
          assertEquals(sms, p.grid().x(), p.describe());
          check(s, seed++, p);
        }
      }
    }
  }

  /**
   * Two 8-row tiles per warp: 16 rows in one row tile pair, 9 (the second tile nearly empty) and 21
   * (a second, partial pair), g64/g128 (g32 below), bf16/f16, 2 and 3 stages, few persistent
   * blocks; the plans carry the one-block hint (at most 128 registers for 512 threads).
   */
  @Test
  void twoRowTilesPerWarp() {
    long seed = 300;
    for (int g : new int[] {64, 128}) {
      for (int rows : new int[] {9, 16, 21}) {
        int dtype = rows == 16 ? Quant.F16 : Quant.BF16;
        QmmShape s = QmmShape.affine(4, g, dtype, rows, 72, 512);
        int ks = QmmMmaSplitKKernel.defaultKs(s);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, 2, ks, rows == 21 ? 3 : 2, 2);
        assertEquals((rows + 15) / 16, p.grid().y(), p.describe());
        assertEquals(2, p.get("rt"));
        check(s, seed++, p);
      }
    }
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 16, 24, 4096);
    LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS, 16, 2, 2);
    assertEquals(1, p.minBlocksPerSm(), p.describe());
    assertEquals(0, QmmMmaAsyncKernel.plan(s, SMS, 16, 2, 1).minBlocksPerSm());
    check(s, seed, p);
    // 32 warps always carry the one-block hint (64 registers), whatever the register kernel's
    // estimate says: unhinted, ptxas took 67 and the launch failed (run 109).
    QmmShape one = QmmShape.affine(4, 64, Quant.BF16, 1, 24, 4096);
    LaunchPlan p32w = QmmMmaAsyncKernel.plan(one, SMS, 32, 2, 1);
    assertEquals(1024, p32w.block().x(), p32w.describe());
    assertEquals(1, p32w.minBlocksPerSm(), p32w.describe());
    check(one, seed + 2, p32w);
    // g32 with two row tiles (the default plan above 8 rows since run 103; under the one-block
    // hint its 128 registers spill 80 bytes, ptxas 13.0).
    QmmShape g32 = QmmShape.affine(4, 32, Quant.BF16, 16, 24, 4096);
    LaunchPlan p32 = QmmMmaAsyncKernel.plan(g32, SMS);
    assertEquals(2, p32.get("rt"), p32.describe());
    assertEquals(1, p32.minBlocksPerSm(), p32.describe());
    assertEquals(1, QmmMmaAsyncKernel.rowTiles(g32.withRows(8)));
    check(g32, seed + 1, p32);
  }

  /**
   * Early refills (every stage requested first, each refilled right after its barrier) and two
   * blocks per SM, with stages wrapping around in few persistent blocks and the last refills past
   * the end; one and two row tiles.
   */
  @Test
  void earlyRefillAndTwoBlocksPerSm() {
    long seed = 400;
    for (int stages : new int[] {2, 3}) {
      for (int bps : new int[] {1, 2}) {
        QmmShape s = QmmShape.affine(4, 64, stages == 2 ? Quant.BF16 : Quant.F16, 5, 120, 512);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, 1, 2, stages, 1, bps, 1);
        assertEquals(bps, p.grid().x(), p.describe());
        assertEquals(1, p.get("early"));
        check(s, seed++, p);
        LaunchPlan late = QmmMmaAsyncKernel.plan(s, 1, 2, stages, 1, bps, 0);
        assertEquals(bps > 1 ? bps : 0, late.minBlocksPerSm(), late.describe());
        check(s, seed++, late);
      }
    }
    QmmShape s16 = QmmShape.affine(4, 128, Quant.BF16, 16, 72, 1024);
    check(s16, seed, QmmMmaAsyncKernel.plan(s16, 2, 4, 2, 2, 1, 1));
  }

  /**
   * Reduction rounds of 2-5 batches: blocks walking 8 or 15 batches, so rounds end short at the
   * block's last batch; one and two row tiles (9 and 21 rows), k split over 2 and 4 warps (one and
   * two reducing groups per round), bf16/f16.
   */
  @Test
  void reductionRounds() {
    long seed = 500;
    for (int rb : new int[] {2, 3, 5}) {
      for (int rows : new int[] {5, 21}) {
        int ks = rows == 5 ? 2 : 4;
        QmmShape s =
            QmmShape.affine(4, 64, rb == 3 ? Quant.F16 : Quant.BF16, rows, 120 + 16 * rb, 256 * ks);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, 1, ks, 2, rows > 8 ? 2 : 1, 1, 0, rb);
        assertEquals(rb, p.get("rb"));
        check(s, seed++, p);
      }
    }
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 2, 24, 4096);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 2, 1, 1, 0, 9));
    assertTrue(e.getMessage().startsWith("rb must be 1 to 8"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 2, 1, 1, 1, 2));
    assertTrue(e.getMessage().startsWith("early=1 refills after every batch"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> QmmMmaAsyncKernel.plan(null, 1, 16, 2, 1, 1, 0, 1));
    assertTrue(e.getMessage().startsWith("s must be a QmmShape"), e.getMessage());
  }

  /** Bad blocks per SM or early flags are refused naming the argument; so is shared overflow. */
  @Test
  void rejectsBadBlocksAndEarly() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 24, 4096);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 2, 1, 3, 0));
    assertTrue(e.getMessage().startsWith("bps must be 1 or 2"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 2, 1, 1, 2));
    assertTrue(e.getMessage().startsWith("early must be 0"), e.getMessage());
    // Three stages of ks = 16 take 152 KiB: two blocks would need 304 KiB of one SM.
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 3, 1, 2, 0));
    assertTrue(e.getMessage().startsWith("bps=2 blocks of"), e.getMessage());
    QmmShape s16 = QmmShape.affine(4, 64, Quant.BF16, 16, 24, 4096);
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s16, 1, 16, 2, 2, 2, 0));
    assertTrue(e.getMessage().startsWith("bps=2 leaves 64 registers"), e.getMessage());
  }

  /**
   * 2-bit codes (16 per word, two x slots per word, QmmMmaFragments.fragA2): g64 and g128, bf16 and
   * f16, rows 1, 5 and 12 (two row tiles, the second partial), n = 40 (2.5 batches), k = 512 split
   * over 2 warps; then the benchmarked k (16 warps of 4 words per lane) at 1 and 8 rows, and few
   * persistent blocks so that 2 and 3 stages wrap around.
   */
  @Test
  void twoBitCodes() {
    long seed = unitWidthK512(2, 4, 600);
    seed = unitWidthK4096(2, 4, seed);
    unitWidthStagesWrap(2, seed);
  }

  /**
   * The default plans of {@code bits}-bit codes over g64/g128, bf16/f16 and rows 1, 5 and 12 at n =
   * 40, k = 512 (2 warps of {@code wps} words per lane), from seed {@code seed}; returns the next
   * seed.
   */
  private static long unitWidthK512(int bits, int wps, long seed) {
    for (int g : new int[] {64, 128}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {1, 5, 12}) {
          QmmShape s = QmmShape.affine(bits, g, dtype, rows, 40, 512);
          LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS);
          assertEquals(2, p.get("ks"), p.describe());
          assertEquals(wps, p.get("wps"), p.describe());
          assertEquals(rows > 8 ? 2 : 1, p.get("rt"), p.describe());
          check(s, seed++, p);
        }
      }
    }
    return seed;
  }

  /**
   * The benchmarked k (16 warps) at 1 and 8 rows, g64 bf16; {@code wps} the words per lane it must
   * plan, or 0 not to ask. Returns the next seed.
   */
  private static long unitWidthK4096(int bits, int wps, long seed) {
    for (int rows : new int[] {1, 8}) {
      QmmShape s = QmmShape.affine(bits, 64, Quant.BF16, rows, 24, 4096);
      LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS);
      assertEquals(16, p.get("ks"), p.describe());
      if (wps > 0) {
        assertEquals(wps, p.get("wps"), p.describe());
      }
      check(s, seed++, p);
    }
    return seed;
  }

  /** Two persistent blocks walking 8 batches each, so that 2 and 3 stages wrap around. */
  private static void unitWidthStagesWrap(int bits, long seed) {
    for (int stages : new int[] {2, 3}) {
      QmmShape s = QmmShape.affine(bits, 64, Quant.F16, 3, 120, 1024);
      LaunchPlan p = QmmMmaAsyncKernel.plan(s, 2, 4, stages);
      assertEquals(2, p.grid().x(), p.describe());
      check(s, seed++, p);
    }
  }

  /** x all positive (|N(0, 1)|) and w N(0, 1) for {@code s}: the bias term's hardest case. */
  private static QmmCase positiveX(QmmShape s, java.util.SplittableRandom rnd) {
    float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, s.dtype());
    float[] w = TestSupport.normal(rnd, s.n() * s.k(), 1.0, s.dtype());
    for (int i = 0; i < x.length; i++) {
      x[i] = Math.abs(x[i]);
    }
    return new QmmCase(s, x, w, Quant.NO_GLOBAL_SCALE);
  }

  /**
   * 2-bit with all-positive x (the offset part -128·scale·X largest against the result, as {@link
   * #biasTermHoldsFloatPrecisionForLargeXSums}): codes 0..3 are smaller against the offset than
   * 4-bit ones, so this is where the cancellation would show.
   */
  @Test
  void twoBitBiasTermWithLargeXSums() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(78);
    for (int g : new int[] {64, 128}) {
      for (int rows : new int[] {3, 12}) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          QmmShape s = QmmShape.affine(2, g, dtype, rows, 40, 1024);
          check(positiveX(s, rnd), QmmMmaAsyncKernel.plan(s, SMS));
        }
      }
    }
  }

  /**
   * fu = 1 for bf16 2-bit ({@link QmmMmaFragments#fragA2Fma}: codes at bits 2, 4, 6 of each byte
   * read in place, x of those slots times 16, 4, 1): g64 and g128, one and two row tiles, k = 4096
   * over 16 warps, few persistent blocks with the stages wrapping, the all-positive x of {@link
   * #twoBitBiasTermWithLargeXSums}, against the float64 reference.
   */
  @Test
  void fmaUnpackingOfBf16TwoBitCodes() {
    long seed = 950;
    for (int g : new int[] {64, 128}) {
      for (int rows : new int[] {1, 8, 12}) {
        QmmShape s = QmmShape.affine(2, g, Quant.BF16, rows, 40, 1024);
        int rt = QmmMmaAsyncKernel.rowTiles(s);
        LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS, 4, 2, rt, 1, 0, 1, 1);
        assertEquals(1, p.get("fu"), p.describe());
        check(s, seed++, p);
      }
    }
    QmmShape big = QmmShape.affine(2, 64, Quant.BF16, 5, 24, 4096);
    check(big, seed++, QmmMmaAsyncKernel.plan(big, SMS, 16, 2, 1, 1, 0, 1, 1));
    check(big, seed++, QmmMmaAsyncKernel.plan(big, 1, 16, 3, 1, 1, 0, 1, 1));
    QmmShape pos = QmmShape.affine(2, 128, Quant.BF16, 12, 40, 1024);
    check(
        positiveX(pos, new java.util.SplittableRandom(80)),
        QmmMmaAsyncKernel.plan(pos, SMS, 4, 2, 2, 1, 0, 1, 1));
  }

  /**
   * 6-bit codes (units of three words, 16 codes, two x slots: QmmMmaFragments.fragA6): g64 and
   * g128, bf16 and f16, rows 1, 5 and 12 (two row tiles), n = 40, k = 512 over 2 warps of 12 words
   * per lane (12 chunks per staged row, six copies per lane); k = 128 (6 words per lane, n = 67
   * with a partial last batch); the benchmarked k at 1 and 8 rows; few persistent blocks with 2 and
   * 3 stages; all-positive x for the offset's cancellation.
   */
  @Test
  void sixBitCodes() {
    long seed = unitWidthK512(6, 12, 700);
    // k = 128: one warp of 6 words per lane (6 chunks per staged row, three copies per lane).
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      QmmShape s = QmmShape.affine(6, 64, dtype, 3, 67, 128);
      LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS);
      assertEquals(6, p.get("wps"), p.describe());
      check(s, seed++, p);
    }
    seed = unitWidthK4096(6, 0, seed);
    unitWidthStagesWrap(6, seed);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(79);
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      QmmShape s = QmmShape.affine(6, 64, dtype, 12, 40, 1024);
      check(positiveX(s, rnd), QmmMmaAsyncKernel.plan(s, SMS));
    }
  }

  /**
   * 3- and 5-bit codes (16-code units of 48 and 80 bits, every other one starting mid-word:
   * QmmMmaAsyncLayout.unitWords, QmmMmaFragments.fragAUnit): g64 and g128, bf16 and f16, rows 1, 5
   * and 12 at k = 512 over 2 warps (6 and 10 words per lane); the benchmarked k at 1 and 8 rows;
   * few persistent blocks with the stages wrapping; slices of 2 groups per warp (3 and 5 words per
   * lane, copied by the general loop) with a partial last batch; all-positive x for the offset's
   * cancellation.
   */
  @Test
  void threeAndFiveBitCodes() {
    long seed = 1000;
    for (int[] c : new int[][] {{3, 6}, {5, 10}}) {
      int bits = c[0];
      seed = unitWidthK512(bits, c[1], seed);
      seed = unitWidthK4096(bits, c[1], seed);
      unitWidthStagesWrap(bits, seed);
      seed += 10;
      for (int g : new int[] {64, 128}) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          // k = 4·g over 2 warps: 2 groups per warp slice.
          QmmShape s = QmmShape.affine(bits, g, dtype, 6, 67, 4 * g);
          LaunchPlan p = QmmMmaAsyncKernel.plan(s, SMS, 2, 2);
          assertEquals(2 * g * bits / 128, p.get("wps"), p.describe());
          check(s, seed++, p);
        }
      }
      java.util.SplittableRandom rnd = new java.util.SplittableRandom(81 + bits);
      for (int g : new int[] {64, 128}) {
        QmmShape s = QmmShape.affine(bits, g, Quant.BF16, 12, 40, 1024);
        check(positiveX(s, rnd), QmmMmaAsyncKernel.plan(s, SMS));
      }
    }
  }

  /**
   * The pad of {@code QmmMmaAsyncLayout.rowWords} where lanes read one word at a time (odd words
   * per lane and group: 2-bit and 6-bit g64): for each of a lane's words, the 32 lanes (row g =
   * lane / 4, t = lane % 4, reading word {@code t·wpl + i} of row g) hit 32 distinct banks; and the
   * staged rows stay 16-byte aligned for the copies. Counted directly, not from the formula's
   * argument.
   */
  @Test
  void oddWordRowsReadConflictFree() {
    for (int[] c : new int[][] {{2, 4, 1}, {2, 2, 1}, {6, 12, 3}, {6, 6, 3}}) {
      int bits = c[0];
      int wps = c[1];
      int wpl = c[2];
      int rs = QmmMmaAsyncLayout.rowWords(bits, wps, wpl);
      assertEquals(0, rs % 4, "rows of whole 16-byte chunks: " + rs);
      assertTrue(rs >= 4 * wps, "a row holds the slice: " + rs);
      for (int i = 0; i < wpl; i++) {
        java.util.Set<Integer> banks = new java.util.HashSet<>();
        for (int lane = 0; lane < 32; lane++) {
          banks.add(((lane >> 2) * rs + (lane & 3) * wpl + i) % 32);
        }
        assertEquals(32, banks.size(), bits + "-bit wps " + wps + " word " + i + " rs " + rs);
      }
    }
  }

  /**
   * The pad of {@code QmmMmaAsyncLayout.rowWords} at 3 and 5 bits, where lane (g, t) reads the
   * words from {@code (bits·(upl·t + i)) / 2} of each group's segment (i = the lane's unit): for
   * every word a lane reads at once, the 32 lanes of rows g = 0..7 meet at most two to a bank at
   * 3-bit g64 (offsets 0, 1, 3, 4 cannot tile 32 banks) and none at 5 bits or g128. Counted
   * directly, for every slice the k splits give (2, 4, 8 groups per warp).
   */
  @Test
  void halfWordUnitRowsReadWithFewConflicts() {
    for (int bits : new int[] {3, 5}) {
      for (int g : new int[] {64, 128}) {
        int gw = g * bits / 32;
        int upl = g / 64;
        for (int cpw : new int[] {2, 4, 8}) {
          int wps = cpw * gw / 4;
          int rs = QmmMmaAsyncLayout.rowWords(bits, wps, Math.max(1, wps / cpw));
          assertEquals(0, rs % 4, "rows of whole 16-byte chunks: " + rs);
          int allowed = bits == 3 && g == 64 ? 2 : 1;
          for (int c = 0; c < cpw; c++) {
            for (int i = 0; i < upl; i++) {
              for (int r = 0; r < (bits + 1) / 2; r++) {
                int[] perBank = new int[32];
                int worst = 0;
                for (int lane = 0; lane < 32; lane++) {
                  int word = (lane >> 2) * rs + gw * c + (bits * (upl * (lane & 3) + i)) / 2 + r;
                  worst = Math.max(worst, ++perBank[word % 32]);
                }
                assertTrue(
                    worst <= allowed,
                    bits + "-bit g" + g + " cpw " + cpw + ": " + worst + " lanes on a bank");
              }
            }
          }
        }
      }
    }
  }

  /** Widths, groups and slices the 2-bit path cannot take are refused with the reason. */
  @Test
  void twoBitRejections() {
    String why = QmmMmaAsyncKernel.supports(QmmShape.affine(2, 32, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("2-bit groups of 64 or 128 only"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("affine 2-, 3-, 4-, 5- or 6-bit only"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(3, 32, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("3-bit groups of 64 or 128 only"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(5, 32, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("5-bit groups of 64 or 128 only"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(6, 32, Quant.BF16, 1, 24, 512));
    assertTrue(why != null && why.startsWith("6-bit groups of 64 or 128 only"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(2, 64, Quant.F32, 1, 24, 512));
    assertTrue(why != null && why.startsWith("bf16/f16 activations only"), why);
    // 2-bit g64 k = 512 at one warp would hold 8 words (16 x slots) per lane.
    QmmShape s = QmmShape.affine(2, 64, Quant.BF16, 1, 24, 512);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 1, 2));
    assertTrue(
        e.getMessage().startsWith("ks must leave at most 8 x slots per lane (64 2-bit codes)"),
        e.getMessage());
    QmmShape s6 = QmmShape.affine(6, 64, Quant.BF16, 1, 24, 512);
    e = assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s6, 1, 1, 2));
    assertTrue(
        e.getMessage().startsWith("ks must leave at most 8 x slots per lane (64 6-bit codes)"),
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> QmmMmaAsyncKernel.plan(QmmShape.affine(2, 32, Quant.BF16, 1, 24, 512), 1, 2, 2));
    assertTrue(e.getMessage().startsWith("s cannot be computed by this kernel"), e.getMessage());
  }

  /** n smaller than one batch, and a single feature. */
  @Test
  void tinyN() {
    check(QmmShape.affine(4, 64, Quant.BF16, 4, 9, 512), 200);
    check(QmmShape.affine(4, 64, Quant.F16, 1, 1, 512), 201);
  }

  /** Shapes whose warp slices hold 1 or 3 groups are refused with the reason; bad plans too. */
  @Test
  void rejectsWithReasons() {
    String why = QmmMmaAsyncKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 1088));
    assertTrue(why != null && why.startsWith("2, 4 or 8 groups per warp slice"), why);
    why = QmmMmaAsyncKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 24, 1152));
    assertTrue(why != null && why.contains("got 3"), why);
    assertTrue(QmmMmaAsyncKernel.supports(QmmShape.affine(8, 64, Quant.BF16, 1, 24, 512)) != null);
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 24, 4096);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 1));
    assertTrue(e.getMessage().startsWith("stages must be >= 2"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 9));
    assertTrue(e.getMessage().startsWith("stages must be >= 2"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncKernel.plan(s, 1, 16, 2, 3));
    assertTrue(e.getMessage().startsWith("rt must be 1 or 2"), e.getMessage());
    assertEquals(1, QmmMmaAsyncKernel.plan(s, 132).get("rt"), "the default plan: one row tile");
  }
}
