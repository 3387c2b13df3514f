package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The staged tensor-core decode kernel ({@link SdpaVectorMmaStaged#decode}: {@link SdpaVectorMma}'s
 * body with each warp's next iteration of K and V taken from a shared slot filled by {@code
 * cp.async}) on the Java backend, against the float64 oracle of {@link AttnCase} and against {@link
 * SdpaVectorMma} itself: the same arithmetic in the same order, so the outputs must be equal bit
 * for bit whatever the slot does, as long as it hands back the right chunks. Splits are forced long
 * enough that warps run two to five iterations (the slot is read from the second).
 */
class SdpaVectorMmaStagedTest {
  static final int H200_SMS = 132;

  /**
   * Head dims 64 and 128, bf16 and f16, Lq 1–3, causal or not, over a view into a longer cache (NaN
   * behind it): 3 splits (a partial last iteration per split) and one pass.
   */
  @Test
  void headDimsDtypesQueryLengths() {
    long seed = 17;
    for (int d : new int[] {64, 128}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (int lq = 1; lq <= 3; lq++) {
          for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
            AttnCase c = SdpaVectorTest.gqaCase(8, 2, lq, 300 + 37 * lq, d, dtype, seed++);
            c.cacheLen = c.lkv + 16;
            c.maskKind = mask;
            c.generate();
            for (int splits : new int[] {2, 1}) {
              float[] staged =
                  c.runVector(SdpaVectorMmaStaged.plan(c.shape(), H200_SMS, splits, 0));
              c.check(splits + " splits", staged);
              float[] plain = c.runVector(SdpaVectorMma.plan(c.shape(), H200_SMS, splits, 0));
              assertArrayEquals(
                  plain, staged, d + "/" + dtype + "/" + lq + "/" + mask + " " + splits);
            }
          }
        }
      }
    }
  }

  /**
   * 8192 keys in the H200 plan's splits (64 of 128 keys at GQA 4: two iterations per warp, the case
   * the slot is for), one kv head to keep the Java run short.
   */
  @Test
  void longContextSplits() {
    AttnCase c = SdpaVectorTest.gqaCase(4, 1, 1, 8192, 128, Sdpa.BF16, 8192);
    c.generate();
    SdpaVectorPlans.Plan p = SdpaVectorMmaStaged.plan(c.shape(), H200_SMS, 64, 90);
    assertEquals(2 * SdpaVectorMma.ITER_KEYS, p.splitKeys(), p.toString());
    c.check("64 splits", c.runVector(p));
  }

  /** Attention sinks, split-K and one pass; a batch of 2. */
  @Test
  void sinksAndBatches() {
    AttnCase c = SdpaVectorTest.gqaCase(8, 2, 1, 777, 64, Sdpa.BF16, 11);
    c.batch = 2;
    c.sinks = true;
    c.generate();
    c.check("split-K", c.runVector(SdpaVectorMmaStaged.plan(c.shape(), H200_SMS, 4, 0)));
    c.check("one pass", c.runVector(SdpaVectorMmaStaged.plan(c.shape(), H200_SMS, 1, 0)));
  }

  /**
   * The plan: {@link SdpaVectorMma}'s rows, splits and hint, this kernel's class and shared memory
   * (the slots do not lower the resident blocks: 4 at D = 128 with the hint, 6 at D = 64).
   */
  @Test
  void plan() {
    for (int d : new int[] {64, 128}) {
      SdpaShape s = SdpaVectorTest.gqaCase(32, 8, 1, 8192, d, Sdpa.BF16, 1).shape();
      SdpaVectorPlans.Plan staged = SdpaVectorMmaStaged.plan(s, H200_SMS, 0, 90);
      SdpaVectorPlans.Plan plain = SdpaVectorMma.plan(s, H200_SMS, 0, 90);
      assertEquals(SdpaVectorMmaStaged.class, staged.kernelClass());
      assertTrue(staged.mma(), staged.toString());
      assertEquals(plain.blocksPerSm(), staged.blocksPerSm(), "D=" + d);
      assertEquals(d == 128 ? 4 : 6, staged.blocksPerSm(), "D=" + d);
      assertEquals(plain.grid(), staged.grid(), "D=" + d);
      assertEquals(plain.minBlocksPerSm(), staged.minBlocksPerSm(), "D=" + d);
      // 4 warps x (16 or 8) chunks x 32 lanes x 16 bytes.
      assertEquals(
          SdpaVectorMma.SHARED_BYTES + 4 * (d == 128 ? 16 : 8) * 32 * 16, staged.sharedBytes());
    }
  }
}
