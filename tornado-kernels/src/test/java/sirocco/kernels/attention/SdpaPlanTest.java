package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Launch plans and support checks (host logic only; no kernel runs). */
class SdpaPlanTest {
  static final int H200_SMS = 132;

  /**
   * The benchmark grid on an H200 (B = 1, 32 q heads over 8 kv heads, Lq 1–3): every key is covered
   * exactly once, split sizes are whole block iterations, the grid fits in one wave of the
   * estimated resident blocks, and long contexts fill at least 80% of it.
   */
  @Test
  void benchmarkPlansFillTheH200() {
    StringBuilder table =
        new StringBuilder("S D Lq rows rowGroups splits splitKeys blocks/target\n");
    for (int s : new int[] {1024, 8192, 32768}) {
      for (int d : new int[] {64, 128, 256, 512}) {
        for (int lq = 1; lq <= 3; lq++) {
          SdpaShape shape = SdpaShape.of(1, 32, 8, lq, s, d);
          SdpaVectorPlans.Plan p = SdpaVectorPlans.plan(shape, H200_SMS);
          long target = (long) H200_SMS * p.blocksPerSm();
          assertTrue((long) p.splits() * p.splitKeys() >= s, "keys covered");
          assertTrue((long) (p.splits() - 1) * p.splitKeys() < s, "no empty split");
          assertEquals(0, p.splitKeys() % SdpaVectorPlans.keysPerIteration(d), "whole iterations");
          assertTrue(p.grid().count() <= target, "one wave: " + p);
          if (s >= 8192) {
            assertTrue(p.grid().count() >= 0.8 * target, "fills the GPU: " + p);
          }
          assertTrue(p.rows() * p.rowGroups() >= 4 * lq, "rows cover the GQA group");
          table.append(
              String.format(
                  "%d %d %d %d %d %d %d %d/%d%n",
                  s,
                  d,
                  lq,
                  p.rows(),
                  p.rowGroups(),
                  p.splits(),
                  p.splitKeys(),
                  p.grid().count(),
                  target));
        }
      }
    }
    System.out.print(table);
  }

  @Test
  void defaultRowsBalanceTheGqaGroup() {
    assertEquals(4, SdpaVectorPlans.defaultRows(SdpaShape.of(1, 32, 8, 1, 10, 128)));
    assertEquals(4, SdpaVectorPlans.defaultRows(SdpaShape.of(1, 32, 8, 3, 10, 128))); // 12 = 3 x 4
    assertEquals(3, SdpaVectorPlans.defaultRows(SdpaShape.of(1, 5, 1, 1, 10, 128))); // 5 = 3 + 2
    assertEquals(1, SdpaVectorPlans.defaultRows(SdpaShape.of(1, 32, 32, 1, 10, 128)));
    assertEquals(2, SdpaVectorPlans.defaultRows(SdpaShape.of(1, 32, 32, 2, 10, 128)));
  }

  @Test
  void lanesPerKey() {
    assertEquals(8, SdpaVector.lanesPerKey(64));
    assertEquals(16, SdpaVector.lanesPerKey(96));
    assertEquals(16, SdpaVector.lanesPerKey(128));
    assertEquals(32, SdpaVector.lanesPerKey(256));
    assertEquals(32, SdpaVector.lanesPerKey(512));
    assertEquals(64, SdpaVectorPlans.keysPerIteration(64));
    assertEquals(32, SdpaVectorPlans.keysPerIteration(128));
    assertEquals(16, SdpaVectorPlans.keysPerIteration(256));
    assertEquals(8, SdpaVectorPlans.keysPerIteration(512));
  }

