package sirocco.kernels.attention;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * {@link SdpaVectorMma#decode} with each warp's next iteration of K and V requested by {@code
 * cp.async} into a shared slot ({@link SdpaMmaSlot}) while the current one is computed from
 * registers. Same arguments, plans, partials and results (the arithmetic is the same code, in the
 * same order).
 *
 * <p>Why: at 8192 keys the tensor-core kernel's splits are 128 keys long, two iterations per warp,
 * and each warp has one iteration (8 KiB at D = 128) in flight at a time; Nsight (RESULTS run 65)
 * shows pass 1 at 56% of DRAM bandwidth with the SMs idle for 22% of its cycles, waiting on those
 * loads. With the slot a warp requests its whole split at once, at no cost in occupancy: the slots
 * add 32 KiB per block at D = 128 (4 blocks per SM still fit, as registers allow) and 16 KiB at D =
 * 64 (6 still fit).
 */
public final class SdpaVectorMmaStaged {
  private SdpaVectorMmaStaged() {}

  /** Same parameters as {@link SdpaVectorMma#decode}; head dims 64 and 128, no mask or causal. */
  @Kernel(
      validateWith = {
        "headDim=128,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=128,dtype=1,rows=8,maskKind=1,hasSinks=true,partial=false",
        "headDim=64,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=64,dtype=1,rows=3,maskKind=1,hasSinks=false,partial=false"
      })
  public static void decode(
      KernelContext ctx,
      short[] q, // [B, Hq, Lq, D] bf16/f16 bits (strided)
      short[] k, // [B, Hkv, Lkv, D] bf16/f16 bits (strided rows)
      short[] v, // [B, Hkv, Lkv, D] bf16/f16 bits (strided rows)
      float[] maskAdd, // unused (no additive mask)
      byte[] maskBool, // unused (no boolean mask)
      float[] sinks, // [Hq] float32
      short[] out, // [B, Hq, Lq, D] bf16/f16 bits
      float[] partO, // [B*Hq*Lq, splits, D] float32
      float[] partML, // [B*Hq*Lq, splits, 2] float32
      int hq,
      int hkv,
      int lq,
      int lkv,
      int qOff,
      int qSB,
      int qSH,
      int qSL,
      int kOff,
      int kSB,
      int kSH,
      int kSL,
      int vOff,
      int vSB,
      int vSH,
      int vSL,
      int mOff,
      int mSB,
      int mSH,
      int mSL,
      int mSK,
      int splitKeys,
      float scaleLog2,
      @Specialize int headDim,
      @Specialize int dtype,
      @Specialize int rows,
      @Specialize int maskKind,
      @Specialize boolean hasSinks,
      @Specialize boolean partial) {
    SdpaVectorMma.body(
        ctx, q, k, v, maskAdd, maskBool, sinks, out, partO, partML, hq, hkv, lq, lkv, qOff, qSB,
        qSH, qSL, kOff, kSB, kSH, kSL, vOff, vSB, vSH, vSL, mOff, mSB, mSH, mSL, mSK, splitKeys,
        scaleLog2, headDim, dtype, rows, maskKind, hasSinks, partial, true);
  }

  // ---- host side ----

  /** Why this kernel cannot run the call: as {@link SdpaVectorMma#supports}. */
  public static String supports(SdpaShape shape, int maskKind) {
    return SdpaVectorMma.supports(shape, maskKind);
  }

  /**
   * The plan on {@code smCount} SMs of compute capability {@code arch} (0: no hint), with {@code
   * forceSplits} key splits (0: as many as fill one wave): {@link SdpaVectorMma}'s, with the slots'
   * shared memory counted.
   */
  public static SdpaVectorPlans.Plan plan(SdpaShape shape, int smCount, int forceSplits, int arch) {
    return SdpaVectorMma.plan(shape, smCount, forceSplits, arch, true);
  }
}
