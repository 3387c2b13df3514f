package sirocco.dispatch.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The op's host logic: the ladder's shape, the cuDNN policy, broadcasting and fallback chunks. */
class SdpaOpTest {
  @Test
  void ladderOrderAndFusedRungs() {
    assertEquals(List.of("cudnn", "vector", "fallback"), SdpaOp.rungs());
    assertEquals(java.util.Set.of("cudnn", "vector"), SdpaOp.FUSED);
  }

  @Test
  void cudnnPolicyKeepsDecodeBlocksOffCudnn() {
    assertNull(SdpaOp.cudnnPolicyRejects(1));
    for (int lq = 2; lq < 16; lq++) {
      String why = SdpaOp.cudnnPolicyRejects(lq);
      assertTrue(why != null && why.contains("1 < Lq < 16"), "Lq " + lq);
    }
    assertNull(SdpaOp.cudnnPolicyRejects(16));
    assertNull(SdpaOp.cudnnPolicyRejects(4096));
  }

  @Test
  void vectorDecodeBoundReadsItsPropertyAtEveryCall() {
    String p = SdpaOp.VECTOR_DECODE_MAX_KEYS_PROPERTY;
    try {
      System.clearProperty(p);
      assertEquals(777, SdpaOp.vectorDecodeMaxKeys(777));
      System.setProperty(p, "1024");
      assertEquals(1024, SdpaOp.vectorDecodeMaxKeys(777));
      System.setProperty(p, "-5");
      assertEquals(0, SdpaOp.vectorDecodeMaxKeys(777), "a negative bound means none");
      System.setProperty(p, "6k");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> SdpaOp.vectorDecodeMaxKeys(777));
      assertEquals(
          "-Dsirocco.attention.vectorDecodeMaxKeys must be an integer number of keys (0: cuDNN"
              + " first for every Lq = 1 call), got '6k'",
          e.getMessage());
    } finally {
      System.clearProperty(p);
    }
  }

  @Test
  void broadcastingFollowsMlxRules() {
    long[] target = {2, 4, 3, 7};
    assertArrayEquals(
        new long[] {0, 0, 7, 1},
        SdpaValidation.broadcastStrides(new long[] {3, 7}, new long[] {7, 1}, target));
    assertArrayEquals(
        new long[] {0, 0, 0, 1},
        SdpaValidation.broadcastStrides(new long[] {7}, new long[] {1}, target));
    assertArrayEquals(
        new long[] {0, 21, 0, 3},
        SdpaValidation.broadcastStrides(new long[] {4, 1, 7}, new long[] {21, 21, 3}, target));
    assertArrayEquals(
        new long[] {0, 0, 0, 0},
        SdpaValidation.broadcastStrides(new long[] {}, new long[] {}, target));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SdpaValidation.broadcastStrides(new long[] {2, 7}, new long[] {7, 1}, target));
    assertTrue(e.getMessage().startsWith("mask of shape [2, 7] is not broadcastable"));
  }

  /** Every output element is produced by exactly one chunk, and chunks keep to the budget. */
  private static void checkChunks(
      int b, int hq, int hkv, int lq, int lkv, int dv, boolean causal, long budget) {
    FallbackChunks plan = FallbackChunks.of(b, hq, hkv, lq, lkv, dv, causal, budget);
    int[] covered = new int[b * hq * lq * dv];
    int g = hq / hkv;
    for (FallbackChunks.Chunk c : plan.chunks()) {
      assertTrue(c.scores() <= Math.max(budget, lkv), "budget: " + c);
      // Whole GQA groups, or one q head with its own kv head.
      boolean groups = c.qHeads() == c.kvHeads() * g && c.qHead0() == c.kvHead0() * g;
      boolean oneHead = c.qHeads() == 1 && c.kvHeads() == 1 && c.kvHead0() == c.qHead0() / g;
      assertTrue(groups || oneHead, "heads: " + c);
      assertTrue(c.qHeads() == hq || c.batches() == 1, c.toString());
      assertTrue(c.qLen() == lq || c.qHeads() == 1, "contiguous output: " + c);
      if (causal && c.qLen() < lq) {
        // The last query of the block sees keys up to i + Lkv - Lq: exactly kvLen of them.
        long horizon = (long) c.i0() + c.qLen() - 1 + lkv - lq + 1;
        assertEquals(Math.max(0, Math.min(lkv, horizon)), c.kvLen(), c.toString());
      } else {
        assertEquals(lkv, c.kvLen(), c.toString());
      }
      long at = c.outOffset();
      for (int bb = c.b0(); bb < c.b0() + c.batches(); bb++) {
        for (int h = c.qHead0(); h < c.qHead0() + c.qHeads(); h++) {
          for (int i = c.i0(); i < c.i0() + c.qLen(); i++) {
            for (int e = 0; e < dv; e++) {
              int idx = ((bb * hq + h) * lq + i) * dv + e;
              assertEquals(at++, idx, "row-major contiguous output of " + c);
              covered[idx]++;
            }
          }
        }
      }
      assertEquals(c.outOffset() + c.outCount(), at, c.toString());
    }
    for (int i = 0; i < covered.length; i++) {
      assertEquals(1, covered[i], "element " + i + " covered once");
    }
  }

  @Test
  void fallbackChunksCoverTheOutputOnceWithinTheBudget() {
    checkChunks(3, 4, 2, 5, 7, 3, false, Long.MAX_VALUE);
    assertTrue(FallbackChunks.of(3, 4, 2, 5, 7, 3, false, 1L << 26).single());
    checkChunks(3, 4, 2, 5, 7, 3, false, 2 * 140); // two batches per chunk
    checkChunks(3, 4, 2, 5, 7, 3, true, 100); // GQA groups (2·5·7 = 70)
    checkChunks(3, 4, 2, 5, 7, 3, true, 69); // query blocks
    checkChunks(2, 4, 1, 9, 4, 2, true, 8); // Lq > Lkv: blocks that see no key
    checkChunks(1, 2, 2, 3, 100, 2, false, 10); // one row exceeds the budget
    FallbackChunks z = FallbackChunks.of(1, 1, 1, 9, 4, 2, true, 8);
    assertEquals(0, z.chunks().get(0).kvLen(), "queries 0-1 of 9 see none of 4 keys");
    assertTrue(!FallbackChunks.of(2, 1, 1, 1, 4, 2, false, 4).single());
  }
}
