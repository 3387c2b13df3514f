package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.runtime.Devices;

/**
 * The cases of {@link AttentionContract} that pin a rung: the vector kernel (one pass and split-K,
 * mask kinds and broadcasts, sinks, GQA, cache slices and other views, fully masked rows) and the
 * unfused fallback (longer queries, head dims, dtypes and views the vector kernel does not take,
 * the chunking of its score buffer, no keys, an empty output).
 */
abstract class AttentionRungCases extends AttentionHarness {
  // ---- the vector rung ----

  @Test
  void vectorDecodeLq1() {
    AttnSpec s = spec("vector Lq1", "vector");
    s.hq = 2;
    s.hkv = 2;
    s.lkv = 40;
    Decision d = check(s);
    if (backend() == Backend.JAVA) {
      assertEquals(
          "scaledDotProductAttention -> vector (rejected: cudnn: cuDNN runs only on CUDA devices)",
          d.explain());
    }
  }

  @Test
  void vectorLq2CausalGqaF16() {
    AttnSpec s = spec("vector Lq2 causal gqa", "vector");
    s.dtype = DType.F16;
    s.hq = 4;
    s.hkv = 2;
    s.lq = 2;
    s.lkv = 50;
    s.maskKind = Mask.Kind.CAUSAL;
    check(s);
  }

  /** Multiprocessors of this backend's device: what the op sizes its split-K plans by. */
  int multiprocessors() {
    return (backend() == Backend.JAVA ? Devices.java() : Devices.cuda(0)).info().multiprocessors();
  }

  @Test
  void vectorLq3CausalSplitK() {
    // 200 keys over 4 key iterations of 64: split on any device with 2+ multiprocessors.
    AttnSpec s = spec("vector Lq3 causal split-K", "vector");
    s.hq = 2;
    s.hkv = 1;
    s.lq = 3;
    s.lkv = 200;
    s.maskKind = Mask.Kind.CAUSAL;
    if (multiprocessors() >= 2) {
      assertTrue(
          SdpaVectorPlans.plan(SdpaShape.of(1, 2, 1, 3, 200, 64), multiprocessors()).partial());
    }
    check(s);
  }

  @Test
  void vectorLq1SplitKWithSinksAndMask() {
    // One row group and 5 key iterations: split on every device (at least 3 resident blocks).
    AttnSpec s = spec("vector Lq1 split-K, sinks, additive [Lkv]", "vector");
    s.dtype = DType.F16;
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 300;
    s.sinks = true;
    s.maskKind = Mask.Kind.ADDITIVE;
    s.maskShape = new long[] {300};
    s.maskFn = (b, h, i, j) -> j % 7 == 0 ? Double.NEGATIVE_INFINITY : hash(16, b, h, i, j);
    SdpaVectorPlans.Plan p =
        SdpaVectorPlans.plan(SdpaShape.of(1, 2, 1, 1, 300, 64), multiprocessors());
    assertTrue(p.partial(), "this case runs split-K: " + p);
    check(s);
  }

  @Test
  void vectorHeadDim128AdditiveMaskBroadcastFromLqLkv() {
    AttnSpec s = spec("vector D128 additive [Lq, Lkv]", "vector");
    s.headDim = 128;
    s.hq = 2;
    s.hkv = 1;
    s.lq = 2;
    s.lkv = 24;
    s.maskKind = Mask.Kind.ADDITIVE;
    s.maskShape = new long[] {2, 24};
    s.maskFn = (b, h, i, j) -> 3 * (hash(5, b, h, i, j) - 0.5);
    check(s);
  }

  @Test
  void vectorBoolMaskPerBatchBroadcastOverHeads() {
    AttnSpec s = spec("vector bool [B, 1, Lq, Lkv]", "vector");
    s.dtype = DType.F16;
    s.batch = 2;
    s.hq = 2;
    s.hkv = 2;
    s.lq = 1;
    s.lkv = 33;
    s.maskKind = Mask.Kind.BOOL;
    s.maskShape = new long[] {2, 1, 1, 33};
    s.maskFn = (b, h, i, j) -> hash(6, b, h, i, j) < 0.7 ? 1 : 0;
    check(s);
  }

