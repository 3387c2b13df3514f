package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tensor-core decode kernel ({@link SdpaVectorMma#decode}, one pass and split-K with {@link
 * SdpaSplitK#combine}) on the Java backend (mma simulated in float, lanes as threads) against the
 * float64 oracle of {@link AttnCase}, with the bounds of {@link AttnCase#tolerance} for the dtype;
 * outputs and partials are poisoned with NaN.
 */
class SdpaVectorMmaTest {
  static final int CI_SMS = 16;
  static final int H200_SMS = 132;

  static Stream<Arguments> decodeShapes() {
    List<Arguments> all = new ArrayList<>();
    for (int kl : new int[] {7, 9, 32, 63, 67, 129, 400, 2000}) {
      for (int kvHeads : new int[] {32, 8}) {
        for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
          all.add(Arguments.of(kl, kvHeads, mask));
        }
      }
    }
    return all.stream();
  }

  /**
   * MLX's {@code test_sdpa} decode shapes (qL = 1, D = 128, 32 q heads over 32 or 8 kv heads, f16,
   * MLX's input distributions) with the masks this kernel takes, and MLX's bound {@code |out - ref|
   * <= 3e-4 (1 + |ref|)}.
   */
  @ParameterizedTest(name = "kL={0} Hkv={1} mask={2}")
  @MethodSource
  void decodeShapes(int kl, int kvHeads, int mask) {
    AttnCase c = SdpaVectorTest.gqaCase(32, kvHeads, 1, kl, 128, Sdpa.F16, kl * 31L + kvHeads);
    double scale = 1 / Math.sqrt(128);
    c.qDist = AttnCase.Dist.uniform(0, 0.5);
    c.kDist = AttnCase.Dist.uniform(0, 0.5);
    c.vDist = AttnCase.Dist.uniform(0, scale);
    c.maskKind = mask;
    c.generate();
    float[] out = c.runVector(SdpaVectorMma.plan(c.shape(), CI_SMS));
    c.check("MLX tolerance", out, 3e-4, 3e-4);
    c.check("f16 tolerance", out);
  }

  /**
   * Head dims 64 and 128, bf16 and f16, Lq 1–3 (4, 8 and 12 rows of a GQA-4 group: one block of 4,
   * one of 8, two of 6), causal or not, over a view into a longer cache (NaN behind it), under the
   * H200 plan (split-K) and forced to one pass.
   */
  @Test
  void headDimsDtypesQueryLengths() {
    long seed = 7;
    for (int d : new int[] {64, 128}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (int lq = 1; lq <= 3; lq++) {
          for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
            AttnCase c = SdpaVectorTest.gqaCase(8, 2, lq, 300 + lq, d, dtype, seed++);
            c.cacheLen = c.lkv + 16;
            c.maskKind = mask;
            c.generate();
            c.check("H200 plan", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS)));
            c.check("one pass", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS, 1, 0)));
          }
        }
      }
    }
  }

  /**
   * Head dims 256 and 512 (each warp one slice of the head axis, scores summed across the warps),
   * bf16 and f16, Lq 1–3, causal or not, over a view into a longer cache, under the H200 plan
   * (split-K) and forced to one pass.
   */
  @Test
  void slicedHeadDims() {
    long seed = 41;
    for (int d : new int[] {256, 512}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (int lq = 1; lq <= 3; lq++) {
          for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
            AttnCase c = SdpaVectorTest.gqaCase(8, 2, lq, 150 + 7 * lq, d, dtype, seed++);
            c.cacheLen = c.lkv + 16;
            c.maskKind = mask;
            c.generate();
            c.check("H200 plan", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS)));
            c.check("one pass", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS, 1, 0)));
          }
        }
      }
    }
  }

  /**
   * MLX's "fused sdpa at head dims 256 and 512" case: q [1, 8, Lq, D] bf16, k/v the first Lkv rows
   * of [1, 2, Lkv + 16, D] (GQA 4), scale 1/√D, rtol = atol = 2e-2 against the oracle.
   */
  @Test
  void mlxFusedHeadDims256And512() {
    long seed = 90;
    for (int d : new int[] {256, 512}) {
      for (int lq : new int[] {1, 3}) {
        for (int lkv : new int[] {37, 1500}) {
          for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
            AttnCase c = SdpaVectorTest.gqaCase(8, 2, lq, lkv, d, Sdpa.BF16, seed++);
            c.cacheLen = lkv + 16;
            c.maskKind = mask;
            c.generate();
            c.check(
                "MLX tolerance", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS)), 2e-2, 2e-2);
          }
        }
      }
    }
  }

  /** MLX's GQA-long shapes (L 8192 and 8201: a split tail that is not a whole tile). */
  @Test
  void gqaLong() {
    for (int l : new int[] {8192, 8201}) {
      AttnCase c = SdpaVectorTest.gqaCase(32, 8, 1, l, 128, Sdpa.BF16, l);
      c.generate();
      c.check("H200 plan", c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS)));
    }
  }

  /** Attention sinks, one pass and split-K; a batch of 2; a whole and a sliced head axis. */
  @Test
  void sinksAndBatches() {
    for (int d : new int[] {64, 512}) {
      AttnCase c = SdpaVectorTest.gqaCase(8, 2, 1, 777, d, Sdpa.BF16, 11 + d);
      c.batch = 2;
      c.sinks = true;
      c.generate();
      c.check("split-K", c.runVector(SdpaVectorMma.plan(c.shape(), CI_SMS)));
      c.check("one pass", c.runVector(SdpaVectorMma.plan(c.shape(), CI_SMS, 1, 0)));
    }
  }

  /**
   * Causal with fewer keys than queries: the first query row sees no key and yields 0 (never NaN);
   * a −inf-free row next to it is unaffected.
   */
  @Test
  void rowWithoutKeysIsZero() {
    AttnCase c = SdpaVectorTest.gqaCase(4, 4, 3, 2, 128, Sdpa.F16, 5);
    c.maskKind = Sdpa.MASK_CAUSAL;
    c.generate();
    float[] out = c.runVector(SdpaVectorMma.plan(c.shape(), CI_SMS));
    c.check("causal", out);
    for (int d = 0; d < 128; d++) {
      assertEquals(0f, out[d], "row 0 (no key) element " + d);
    }
  }

  /** Which calls it takes, and why not the others. */
  @Test
  void supportsAndPlan() {
    SdpaShape s = SdpaVectorTest.gqaCase(32, 8, 1, 32768, 128, Sdpa.BF16, 1).shape();
    assertNull(SdpaVectorMma.supports(s, Sdpa.MASK_CAUSAL));
    String why = SdpaVectorMma.supports(s, Sdpa.MASK_ADDITIVE);
    assertTrue(why != null && why.startsWith("tensor-core decode takes no mask or causal"), why);
    why =
        SdpaVectorMma.supports(
            SdpaVectorTest.gqaCase(32, 8, 1, 100, 96, Sdpa.BF16, 1).shape(), Sdpa.MASK_NONE);
    assertTrue(why != null && why.contains("head dims 64, 128, 256 and 512, got 96"), why);
    SdpaVectorPlans.Plan p = SdpaVectorMma.plan(s, H200_SMS);
    assertTrue(p.mma() && p.partial(), p.toString());
    assertEquals(SdpaVectorMma.class, p.kernelClass());
    assertEquals(4, p.rows());
    assertEquals(0, p.splitKeys() % SdpaVectorMma.ITER_KEYS, p.toString());
    assertEquals(0, p.minBlocksPerSm());
    // On sm_90, D = 128 at 4 rows launches with the 4-block hint and a grid sized for it.
    SdpaVectorPlans.Plan h = SdpaVectorMma.plan(s, H200_SMS, 0, 90);
    assertEquals(4, h.minBlocksPerSm());
    assertTrue(h.grid().count() <= 4L * H200_SMS, h.toString());
    assertEquals(0, SdpaVectorMma.plan(s, H200_SMS, 0, 80).minBlocksPerSm());
  }
}
