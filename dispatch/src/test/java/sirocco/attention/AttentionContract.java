package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import sirocco.Backend;
import sirocco.DType;
import sirocco.Mask;
import sirocco.SdpaOptions;
import sirocco.Sirocco;
import sirocco.Tensor;

/**
 * {@link Sirocco#scaledDotProductAttention} through the public API against {@link
 * AttnSpec#reference()} (float64, from the math): every rung of the ladder, every mask kind and
 * broadcast shape, GQA, sinks, cache slices and other views, fully masked rows, validation errors,
 * {@code forceFused}, and the reported decisions. Subclasses pick the backend; the cases are the
 * same on both.
 *
 * <p>Shapes are small: the Java backend runs every GPU thread, and the kernels themselves are
 * tested at size in tornado-kernels.
 *
 * <p>The cases that pin the vector and fallback rungs are in {@link AttentionRungCases}, the
 * runtime, the decision listener and {@code check} in {@link AttentionHarness}; JUnit runs the
 * inherited cases in every subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AttentionContract extends AttentionRungCases {
  // ---- masks: every broadcast shape MLX allows ----

  @Test
  void additiveMaskBroadcastShapes() {
    long[][] shapes = {
      {7}, {1}, {3, 7}, {1, 7}, {2, 1, 7}, {1, 2, 3, 7}, {2, 2, 3, 7}, {2, 1, 1, 7}, {1, 1, 3, 1}
    };
    int n = 0;
    for (long[] shape : shapes) {
      for (String rung : new String[] {"vector", "fallback"}) {
        AttnSpec s = spec("additive broadcast " + java.util.Arrays.toString(shape), rung);
        s.batch = 2;
        s.hq = 2;
        s.hkv = 1;
        s.lq = 3;
        s.lkv = 7;
        s.headDim = rung.equals("vector") ? 64 : 16; // D 16: no vector kernel
        s.maskKind = Mask.Kind.ADDITIVE;
        s.maskShape = shape;
        s.maskOffset = (n % 3) * 5;
        s.maskDtype = n % 2 == 0 ? DType.F32 : DType.F16;
        s.maskFn = (b, h, i, j) -> 3 * (hash(10, b, h, i, j) - 0.5);
        s.seed = n++;
        check(s);
      }
    }
  }

  @Test
  void boolMaskBroadcastShapesAndTransposedViews() {
    long[][] shapes = {{5}, {2, 5}, {2, 1, 5}, {1, 2, 2, 5}, {2, 2, 2, 5}};
    int n = 0;
    for (long[] shape : shapes) {
      for (boolean transposed : new boolean[] {false, true}) {
        AttnSpec s = spec("bool broadcast " + java.util.Arrays.toString(shape), "vector");
        s.batch = 2;
        s.hq = 2;
        s.hkv = 2;
        s.lq = 2;
        s.lkv = 5;
        s.maskKind = Mask.Kind.BOOL;
        s.maskShape = shape;
        s.maskTransposed = transposed;
        s.maskOffset = transposed ? 3 : 0;
        s.maskFn = (b, h, i, j) -> hash(11, b, h, i, j) < 0.6 ? 1 : 0;
        s.seed = 50 + n++;
        check(s);
      }
    }
  }

  @Test
  void transposedHalfPrecisionAdditiveMaskIsGatheredThenWidened() {
    AttnSpec s = spec("additive bf16 mask, transposed view behind an offset", "fallback");
    s.dtype = DType.F32;
    s.hq = 2;
    s.hkv = 2;
    s.lq = 4;
    s.lkv = 6;
    s.maskKind = Mask.Kind.ADDITIVE;
    s.maskDtype = DType.BF16;
    s.maskShape = new long[] {2, 4, 6};
    s.maskTransposed = true;
    s.maskOffset = 7;
    s.maskFn = (b, h, i, j) -> 3 * (hash(12, b, h, i, j) - 0.5);
    check(s);
  }

  // ---- forceFused ----

  @Test
  void forceFusedRunsTheVectorKernelWhenItCan() {
    AttnSpec s = spec("forced vector", "vector");
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 9;
    AttnSpec.Call c = s.build(rt);
    Tensor out =
        rt.scaledDotProductAttention(
            c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options().withForceFused(true));
    assertRung("vector", decisions.get(decisions.size() - 1), "forced");
    float[] got = rt.toFloats(out);
    double[] ref = s.reference();
    for (int i = 0; i < ref.length; i++) {
      assertTrue(Math.abs(got[i] - ref[i]) <= 1e-4 + 5e-3 * Math.abs(ref[i]), "element " + i);
    }
  }

  /** The experiment knob {@code -Dsirocco.sdpa.splits=N} changes the split count, not results. */
  @Test
  void forcedSplitCountsGiveTheSameAttention() {
    AttnSpec s = spec("forced splits", "vector");
    s.hq = 4;
    s.hkv = 2;
    s.lkv = 100;
    AttnSpec.Call c = s.build(rt);
    double[] ref = s.reference();
    try {
      for (String splits : new String[] {"1", "3", "7", "100"}) {
        System.setProperty("sirocco.sdpa.splits", splits);
        Tensor out =
            rt.scaledDotProductAttention(
                c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options().withForceFused(true));
        assertRung("vector", decisions.get(decisions.size() - 1), splits + " splits");
        float[] got = rt.toFloats(out);
        for (int i = 0; i < ref.length; i++) {
          assertTrue(
              Math.abs(got[i] - ref[i]) <= 1e-4 + 5e-3 * Math.abs(ref[i]),
              splits + " splits, element " + i + ": " + got[i] + " vs " + ref[i]);
        }
      }
    } finally {
      System.clearProperty("sirocco.sdpa.splits");
    }
  }

  @Test
  void forceFusedThrowsWithEveryReasonInsteadOfFallingBack() {
    AttnSpec s = spec("forced f32", null);
    s.dtype = DType.F32;
    s.lq = 5;
    AttnSpec.Call c = s.build(rt);
    rt.synchronize();
    long used = rt.memoryBytes()[0];
    UnsupportedOperationException e =
        assertThrows(
            UnsupportedOperationException.class,
            () ->
                rt.scaledDotProductAttention(
                    c.q(),
                    c.k(),
                    c.v(),
                    1f,
                    Mask.none(),
                    SdpaOptions.defaults().withForceFused(true)));
    String m = e.getMessage();
    assertTrue(m.contains("cudnn: "), m);
    assertTrue(m.contains("vector: vector SDPA takes bf16 or f16 (got f32)"), m);
    assertTrue(m.contains("fallback: not allowed (forced choice)"), m);
    if (backend() == Backend.JAVA) {
      assertEquals(used, rt.memoryBytes()[0], "nothing allocated by a refused call");
    }
  }

  // ---- validation ----

  /**
   * The call throws IllegalArgumentException containing {@code fragment}, reports no decision and,
   * on the Java backend (whose memory count no cleaner changes behind the test's back), allocates
   * nothing.
   */
  private void assertRejects(String fragment, Executable call) {
    long used = rt.memoryBytes()[0];
    int before = decisions.size();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' not in: " + e.getMessage());
    if (backend() == Backend.JAVA) {
      assertEquals(used, rt.memoryBytes()[0], "nothing allocated before rejecting: " + fragment);
    }
    assertEquals(before, decisions.size(), "no decision before rejecting: " + fragment);
  }

  private Tensor bf16(long... shape) {
    return rt.zeros(DType.BF16, shape);
  }

  @Test
  void everyValidationErrorNamesTheArgument() {
    Tensor q = bf16(1, 4, 1, 64);
    Tensor k = bf16(1, 2, 8, 64);
    Tensor v = bf16(1, 2, 8, 64);
    Tensor rank3 = bf16(4, 1, 64);
    Tensor kRank3 = bf16(2, 8, 64);
    Tensor rank5 = bf16(1, 1, 2, 8, 64);
    Tensor kD32 = bf16(1, 2, 8, 32);
    Tensor kv3 = bf16(1, 3, 8, 64);
    Tensor v7 = bf16(1, 2, 7, 64);
    Tensor kB2 = bf16(2, 2, 8, 64);
    Tensor kF16 = rt.zeros(DType.F16, 1, 2, 8, 64);
    Tensor qU8 = rt.zeros(DType.U8, 1, 4, 1, 64);
    Tensor mask19 = rt.zeros(DType.F32, 1, 9);
    Tensor mask5d = rt.zeros(DType.U8, 1, 1, 1, 1, 8);
    Tensor mask218 = rt.zeros(DType.U8, 2, 1, 8);
    Tensor f32x8 = rt.zeros(DType.F32, 8);
    Tensor u8x8 = rt.zeros(DType.U8, 8);
    Tensor sinks2 = rt.zeros(DType.F32, 2);
    Tensor sinks14 = rt.zeros(DType.F32, 1, 4);
    Tensor sinksI32 = rt.zeros(DType.I32, 4);
    Tensor closed = bf16(1, 2, 8, 64);
    closed.close();
    Mask none = Mask.none();
    SdpaOptions defaults = SdpaOptions.defaults();
    rt.synchronize();
    assertRejects(
        "q must have rank 4 [B, Hq, Lq, D], got shape [4, 1, 64]",
        () -> rt.scaledDotProductAttention(rank3, k, v, 1f, none));
    assertRejects(
        "k must have rank 4 [B, Hkv, Lkv, D], got shape [2, 8, 64]",
        () -> rt.scaledDotProductAttention(q, kRank3, v, 1f, none));
    assertRejects(
        "v must have rank 4 [B, Hkv, Lkv, Dv], got shape [1, 1, 2, 8, 64]",
        () -> rt.scaledDotProductAttention(q, k, rank5, 1f, none));
    assertRejects(
        "k's head dim must equal q's", () -> rt.scaledDotProductAttention(q, kD32, v, 1f, none));
    assertRejects(
        "q's head count Hq = 4 must be a multiple of k and v's head count Hkv = 3",
        () -> rt.scaledDotProductAttention(q, kv3, kv3, 1f, none));
    assertRejects(
        "v must have k's heads and length", () -> rt.scaledDotProductAttention(q, k, v7, 1f, none));
    assertRejects(
        "k's batch size must equal q's", () -> rt.scaledDotProductAttention(q, kB2, v, 1f, none));
    assertRejects(
        "k must have q's dtype BF16, got F16",
        () -> rt.scaledDotProductAttention(q, kF16, v, 1f, none));
    assertRejects(
        "q must be F32, F16 or BF16, got U8",
        () -> rt.scaledDotProductAttention(qU8, k, v, 1f, none));
    assertRejects(
        "scale must be finite", () -> rt.scaledDotProductAttention(q, k, v, Float.NaN, none));
    assertRejects(
        "mask of shape [1, 9] is not broadcastable to [B, Hq, Lq, Lkv] = [1, 4, 1, 8]",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, Mask.additive(mask19)));
    assertRejects(
        "mask of shape [1, 1, 1, 1, 8] is not broadcastable",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, Mask.bool(mask5d)));
    assertRejects(
        "mask of shape [2, 1, 8] is not broadcastable",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, Mask.bool(mask218)));
    assertRejects(
        "mask must be U8",
        () ->
            rt.scaledDotProductAttention(q, k, v, 1f, new Mask.WithTensor(Mask.Kind.BOOL, f32x8)));
    assertRejects(
        "mask must be F32, F16 or BF16",
        () ->
            rt.scaledDotProductAttention(
                q, k, v, 1f, new Mask.WithTensor(Mask.Kind.ADDITIVE, u8x8)));
    assertRejects(
        "mask tensor must not be null",
        () ->
            rt.scaledDotProductAttention(
                q, k, v, 1f, new Mask.WithTensor(Mask.Kind.ADDITIVE, null)));
    assertRejects(
        "sinks must have shape [Hq] = [4], got [2]",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, none, defaults.withSinks(sinks2)));
    assertRejects(
        "sinks must have shape [Hq] = [4], got [1, 4]",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, none, defaults.withSinks(sinks14)));
    assertRejects(
        "sinks must be F32, F16 or BF16",
        () -> rt.scaledDotProductAttention(q, k, v, 1f, none, defaults.withSinks(sinksI32)));
    assertRejects(
        "options must not be null", () -> rt.scaledDotProductAttention(q, k, v, 1f, none, null));
    assertRejects("q must not be null", () -> rt.scaledDotProductAttention(null, k, v, 1f, none));
    assertRejects("k is closed", () -> rt.scaledDotProductAttention(q, closed, v, 1f, none));
    try (Sirocco other = Sirocco.open(Backend.JAVA)) {
      Tensor foreign = other.zeros(DType.BF16, 1, 2, 8, 64);
      other.synchronize();
      assertRejects(
          "v belongs to another Sirocco instance",
          () -> rt.scaledDotProductAttention(q, k, foreign, 1f, none));
    }
  }

  @Test
  void nullMaskMeansNone() {
    AttnSpec s = spec("null mask", "vector");
    s.lkv = 5;
    AttnSpec.Call c = s.build(rt);
    Tensor out = rt.scaledDotProductAttention(c.q(), c.k(), c.v(), c.scale(), null);
    float[] got = rt.toFloats(out);
    double[] ref = s.reference();
    for (int i = 0; i < ref.length; i++) {
      assertTrue(Math.abs(got[i] - ref[i]) <= 1e-4 + 5e-3 * Math.abs(ref[i]), "element " + i);
    }
  }
}