  @Test
  void vectorSupportReasons() {
    SdpaStrides dense = SdpaStrides.contiguous(8, 100, 128);
    SdpaShape ok = SdpaShape.of(1, 32, 8, 1, 100, 128);
    assertNull(SdpaVectorPlans.supports(ok, Sdpa.BF16, dense, dense, Sdpa.MASK_CAUSAL));
    assertNull(SdpaSplitK.supports(ok, Sdpa.F16, dense, dense, Sdpa.MASK_BOOL));
    assertReason("float32", SdpaVectorPlans.supports(ok, Sdpa.F32, dense, dense, 0));
    assertReason(
        "head dims",
        SdpaVectorPlans.supports(SdpaShape.of(1, 8, 8, 1, 10, 80), Sdpa.BF16, dense, dense, 0));
    assertReason(
        "v's head dim",
        SdpaVectorPlans.supports(
            new SdpaShape(1, 8, 8, 1, 10, 128, 64), Sdpa.BF16, dense, dense, 0));
    assertReason(
        "Lq = 4",
        SdpaVectorPlans.supports(SdpaShape.of(1, 8, 8, 4, 10, 128), Sdpa.BF16, dense, dense, 0));
    assertReason(
        "Lkv = 0",
        SdpaVectorPlans.supports(SdpaShape.of(1, 8, 8, 1, 0, 128), Sdpa.BF16, dense, dense, 0));
    SdpaStrides odd = new SdpaStrides(4, 0, 0, 128, 1);
    assertReason("multiples of 8", SdpaVectorPlans.supports(ok, Sdpa.BF16, odd, dense, 0));
    SdpaStrides dimMajor = new SdpaStrides(0, 0, 0, 1, 100);
    assertReason("last stride 1", SdpaVectorPlans.supports(ok, Sdpa.BF16, dense, dimMajor, 0));
  }

  private static void assertReason(String fragment, String reason) {
    assertTrue(reason != null && reason.contains(fragment), "reason: " + reason);
  }

