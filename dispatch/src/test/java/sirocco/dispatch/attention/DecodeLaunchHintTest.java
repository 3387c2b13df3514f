package sirocco.dispatch.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import sirocco.dispatch.OccupancyHints;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.attention.SdpaVectorStaged;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.host.HostDevice;

/** The decode plan's occupancy hint reaches the {@link KernelLaunch} the vector rung queues. */
class DecodeLaunchHintTest {
  static Object[] args(SdpaShape s, SdpaVectorPlans.Plan p, int dtype, int maskKind) {
    HostDevice d = new HostDevice();
    DeviceBuffer h = d.allocate(ElementType.I16, 1);
    DeviceBuffer f = d.allocate(ElementType.F32, 1);
    DeviceBuffer b = d.allocate(ElementType.I8, 1);
    SdpaStrides qs = SdpaStrides.contiguous(s.qHeads(), s.qLen(), s.headDim());
    SdpaStrides ks = SdpaStrides.contiguous(s.kvHeads(), s.kvLen(), s.headDim());
    return SdpaVectorPlans.decodeArgs(
        h, h, h, f, b, f, h, f, f, s, qs, ks, ks, null, 0.125, dtype, maskKind, false, p);
  }

  @Test
  void forcedSplitsForExperiments() {
    SdpaShape s = SdpaShape.of(1, 32, 8, 1, 1024, 96);
    try {
      System.setProperty(SdpaLaunches.SPLITS_PROPERTY, "8");
      SdpaVectorPlans.Plan p = SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE);
      assertEquals(8, p.splits());
      assertEquals(128, p.splitKeys());
      assertEquals(0, p.minBlocksPerSm());
      System.setProperty(SdpaLaunches.SPLITS_PROPERTY, "1");
      assertEquals(false, SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE).partial());
      System.setProperty(SdpaLaunches.SPLITS_PROPERTY, "0");
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () -> SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE));
      org.junit.jupiter.api.Assertions.assertTrue(
          e.getMessage().contains("sirocco.sdpa.splits"), e.getMessage());
    } finally {
      System.clearProperty(SdpaLaunches.SPLITS_PROPERTY);
    }
    assertEquals(
        SdpaVectorPlans.planFor(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE),
        SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE));
  }

  @Test
  void theVectorRungPlansWithTheHintUnlessTurnedOff() {
    // 4096 keys: below the staged kernel's policy (8192 and up at D = 256); the tensor-core kernel
    // turned off, as it would take the call.
    SdpaShape s = SdpaShape.of(1, 32, 8, 1, 4096, 256);
    try {
      System.setProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY, "false");
      SdpaVectorPlans.Plan on = SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE);
      assertEquals(SdpaVectorPlans.planFor(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE), on);
      assertEquals(4, on.minBlocksPerSm());
      assertEquals(0, SdpaLaunches.vectorPlan(s, 132, 0, Sdpa.BF16, 0).minBlocksPerSm());
      System.setProperty(OccupancyHints.PROPERTY, "false");
      assertEquals(
          SdpaVectorPlans.plan(s, 132),
          SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, Sdpa.MASK_NONE));
    } finally {
      System.clearProperty(OccupancyHints.PROPERTY);
      System.clearProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY);
    }
  }

  @Test
  void thePlansHintIsTheLaunchs() {
    SdpaShape s = SdpaShape.of(1, 32, 8, 1, 8192, 256);
    SdpaVectorPlans.Plan p = SdpaVectorPlans.plan(s, 132);
    SdpaVectorPlans.Plan hinted =
        new SdpaVectorPlans.Plan(
            p.rows(),
            p.rowGroups(),
            p.splits(),
            p.splitKeys(),
            p.grid(),
            p.block(),
            p.sharedBytes(),
            4,
            4);
    KernelLaunch plain = SdpaLaunches.decodeLaunch(p, args(s, p, Sdpa.BF16, Sdpa.MASK_NONE));
    assertEquals(p.minBlocksPerSm(), plain.minBlocksPerSm());
    KernelLaunch l = SdpaLaunches.decodeLaunch(hinted, args(s, hinted, Sdpa.BF16, Sdpa.MASK_NONE));
    assertEquals(4, l.minBlocksPerSm());
    assertEquals(hinted.grid(), l.grid());
    assertEquals(hinted.block(), l.block());
  }

  /**
   * The staged kernel, for the calls the tensor-core kernel does not take (additive and boolean
   * masks; D = 256 with one row group at long contexts): the policy's cells (D = 512 from 8 block
   * iterations per split, D = 256 with one row group from 16), the switch both ways, and a
   * malformed switch refused with its name.
   */
  @Test
  void stagedDecodePolicyAndSwitch() {
    int add = Sdpa.MASK_ADDITIVE;
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 2048, 512);
    SdpaShape d512short = SdpaShape.of(1, 32, 8, 1, 1024, 512);
    SdpaShape d512q3 = SdpaShape.of(1, 32, 8, 3, 4096, 512);
    SdpaShape d256 = SdpaShape.of(1, 32, 8, 1, 8192, 256);
    SdpaShape d256short = SdpaShape.of(1, 32, 8, 1, 4096, 256);
    SdpaShape d256q2 = SdpaShape.of(1, 32, 8, 2, 32768, 256);
    SdpaShape d96 = SdpaShape.of(1, 32, 8, 1, 32768, 96);
    assertEquals(SdpaVectorStaged.class, kernelOf(d512, add));
    assertEquals(SdpaVectorStaged.class, kernelOf(d512q3, Sdpa.MASK_BOOL));
    assertEquals(SdpaVectorStaged.class, kernelOf(d256, add));
    // D = 256, one query, 8192 keys: the tensor-core kernel declines it without a mask too.
    assertEquals(SdpaVectorStaged.class, kernelOf(d256, Sdpa.MASK_NONE));
    assertEquals(SdpaVectorStaged.class, kernelOf(d256, Sdpa.MASK_CAUSAL));
    assertEquals(SdpaVector.class, kernelOf(d512short, add));
    assertEquals(SdpaVector.class, kernelOf(d256short, add));
    assertEquals(SdpaVector.class, kernelOf(d256q2, add));
    assertEquals(SdpaVector.class, kernelOf(d96, 0));
    SdpaVectorPlans.Plan p = SdpaLaunches.vectorPlan(d512, 132, 90, Sdpa.BF16, add);
    KernelLaunch l = SdpaLaunches.decodeLaunch(p, args(d512, p, Sdpa.BF16, add));
    assertEquals(SdpaVectorStaged.class, l.kernel().getDeclaringClass());
    try {
      System.setProperty(SdpaLaunches.STAGED_DECODE_PROPERTY, "true");
      assertEquals(SdpaVectorStaged.class, kernelOf(d96, 0));
      assertEquals(SdpaVectorMma.class, kernelOf(SdpaShape.of(1, 32, 8, 1, 8192, 128), 0));
      System.setProperty(SdpaLaunches.STAGED_DECODE_PROPERTY, "false");
      assertEquals(SdpaVector.class, kernelOf(d512, add));
      // The tensor-core policy follows the staged policy, not its switch.
      assertEquals(SdpaVector.class, kernelOf(d256, 0));
      System.setProperty(SdpaLaunches.STAGED_DECODE_PROPERTY, "on");
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class, () -> kernelOf(d512, add));
      assertEquals(
          "-Dsirocco.attention.vectorStaged must be true or false, got 'on'", e.getMessage());
    } finally {
      System.clearProperty(SdpaLaunches.STAGED_DECODE_PROPERTY);
    }
  }

  private static Class<?> kernelOf(SdpaShape s, int maskKind) {
    return SdpaLaunches.vectorPlan(s, 132, 90, Sdpa.BF16, maskKind).kernelClass();
  }

  /**
   * The tensor-core decode kernel: the policy's cells (every call it takes but D = 256 with one row
   * group at long contexts), the switch both ways, its hints, and a malformed switch refused with
   * its name.
   */
  @Test
  void tensorCoreDecodePolicyAndSwitch() {
    SdpaShape d128 = SdpaShape.of(1, 32, 8, 1, 8192, 128);
    SdpaShape d128q2 = SdpaShape.of(1, 32, 8, 2, 8192, 128);
    SdpaShape d64 = SdpaShape.of(1, 32, 8, 1, 8192, 64);
    SdpaShape d256q2 = SdpaShape.of(1, 32, 8, 2, 8192, 256);
    SdpaShape d256q1 = SdpaShape.of(1, 32, 8, 1, 8192, 256);
    SdpaShape d256short = SdpaShape.of(1, 32, 8, 1, 4096, 256);
    SdpaShape d512 = SdpaShape.of(1, 32, 8, 1, 8192, 512);
    assertEquals(true, SdpaLaunches.vectorPlan(d128, 132, 90, Sdpa.BF16, 0).mma());
    SdpaVectorPlans.Plan q2 = SdpaLaunches.vectorPlan(d128q2, 132, 90, Sdpa.BF16, 0);
    assertEquals(true, q2.mma());
    assertEquals(8, q2.rows());
    assertEquals(4, q2.minBlocksPerSm());
    KernelLaunch l = SdpaLaunches.decodeLaunch(q2, args(d128q2, q2, Sdpa.BF16, 0));
    assertEquals("decode", l.kernel().getName());
    assertEquals(SdpaVectorMma.class, l.kernel().getDeclaringClass());
    assertEquals(true, SdpaLaunches.vectorPlan(d64, 132, 90, Sdpa.F16, 1).mma());
    // The sliced head dims, with their own hints: none at 256 (5 blocks per SM), 4 at 512.
    SdpaVectorPlans.Plan w = SdpaLaunches.vectorPlan(d256q2, 132, 90, Sdpa.BF16, 0);
    assertEquals(true, w.mma());
    assertEquals(0, w.minBlocksPerSm());
    assertEquals(5, w.blocksPerSm());
    assertEquals(true, SdpaLaunches.vectorPlan(d256short, 132, 90, Sdpa.BF16, 0).mma());
    SdpaVectorPlans.Plan big = SdpaLaunches.vectorPlan(d512, 132, 90, Sdpa.BF16, 1);
    assertEquals(true, big.mma());
    assertEquals(4, big.minBlocksPerSm());
    // Masks it does not take, and D = 256 with one row group from 8192 keys, stay elsewhere.
    assertEquals(false, SdpaLaunches.vectorPlan(d128q2, 132, 90, Sdpa.BF16, 2).mma());
    assertEquals(false, SdpaLaunches.vectorPlan(d512, 132, 90, Sdpa.BF16, 3).mma());
    assertEquals(false, SdpaLaunches.vectorPlan(d256q1, 132, 90, Sdpa.BF16, 0).mma());
    try {
      System.setProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY, "true");
      assertEquals(true, SdpaLaunches.vectorPlan(d256q1, 132, 90, Sdpa.BF16, 0).mma());
      assertEquals(false, SdpaLaunches.vectorPlan(d128q2, 132, 90, Sdpa.BF16, 2).mma());
      System.setProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY, "false");
      assertEquals(false, SdpaLaunches.vectorPlan(d128, 132, 90, Sdpa.BF16, 0).mma());
      assertEquals(false, SdpaLaunches.vectorPlan(d64, 132, 90, Sdpa.BF16, 0).mma());
      assertEquals(false, SdpaLaunches.vectorPlan(d512, 132, 90, Sdpa.BF16, 0).mma());
      System.setProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY, "yes");
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () -> SdpaLaunches.vectorPlan(d64, 132, 90, Sdpa.BF16, 0));
      org.junit.jupiter.api.Assertions.assertTrue(
          e.getMessage().contains("sirocco.attention.vectorMma must be true or false"),
          e.getMessage());
    } finally {
      System.clearProperty(SdpaLaunches.TENSOR_CORE_DECODE_PROPERTY);
    }
  }
}