  @Test
  void vectorAdditiveBf16MaskIsWidened() {
    AttnSpec s = spec("vector additive bf16 [1, Hq, 1, Lkv]", "vector");
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 20;
    s.maskKind = Mask.Kind.ADDITIVE;
    s.maskDtype = DType.BF16;
    s.maskShape = new long[] {1, 2, 1, 20};
    s.maskFn = (b, h, i, j) -> 4 * (hash(7, b, h, i, j) - 0.5);
    check(s);
  }

  @Test
  void vectorSinksGqa() {
    AttnSpec s = spec("vector sinks gqa 4:1", "vector");
    s.hq = 4;
    s.hkv = 1;
    s.lkv = 30;
    s.sinks = true;
    check(s);
  }

  @Test
  void vectorSinksInBf16AreWidened() {
    AttnSpec s = spec("vector bf16 sinks, Lq 2 causal", "vector");
    s.dtype = DType.F16;
    s.hq = 2;
    s.hkv = 2;
    s.lq = 2;
    s.lkv = 12;
    s.maskKind = Mask.Kind.CAUSAL;
    s.sinks = true;
    s.sinksDtype = DType.BF16;
    check(s);
  }

  @Test
  void vectorReadsASliceOfALongerCacheInPlace() {
    AttnSpec s = spec("vector cache slice [8, 78) of 96", "vector");
    s.hq = 2;
    s.hkv = 2;
    s.lkv = 70;
    s.cacheLen = 96;
    s.cacheStart = 8;
    check(s);
  }

  @Test
  void vectorReadsSeqMajorStorageThroughATranspose() {
    AttnSpec s = spec("vector k/v [B, L, H, D] transposed, prefix of a cache", "vector");
    s.batch = 2;
    s.hq = 4;
    s.hkv = 2;
    s.lq = 1;
    s.lkv = 21;
    s.cacheLen = 32;
    s.kvSeqMajor = true;
    s.qSeqMajor = true;
    s.maskKind = Mask.Kind.CAUSAL;
    check(s);
  }

  @Test
  void vectorCopiesAQueryWhoseLastAxisIsStrided() {
    AttnSpec s = spec("vector q dim-major (strided last axis)", "vector");
    s.hq = 2;
    s.hkv = 1;
    s.lq = 3;
    s.lkv = 10;
    s.qDimMajor = true;
    s.maskKind = Mask.Kind.CAUSAL;
    check(s);
  }

  @Test
  void vectorFullyMaskedRowsAreZero() {
    // Row (h=1) is entirely masked by the boolean mask; h=0 keeps a few keys.
    AttnSpec s = spec("vector fully masked row", "vector");
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 16;
    s.maskKind = Mask.Kind.BOOL;
    s.maskShape = new long[] {1, 2, 1, 16};
    s.maskFn = (b, h, i, j) -> h == 1 ? 0 : (j % 5 == 0 ? 1 : 0);
    check(s);
    AttnSpec a = spec("vector additive -inf row and -inf keys", "vector");
    a.hq = 2;
    a.hkv = 2;
    a.lkv = 16;
    a.maskKind = Mask.Kind.ADDITIVE;
    a.maskShape = new long[] {2, 1, 16};
    a.maskFn = (b, h, i, j) -> h == 0 || j % 3 == 0 ? Double.NEGATIVE_INFINITY : 0.5;
    check(a);
  }

  // ---- the fallback rung ----

  @Test
  void fallbackForLongerQueries() {
    AttnSpec s = spec("fallback Lq 5 causal gqa", "fallback");
    s.hq = 4;
    s.hkv = 2;
    s.lq = 5;
    s.lkv = 9;
    s.maskKind = Mask.Kind.CAUSAL;
    Decision d = check(s);
    assertTrue(
        d.explain().contains("vector: vector SDPA takes at most 3 queries per head, got Lq = 5"),
        d.explain());
  }

  @Test
  void fallbackCausalWithMoreQueriesThanKeysZeroesTheHiddenRows() {
    // Bottom-right causal: queries 0 and 1 of 6 see no key of 4.
    AttnSpec s = spec("fallback causal Lq 6 > Lkv 4", "fallback");
    s.dtype = DType.F16;
    s.hq = 1;
    s.hkv = 1;
    s.lq = 6;
    s.lkv = 4;
    s.maskKind = Mask.Kind.CAUSAL;
    check(s);
  }