  @Test
  void shapeValidationNamesTheArgument() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SdpaShape.of(1, 6, 4, 1, 10, 64));
    assertTrue(e.getMessage().contains("qHeads"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SdpaShape.of(1, 8, 8, 0, 10, 64));
    assertTrue(e.getMessage().contains("qLen"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new SdpaStrides(0, -1, 0, 0, 1));
    assertTrue(e.getMessage().contains("strides"), e.getMessage());
  }

  /**
   * The occupancy hint of the decode plan on an H200 (sm_90): where it is asked for, and why not.
   */
  @Test
  void occupancyHintOnTheH200() {
    assertEquals(160, SdpaVectorPlans.registers(128, 4, 0));
    assertEquals(128, SdpaVectorPlans.registers(128, 4, 4));
    assertEquals(64, SdpaVectorPlans.registers(64, 1, 4));
    // bf16 D = 256 without a mask: 4 blocks per SM asked for, the grid sized for them.
    SdpaShape s = SdpaShape.of(1, 32, 8, 1, 8192, 256);
    SdpaVectorPlans.Plan plain = SdpaVectorPlans.plan(s, H200_SMS);
    SdpaVectorPlans.Plan hinted =
        SdpaVectorPlans.planFor(s, H200_SMS, 90, Sdpa.BF16, Sdpa.MASK_NONE);
    assertEquals(3, plain.blocksPerSm());
    assertEquals(0, plain.minBlocksPerSm());
    assertEquals(4, hinted.blocksPerSm());
    assertEquals(4, hinted.minBlocksPerSm());
    assertTrue(hinted.splits() > plain.splits(), hinted + " vs " + plain);
    assertTrue(hinted.grid().count() <= 4L * H200_SMS, "one wave: " + hinted);
    assertTrue(hinted.grid().count() >= 0.8 * 4 * H200_SMS, "fills the GPU: " + hinted);
    // f16 D = 128 without a mask: asked for; bf16: declined (ptxas 12.0 spills 16 B).
    SdpaShape d128 = SdpaShape.of(1, 32, 8, 1, 8192, 128);
    assertEquals(4, SdpaVectorPlans.planFor(d128, H200_SMS, 90, Sdpa.F16, 0).minBlocksPerSm());
    SdpaVectorPlans.Plan bf128 = SdpaVectorPlans.planFor(d128, H200_SMS, 90, Sdpa.BF16, 0);
    assertEquals(SdpaVectorPlans.plan(d128, H200_SMS), bf128);
    // Declined: the causal mask, sm_80, fewer than 4 rows (one q head per kv head).
    assertEquals(
        0, SdpaVectorPlans.planFor(s, H200_SMS, 90, Sdpa.BF16, Sdpa.MASK_CAUSAL).minBlocksPerSm());
    assertEquals(
        0, SdpaVectorPlans.planFor(s, H200_SMS, 80, Sdpa.BF16, Sdpa.MASK_NONE).minBlocksPerSm());
    SdpaShape mha = SdpaShape.of(1, 32, 32, 1, 8192, 256);
    assertEquals(0, SdpaVectorPlans.planFor(mha, H200_SMS, 90, Sdpa.BF16, 0).minBlocksPerSm());
    // bf16 D = 64 without a mask: hinted in one pass only; a long context (split-K) keeps the plan
    // without a hint (its grid for 3 blocks), since the split-K variant spills at 128 (12.0).
    SdpaShape shortCtx = SdpaShape.of(1, 32, 8, 1, 50, 64);
    SdpaVectorPlans.Plan one = SdpaVectorPlans.planFor(shortCtx, H200_SMS, 90, Sdpa.BF16, 0);
    assertTrue(!one.partial());
    assertEquals(4, one.minBlocksPerSm());
    SdpaShape longCtx = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    assertEquals(
        SdpaVectorPlans.plan(longCtx, H200_SMS),
        SdpaVectorPlans.planFor(longCtx, H200_SMS, 90, Sdpa.BF16, 0));
    // Short contexts keep the plan without a hint when the hinted splits would be short (run 16).
    SdpaShape s1k = SdpaShape.of(1, 32, 8, 1, 1024, 256);
    assertEquals(
        SdpaVectorPlans.plan(s1k, H200_SMS),
        SdpaVectorPlans.planFor(s1k, H200_SMS, 90, Sdpa.BF16, Sdpa.MASK_NONE));
    SdpaShape s2k = SdpaShape.of(1, 32, 8, 1, 2048, 256);
    assertEquals(
        0, SdpaVectorPlans.planFor(s2k, H200_SMS, 90, Sdpa.BF16, Sdpa.MASK_NONE).minBlocksPerSm());
    SdpaVectorPlans.Plan s4k =
        SdpaVectorPlans.planFor(SdpaShape.of(1, 32, 8, 1, 4096, 256), H200_SMS, 90, Sdpa.BF16, 0);
    assertEquals(4, s4k.minBlocksPerSm());
    assertEquals(64, s4k.splitKeys());
    SdpaVectorPlans.Plan lq3 =
        SdpaVectorPlans.planFor(SdpaShape.of(1, 32, 8, 3, 2048, 256), H200_SMS, 90, Sdpa.BF16, 0);
    assertEquals(4, lq3.minBlocksPerSm());
    assertEquals(
        0,
        SdpaVectorPlans.planFor(SdpaShape.of(1, 32, 8, 3, 1024, 256), H200_SMS, 90, Sdpa.BF16, 0)
            .minBlocksPerSm());
    // Every plan's hint is the kernel's hint for the variant the plan launches.
    for (int dd : new int[] {64, 96, 128, 256, 512}) {
      for (int lq = 1; lq <= 3; lq++) {
        for (int len : new int[] {10, 300, 8192}) {
          SdpaShape sh = SdpaShape.of(2, 16, 4, lq, len, dd);
          for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
            for (int mask = 0; mask <= 3; mask++) {
              SdpaVectorPlans.Plan p = SdpaVectorPlans.planFor(sh, H200_SMS, 90, dtype, mask);
              int n = SdpaVectorPlans.minBlocksPerSm(90, dd, dtype, p.rows(), mask, p.partial());
              if (p.minBlocksPerSm() == 0) {
                // No hint: the kernel has none for this variant, or the hinted splits were short.
                assertEquals(SdpaVectorPlans.plan(sh, H200_SMS), p);
                assertTrue(n == 0 || p.partial(), p.toString());
              } else {
                assertEquals(n, p.minBlocksPerSm(), p.toString());
                assertTrue(!p.partial() || p.splitKeys() >= 64, p.toString());
              }
            }
          }
        }
      }
    }
  }

  @Test
  void forcedSplitsAndBounds() {
    SdpaShape s = SdpaShape.of(2, 8, 2, 1, 1000, 128);
    SdpaVectorPlans.Plan p = SdpaVectorPlans.plan(s, 132, 4, 3, 7);
    assertEquals(7, p.splits());
    assertTrue(p.partial());
    assertEquals(143, p.splitKeys());
    SdpaVectorPlans.Plan one = SdpaVectorPlans.plan(s, 132, 4, 3, 1);
    assertEquals(1, one.splits());
    assertTrue(!one.partial());
    assertThrows(IllegalArgumentException.class, () -> SdpaVectorPlans.plan(s, 132, 5, 3, 0));
    SdpaSplitK.CombinePlan cp = SdpaSplitK.combinePlan(s, 7);
    assertEquals(16, cp.grid().x());
    assertEquals(16L * 7 * 128, cp.partialOFloats());
  }
}
