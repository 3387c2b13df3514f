package sirocco.dispatch.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.attention.SdpaVectorStaged;

/**
 * Which vector-rung launches start early: on a stream all of them (pass 1 and the combine); while a
 * graph is being captured only the tensor-core kernel's, except at D = 128 with Lq = 2 from 8192
 * keys; the property forces it either way.
 */
class EarlyStartPolicyTest {
  private static final boolean STREAM = false;
  private static final boolean GRAPH = true;

  private static SdpaVectorPlans.Plan plan(SdpaShape s) {
    return SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE);
  }

  private static boolean early(SdpaShape s, boolean capturing) {
    return SdpaLaunches.earlyStart(s, plan(s), capturing);
  }

  @Test
  void onAStreamEveryKernelStartsEarly() {
    for (int d : new int[] {64, 128, 256, 512}) {
      for (int lq = 1; lq <= 3; lq++) {
        for (int kv : new int[] {1024, 8192, 32768}) {
          SdpaShape s = SdpaShape.of(1, 32, 8, lq, kv, d);
          assertTrue(early(s, STREAM), s.toString());
        }
      }
    }
  }

  @Test
  void inAGraphTensorCoresStartEarlyExceptWhereMeasuredSlower() {
    SdpaShape d64 = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    assertTrue(plan(d64).mma(), "the tensor-core kernel takes D = 64");
    assertTrue(early(d64, GRAPH));
    for (int lq : new int[] {1, 3}) {
      SdpaShape d128 = SdpaShape.of(1, 32, 8, lq, 8192, 128);
      assertTrue(plan(d128).mma());
      assertTrue(early(d128, GRAPH), "Lq " + lq);
    }
    SdpaShape lq2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
    assertTrue(plan(lq2).mma());
    assertFalse(early(lq2, GRAPH));
    SdpaShape short2 = SdpaShape.of(1, 32, 8, 2, 1024, 128);
    assertTrue(early(short2, GRAPH));
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 8192, 512);
    assertTrue(plan(d512).mma(), "the tensor-core kernel takes D = 512");
    assertTrue(early(d512, GRAPH));
  }

  @Test
  void inAGraphTheVectorAndStagedKernelsLaunchPlainly() {
    SdpaShape d96 = SdpaShape.of(1, 32, 8, 2, 1024, 96);
    assertFalse(plan(d96).mma());
    assertFalse(early(d96, GRAPH));
    SdpaShape d256 = SdpaShape.of(1, 32, 8, 1, 8192, 256);
    assertEquals(SdpaVectorStaged.class, plan(d256).kernelClass());
    assertFalse(early(d256, GRAPH));
  }

  @Test
  void thePropertyForcesEitherWayAndRefusesOtherValues() {
    SdpaShape d64 = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 8192, 512);
    try {
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "false");
      assertFalse(early(d64, STREAM));
      assertFalse(early(d512, STREAM));
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "true");
      assertTrue(early(d512, GRAPH));
      SdpaShape lq2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
      assertTrue(early(lq2, GRAPH));
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "yes");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> early(d64, STREAM));
      assertTrue(e.getMessage().contains("sirocco.attention.earlyStart"), e.getMessage());
    } finally {
      System.clearProperty(SdpaLaunches.EARLY_START_PROPERTY);
    }
  }
}
