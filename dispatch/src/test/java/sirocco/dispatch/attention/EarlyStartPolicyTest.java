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
 * Which vector-rung launches start early: all (pass 1 and the combine), except the tensor-core
 * kernel's at D = 128 with Lq = 2 from 8192 keys; the property forces it.
 */
class EarlyStartPolicyTest {
  private static SdpaVectorPlans.Plan plan(SdpaShape s) {
    return SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE);
  }

  @Test
  void tensorCoresStartEarlyExceptWhereMeasuredSlower() {
    SdpaShape d64 = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    assertTrue(plan(d64).mma(), "the tensor-core kernel takes D = 64");
    assertTrue(SdpaLaunches.earlyStart(d64, plan(d64)));
    for (int lq : new int[] {1, 3}) {
      SdpaShape d128 = SdpaShape.of(1, 32, 8, lq, 8192, 128);
      assertTrue(plan(d128).mma());
      assertTrue(SdpaLaunches.earlyStart(d128, plan(d128)), "Lq " + lq);
    }
    SdpaShape lq2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
    assertTrue(plan(lq2).mma());
    assertFalse(SdpaLaunches.earlyStart(lq2, plan(lq2)));
    SdpaShape short2 = SdpaShape.of(1, 32, 8, 2, 1024, 128);
    assertTrue(SdpaLaunches.earlyStart(short2, plan(short2)));
  }

  @Test
  void theVectorAndStagedKernelsStartEarlyEverywhere() {
    SdpaShape d256 = SdpaShape.of(1, 32, 8, 2, 1024, 256);
    assertFalse(plan(d256).mma());
    assertTrue(SdpaLaunches.earlyStart(d256, plan(d256)));
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 8192, 512);
    assertEquals(SdpaVectorStaged.class, plan(d512).kernelClass());
    assertTrue(SdpaLaunches.earlyStart(d512, plan(d512)));
    SdpaShape d128lq2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
    assertTrue(plan(d128lq2).mma(), "the one exception is the tensor-core kernel's");
  }

  @Test
  void thePropertyForcesEitherWayAndRefusesOtherValues() {
    SdpaShape d64 = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 8192, 512);
    try {
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "false");
      assertFalse(SdpaLaunches.earlyStart(d64, plan(d64)));
      assertFalse(SdpaLaunches.earlyStart(d512, plan(d512)));
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "true");
      assertTrue(SdpaLaunches.earlyStart(d512, plan(d512)));
      SdpaShape lq2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
      assertTrue(SdpaLaunches.earlyStart(lq2, plan(lq2)));
      System.setProperty(SdpaLaunches.EARLY_START_PROPERTY, "yes");
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> SdpaLaunches.earlyStart(d64, plan(d64)));
      assertTrue(e.getMessage().contains("sirocco.attention.earlyStart"), e.getMessage());
    } finally {
      System.clearProperty(SdpaLaunches.EARLY_START_PROPERTY);
    }
  }
}
