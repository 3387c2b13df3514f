package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The staged decode kernel ({@link SdpaVectorStaged#decode}: {@link SdpaVector}'s body with K and V
 * through the {@link SdpaKvStages} ring) on the Java backend against the float64 oracle of {@link
 * AttnCase}. The ring's indexing is what is new, so every case has splits of more than {@link
 * SdpaKvStages#STAGES} block iterations (the ring wraps) as well as short ones (the prologue runs
 * past the split's end), over views into longer caches whose tail is NaN.
 */
class SdpaVectorStagedTest {
  static final int CI_SMS = 16;
  static final int H200_SMS = 132;

  /**
   * MLX's "fused sdpa at head dims 256 and 512" (q {@code [1, 8, Lq, D]} bf16, k/v the first Lkv
   * rows of {@code [1, 2, Lkv+16, D]}, scale 1/√D) with MLX's rtol = atol = 2e-2 and the bf16 bound
   * of {@link AttnCase#tolerance}, under the H200 plan and forced to one pass (1500 keys in one
   * split: 188 or 94 iterations of the ring).
   */
  @ParameterizedTest(name = "D={0} Lq={1} Lkv={2} causal={3}")
  @MethodSource("sirocco.kernels.attention.SdpaVectorTest#mlxHeadDims256And512")
  void mlxHeadDims256And512(int d, int lq, int lkv, boolean causal) {
    AttnCase c = SdpaVectorTest.gqaCase(8, 2, lq, lkv, d, Sdpa.BF16, d + lq + lkv);
    c.cacheLen = lkv + 16;
    c.maskKind = causal ? Sdpa.MASK_CAUSAL : Sdpa.MASK_NONE;
    c.generate();
    float[] split = c.runVector(SdpaVectorStaged.plan(c.shape(), H200_SMS, 0));
    c.check("H200 plan (MLX tolerance)", split, 2e-2, 2e-2);
    c.check("H200 plan", split);
    c.check("one pass", c.runVector(SdpaVectorStaged.plan(c.shape(), H200_SMS, 1)));
  }

  static Stream<Arguments> everyWidthAndMask() {
    List<Arguments> all = new ArrayList<>();
    long seed = 100;
    for (int d : new int[] {64, 96, 128, 256, 512}) {
      for (int mask = Sdpa.MASK_NONE; mask <= Sdpa.MASK_BOOL; mask++) {
        all.add(Arguments.of(d, mask, seed++));
      }
    }
    return all.stream();
  }

  /**
   * Every head dim and mask kind, bf16 and f16 alternating, Lq 1–3, sinks on odd seeds, a batch of
   * 2, keys seq-major in a longer cache at an offset: two splits (each several ring turns), three
   * splits and one pass.
   */
  @ParameterizedTest(name = "D={0} mask={1}")
  @MethodSource
  void everyWidthAndMask(int d, int mask, long seed) {
    int iter = SdpaVectorPlans.keysPerIteration(d);
    AttnCase c =
        SdpaVectorTest.gqaCase(
            4,
            2,
            1 + (int) (seed % 3),
            iter * 11 + 5,
            d,
            seed % 2 == 0 ? Sdpa.BF16 : Sdpa.F16,
            seed);
    c.batch = 2;
    c.maskKind = mask;
    c.sinks = seed % 2 == 1;
    c.cacheLen = c.lkv + 24;
    c.kvOffset = 8;
    c.kvSeqMajor = true;
    c.generate();
    c.check("2 splits", c.runVector(SdpaVectorStaged.plan(c.shape(), CI_SMS, 2)));
    c.check("3 splits", c.runVector(SdpaVectorStaged.plan(c.shape(), CI_SMS, 3)));
    c.check("one pass", c.runVector(SdpaVectorStaged.plan(c.shape(), CI_SMS, 1)));
  }

  /**
   * Splits with nothing to read: causal with fewer keys than queries (query row 0 sees no key and
   * yields 0, never NaN; the prologue must request nothing past the horizon), and a single key.
   */
  @ParameterizedTest(name = "D={0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {64, 256, 512})
  void emptyAndSingleKeySplits(int d) {
    AttnCase c = SdpaVectorTest.gqaCase(4, 4, 3, 2, d, Sdpa.F16, d);
    c.maskKind = Sdpa.MASK_CAUSAL;
    c.generate();
    float[] out = c.runVector(SdpaVectorStaged.plan(c.shape(), CI_SMS, 0));
    c.check("causal, Lq 3 over 2 keys", out);
    for (int e = 0; e < d; e++) {
      assertEquals(0f, out[e], "row 0 (no key) element " + e);
    }
    AttnCase one = SdpaVectorTest.gqaCase(8, 2, 1, 1, d, Sdpa.BF16, d + 1);
    one.generate();
    one.check("one key", one.runVector(SdpaVectorStaged.plan(one.shape(), CI_SMS, 0)));
  }

  /** The plan: the vector kernel's rows and iteration, this kernel's shared memory and class. */
  @Test
  void plan() {
    SdpaShape s = SdpaVectorTest.gqaCase(32, 8, 1, 32768, 512, Sdpa.BF16, 1).shape();
    SdpaVectorPlans.Plan p = SdpaVectorStaged.plan(s, H200_SMS, 0);
    assertEquals(SdpaVectorStaged.class, p.kernelClass());
    assertEquals(4, p.rows());
    assertEquals(2, p.blocksPerSm(), p.toString()); // 97 KiB of shared memory per block
    assertTrue(p.partial() && p.grid().count() <= 2L * H200_SMS, p.toString());
    assertEquals(0, p.splitKeys() % SdpaVectorPlans.keysPerIteration(512), p.toString());
    assertEquals(
        SdpaVector.SHARED_BYTES + SdpaKvStages.STAGES * SdpaVector.WARPS * 8 * 32 * 16,
        SdpaVectorStaged.SHARED_BYTES);
  }
}