  @Test
  void fallbackForUnsupportedHeadDim() {
    AttnSpec s = spec("fallback D 32", "fallback");
    s.headDim = 32;
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 10;
    Decision d = check(s);
    assertTrue(d.explain().contains("head dims 64, 96, 128, 256 and 512, got 32"), d.explain());
  }

  @Test
  void fallbackForFloat32() {
    AttnSpec s = spec("fallback f32 Lq 1", "fallback");
    s.dtype = DType.F32;
    s.hq = 2;
    s.hkv = 2;
    s.lkv = 12;
    Decision d = check(s);
    assertTrue(d.explain().contains("vector SDPA takes bf16 or f16 (got f32)"), d.explain());
  }

  @Test
  void fallbackForValueHeadDimOtherThanKeys() {
    AttnSpec s = spec("fallback Dv 24 != D 64", "fallback");
    s.valueDim = 24;
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 9;
    s.maskKind = Mask.Kind.CAUSAL;
    Decision d = check(s);
    assertTrue(d.explain().contains("v's head dim (24)"), d.explain());
  }

  @Test
  void fallbackF32SinksAndRank3AdditiveMask() {
    AttnSpec s = spec("fallback f32 sinks, additive [Hq, Lq, Lkv]", "fallback");
    s.dtype = DType.F32;
    s.hq = 2;
    s.hkv = 1;
    s.lq = 4;
    s.lkv = 7;
    s.sinks = true;
    s.maskKind = Mask.Kind.ADDITIVE;
    s.maskShape = new long[] {2, 4, 7};
    s.maskFn = (b, h, i, j) -> 2 * (hash(8, b, h, i, j) - 0.5);
    check(s);
  }

  @Test
  void fallbackForUnalignedKvView() {
    // k/v rows sliced out of wider rows at element 4: not 16-byte aligned for the vector kernel.
    AttnSpec s = spec("fallback unaligned k/v view", "fallback");
    s.hq = 2;
    s.hkv = 1;
    s.lkv = 11;
    s.kvDimPad = 6;
    s.kvDimStart = 4;
    Decision d = check(s);
    assertTrue(d.explain().contains("multiples of 8"), d.explain());
  }

  @Test
  void fallbackReadsStridedEverything() {
    AttnSpec s = spec("fallback bf16 Lq 4, q dim-major, k/v seq-major cache slice", "fallback");
    s.batch = 2;
    s.hq = 2;
    s.hkv = 1;
    s.lq = 4;
    s.lkv = 6;
    s.cacheLen = 10;
    s.cacheStart = 3;
    s.kvSeqMajor = true;
    s.qDimMajor = true;
    s.maskKind = Mask.Kind.BOOL;
    s.maskShape = new long[] {4, 6};
    s.maskTransposed = true;
    s.maskFn = (b, h, i, j) -> hash(9, b, h, i, j) < 0.6 ? 1 : 0;
    check(s);
  }

  @Test
  void fallbackFullyMaskedRowsAreZeroWithAndWithoutSinks() {
    AttnSpec s = spec("fallback bool row fully masked", "fallback");
    s.hq = 2;
    s.hkv = 2;
    s.lq = 4;
    s.lkv = 5;
    s.maskKind = Mask.Kind.BOOL;
    s.maskShape = new long[] {4, 5};
    s.maskFn = (b, h, i, j) -> i == 2 ? 0 : 1;
    check(s);
    AttnSpec k = spec("fallback additive -inf row with sinks", "fallback");
    k.dtype = DType.F32;
    k.hq = 2;
    k.hkv = 1;
    k.lq = 4;
    k.lkv = 5;
    k.sinks = true;
    k.maskKind = Mask.Kind.ADDITIVE;
    k.maskShape = new long[] {1, 1, 4, 5};
    k.maskFn = (b, h, i, j) -> i == 1 || j == 3 ? Double.NEGATIVE_INFINITY : 0.25 * j;
    check(k);
  }

