package sirocco.kernels.attention;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * {@link SdpaVector#decode} with K and V requested {@link SdpaKvStages#STAGES}{@code - 1}
 * iterations ahead through a {@code cp.async} ring in shared memory ({@link SdpaKvStages}) instead
 * of loaded into registers at the top of each iteration. Same arguments, plans, partials and
 * results (the arithmetic is the same code, in the same order).
 *
 * <p>Why: at D = 512 the vector kernel holds 221–233 registers, so only 8 warps fit an SM, and each
 * warp has its 128 bytes per lane in flight only between the top of an iteration and their first
 * use; Nsight (RESULTS run 12) shows the loop waiting on those loads (long scoreboard) with DRAM at
 * about half of its peak. The ring keeps up to three iterations (384 bytes per lane, 96 KiB per SM
 * at 2 blocks) in flight without registers, at 64 KiB more shared memory per block.
 */
public final class SdpaVectorStaged {
  private SdpaVectorStaged() {}

  /** Shared memory per block: the vector kernel's scratch and the stage ring (dynamic window). */
  public static final int SHARED_BYTES = SdpaVector.SHARED_BYTES + SdpaKvStages.BYTES;

  /** Same parameters and layout as {@link SdpaVector#decode}. */
  @Kernel(
      validateWith = {
        "headDim=512,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=512,dtype=1,rows=2,maskKind=1,hasSinks=true,partial=false",
        "headDim=512,dtype=0,rows=4,maskKind=3,hasSinks=false,partial=true",
        "headDim=256,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=128,dtype=0,rows=4,maskKind=2,hasSinks=false,partial=true",
        "headDim=64,dtype=1,rows=3,maskKind=0,hasSinks=true,partial=false"
      })
  public static void decode(
      KernelContext ctx,
      short[] q, // [B, Hq, Lq, D] bf16/f16 bits (strided)
      short[] k, // [B, Hkv, Lkv, D] bf16/f16 bits (strided rows)
      short[] v, // [B, Hkv, Lkv, D] bf16/f16 bits (strided rows)
      float[] maskAdd, // broadcast to [B, Hq, Lq, Lkv] float32
      byte[] maskBool, // broadcast to [B, Hq, Lq, Lkv], 0 = masked
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
    SdpaVectorBody.run(
        ctx, q, k, v, maskAdd, maskBool, sinks, out, partO, partML, hq, hkv, lq, lkv, qOff, qSB,
        qSH, qSL, kOff, kSB, kSH, kSL, vOff, vSB, vSH, vSL, mOff, mSB, mSH, mSL, mSK, splitKeys,
        scaleLog2, headDim, dtype, rows, maskKind, hasSinks, partial, true);
  }

  // ---- host side ----

  /**
   * The plan on {@code smCount} SMs: {@link SdpaVectorPlans#plan}'s rows and splits, with the
   * resident blocks counted from this kernel's larger shared memory (2 per SM on sm_90), and {@code
   * forceSplits} key splits (0: as many as fill one wave).
   */
  public static SdpaVectorPlans.Plan plan(SdpaShape shape, int smCount, int forceSplits) {
    int rows = SdpaVectorPlans.defaultRows(shape);
    int regs = SdpaVectorPlans.estimatedRegisters(shape.headDim(), rows);
    return SdpaVectorPlans.layout(
        shape,
        smCount,
        rows,
        SdpaVectorPlans.blocksPerSm(regs, SHARED_BYTES),
        forceSplits,
        SdpaVector.MAX_ROWS,
        SdpaVectorPlans.keysPerIteration(shape.headDim()),
        SdpaVector.THREADS,
        SHARED_BYTES,
        SdpaVectorStaged.class);
  }
}
