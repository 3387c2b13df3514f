package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.api.Bf16;
import sirocco.runtime.host.HostGridRunner;

/**
 * Pass 2 of split-K ({@link SdpaSplitK#combine}) in isolation against its float64 reference, the
 * pass-1 partials of {@link SdpaVector#decode}, and why the partials stay float32.
 */
class SdpaSplitKTest {

  /**
   * Synthetic partials shaped like pass 1's (a split with max −inf has sum 0 and O = 0), some rows
   * with every split empty, more splits than a block has split groups, with and without sinks.
   */
  @ParameterizedTest(name = "D={0}")
  @ValueSource(ints = {64, 96, 128, 256, 512})
  void combineMatchesReference(int d) {
    int hq = 3;
    int lq = 2;
    SdpaShape shape = SdpaShape.of(1, hq, 1, lq, 1000, d);
    int rows = shape.outputRows();
    for (int splits : new int[] {1, 5, 17, 40, 70, 150}) {
      for (boolean sinks : new boolean[] {false, true}) {
        SplittableRandom r = new SplittableRandom(d * 100L + splits);
        float[] partO = new float[rows * splits * d];
        float[] partML = new float[rows * splits * 2];
        for (int row = 0; row < rows; row++) {
          for (int s = 0; s < splits; s++) {
            int at = row * splits + s;
            boolean empty = row == 4 || r.nextInt(4) == 0;
            partML[at * 2] = empty ? Float.NEGATIVE_INFINITY : (float) (40 * r.nextDouble() - 20);
            partML[at * 2 + 1] = empty ? 0 : (float) (1 + 30 * r.nextDouble());
            for (int e = 0; e < d; e++) {
              partO[at * d + e] = empty ? 0 : (float) (10 * r.nextGaussian());
            }
          }
        }
        float[] sinkValues = {3f, -2f, 40f};
        short[] out = new short[rows * d];
        Arrays.fill(out, (short) 0x7FC0);
        SdpaSplitK.CombinePlan plan = SdpaSplitK.combinePlan(shape, splits);
        HostGridRunner.run(
            AttnCase.kernel(SdpaSplitK.class, "combine"),
            plan.grid(),
            plan.block(),
            SdpaSplitK.combineArgs(
                partO, partML, sinkValues, out, shape, splits, Sdpa.BF16, sinks));
        for (int row = 0; row < rows; row++) {
          double[] ref =
              SdpaSplitK.reference(partO, partML, sinkValues, row, splits, d, hq, lq, sinks);
          for (int e = 0; e < d; e++) {
            float got = Bf16.toFloat(out[row * d + e]);
            double err = Math.abs(got - ref[e]);
            assertTrue(
                err <= 1e-5 + 5e-3 * Math.abs(ref[e]),
                "row "
                    + row
                    + " element "
                    + e
                    + " splits "
                    + splits
                    + " sinks "
                    + sinks
                    + ": got "
                    + got
                    + ", expected "
                    + ref[e]);
            if (row == 4) {
              assertEquals(0f, got, "a row with every split empty is 0");
            }
          }
        }
      }
    }
  }

  /**
   * Pass-1 partials of a causal Lq = 3 case with one key per split: splits past a row's horizon
   * hold (−inf, 0) and O = 0; splits it sees hold a finite base-2 max and a sum of at least 1.
   */
  @Test
  void passOnePartialsOfEmptySplits() {
    AttnCase c = SdpaVectorTest.gqaCase(2, 1, 3, 6, 64, Sdpa.BF16, 2);
    c.maskKind = Sdpa.MASK_CAUSAL;
    c.generate();
    SdpaShape shape = c.shape();
    SdpaVectorPlans.Plan plan = SdpaVectorPlans.plan(shape, 16, 1, 4, 6);
    assertEquals(6, plan.splits());
    SdpaSplitK.CombinePlan cp = SdpaSplitK.combinePlan(shape, plan.splits());
    float[] partO = new float[(int) cp.partialOFloats()];
    float[] partML = new float[(int) cp.partialMLFloats()];
    Arrays.fill(partO, Float.NaN);
    Arrays.fill(partML, Float.NaN);
    HostGridRunner.run(
        AttnCase.kernel(SdpaVector.class, "decode"),
        plan.grid(),
        plan.block(),
        SdpaVectorPlans.decodeArgs(
            c.q16,
            c.k16,
            c.v16,
            c.maskAdd,
            c.maskBool,
            c.sinkArray,
            new short[1],
            partO,
            partML,
            shape,
            c.qs,
            c.ks,
            c.vs,
            c.ms,
            c.effectiveScale(),
            c.dtype,
            c.maskKind,
            false,
            plan));
    for (int row = 0; row < shape.outputRows(); row++) {
      int i = row % 3;
      for (int s = 0; s < 6; s++) {
        int at = row * 6 + s;
        boolean visible = s <= i + 6 - 3;
        if (visible) {
          assertTrue(Float.isFinite(partML[at * 2]), "max of a visible split");
          assertEquals(1f, partML[at * 2 + 1], 0f, "one key: sum = 2^0");
        } else {
          assertEquals(Float.NEGATIVE_INFINITY, partML[at * 2], "row " + row + " split " + s);
          assertEquals(0f, partML[at * 2 + 1]);
          for (int e = 0; e < 64; e++) {
            assertEquals(0f, partO[at * 64 + e]);
          }
        }
      }
    }
  }

