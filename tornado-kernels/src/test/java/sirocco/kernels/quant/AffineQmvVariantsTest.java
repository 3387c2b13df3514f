package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The faster qmv variants ({@link AffineQmvWarpKernel}, {@link AffineQmvPersistentKernel}, {@link
 * AffineQmvSplitKKernel}) on the Java backend against the float64 reference: seeded random inputs
 * (several seeds), outputs poisoned with NaN before every run, every element checked with the same
 * bound as the other quant kernels ({@link QmmCase#check}).
 */
class AffineQmvVariantsTest {
  /** A variant as the ladder will see it: its support check and its plan for 132 SMs. */
  interface Variant {
    String name();

    String supports(QmmShape s);

    LaunchPlan plan(QmmShape s);

    Class<?> owner();
  }

  record V(
      String name,
      Class<?> owner,
      java.util.function.Function<QmmShape, String> sup,
      java.util.function.Function<QmmShape, LaunchPlan> pl)
      implements Variant {
    @Override
    public String supports(QmmShape s) {
      return sup.apply(s);
    }

    @Override
    public LaunchPlan plan(QmmShape s) {
      return pl.apply(s);
    }
  }

  static final int SMS = 132;

  static final Variant WARP =
      new V(
          "warp",
          AffineQmvWarpKernel.class,
          AffineQmvWarpKernel::supports,
          s -> AffineQmvWarpKernel.plan(s, SMS));

  static final Variant PERSISTENT =
      new V(
          "persistent",
          AffineQmvPersistentKernel.class,
          AffineQmvPersistentKernel::supports,
          s -> AffineQmvPersistentKernel.plan(s, SMS));

  static final Variant SPLITK =
      new V(
          "splitk",
          AffineQmvSplitKKernel.class,
          AffineQmvSplitKKernel::supports,
          s -> AffineQmvSplitKKernel.plan(s, SMS));

  static final Variant ASYNC =
      new V(
          "async",
          AffineQmvAsyncKernel.class,
          AffineQmvAsyncKernel::supports,
          s -> AffineQmvAsyncKernel.plan(s, SMS));

  static float[] run(QmmCase c, Class<?> owner, LaunchPlan plan) {
    Object out = c.outArg();
    TestSupport.run(
        owner,
        plan,
        c.wq,
        c.scalesArg(),
        c.biasesArg(),
        c.xArg(),
        out,
        c.s.rows(),
        c.s.n(),
        c.s.k());
    return c.outValues(out);
  }

  static void check(Variant v, QmmShape s, long seed) {
    assertNull(v.supports(s), v.name() + " " + s);
    QmmCase c = QmmCase.random(s, seed);
    LaunchPlan p = v.plan(s);
    c.check(run(c, v.owner(), p), v.name() + " " + p.describe());
  }

  static void check(QmmShape s, long seed, Class<?> owner, LaunchPlan p) {
    QmmCase c = QmmCase.random(s, seed);
    c.check(run(c, owner, p), p.describe());
  }

  // ---- A: warp per feature ----

  /**
   * Bits 2/4/8 × bf16/f16; n = 37 leaves a partial block (8 features per block); k = 1152 is 36
   * chunks at 4 bits (lanes 0–3 have two chunks, the rest one: not a multiple of the tile), 72 at 8
   * bits, 18 at 2 bits.
   */
  @Test
  void warpEveryWidthAndDtype() {
    long seed = 1;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int bits : new int[] {2, 4, 8}) {
        for (int g : new int[] {32, 64, 128}) {
          QmmShape s = QmmShape.affine(bits, g, dtype, 1, 37, 1152);
          if (AffineQmvWarpKernel.supports(s) != null) {
            assertTrue(bits == 2 && g == 32, s.toString());
            continue;
          }
          check(WARP, s, seed++);
        }
      }
    }
  }

  /** Several tiles per row, the last one partial: k = tile + one group. */
  @Test
  void warpSeveralTiles() {
    check(WARP, QmmShape.affine(4, 64, Quant.BF16, 1, 19, 4096 + 64), 11);
    check(WARP, QmmShape.affine(8, 32, Quant.F16, 1, 9, 2048 + 32), 12);
    check(WARP, QmmShape.affine(2, 128, Quant.BF16, 1, 9, 8192 + 128), 13);
    // 4 rows: cpl = 2, tile 2048 at 4 bits.
    check(WARP, QmmShape.affine(4, 32, Quant.BF16, 4, 11, 2048 + 32), 14);
  }

  /** Rows 1–5 (5 = one full block of 4 rows and one of 1), every rows-per-block setting. */
  @Test
  void warpRowsShareTheWeights() {
    long seed = 20;
    for (int m : new int[] {1, 2, 3, 4, 5}) {
      QmmShape s = QmmShape.affine(4, 64, Quant.BF16, m, 21, 640);
      check(WARP, s, seed++);
    }
    for (int r = 1; r <= 4; r++) {
      QmmShape s = QmmShape.affine(8, 64, Quant.F16, 3, 13, 512);
      check(s, seed++, AffineQmvWarpKernel.class, AffineQmvWarpKernel.plan(s, r, 8));
    }
    QmmShape s = QmmShape.affine(4, 128, Quant.BF16, 2, 40, 1024);
    check(s, seed++, AffineQmvWarpKernel.class, AffineQmvWarpKernel.plan(s, 1, 16));
    check(s, seed++, AffineQmvWarpKernel.class, AffineQmvWarpKernel.plan(s, 2, 4));
  }

  // ---- C: persistent ----

  @Test
  void persistentEveryWidthAndDtype() {
    long seed = 100;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int bits : new int[] {2, 4, 8}) {
        for (int g : new int[] {32, 64, 128}) {
          QmmShape s = QmmShape.affine(bits, g, dtype, 1, 37, 1152);
          if (bits == 2 && g == 32) {
            continue;
          }
          check(PERSISTENT, s, seed++);
        }
      }
    }
  }

  /**
   * Many features per warp (plans for 1 and 3 SMs: 32 and 96 warps walk n = 203 / 389 features),
   * several k steps per feature with a partial last one, and x rows on grid.y.
   */
  @Test
  void persistentWalksFeaturesAndSteps() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 203, 640);
    LaunchPlan p = AffineQmvPersistentKernel.plan(s, 1);
    assertTrue(p.grid().x() * 8 < s.n(), p.describe());
    check(s, 101, AffineQmvPersistentKernel.class, p);
    s = QmmShape.affine(8, 32, Quant.F16, 1, 389, 256);
    check(s, 102, AffineQmvPersistentKernel.class, AffineQmvPersistentKernel.plan(s, 3));
    // k = 4096 + 64 at 4 bits: 130 chunks, two steps per feature (the second has 2 chunks).
    s = QmmShape.affine(4, 64, Quant.BF16, 1, 45, 4096 + 64);
    p = AffineQmvPersistentKernel.plan(s, 1);
    assertEquals(2, p.get("kTiles"));
    check(s, 103, AffineQmvPersistentKernel.class, p);
    s = QmmShape.affine(8, 128, Quant.BF16, 1, 29, 2048 + 128);
    check(s, 104, AffineQmvPersistentKernel.class, AffineQmvPersistentKernel.plan(s, 2));
    s = QmmShape.affine(4, 32, Quant.F16, 3, 50, 512);
    check(s, 105, AffineQmvPersistentKernel.class, AffineQmvPersistentKernel.plan(s, 1));
    // Re-planned for 3 resident blocks per SM (a driver JIT with more than 64 registers).
    s = QmmShape.affine(4, 64, Quant.BF16, 1, 97, 256);
    p = AffineQmvPersistentKernel.plan(s, 1, 3);
    assertTrue(p.grid().x() <= 3, p.describe());
    check(s, 106, AffineQmvPersistentKernel.class, p);
  }

  @Test
  void persistentPlanOnH200() {
    LaunchPlan p =
        AffineQmvPersistentKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096), SMS);
    System.out.println("persistent plan at 12288x4096: " + p.describe());
    int warps = p.grid().x() * 8;
    assertTrue(
        p.grid().x()
            <= SMS
                * AffineQmvPersistentKernel.blocksPerSm(
                    QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096)),
        p.describe());
    assertEquals(3, (12288 + warps - 1) / warps, p.describe());
    assertNull(AffineQmvPersistentKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 64, 8192)));
    assertTrue(
        AffineQmvPersistentKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 64, 16384))
            .contains("k too large"));
  }

  // ---- B: split-K, x in registers ----

  /**
   * Bits 4/8 × bf16/f16 × every group; k = 1152 is 36 chunks at 4 bits (two warps, the second with
   * 4 live threads), 72 at 8 bits; n = 37 is not a multiple of the 4-feature batch.
   */
  @Test
  void splitKEveryWidthAndDtype() {
    long seed = 200;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int bits : new int[] {4, 8}) {
        for (int g : new int[] {32, 64, 128}) {
          check(SPLITK, QmmShape.affine(bits, g, dtype, 1, 37, 1152), seed++);
        }
      }
    }
  }

  /** Many batches per block (1–3 blocks), every batch size, rows on grid.y, one-chunk rows. */
  @Test
  void splitKWalksBatches() {
    long seed = 220;
    for (int fb : new int[] {1, 2, 4}) {
      for (int blocks : new int[] {1, 3}) {
        QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 29, 512);
        check(s, seed++, AffineQmvSplitKKernel.class, AffineQmvSplitKKernel.plan(s, blocks, fb));
      }
    }
    QmmShape s = QmmShape.affine(8, 32, Quant.F16, 3, 22, 320);
    check(s, seed++, AffineQmvSplitKKernel.class, AffineQmvSplitKKernel.plan(s, 2, 4));
    s = QmmShape.affine(4, 32, Quant.BF16, 2, 9, 32);
    check(SPLITK, s, seed++);
    LaunchPlan p =
        AffineQmvSplitKKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096), SMS);
    System.out.println("splitk plan at 12288x4096: " + p.describe());
    assertEquals(4, p.get("warps"));
    // Re-planned for 3 resident blocks per SM (a driver JIT with more registers): still one wave.
    s = QmmShape.affine(8, 64, Quant.F16, 1, 77, 256);
    p = AffineQmvSplitKKernel.plan(s, 1, 3, 2);
    assertTrue(p.grid().x() <= 3, p.describe());
    check(s, seed++, AffineQmvSplitKKernel.class, p);
  }

  // ---- D: split-K with asynchronous copies ----

  /**
   * Bits 4/8 × bf16/f16 × groups 32/64 (k = 1152: 36 and 18 groups); groups of 128 give 9 groups,
   * an odd count the kernel rejects (scales are copied in aligned pairs).
   */
  @Test
  void asyncEveryWidthAndDtype() {
    long seed = 300;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      for (int bits : new int[] {4, 8}) {
        for (int g : new int[] {32, 64, 128}) {
          QmmShape s = QmmShape.affine(bits, g, dtype, 1, 37, 1152);
          if (g == 128) {
            String why = AffineQmvAsyncKernel.supports(s);
            assertTrue(why != null && why.startsWith("k/groupSize must be even"), why);
            continue;
          }
          check(ASYNC, s, seed++);
        }
      }
    }
  }

  /**
   * Many batches per block (1–3 blocks) for every batch size and stage count, so stages wrap around
   * and the last refills are past the end; rows on grid.y; one-chunk rows.
   */
  @Test
  void asyncWalksBatchesThroughEveryStage() {
    long seed = 320;
    for (int fb : new int[] {1, 2, 4}) {
      for (int stages : new int[] {2, 3, 4}) {
        for (int blocks : new int[] {1, 3}) {
          QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 29, 512);
          check(
              s,
              seed++,
              AffineQmvAsyncKernel.class,
              AffineQmvAsyncKernel.plan(s, blocks, fb, stages));
        }
      }
    }
    QmmShape s = QmmShape.affine(8, 32, Quant.F16, 3, 22, 320);
    check(s, seed++, AffineQmvAsyncKernel.class, AffineQmvAsyncKernel.plan(s, 2, 4, 3));
    check(ASYNC, QmmShape.affine(4, 32, Quant.BF16, 2, 9, 64), seed++);
    LaunchPlan p =
        AffineQmvAsyncKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096), SMS);
    System.out.println("async plan at 12288x4096: " + p.describe());
    assertEquals(4, p.get("warps"));
    assertEquals(AffineQmvAsyncKernel.FB, p.get("fb"));
    assertEquals(AffineQmvAsyncKernel.STAGES, p.get("stages"));
  }

  /** Plans refuse stage counts that do not fit the static shared-memory limit. */
  @Test
  void asyncPlanKeepsToSharedMemory() {
    QmmShape s = QmmShape.affine(4, 64, Quant.BF16, 1, 64, 4096);
    assertEquals(36992, AffineQmvAsyncKernel.plan(s, 1, 4, 3).sharedBytes());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> AffineQmvAsyncKernel.plan(s, 1, 4, 4));
    assertTrue(e.getMessage().startsWith("stages must be >= 2"), e.getMessage());
  }

  /** The occupancy hint of the split-K plan: where it is asked for and what the grid assumes. */
  @Test
  void splitKOccupancyHint() {
    // Registers in four quarters of 16 K per SM: 5 blocks of 4 warps at 96, 6 at 80; at 7 warps
    // 96 registers fit 2 blocks (not the 3 of 64 K / (96 x 224)), 80 fit 3.
    assertEquals(5, AffineQmvSplitKKernel.residentBlocks(96, 4));
    assertEquals(6, AffineQmvSplitKKernel.residentBlocks(80, 4));
    assertEquals(20, AffineQmvSplitKKernel.residentBlocks(96, 1));
    assertEquals(24, AffineQmvSplitKKernel.residentBlocks(80, 1));
    assertEquals(2, AffineQmvSplitKKernel.residentBlocks(96, 7));
    assertEquals(3, AffineQmvSplitKKernel.residentBlocks(80, 7));
    assertEquals(7, AffineQmvSplitKKernel.residentBlocks(72, 4));
    // The unhinted plan sizes its grid by the same count: 7 warps (k = 7168 at 4 bits), bf16 g64
    // (no hint), 132 SMs: one wave of 2 blocks per SM, 3072 batches balanced as 12 per block: 256
    // blocks (the flat count's 3 per SM gave 384, a second wave). 4 warps: 5 per SM, 615 blocks.
    QmmShape seven = QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 7168);
    assertEquals(
        256, AffineQmvSplitKKernel.plan(seven, 132, false).grid().x(), "blocks at 7 warps");
    assertEquals(
        615,
        AffineQmvSplitKKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096), 132, false)
            .grid()
            .x());
    // Where the hint is asked for: 4 bits, f16 or bf16 with groups of 32, and a block gained.
    assertEquals(0, AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.BF16, 4));
    assertEquals(0, AffineQmvSplitKKernel.minBlocksPerSm(4, 128, Quant.BF16, 4));
    assertEquals(6, AffineQmvSplitKKernel.minBlocksPerSm(4, 32, Quant.BF16, 4));
    assertEquals(6, AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.F16, 4));
    assertEquals(3, AffineQmvSplitKKernel.minBlocksPerSm(4, 128, Quant.F16, 8));
    assertEquals(24, AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.F16, 1));
    assertEquals(0, AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.F16, 5));
    assertEquals(0, AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.F16, 16));
    assertEquals(0, AffineQmvSplitKKernel.minBlocksPerSm(8, 32, Quant.F16, 4));
    assertEquals(80, AffineQmvSplitKKernel.registers(4, 64, Quant.F16, 4));
    assertEquals(96, AffineQmvSplitKKernel.registers(4, 64, Quant.BF16, 4));
    assertEquals(72, AffineQmvSplitKKernel.registers(8, 64, Quant.F16, 4));
    // bf16 g64 (the benchmark): unchanged, 5 blocks per SM, 615 blocks of 5 batches.
    LaunchPlan bf =
        AffineQmvSplitKKernel.plan(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096), SMS);
    assertEquals(0, bf.minBlocksPerSm());
    assertEquals(615, bf.grid().x());
    // f16 g64: 6 blocks per SM asked for, the grid sized for them (768 blocks of 4 batches).
    LaunchPlan f =
        AffineQmvSplitKKernel.plan(QmmShape.affine(4, 64, Quant.F16, 1, 12288, 4096), SMS);
    assertEquals(6, f.minBlocksPerSm());
    assertEquals(768, f.grid().x());
    assertTrue(f.describe().contains("minBlocksPerSm=6"), f.describe());
    // Explicit plans carry no hint.
    assertEquals(
        0,
        AffineQmvSplitKKernel.plan(QmmShape.affine(4, 64, Quant.F16, 1, 12288, 4096), SMS, 6, 4)
            .minBlocksPerSm());
    // The hinted plan computes the same on the Java backend (which ignores the hint).
    QmmShape s = QmmShape.affine(4, 64, Quant.F16, 2, 37, 1152);
    LaunchPlan small = AffineQmvSplitKKernel.plan(s, 1);
    assertEquals(AffineQmvSplitKKernel.minBlocksPerSm(4, 64, Quant.F16, 2), small.minBlocksPerSm());
    check(s, 230, AffineQmvSplitKKernel.class, small);
  }

  @Test
  void splitKSupports() {
    assertTrue(
        AffineQmvSplitKKernel.supports(QmmShape.affine(2, 64, Quant.BF16, 1, 8, 128))
            .contains("bits"));
    assertNull(AffineQmvSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 16384)));
    assertTrue(
        AffineQmvSplitKKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 32768))
            .contains("k too large"));
  }

  // ---- shared checks ----

  static List<Variant> all() {
    List<Variant> l = new ArrayList<>();
    l.add(WARP);
    l.add(PERSISTENT);
    l.add(SPLITK);
    return l;
  }

  /**
   * MLX test_qmv_affine_bias_sum_precision: zero scales and unit biases make the product sum(x) for
   * x = tile([1, 1/denom, -1, 0]); only a float accumulation of the group sums gives the exact sign
   * * k / (4 * denom).
   */
  @Test
  void biasSumIsAccumulatedInFloat() {
    for (Variant v : all()) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        float denom = dtype == Quant.F16 ? 2048f : 256f;
        for (int n : new int[] {1, 12}) {
          for (int k : new int[] {64, 512}) {
            for (int bits : new int[] {4, 8}) {
              int g = 64;
              float[] pat = {1f, 1f / denom, -1f, 0f};
              short[] x = new short[k];
              for (int i = 0; i < k; i++) {
                x[i] = QuantFormats.toHalfBits(dtype, pat[i % 4]);
              }
              int groups = n * k / g;
              short[] scales = QuantFormats.toHalfBits(dtype, new float[groups]);
              float[] ones = new float[groups];
              java.util.Arrays.fill(ones, 1f);
              short[] biases = QuantFormats.toHalfBits(dtype, ones);
              int[] wq = new int[n * k * bits / 32];
              short[] out = TestSupport.halfPoisoned(n);
              QmmShape s = QmmShape.affine(bits, g, dtype, 1, n, k);
              assertNull(v.supports(s));
              TestSupport.run(v.owner(), v.plan(s), wq, scales, biases, x, out, 1, n, k);
              float want = k / (4 * denom);
              for (int j = 0; j < n; j++) {
                assertEquals(
                    want,
                    QuantMath.halfToFloat(out[j], dtype),
                    0f,
                    v.name() + " dtype=" + dtype + " n=" + n + " k=" + k + " bits=" + bits);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void supportsRejectsWithReasons() {
    for (Variant v : all()) {
      assertNull(v.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 12288, 4096)), v.name());
      assertNull(v.supports(QmmShape.affine(8, 64, Quant.F16, 1, 12288, 4096)), v.name());
      assertTrue(
          v.supports(QmmShape.affine(3, 64, Quant.BF16, 1, 8, 128)).contains("bits"), v.name());
      assertTrue(
          v.supports(QmmShape.affine(4, 64, Quant.F32, 1, 8, 128)).contains("bf16/f16"), v.name());
      assertTrue(
          v.supports(QmmShape.affine(2, 32, Quant.BF16, 1, 8, 128)).contains("group"), v.name());
      assertTrue(
          v.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 128, 128).withTranspose(false))
              .contains("transpose"),
          v.name());
      assertTrue(
          v.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 1, 8, 128)).contains("affine"), v.name());
      assertTrue(
          v.supports(QmmShape.affine(4, 64, Quant.BF16, 1, 8, 96)).contains("multiple"), v.name());
    }
  }
}
