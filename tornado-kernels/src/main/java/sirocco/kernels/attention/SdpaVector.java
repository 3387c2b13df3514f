package sirocco.kernels.attention;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * Vector (decode) attention for {@code Lq <= 3} and head dims 64, 96, 128, 256, 512 in bf16/f16:
 * one streaming read of K and V, online softmax in base 2, float32 throughout.
 *
 * <h2>Work decomposition</h2>
 *
 * A block of {@link #WARPS} warps serves {@code rows} (1–4) query rows of one GQA group (rows are
 * the group's {@code gqa * Lq} (q head, query) pairs, query fastest) for one slice of keys (a
 * split). Grid: x = row groups of the GQA group, y = key splits, z = {@code B * Hkv}; row groups
 * are fastest so that blocks reading the same K/V rows run side by side and share them in L2. Every
 * q row of a GQA group is served from the same registers holding a K/V chunk, so K and V are read
 * once per row group (once in total when {@code gqa * Lq <= 4}).
 *
 * <p>A key row is split over {@code tpk} lanes (8, 16 or 32: the power of two covering {@code D/8}
 * for D ≤ 256, 32 for D = 512); each lane owns 8 consecutive elements (one 16-byte {@code ldg4}) at
 * {@code d = 8*sub}, and for D = 512 a second 8 at {@code d = 256 + 8*sub}, so each warp-wide load
 * instruction reads contiguous 512 bytes. For D = 96 four lanes of each 16 are idle. A warp holds
 * {@code 32/tpk} key groups, each with its own online-softmax state.
 *
 * <h2>One iteration (per warp)</h2>
 *
 * <ol>
 *   <li>Issue 4 K and 4 V 16-byte loads per lane (4 keys per key group for D ≤ 256, 2 keys × 2
 *       chunks for D = 512) plus the mask values this lane will apply: 128 bytes per lane in flight
 *       before any use (manual unrolling; the compiler does not do it). Per key one clamp ({@code
 *       min(key, last)}: the split's tail reads its last key again) and one multiply-add; the rest
 *       of each address is fixed per lane, and D = 512's second chunk is a constant offset.
 *   <li>Partial dot products of the lane's elements with each row's pre-scaled q (q × scale × log2
 *       e, in registers for the whole kernel), chunk by chunk with no conditional code, so each K
 *       element is converted to float once for all rows.
 *   <li>Sum over the key group's lanes, then mask and split tail on the summed value, and publish
 *       the scores to the group's shared score slots. Two ways, chosen by instruction count:
 *       <ul>
 *         <li>shared slab (tpk 8, 16, and D = 256 with rows ≥ 3): each lane stores its partials
 *             (16-byte stores, stride padded to 20 floats, key groups shifted by {@code tpk}
 *             floats: conflict-free), {@code warpBarrier}, and lane {@code sub} adds value {@code
 *             sub} (and {@code sub + tpk}) over the group's lanes, one load at a constant offset
 *             and one add per lane;
 *         <li>transposed shuffles (tpk = 32 with at most 8 values: D = 512, and D = 256 with rows ≤
 *             2): each xor stage halves the values a lane carries ({@link
 *             SdpaVectorOps#warpScores}: 9 shuffles at D = 512, rows = 4, where the slab would need
 *             32 loads and adds per value with only 8 lanes busy). Each exchange also costs two
 *             selects (four moves in SASS), which is why the slab stays where the values fill the
 *             lanes.
 *       </ul>
 *   <li>{@code warpBarrier}; every lane reads its group's scores (one 16-byte broadcast load per
 *       row), updates the row's running max and sum once per iteration ({@code exp2}) and
 *       accumulates p·V into float32 registers. The accumulators are rescaled only when some row's
 *       max rose (alpha is exactly 1 otherwise, so skipping it changes no bit): once the running
 *       max settles, the 8 or 16 multiplies per row and the alpha {@code exp2}s drop out.
 * </ol>
 *
 * <p>Cost, SASS (ptxas 13.0, sm_90) of the loop per warp iteration at rows = 4 when no max rises: ≈
 * 500 instructions at D = 512 (was 918 executed), ≈ 550 at D = 64 and 128, ≈ 585 at D = 256. Of
 * these, 256 are the fma of q·K and p·V and 64 the bf16 conversions; each {@code exp2} is 5 (no
 * {@code .ftz}: ptxas guards subnormal results).
 *
 * <p>After the loop the {@code WARPS * 32/tpk} states per row are combined through shared memory
 * (max, rescale, sum) and either normalised (sinks included), rounded and stored as 16-byte rows,
 * or, in split-K mode ({@code partial}), stored as float32 partials (unnormalised O, max, sum) for
 * {@link SdpaSplitK#combine}. A row with every key masked has max −inf and sum 0 and yields 0.
 *
 * <h2>Registers (estimate, per thread)</h2>
 *
 * q and O are {@code rows × 8} floats each (D ≤ 256) or {@code rows × 16} (D = 512: 16 values per
 * lane, two 16-byte chunks), about 16 more per row for scores, probabilities and conversions, and
 * 32 for the loads in flight, indices and pointers: {@code 32 + rows × (2 × perLane + 16)}, which
 * is 160 at rows = 4, D ≤ 256 (ptxas 12.0/13.0 report 154–168) and 224 at rows = 4, D = 512 (221,
 * 223). {@link SdpaVectorPlans#estimatedRegisters} encodes this; pass the compiler's real count to
 * {@link SdpaVectorPlans#plan} once known.
 *
 * <h2>Occupancy hint (sm_90)</h2>
 *
 * At rows = 4 and D ≤ 256 the 154–168 registers allow 3 blocks (12 warps) per SM; 4 blocks need ≤
 * 128. {@link SdpaVectorPlans#minBlocksPerSm} asks ptxas for 4 where both ptxas 12.0 and 13.0 fit
 * that without spills (its comment lists where it was declined and why).
 *
 * <h2>Staged variant</h2>
 *
 * {@link SdpaVectorStaged} runs this body with {@code staged}: K and V arrive through {@link
 * SdpaKvStages}' {@code cp.async} ring instead of direct loads; everything else is this code.
 */
public final class SdpaVector {
  private SdpaVector() {}

  /** Warps per block. */
  public static final int WARPS = 4;

  /** Threads per block. */
  public static final int THREADS = WARPS * 32;

  /** Query rows one block can hold in registers. */
  public static final int MAX_ROWS = 4;

  /** Query lengths this kernel takes (decode and small speculative blocks). */
  public static final int MAX_QUERY_LEN = 3;

  /** Floats per lane in the partial-dot slab: 16 used, 4 of padding for conflict-free stores. */
  static final int P_STRIDE = 20;

  /**
   * Floats per warp in the partial-dot slab: 32 lane slots, key group {@code g} shifted by {@code g
   * * tpk <= 24} floats (see {@code decode}), rounded to a multiple of 32 banks.
   */
  static final int WARP_SLAB = 32 * P_STRIDE + 32;

  /** Start of the per-group score slots ({@code [WARPS][4 key groups][16]}) in the scratch. */
  static final int S_OFFSET = WARPS * WARP_SLAB;

  /**
   * Block-shared scratch: the partial-dot slab and score slots during the loop, then the states to
   * combine, {@code rows * states * D <= 4 * 4 * 512} floats (32 KiB).
   */
  static final int SCRATCH_FLOATS = MAX_ROWS * WARPS * 32 * 16;

  /** (max, sum) per row and state for the final combine. */
  static final int ML_FLOATS = MAX_ROWS * WARPS * 4 * 2;

  /** Shared memory per block in bytes. */
  public static final int SHARED_BYTES = (SCRATCH_FLOATS + ML_FLOATS) * 4;

  /**
   * Decode attention for one (row group, key split, batch × kv head) per block; see the class
   * comment. Launch with {@link SdpaVectorPlans#plan}'s grid and block.
   *
   * @param q {@code [B, Hq, Lq, D]} bf16/f16 bits; element {@code (b, h, i, d)} at {@code qOff +
   *     b*qSB + h*qSH + i*qSL + d}
   * @param k {@code [B, Hkv, Lkv, D]} bits; {@code (b, h, j, d)} at {@code kOff + b*kSB + h*kSH +
   *     j*kSL + d}; offset and strides multiples of 8 (16-byte loads); may be a view into a longer
   *     cache
   * @param v {@code [B, Hkv, Lkv, D]} bits, addressed like k with {@code vOff, vSB, vSH, vSL}
   * @param maskAdd additive float32 mask; {@code (b, h, i, j)} (h the q head) at {@code mOff +
   *     b*mSB + h*mSH + i*mSL + j*mSK}, stride 0 on broadcast axes; read when {@code maskKind ==
   *     MASK_ADDITIVE}
   * @param maskBool boolean mask, one byte per element (0 = masked), addressed like {@code
   *     maskAdd}; read when {@code maskKind == MASK_BOOL}
   * @param sinks {@code [Hq]} float32 sink logits (natural units, like scaled scores); read when
   *     {@code hasSinks && !partial}
   * @param out {@code [B, Hq, Lq, D]} contiguous, q's dtype; written when {@code !partial}
   * @param partO {@code [B*Hq*Lq, splits, D]} float32 unnormalised outputs; written when {@code
   *     partial}
   * @param partML {@code [B*Hq*Lq, splits, 2]} float32 (running max in base 2, sum); written when
   *     {@code partial}
   * @param splitKeys keys per split (a multiple of the keys one block iteration covers); the split
   *     of block y covers keys {@code [y*splitKeys, min(Lkv, (y+1)*splitKeys))}
   * @param scaleLog2 {@code scale * log2(e)}
   * @param headDim D; 64, 96, 128, 256 or 512 (the layout works for multiples of 8 up to 256, and
   *     512)
   * @param dtype {@link Sdpa#BF16} or {@link Sdpa#F16}
   * @param rows query rows per block, 1..{@link #MAX_ROWS}
   * @param maskKind one of {@code Sdpa.MASK_*}
   * @param partial write float32 partials for {@link SdpaSplitK#combine} instead of the output
   */
  @Kernel(
      validateWith = {
        "headDim=64,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=false",
        "headDim=96,dtype=1,rows=2,maskKind=1,hasSinks=false,partial=false",
        "headDim=128,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=128,dtype=0,rows=1,maskKind=2,hasSinks=true,partial=false",
        "headDim=256,dtype=0,rows=4,maskKind=3,hasSinks=false,partial=true",
        "headDim=512,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=512,dtype=1,rows=2,maskKind=1,hasSinks=true,partial=false",
        "headDim=256,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true"
      })
  public static void decode(
      KernelContext ctx,
      short[] q,
      short[] k,
      short[] v,
      float[] maskAdd,
      byte[] maskBool,
      float[] sinks,
      short[] out,
      float[] partO,
      float[] partML,
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
        scaleLog2, headDim, dtype, rows, maskKind, hasSinks, partial, false);
  }

  // ---- helpers (inlined by the compiler) ----

  /** Lanes per key row: the power of two covering D/8 chunks, at most 32. */
  public static int lanesPerKey(int headDim) {
    // A selection chain rather than a loop, so that a specialised headDim folds it to a constant.
    return headDim <= 64 ? 8 : headDim <= 128 ? 16 : 32;
  }
}