  /**
   * Why partials are float32: uniform attention over 2048 keys whose values are +1 for the first
   * half and −1 + small for the second, so the output is a small difference of two large split
   * sums. Float32 partials give the right answer; the same partials rounded to bf16 (what a
   * bf16-partials kernel would store) miss it by far more than the bf16 output tolerance.
   */
  @Test
  void float32PartialsKeepTheCancellation() {
    AttnCase c = SdpaVectorTest.gqaCase(1, 1, 1, 2048, 64, Sdpa.BF16, 3);
    c.generate().fillQ(0f); // every score 0: uniform weights
    SplittableRandom r = new SplittableRandom(5);
    for (int j = 0; j < 2048; j++) {
      for (int e = 0; e < 64; e++) {
        c.v[j * 64 + e] = j < 1024 ? 1f : -1f + r.nextInt(8) / 128f;
      }
    }
    c.setKeyRow(0, c.k[0]); // re-lays out v as well
    SdpaShape shape = c.shape();
    SdpaVectorPlans.Plan plan = SdpaVectorPlans.plan(shape, 16, 1, 4, 2);
    c.check("float32 partials", c.runVector(plan));

    SdpaSplitK.CombinePlan cp = SdpaSplitK.combinePlan(shape, 2);
    float[] partO = new float[(int) cp.partialOFloats()];
    float[] partML = new float[(int) cp.partialMLFloats()];
    HostGridRunner.run(
        AttnCase.kernel(SdpaVector.class, "decode"),
        plan.grid(),
        plan.block(),
        SdpaVectorPlans.decodeArgs(
            c.q16,
            c.k16,
            c.v16,
            c.maskAdd,
            c.maskBool,
            c.sinkArray,
            new short[1],
            partO,
            partML,
            shape,
            c.qs,
            c.ks,
            c.vs,
            c.ms,
            c.effectiveScale(),
            c.dtype,
            c.maskKind,
            false,
            plan));
    float[] roundedO = partO.clone();
    for (int i = 0; i < roundedO.length; i++) {
      roundedO[i] = Bf16.toFloat(Bf16.fromFloat(roundedO[i]));
    }
    double[] oracle = c.oracle();
    double[] exact = SdpaSplitK.reference(partO, partML, null, 0, 2, 64, 1, 1, false);
    double[] lossy = SdpaSplitK.reference(roundedO, partML, null, 0, 2, 64, 1, 1, false);
    double[] tol = AttnCase.tolerance(Sdpa.BF16);
    double worstExact = 0; // error / allowed, per element
    double worstLossy = 0;
    for (int e = 0; e < 64; e++) {
      double allowed = tol[0] + tol[1] * Math.abs(oracle[e]);
      worstExact = Math.max(worstExact, Math.abs(exact[e] - oracle[e]) / allowed);
      worstLossy = Math.max(worstLossy, Math.abs(lossy[e] - oracle[e]) / allowed);
    }
    assertTrue(worstExact < 0.1, "float32 partials use " + worstExact + " of the bf16 bound");
    assertTrue(
        worstLossy > 2,
        "bf16 partials should exceed the bf16 output bound; they use only " + worstLossy);
  }
}
