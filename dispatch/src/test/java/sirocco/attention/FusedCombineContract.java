package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.attention.SdpaOp;

/**
 * The vector rung's opt-in fused combine ({@code -Dsirocco.sdpa.fusedCombine=true}, {@code
 * SdpaFusedCombine}): split-K decode attention in one launch, against the float64 reference and
 * against the two-launch path on the same backend, at forced split counts ({@code
 * -Dsirocco.sdpa.splits}) over head dims, query lengths, GQA, every mask kind and sinks; the same
 * call twice on one stream (the counters are reset by the launch), and the property's errors.
 * Subclasses pick the backend (the GPU one compares fused and unfused on the device).
 */
abstract class FusedCombineContract extends AttentionHarness {
  private static final String FUSED = SdpaOp.FUSED_COMBINE_PROPERTY;
  private static final String SPLITS = "sirocco.sdpa.splits";

  @AfterEach
  void clearProperties() {
    System.clearProperty(FUSED);
    System.clearProperty(SPLITS);
  }

  /** A decode case: D, Lq, Hq, Hkv, Lkv, mask, sinks, dtype. */
  private static AttnSpec decode(
      String name, int d, int lq, int hq, int hkv, int lkv, Mask.Kind mask, boolean sinks) {
    AttnSpec s = spec(name, "vector");
    s.headDim = d;
    s.lq = lq;
    s.hq = hq;
    s.hkv = hkv;
    s.lkv = lkv;
    s.sinks = sinks;
    s.maskKind = mask;
    if (mask == Mask.Kind.ADDITIVE) {
      // Row 0 of head 0 fully masked: a row with nothing but (maybe) the sink.
      s.maskFn =
          (b, h, i, j) ->
              h == 0 && i == 0 ? Double.NEGATIVE_INFINITY : 3 * (hash(9, b, h, i, j) - 0.5);
    } else if (mask == Mask.Kind.BOOL) {
      s.maskFn = (b, h, i, j) -> hash(10, b, h, i, j) < 0.6 ? 1 : 0;
    }
    return s;
  }

  /** The op's output for {@code s} with the fused property and split count given. */
  private float[] run(AttnSpec s, boolean fused, int splits) {
    System.setProperty(FUSED, Boolean.toString(fused));
    System.setProperty(SPLITS, Integer.toString(splits));
    AttnSpec.Call c = s.build(rt);
    Tensor out =
        rt.scaledDotProductAttention(c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options());
    float[] got = rt.toFloats(out);
    for (Tensor t : List.of(out, c.q(), c.k(), c.v())) {
      t.close();
    }
    return got;
  }

  private void compare(AttnSpec s, int splits) {
    String what = s + " at " + splits + " splits";
    // The fused path against the float64 reference (check() also asserts the rung).
    System.setProperty(FUSED, "true");
    System.setProperty(SPLITS, Integer.toString(splits));
    Decision d = check(s);
    assertTrue(
        d.note() != null && d.note().contains("fused"),
        what + ": the note says fused: " + d.explain());
    float[] fused = run(s, true, splits);
    float[] plain = run(s, false, splits);
    assertEquals(null, decisions.get(decisions.size() - 1).note(), "no note when off");
    double[] ref = s.reference();
    double[] tol = s.tolerance();
    for (int i = 0; i < ref.length; i++) {
      double bound = tol[0] + tol[1] * Math.abs(ref[i]);
      assertTrue(
          Math.abs(fused[i] - plain[i]) <= bound,
          what + ", element " + i + ": fused " + fused[i] + " vs two launches " + plain[i]);
    }
  }

  @Test
  void fusedCombineMatchesTheReferenceAndTheTwoLaunchPath() {
    List<Object[]> cases = new ArrayList<>();
    cases.add(new Object[] {decode("D64 Lq1 GQA4", 64, 1, 8, 2, 100, Mask.Kind.NONE, false), 3});
    cases.add(
        new Object[] {
          decode("D64 Lq3 GQA4 causal sinks", 64, 3, 8, 2, 77, Mask.Kind.CAUSAL, true), 7
        });
    cases.add(
        new Object[] {
          decode("D128 Lq2 GQA3 additive sinks", 128, 2, 6, 2, 90, Mask.Kind.ADDITIVE, true), 2
        });
    cases.add(
        new Object[] {decode("D128 Lq1 MHA bool", 128, 1, 4, 4, 64, Mask.Kind.BOOL, false), 5});
    cases.add(
        new Object[] {decode("D256 Lq1 GQA4 sinks", 256, 1, 8, 2, 70, Mask.Kind.NONE, true), 3});
    cases.add(
        new Object[] {
          decode("D256 Lq3 GQA4 additive", 256, 3, 4, 1, 50, Mask.Kind.ADDITIVE, false), 4
        });
    cases.add(new Object[] {decode("D512 Lq1 GQA4", 512, 1, 8, 2, 40, Mask.Kind.NONE, false), 2});
    cases.add(
        new Object[] {
          decode("D512 Lq2 GQA2 causal sinks", 512, 2, 2, 1, 33, Mask.Kind.CAUSAL, true), 3
        });
    cases.add(
        new Object[] {decode("D96 Lq1 GQA3 bool sinks", 96, 1, 3, 1, 50, Mask.Kind.BOOL, true), 7});
    // One key per split: many splits, the four-at-a-time fold and its remainder.
    cases.add(
        new Object[] {
          decode("D64 Lq2 one key per split", 64, 2, 2, 1, 45, Mask.Kind.NONE, true), 45
        });
    AttnSpec f16 = decode("D128 f16 Lq1 batch 2", 128, 1, 4, 2, 60, Mask.Kind.NONE, false);
    f16.dtype = DType.F16;
    f16.batch = 2;
    cases.add(new Object[] {f16, 6});
    for (Object[] c : cases) {
      compare((AttnSpec) c[0], (Integer) c[1]);
    }
  }

  /** The launch leaves its counters at 0: the next call on the stream needs no reset. */
  @Test
  void theSameCallTwiceOnOneStreamGivesTheSameResult() {
    AttnSpec a = decode("repeat a", 128, 1, 8, 2, 64, Mask.Kind.NONE, true);
    AttnSpec b = decode("repeat b", 64, 3, 16, 2, 40, Mask.Kind.CAUSAL, false);
    float[] first = run(a, true, 4);
    float[] second = run(a, true, 4);
    assertArrayEquals(first, second, "the same call twice");
    float[] other = run(b, true, 5);
    assertArrayEquals(other, run(b, true, 5), "another shape, twice");
    assertArrayEquals(first, run(a, true, 4), "the first shape again");
  }

  @Test
  void onePassPlansSayThereIsNothingToFuse() {
    AttnSpec s = decode("one pass", 64, 1, 2, 1, 20, Mask.Kind.NONE, false);
    run(s, true, 1);
    Decision d = decisions.get(decisions.size() - 1);
    assertEquals("vector", d.chosen());
    assertTrue(d.note() != null && d.note().contains("one pass"), d.explain());
  }

  @Test
  void aBadPropertyValueNamesTheProperty() {
    AttnSpec s = decode("bad property", 64, 1, 2, 1, 20, Mask.Kind.NONE, false);
    AttnSpec.Call c = s.build(rt);
    System.setProperty(FUSED, "yes");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                rt.scaledDotProductAttention(
                    c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options()));
    assertTrue(e.getMessage().contains(FUSED) && e.getMessage().contains("yes"), e.getMessage());
  }
}