  /**
   * The fallback in chunks (score budget lowered through its property): whole batches, whole GQA
   * groups, and one head × a block of queries with the causal horizon cut per block (including
   * blocks that see no key), with sinks, broadcast masks and strided views.
   */
  @Test
  void fallbackChunksItsScoreBuffer() {
    String property = "sirocco.attention.maxScoreFloats";
    String previous = System.getProperty(property);
    try {
      System.setProperty(property, "40"); // one batch of 2·2·5 = 20 scores: 2 batches per chunk
      AttnSpec a = spec("fallback chunks of whole batches", "fallback");
      a.batch = 3;
      a.hq = 2;
      a.hkv = 1;
      a.lq = 2;
      a.lkv = 5;
      a.headDim = 16;
      a.sinks = true;
      a.maskKind = Mask.Kind.ADDITIVE;
      a.maskShape = new long[] {3, 1, 2, 5};
      a.maskFn = (b, h, i, j) -> 2 * (hash(13, b, h, i, j) - 0.5);
      check(a);

      System.setProperty(property, "35"); // a GQA group of 2·3·5 = 30 scores per chunk
      AttnSpec g = spec("fallback chunks of GQA groups", "fallback");
      g.dtype = DType.F16;
      g.batch = 2;
      g.hq = 4;
      g.hkv = 2;
      g.lq = 3;
      g.lkv = 5;
      g.headDim = 16;
      g.sinks = true;
      g.kvSeqMajor = true;
      g.maskKind = Mask.Kind.BOOL;
      g.maskShape = new long[] {1, 4, 1, 5};
      g.maskFn = (b, h, i, j) -> hash(14, b, h, i, j) < 0.7 ? 1 : 0;
      check(g);

      System.setProperty(property, "15"); // 2 queries of 7 keys per chunk
      AttnSpec q = spec("fallback chunks of query blocks, causal", "fallback");
      q.dtype = DType.F32;
      q.batch = 2;
      q.hq = 2;
      q.hkv = 1;
      q.lq = 5;
      q.lkv = 7;
      q.headDim = 16;
      q.sinks = true;
      q.qDimMajor = true;
      q.maskKind = Mask.Kind.CAUSAL;
      check(q);

      AttnSpec z = spec("fallback query blocks with Lq > Lkv, causal", "fallback");
      z.hq = 2;
      z.hkv = 2;
      z.lq = 9;
      z.lkv = 4;
      z.headDim = 16;
      z.maskKind = Mask.Kind.CAUSAL;
      check(z);

      AttnSpec m = spec("fallback query blocks, additive mask and Dv != D", "fallback");
      m.hq = 2;
      m.hkv = 1;
      m.lq = 5;
      m.lkv = 7;
      m.headDim = 16;
      m.valueDim = 8;
      m.maskKind = Mask.Kind.ADDITIVE;
      m.maskDtype = DType.BF16;
      m.maskShape = new long[] {2, 5, 7};
      m.maskTransposed = true;
      m.maskFn = (b, h, i, j) -> 2 * (hash(15, b, h, i, j) - 0.5);
      check(m);
    } finally {
      if (previous == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, previous);
      }
    }
  }

  @Test
  void noKeysGivesZeros() {
    AttnSpec s = spec("fallback Lkv 0", "fallback");
    s.hq = 2;
    s.hkv = 1;
    s.lq = 2;
    s.lkv = 0;
    Decision d = check(s);
    assertTrue(d.explain().contains("at least one key"), d.explain());
    AttnSpec k = spec("fallback Lkv 0 with sinks", "fallback");
    k.hq = 2;
    k.hkv = 1;
    k.lkv = 0;
    k.sinks = true;
    check(k);
  }

  @Test
  void emptyOutputLaunchesNothing() {
    AttnSpec s = spec("Lq 0", null);
    s.lq = 0;
    AttnSpec.Call c = s.build(rt);
    Tensor out = rt.scaledDotProductAttention(c.q(), c.k(), c.v(), 1f, Mask.causal());
    assertArrayEquals(new long[] {1, 1, 0, 64}, out.shape());
    assertEquals(0, rt.toFloats(out).length);
    assertEquals(0, decisions.size());
  }
}
