package sirocco.kernels.attention;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

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
 *       before any use (manual unrolling; the compiler does not do it).
 *   <li>Partial dot products of the lane's elements with each row's pre-scaled q (q × scale × log2
 *       e, in registers for the whole kernel), written to a warp-private shared-memory slab
 *       (16-byte stores, stride padded to 20 floats: conflict-free).
 *   <li>{@code warpBarrier}; lane {@code sub} of each key group sums the {@code tpk} partials of
 *       value {@code sub} (and {@code sub + tpk}), applies the causal/additive/boolean mask and the
 *       split's tail, and writes the score. This replaces a shuffle butterfly per (row, key): one
 *       shared round trip and two warp barriers per iteration instead of {@code rows * 4 *
 *       log2(tpk)} shuffles.
 *   <li>{@code warpBarrier}; every lane reads its group's scores (one 16-byte broadcast load per
 *       row), updates the row's running max and sum once per iteration ({@code exp2}, rescaling the
 *       accumulators once per 4 keys, not per key), and accumulates p·V into float32 registers.
 * </ol>
 *
 * After the loop the {@code WARPS * 32/tpk} states per row are combined through shared memory (max,
 * rescale, sum) and either normalised (sinks included), rounded and stored as 16-byte rows, or, in
 * split-K mode ({@code partial}), stored as float32 partials (unnormalised O, max, sum) for {@link
 * SdpaSplitK#combine}. A row with every key masked has max −inf and sum 0 and yields 0.
 *
 * <h2>Registers (estimate, per thread)</h2>
 *
 * q and O are {@code rows × 8} floats each (D ≤ 256) or {@code rows × 16} (D = 512: 16 values per
 * lane, two 16-byte chunks), the 8 loads in flight take 32, plus about 40 for scores, indices and
 * softmax state: ≈ 140 at rows = 4, D ≤ 256; ≈ 200 at rows = 4, D = 512; ≈ 90 at rows = 1. {@link
 * #estimatedRegisters} encodes this; pass the compiler's real count to {@link #plan} once known.
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

  /** Start of the per-group score slots ({@code [WARPS][4 key groups][16]}) in the scratch. */
  static final int S_OFFSET = WARPS * 32 * P_STRIDE;

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
   * comment. Launch with {@link #plan}'s grid and block.
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
        "headDim=512,dtype=1,rows=2,maskKind=1,hasSinks=true,partial=false"
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
    float[] scratch = ctx.allocateFloatLocalArray(SCRATCH_FLOATS);
    float[] ml = ctx.allocateFloatLocalArray(ML_FLOATS);

    // ---- lane layout ----
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    int tpk = lanesPerKey(headDim);
    int kpw = 32 / tpk;
    boolean wide = headDim > 256;
    int steps = wide ? 2 : 4;
    int grp = lane / tpk;
    int sub = lane - grp * tpk;
    int d0 = sub * 8;
    int d1 = 256 + sub * 8;
    boolean act0 = d0 < headDim;
    boolean act1 = wide && d1 < headDim;
    int c0 = act0 ? d0 : 0; // idle lanes read chunk 0 again (valid, already in cache) and drop it
    int c1 = act1 ? d1 : 0;

    // ---- which rows, keys and heads ----
    int gqa = hq / hkv;
    int groupRows = gqa * lq;
    int rowBase = ctx.groupIdx * rows;
    int split = ctx.groupIdy;
    int splits = ctx.groupCountY;
    int b = ctx.groupIdz / hkv;
    int hk = ctx.groupIdz - b * hkv;

    int rr0 = Math.min(rowBase, groupRows - 1);
    int rr1 = Math.min(rowBase + 1, groupRows - 1);
    int rr2 = Math.min(rowBase + 2, groupRows - 1);
    int rr3 = Math.min(rowBase + 3, groupRows - 1);
    int lim0 = limitOf(rr0, lq, lkv, maskKind);
    int lim1 = limitOf(rr1, lq, lkv, maskKind);
    int lim2 = limitOf(rr2, lq, lkv, maskKind);
    int lim3 = limitOf(rr3, lq, lkv, maskKind);

    int kStart = split * splitKeys;
    int kEnd = Math.min(lkv, kStart + splitKeys);
    if (maskKind == Sdpa.MASK_CAUSAL) {
      int maxLim = lim0;
      if (rows > 1) {
        maxLim = Math.max(maxLim, lim1);
      }
      if (rows > 2) {
        maxLim = Math.max(maxLim, lim2);
      }
      if (rows > 3) {
        maxLim = Math.max(maxLim, lim3);
      }
      kEnd = Math.min(kEnd, maxLim + 1); // keys past every row's horizon are never read
    }

    // ---- q, pre-scaled to base 2, and the running state, in registers ----
    Float4 q00 = Sdpa.zero4();
    Float4 q01 = Sdpa.zero4();
    Float4 q02 = Sdpa.zero4();
    Float4 q03 = Sdpa.zero4();
    Float4 q10 = Sdpa.zero4();
    Float4 q11 = Sdpa.zero4();
    Float4 q12 = Sdpa.zero4();
    Float4 q13 = Sdpa.zero4();
    Float4 q20 = Sdpa.zero4();
    Float4 q21 = Sdpa.zero4();
    Float4 q22 = Sdpa.zero4();
    Float4 q23 = Sdpa.zero4();
    Float4 q30 = Sdpa.zero4();
    Float4 q31 = Sdpa.zero4();
    Float4 q32 = Sdpa.zero4();
    Float4 q33 = Sdpa.zero4();
    int qRow0 = qOff + b * qSB + headOf(rr0, hk, gqa, lq) * qSH + (rr0 % lq) * qSL;
    q00 = loadQ4(q, qRow0 + c0, dtype, scaleLog2);
    q01 = loadQ4(q, qRow0 + c0 + 4, dtype, scaleLog2);
    if (wide) {
      q02 = loadQ4(q, qRow0 + c1, dtype, scaleLog2);
      q03 = loadQ4(q, qRow0 + c1 + 4, dtype, scaleLog2);
    }
    if (rows > 1) {
      int qRow = qOff + b * qSB + headOf(rr1, hk, gqa, lq) * qSH + (rr1 % lq) * qSL;
      q10 = loadQ4(q, qRow + c0, dtype, scaleLog2);
      q11 = loadQ4(q, qRow + c0 + 4, dtype, scaleLog2);
      if (wide) {
        q12 = loadQ4(q, qRow + c1, dtype, scaleLog2);
        q13 = loadQ4(q, qRow + c1 + 4, dtype, scaleLog2);
      }
    }
    if (rows > 2) {
      int qRow = qOff + b * qSB + headOf(rr2, hk, gqa, lq) * qSH + (rr2 % lq) * qSL;
      q20 = loadQ4(q, qRow + c0, dtype, scaleLog2);
      q21 = loadQ4(q, qRow + c0 + 4, dtype, scaleLog2);
      if (wide) {
        q22 = loadQ4(q, qRow + c1, dtype, scaleLog2);
        q23 = loadQ4(q, qRow + c1 + 4, dtype, scaleLog2);
      }
    }
    if (rows > 3) {
      int qRow = qOff + b * qSB + headOf(rr3, hk, gqa, lq) * qSH + (rr3 % lq) * qSL;
      q30 = loadQ4(q, qRow + c0, dtype, scaleLog2);
      q31 = loadQ4(q, qRow + c0 + 4, dtype, scaleLog2);
      if (wide) {
        q32 = loadQ4(q, qRow + c1, dtype, scaleLog2);
        q33 = loadQ4(q, qRow + c1 + 4, dtype, scaleLog2);
      }
    }

    Float4 o00 = Sdpa.zero4();
    Float4 o01 = Sdpa.zero4();
    Float4 o02 = Sdpa.zero4();
    Float4 o03 = Sdpa.zero4();
    Float4 o10 = Sdpa.zero4();
    Float4 o11 = Sdpa.zero4();
    Float4 o12 = Sdpa.zero4();
    Float4 o13 = Sdpa.zero4();
    Float4 o20 = Sdpa.zero4();
    Float4 o21 = Sdpa.zero4();
    Float4 o22 = Sdpa.zero4();
    Float4 o23 = Sdpa.zero4();
    Float4 o30 = Sdpa.zero4();
    Float4 o31 = Sdpa.zero4();
    Float4 o32 = Sdpa.zero4();
    Float4 o33 = Sdpa.zero4();
    float m0 = Sdpa.NEG_INF;
    float m1 = Sdpa.NEG_INF;
    float m2 = Sdpa.NEG_INF;
    float m3 = Sdpa.NEG_INF;
    float l0 = 0f;
    float l1 = 0f;
    float l2 = 0f;
    float l3 = 0f;

    // ---- the score values this lane reduces: v = 4*row + step, v = sub and v = sub + tpk ----
    int va = sub;
    int vb = sub + tpk;
    boolean hasA = va < rows * 4 && (va & 3) < steps;
    boolean hasB = vb < rows * 4 && (vb & 3) < steps;
    int rowA = (va >> 2) & 3;
    int rowB = (vb >> 2) & 3;
    int limA = pick(rowA, lim0, lim1, lim2, lim3);
    int limB = pick(rowB, lim0, lim1, lim2, lim3);
    int maskRowA =
        mOff
            + b * mSB
            + headOf(pick(rowA, rr0, rr1, rr2, rr3), hk, gqa, lq) * mSH
            + (pick(rowA, rr0, rr1, rr2, rr3) % lq) * mSL;
    int maskRowB =
        mOff
            + b * mSB
            + headOf(pick(rowB, rr0, rr1, rr2, rr3), hk, gqa, lq) * mSH
            + (pick(rowB, rr0, rr1, rr2, rr3) % lq) * mSL;

    int kRowBase = kOff + b * kSB + hk * kSH;
    int vRowBase = vOff + b * vSB + hk * vSH;
    int iterKeys = WARPS * steps * kpw;
    int pLane = (warp * 32 + lane) * P_STRIDE; // this lane's partial-dot slot
    int pGroup = (warp * 32 + grp * tpk) * P_STRIDE; // first lane of this key group
    int sGroup = S_OFFSET + (warp * kpw + grp) * 16; // this key group's scores
    int rot = grp * (tpk == 8 ? 2 : 4); // see reduce(): conflict-free shared loads

    for (int base = kStart; base < kEnd; base += iterKeys) {
      // Step u of this key group reads key key0 + u*kpw; a warp reads steps*kpw consecutive keys.
      int key0 = base + warp * steps * kpw + grp;
      int last = kEnd - 1;
      int j0 = Math.min(key0, last);
      int j1 = Math.min(key0 + kpw, last);
      int j2 = Math.min(key0 + 2 * kpw, last);
      int j3 = Math.min(key0 + 3 * kpw, last);

      // 1. All loads of the iteration first: 8 x 16 bytes per lane in flight.
      // Slot addresses: D <= 256, slot u = step u (one chunk); D = 512, slots 0, 1 = step 0's
      // two chunks and slots 2, 3 = step 1's. Selecting ints keeps the loads unconditional.
      int ks1 = wide ? j0 : j1;
      int ks2 = wide ? j1 : j2;
      int ks3 = wide ? j1 : j3;
      int cOdd = wide ? c1 : c0;
      Int4 k0 = Vec.ldg4(k, kRowBase + j0 * kSL + c0);
      Int4 k1 = Vec.ldg4(k, kRowBase + ks1 * kSL + cOdd);
      Int4 k2 = Vec.ldg4(k, kRowBase + ks2 * kSL + c0);
      Int4 k3 = Vec.ldg4(k, kRowBase + ks3 * kSL + cOdd);
      Int4 v0 = Vec.ldg4(v, vRowBase + j0 * vSL + c0);
      Int4 v1 = Vec.ldg4(v, vRowBase + ks1 * vSL + cOdd);
      Int4 v2 = Vec.ldg4(v, vRowBase + ks2 * vSL + c0);
      Int4 v3 = Vec.ldg4(v, vRowBase + ks3 * vSL + cOdd);
      int keyA = key0 + (va & 3) * kpw;
      int keyB = key0 + (vb & 3) * kpw;
      float maskA = 0f;
      float maskB = 0f;
      if (maskKind == Sdpa.MASK_ADDITIVE) {
        if (hasA) {
          maskA = Sdpa.additiveLog2(Vec.ldg(maskAdd, maskRowA + Math.min(keyA, last) * mSK));
        }
        if (hasB) {
          maskB = Sdpa.additiveLog2(Vec.ldg(maskAdd, maskRowB + Math.min(keyB, last) * mSK));
        }
      }
      if (maskKind == Sdpa.MASK_BOOL) {
        if (hasA) {
          maskA = Vec.ldg(maskBool, maskRowA + Math.min(keyA, last) * mSK) != 0 ? 0f : Sdpa.NEG_INF;
        }
        if (hasB) {
          maskB = Vec.ldg(maskBool, maskRowB + Math.min(keyB, last) * mSK) != 0 ? 0f : Sdpa.NEG_INF;
        }
      }

      // 2. Partial dots of this lane's elements, one 16-byte store per row.
      Vec.store4(
          scratch, pLane, rowDots(q00, q01, q02, q03, k0, k1, k2, k3, wide, act0, act1, dtype));
      if (rows > 1) {
        Vec.store4(
            scratch,
            pLane + 4,
            rowDots(q10, q11, q12, q13, k0, k1, k2, k3, wide, act0, act1, dtype));
      }
      if (rows > 2) {
        Vec.store4(
            scratch,
            pLane + 8,
            rowDots(q20, q21, q22, q23, k0, k1, k2, k3, wide, act0, act1, dtype));
      }
      if (rows > 3) {
        Vec.store4(
            scratch,
            pLane + 12,
            rowDots(q30, q31, q32, q33, k0, k1, k2, k3, wide, act0, act1, dtype));
      }
      ctx.warpBarrier();

      // 3. Reduce over the key group's lanes, mask, publish the scores.
      if (hasA) {
        float s = reduce(scratch, pGroup, va, tpk, rot);
        scratch[sGroup + va] = keyA >= kEnd || keyA > limA ? Sdpa.NEG_INF : s + maskA;
      }
      if (hasB) {
        float s = reduce(scratch, pGroup, vb, tpk, rot);
        scratch[sGroup + vb] = keyB >= kEnd || keyB > limB ? Sdpa.NEG_INF : s + maskB;
      }
      ctx.warpBarrier();

      // 4. Online softmax once per iteration per row, then p·V into the float32 accumulators.
      {
        Float4 s = Vec.load4(scratch, sGroup);
        float mNew = rowMax(m0, s, wide);
        float mSafe = mNew == Sdpa.NEG_INF ? 0f : mNew;
        float alpha = Intrinsics.exp2(m0 - mSafe);
        Float4 p = rowExp(s, mSafe, wide);
        l0 = Math.fma(l0, alpha, sum4(p));
        m0 = mNew;
        if (!wide) {
          o00 = pv(o00, alpha, p, v0, v1, v2, v3, false, true, dtype);
          o01 = pv(o01, alpha, p, v0, v1, v2, v3, true, true, dtype);
        } else {
          o00 = pv(o00, alpha, p, v0, v2, v0, v2, false, false, dtype);
          o01 = pv(o01, alpha, p, v0, v2, v0, v2, true, false, dtype);
          o02 = pv(o02, alpha, p, v1, v3, v1, v3, false, false, dtype);
          o03 = pv(o03, alpha, p, v1, v3, v1, v3, true, false, dtype);
        }
      }
      if (rows > 1) {
        Float4 s = Vec.load4(scratch, sGroup + 4);
        float mNew = rowMax(m1, s, wide);
        float mSafe = mNew == Sdpa.NEG_INF ? 0f : mNew;
        float alpha = Intrinsics.exp2(m1 - mSafe);
        Float4 p = rowExp(s, mSafe, wide);
        l1 = Math.fma(l1, alpha, sum4(p));
        m1 = mNew;
        if (!wide) {
          o10 = pv(o10, alpha, p, v0, v1, v2, v3, false, true, dtype);
          o11 = pv(o11, alpha, p, v0, v1, v2, v3, true, true, dtype);
        } else {
          o10 = pv(o10, alpha, p, v0, v2, v0, v2, false, false, dtype);
          o11 = pv(o11, alpha, p, v0, v2, v0, v2, true, false, dtype);
          o12 = pv(o12, alpha, p, v1, v3, v1, v3, false, false, dtype);
          o13 = pv(o13, alpha, p, v1, v3, v1, v3, true, false, dtype);
        }
      }
      if (rows > 2) {
        Float4 s = Vec.load4(scratch, sGroup + 8);
        float mNew = rowMax(m2, s, wide);
        float mSafe = mNew == Sdpa.NEG_INF ? 0f : mNew;
        float alpha = Intrinsics.exp2(m2 - mSafe);
        Float4 p = rowExp(s, mSafe, wide);
        l2 = Math.fma(l2, alpha, sum4(p));
        m2 = mNew;
        if (!wide) {
          o20 = pv(o20, alpha, p, v0, v1, v2, v3, false, true, dtype);
          o21 = pv(o21, alpha, p, v0, v1, v2, v3, true, true, dtype);
        } else {
          o20 = pv(o20, alpha, p, v0, v2, v0, v2, false, false, dtype);
          o21 = pv(o21, alpha, p, v0, v2, v0, v2, true, false, dtype);
          o22 = pv(o22, alpha, p, v1, v3, v1, v3, false, false, dtype);
          o23 = pv(o23, alpha, p, v1, v3, v1, v3, true, false, dtype);
        }
      }
      if (rows > 3) {
        Float4 s = Vec.load4(scratch, sGroup + 12);
        float mNew = rowMax(m3, s, wide);
        float mSafe = mNew == Sdpa.NEG_INF ? 0f : mNew;
        float alpha = Intrinsics.exp2(m3 - mSafe);
        Float4 p = rowExp(s, mSafe, wide);
        l3 = Math.fma(l3, alpha, sum4(p));
        m3 = mNew;
        if (!wide) {
          o30 = pv(o30, alpha, p, v0, v1, v2, v3, false, true, dtype);
          o31 = pv(o31, alpha, p, v0, v1, v2, v3, true, true, dtype);
        } else {
          o30 = pv(o30, alpha, p, v0, v2, v0, v2, false, false, dtype);
          o31 = pv(o31, alpha, p, v0, v2, v0, v2, true, false, dtype);
          o32 = pv(o32, alpha, p, v1, v3, v1, v3, false, false, dtype);
          o33 = pv(o33, alpha, p, v1, v3, v1, v3, true, false, dtype);
        }
      }
    }

    // ---- combine the WARPS * kpw states of each row through shared memory ----
    ctx.localBarrier(); // every warp is done with the partial-dot slab
    int states = WARPS * kpw;
    int state = warp * kpw + grp;
    int oBase0 = state * headDim;
    int oStride = states * headDim; // next row
    if (act0) {
      Vec.store4(scratch, oBase0 + d0, o00);
      Vec.store4(scratch, oBase0 + d0 + 4, o01);
      if (rows > 1) {
        Vec.store4(scratch, oBase0 + oStride + d0, o10);
        Vec.store4(scratch, oBase0 + oStride + d0 + 4, o11);
      }
      if (rows > 2) {
        Vec.store4(scratch, oBase0 + 2 * oStride + d0, o20);
        Vec.store4(scratch, oBase0 + 2 * oStride + d0 + 4, o21);
      }
      if (rows > 3) {
        Vec.store4(scratch, oBase0 + 3 * oStride + d0, o30);
        Vec.store4(scratch, oBase0 + 3 * oStride + d0 + 4, o31);
      }
    }
    if (act1) {
      Vec.store4(scratch, oBase0 + d1, o02);
      Vec.store4(scratch, oBase0 + d1 + 4, o03);
      if (rows > 1) {
        Vec.store4(scratch, oBase0 + oStride + d1, o12);
        Vec.store4(scratch, oBase0 + oStride + d1 + 4, o13);
      }
      if (rows > 2) {
        Vec.store4(scratch, oBase0 + 2 * oStride + d1, o22);
        Vec.store4(scratch, oBase0 + 2 * oStride + d1 + 4, o23);
      }
      if (rows > 3) {
        Vec.store4(scratch, oBase0 + 3 * oStride + d1, o32);
        Vec.store4(scratch, oBase0 + 3 * oStride + d1 + 4, o33);
      }
    }
    if (sub == 0) {
      ml[state * 2] = m0;
      ml[state * 2 + 1] = l0;
      if (rows > 1) {
        ml[(states + state) * 2] = m1;
        ml[(states + state) * 2 + 1] = l1;
      }
      if (rows > 2) {
        ml[(2 * states + state) * 2] = m2;
        ml[(2 * states + state) * 2 + 1] = l2;
      }
      if (rows > 3) {
        ml[(3 * states + state) * 2] = m3;
        ml[(3 * states + state) * 2 + 1] = l3;
      }
    }
    ctx.localBarrier();

    int chunks = headDim / 8;
    for (int item = ctx.localIdx; item < rows * chunks; item += THREADS) {
      int r = item / chunks;
      int d = (item - r * chunks) * 8;
      int rr = rowBase + r;
      if (rr < groupRows) {
        float mx = Sdpa.NEG_INF;
        for (int s = 0; s < states; s++) {
          mx = Math.max(mx, ml[(r * states + s) * 2]);
        }
        float sum = 0f;
        Float4 oa = Sdpa.zero4();
        Float4 ob = Sdpa.zero4();
        if (mx != Sdpa.NEG_INF) {
          for (int s = 0; s < states; s++) {
            float f = Intrinsics.exp2(ml[(r * states + s) * 2] - mx);
            sum = Math.fma(f, ml[(r * states + s) * 2 + 1], sum);
            int at = (r * states + s) * headDim + d;
            oa = Sdpa.fma4(f, Vec.load4(scratch, at), oa);
            ob = Sdpa.fma4(f, Vec.load4(scratch, at + 4), ob);
          }
        }
        int h = headOf(rr, hk, gqa, lq);
        int outRow = (b * hq + h) * lq + (rr % lq);
        if (partial) {
          int at = outRow * splits + split;
          Vec.store4(partO, at * headDim + d, oa);
          Vec.store4(partO, at * headDim + d + 4, ob);
          if (d == 0) {
            partML[at * 2] = mx;
            partML[at * 2 + 1] = sum;
          }
        } else {
          float inv = finalScale(mx, sum, hasSinks ? sinks[h] : Sdpa.NEG_INF, hasSinks);
          float keep = finalKeep(mx, hasSinks ? sinks[h] : Sdpa.NEG_INF, hasSinks);
          Vec.store4(
              out,
              outRow * headDim + d,
              Sdpa.pack8(Sdpa.scale4(oa, inv * keep), Sdpa.scale4(ob, inv * keep), dtype));
        }
      }
    }
  }

  // ---- helpers (inlined by the compiler) ----

  /** Lanes per key row: the power of two covering D/8 chunks, at most 32. */
  public static int lanesPerKey(int headDim) {
    // A selection chain rather than a loop, so that a specialised headDim folds it to a constant.
    return headDim <= 64 ? 8 : headDim <= 128 ? 16 : 32;
  }

  /** The largest key index row {@code rr} (query {@code rr % lq}) may see. */
  static int limitOf(int rr, int lq, int lkv, int maskKind) {
    return maskKind == Sdpa.MASK_CAUSAL ? (rr % lq) + lkv - lq : lkv - 1;
  }

  /** The q head of GQA-group row {@code rr} (rows are (head, query) pairs, query fastest). */
  static int headOf(int rr, int hk, int gqa, int lq) {
    return hk * gqa + rr / lq;
  }

  static int pick(int i, int a0, int a1, int a2, int a3) {
    return i == 0 ? a0 : i == 1 ? a1 : i == 2 ? a2 : a3;
  }

  /** Four q elements from scalar loads (q is read once per block), times scale·log2(e). */
  static Float4 loadQ4(short[] q, int at, int dtype, float scaleLog2) {
    return new Float4(
        Sdpa.toFloat(Vec.ldg(q, at), dtype) * scaleLog2,
        Sdpa.toFloat(Vec.ldg(q, at + 1), dtype) * scaleLog2,
        Sdpa.toFloat(Vec.ldg(q, at + 2), dtype) * scaleLog2,
        Sdpa.toFloat(Vec.ldg(q, at + 3), dtype) * scaleLog2);
  }

  /** Dot product of 8 q values with the 8 packed elements of one 16-byte chunk. */
  static float dot8(Float4 qa, Float4 qb, Int4 w, int dtype) {
    float s = qa.x() * Sdpa.lo(w.x(), dtype);
    s = Math.fma(qa.y(), Sdpa.hi(w.x(), dtype), s);
    s = Math.fma(qa.z(), Sdpa.lo(w.y(), dtype), s);
    s = Math.fma(qa.w(), Sdpa.hi(w.y(), dtype), s);
    s = Math.fma(qb.x(), Sdpa.lo(w.z(), dtype), s);
    s = Math.fma(qb.y(), Sdpa.hi(w.z(), dtype), s);
    s = Math.fma(qb.z(), Sdpa.lo(w.w(), dtype), s);
    return Math.fma(qb.w(), Sdpa.hi(w.w(), dtype), s);
  }

  /**
   * This lane's partial dot products of one row with the iteration's keys: (step 0..3) for D ≤ 256,
   * (step 0, step 1, 0, 0) for D = 512. Idle lanes contribute exactly 0.
   */
  static Float4 rowDots(
      Float4 qa,
      Float4 qb,
      Float4 qc,
      Float4 qd,
      Int4 k0,
      Int4 k1,
      Int4 k2,
      Int4 k3,
      boolean wide,
      boolean act0,
      boolean act1,
      int dtype) {
    if (!wide) {
      return new Float4(
          act0 ? dot8(qa, qb, k0, dtype) : 0f,
          act0 ? dot8(qa, qb, k1, dtype) : 0f,
          act0 ? dot8(qa, qb, k2, dtype) : 0f,
          act0 ? dot8(qa, qb, k3, dtype) : 0f);
    }
    float s0 = act0 ? dot8(qa, qb, k0, dtype) : 0f;
    float s1 = act0 ? dot8(qa, qb, k2, dtype) : 0f;
    if (act1) {
      s0 += dot8(qc, qd, k1, dtype);
      s1 += dot8(qc, qd, k3, dtype);
    }
    return new Float4(s0, s1, 0f, 0f);
  }

  /**
   * Sum of value {@code v} over the {@code tpk} lanes of a key group. Group {@code g} starts at
   * lane {@code rot = g * 2} (tpk 8) or {@code g * 4} (tpk 16): key groups sit {@code tpk * 20}
   * floats apart, a multiple of 32 banks, and the rotation moves each group's reads to other banks
   * (8 or 16 banks along), so one load instruction of the warp is conflict-free.
   */
  static float reduce(float[] scratch, int pGroup, int v, int tpk, int rot) {
    float s = 0f;
    for (int t = 0; t < tpk; t++) {
      s += scratch[pGroup + ((t + rot) & (tpk - 1)) * P_STRIDE + v];
    }
    return s;
  }

  static float rowMax(float m, Float4 s, boolean wide) {
    float r = Math.max(m, Math.max(s.x(), s.y()));
    return wide ? r : Math.max(r, Math.max(s.z(), s.w()));
  }

  static Float4 rowExp(Float4 s, float m, boolean wide) {
    return new Float4(
        Intrinsics.exp2(s.x() - m),
        Intrinsics.exp2(s.y() - m),
        wide ? 0f : Intrinsics.exp2(s.z() - m),
        wide ? 0f : Intrinsics.exp2(s.w() - m));
  }

  static float sum4(Float4 p) {
    return (p.x() + p.y()) + (p.z() + p.w());
  }

  /**
   * {@code alpha·o + Σ p_u·V_u} for four output elements: elements 0–3 ({@code second == false}) or
   * 4–7 of the chunks {@code w0..w3}, one per step ({@code four}) or {@code w0, w1} only.
   */
  static Float4 pv(
      Float4 o,
      float alpha,
      Float4 p,
      Int4 w0,
      Int4 w1,
      Int4 w2,
      Int4 w3,
      boolean second,
      boolean four,
      int dtype) {
    int a0 = second ? w0.z() : w0.x();
    int b0 = second ? w0.w() : w0.y();
    int a1 = second ? w1.z() : w1.x();
    int b1 = second ? w1.w() : w1.y();
    float x = Math.fma(p.x(), Sdpa.lo(a0, dtype), o.x() * alpha);
    float y = Math.fma(p.x(), Sdpa.hi(a0, dtype), o.y() * alpha);
    float z = Math.fma(p.x(), Sdpa.lo(b0, dtype), o.z() * alpha);
    float w = Math.fma(p.x(), Sdpa.hi(b0, dtype), o.w() * alpha);
    x = Math.fma(p.y(), Sdpa.lo(a1, dtype), x);
    y = Math.fma(p.y(), Sdpa.hi(a1, dtype), y);
    z = Math.fma(p.y(), Sdpa.lo(b1, dtype), z);
    w = Math.fma(p.y(), Sdpa.hi(b1, dtype), w);
    if (four) {
      int a2 = second ? w2.z() : w2.x();
      int b2 = second ? w2.w() : w2.y();
      int a3 = second ? w3.z() : w3.x();
      int b3 = second ? w3.w() : w3.y();
      x = Math.fma(p.z(), Sdpa.lo(a2, dtype), x);
      y = Math.fma(p.z(), Sdpa.hi(a2, dtype), y);
      z = Math.fma(p.z(), Sdpa.lo(b2, dtype), z);
      w = Math.fma(p.z(), Sdpa.hi(b2, dtype), w);
      x = Math.fma(p.w(), Sdpa.lo(a3, dtype), x);
      y = Math.fma(p.w(), Sdpa.hi(a3, dtype), y);
      z = Math.fma(p.w(), Sdpa.lo(b3, dtype), z);
      w = Math.fma(p.w(), Sdpa.hi(b3, dtype), w);
    }
    return new Float4(x, y, z, w);
  }

  /**
   * 1 / (final softmax denominator) for a row with running max {@code mx} (base 2) and sum {@code
   * sum}, the sink logit (natural units) joining the denominator when present; 0 for a row whose
   * every key is masked and which has no sink (its output is 0, not NaN).
   */
  static float finalScale(float mx, float sum, float sink, boolean hasSinks) {
    if (!hasSinks) {
      return sum > 0f ? 1f / sum : 0f;
    }
    float s2 = sink * Sdpa.LOG2E;
    float mn = Math.max(mx, s2);
    if (mn == Sdpa.NEG_INF) {
      return 0f;
    }
    float denom = Math.fma(sum, Intrinsics.exp2(mx - mn), Intrinsics.exp2(s2 - mn));
    return denom > 0f ? 1f / denom : 0f;
  }

  /**
   * The factor that moves O (relative to {@code mx}) to the final max when a sink raises it: {@code
   * exp2(mx - max(mx, sink))}; 1 without sinks.
   */
  static float finalKeep(float mx, float sink, boolean hasSinks) {
    if (!hasSinks) {
      return 1f;
    }
    float s2 = sink * Sdpa.LOG2E;
    float mn = Math.max(mx, s2);
    return mn == Sdpa.NEG_INF ? 0f : Intrinsics.exp2(mx - mn);
  }

  // ---- host side: support check and launch plan ----

  /**
   * Why this kernel cannot run the call, or null when it can. {@code kStrides}/{@code vStrides} are
   * element strides of k and v; the mask kind is one of {@code Sdpa.MASK_*}.
   */
  public static String supports(
      SdpaShape shape, int dtype, SdpaStrides kStrides, SdpaStrides vStrides, int maskKind) {
    if (dtype != Sdpa.BF16 && dtype != Sdpa.F16) {
      return "vector SDPA takes bf16 or f16 (got "
          + Sdpa.dtypeName(dtype)
          + "); float32 runs on the unfused kernels";
    }
    int d = shape.headDim();
    if (d != 64 && d != 96 && d != 128 && d != 256 && d != 512) {
      return "vector SDPA supports head dims 64, 96, 128, 256 and 512, got " + d;
    }
    if (shape.valueDim() != d) {
      return "vector SDPA needs v's head dim (" + shape.valueDim() + ") to equal q/k's (" + d + ")";
    }
    if (shape.qLen() > MAX_QUERY_LEN) {
      return "vector SDPA takes at most "
          + MAX_QUERY_LEN
          + " queries per head, got Lq = "
          + shape.qLen();
    }
    if (shape.kvLen() < 1) {
      return "vector SDPA needs at least one key (Lkv = 0)";
    }
    if (maskKind < Sdpa.MASK_NONE || maskKind > Sdpa.MASK_BOOL) {
      return "unknown mask kind " + maskKind;
    }
    if (kStrides.dim() != 1 || vStrides.dim() != 1) {
      return "vector SDPA needs k and v rows contiguous (last stride 1), got k "
          + kStrides
          + ", v "
          + vStrides;
    }
    if (!kStrides.alignedTo(8) || !vStrides.alignedTo(8)) {
      return "vector SDPA reads k and v rows with 16-byte loads: offsets and strides must be"
          + " multiples of 8 elements, got k "
          + kStrides
          + ", v "
          + vStrides;
    }
    return null;
  }

  /**
   * A launch of {@link #decode}: {@code rows} query rows per block, {@code rowGroups} blocks per
   * GQA group, {@code splits} key splits of {@code splitKeys} keys. {@code splits == 1}: one pass,
   * {@code partial = false}; otherwise pass 1 of split-K ({@code partial = true}) followed by
   * {@link SdpaSplitK#combine} with {@link SdpaSplitK#combinePlan}.
   */
  public record Plan(
      int rows,
      int rowGroups,
      int splits,
      int splitKeys,
      Dim3 grid,
      Dim3 block,
      int sharedBytes,
      int blocksPerSm) {
    /** True when the launch writes partials and needs {@link SdpaSplitK#combine}. */
    public boolean partial() {
      return splits > 1;
    }
  }

  /** Keys one block covers per iteration of its loop. */
  public static int keysPerIteration(int headDim) {
    return WARPS * (headDim > 256 ? 2 : 4) * (32 / lanesPerKey(headDim));
  }

  /**
   * Estimated registers per thread (see the class comment); the launch plan derives blocks per SM
   * from it until the compiler's report gives the real number.
   */
  public static int estimatedRegisters(int headDim, int rows) {
    int perLane = headDim > 256 ? 16 : 8;
    return 56 + rows * 2 * perLane + 32;
  }

  /**
   * The default plan: rows per block balanced over the GQA group (at most {@link #MAX_ROWS}),
   * blocks per SM from {@link #estimatedRegisters}, splits chosen to fill {@code smCount} SMs.
   */
  public static Plan plan(SdpaShape shape, int smCount) {
    int rows = defaultRows(shape);
    int regs = (estimatedRegisters(shape.headDim(), rows) + 7) / 8 * 8;
    int byRegs = Math.max(1, 65536 / (regs * THREADS));
    int byShared = Math.max(1, (227 * 1024) / (SHARED_BYTES + 1024));
    int blocksPerSm = Math.min(8, Math.min(byRegs, byShared));
    return plan(shape, smCount, rows, blocksPerSm, 0);
  }

  /** Rows per block that split the GQA group's {@code gqa * Lq} rows into equal-ish blocks. */
  public static int defaultRows(SdpaShape shape) {
    int groupRows = shape.gqa() * shape.qLen();
    int groups = (groupRows + MAX_ROWS - 1) / MAX_ROWS;
    return (groupRows + groups - 1) / groups;
  }

  /**
   * A plan with explicit knobs: {@code rows} per block (1..4), {@code blocksPerSm} resident blocks
   * the SM count is multiplied by to size the grid, and {@code forceSplits} (0 = choose: as many
   * splits as fit {@code smCount * blocksPerSm} blocks, at most one per block iteration of keys).
   */
  public static Plan plan(
      SdpaShape shape, int smCount, int rows, int blocksPerSm, int forceSplits) {
    if (rows < 1 || rows > MAX_ROWS) {
      throw new IllegalArgumentException("rows must be 1.." + MAX_ROWS + ", got " + rows);
    }
    if (smCount < 1 || blocksPerSm < 1 || forceSplits < 0) {
      throw new IllegalArgumentException(
          "smCount and blocksPerSm must be >= 1 and forceSplits >= 0, got "
              + smCount
              + ", "
              + blocksPerSm
              + ", "
              + forceSplits);
    }
    int lkv = Math.max(1, shape.kvLen());
    int groupRows = shape.gqa() * shape.qLen();
    int rowGroups = (groupRows + rows - 1) / rows;
    int iterKeys = keysPerIteration(shape.headDim());
    long baseBlocks = (long) shape.batch() * shape.kvHeads() * rowGroups;
    int maxSplits = (lkv + iterKeys - 1) / iterKeys;
    int splits;
    if (forceSplits > 0) {
      splits = Math.min(forceSplits, lkv);
    } else {
      // As many splits as fit in one wave of resident blocks (rounding up would leave a few
      // blocks for a second wave, which costs a whole block's time).
      long target = (long) smCount * blocksPerSm;
      splits = (int) Math.max(1, Math.min(maxSplits, target / baseBlocks));
    }
    int splitKeys;
    if (splits == 1) {
      splitKeys = lkv;
    } else {
      int per = (lkv + splits - 1) / splits;
      splitKeys = forceSplits > 0 ? per : (per + iterKeys - 1) / iterKeys * iterKeys;
      splits = (lkv + splitKeys - 1) / splitKeys;
    }
    if (baseBlocks > 65535L * 65535L) {
      throw new IllegalArgumentException("too many (batch, kv head) pairs for one launch");
    }
    Dim3 grid = new Dim3(rowGroups, splits, shape.batch() * shape.kvHeads());
    return new Plan(
        rows, rowGroups, splits, splitKeys, grid, Dim3.of(THREADS), SHARED_BYTES, blocksPerSm);
  }

  /**
   * Arguments of {@link #decode} in order, after the context, for {@code plan} (one pass when
   * {@code plan.splits() == 1}, else pass 1 of split-K). Arrays pass through untouched (Java arrays
   * on the Java backend, device buffers on a GPU); an array the launch does not use may be any
   * array of its type. {@code ms} may be null when there is no mask array.
   */
  public static Object[] decodeArgs(
      Object q,
      Object k,
      Object v,
      Object maskAdd,
      Object maskBool,
      Object sinks,
      Object out,
      Object partO,
      Object partML,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms,
      double scale,
      int dtype,
      int maskKind,
      boolean hasSinks,
      Plan plan) {
    SdpaStrides m = Sdpa.noMask(ms);
    return new Object[] {
      q,
      k,
      v,
      maskAdd,
      maskBool,
      sinks,
      out,
      partO,
      partML,
      shape.qHeads(),
      shape.kvHeads(),
      shape.qLen(),
      shape.kvLen(),
      qs.offset(),
      qs.batch(),
      qs.head(),
      qs.seq(),
      ks.offset(),
      ks.batch(),
      ks.head(),
      ks.seq(),
      vs.offset(),
      vs.batch(),
      vs.head(),
      vs.seq(),
      m.offset(),
      m.batch(),
      m.head(),
      m.seq(),
      m.dim(),
      plan.splitKeys(),
      Sdpa.scaleLog2(scale),
      shape.headDim(),
      dtype,
      plan.rows(),
      maskKind,
      hasSinks,
      plan.partial()
    };
  }

  // ---- scalar float64 reference, written from the math ----

  /**
   * Attention of one output row in float64, reading the same arrays and strides as {@link #decode}:
   * {@code out[d] = Σ_j softmax_j(scale·q·k_j + mask_j) v_j[d]}, sinks in the denominator, fully
   * masked rows 0. Returns the D values of row {@code (b, h, i)}.
   */
  public static double[] reference(
      short[] q,
      short[] k,
      short[] v,
      float[] maskAdd,
      byte[] maskBool,
      float[] sinks,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms,
      double scale,
      int dtype,
      int maskKind,
      boolean hasSinks,
      int b,
      int h,
      int i) {
    int d = shape.headDim();
    int lkv = shape.kvLen();
    int hk = h / shape.gqa();
    double[] logits = new double[lkv];
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < lkv; j++) {
      double s = 0;
      for (int e = 0; e < d; e++) {
        s +=
            Sdpa.toFloat(q[(int) qs.index(b, h, i, e)], dtype)
                * (double) Sdpa.toFloat(k[(int) ks.index(b, hk, j, e)], dtype);
      }
      s *= scale;
      boolean keep = true;
      if (maskKind == Sdpa.MASK_CAUSAL) {
        keep = j <= i + lkv - shape.qLen();
      } else if (maskKind == Sdpa.MASK_ADDITIVE) {
        s += maskAdd[(int) ms.index(b, h, i, j)];
      } else if (maskKind == Sdpa.MASK_BOOL) {
        keep = maskBool[(int) ms.index(b, h, i, j)] != 0;
      }
      logits[j] = keep ? s : Double.NEGATIVE_INFINITY;
      max = Math.max(max, logits[j]);
    }
    double sink = hasSinks ? sinks[h] : Double.NEGATIVE_INFINITY;
    max = Math.max(max, sink);
    double[] o = new double[d];
    if (max == Double.NEGATIVE_INFINITY) {
      return o;
    }
    double denom = hasSinks ? Math.exp(sink - max) : 0;
    for (int j = 0; j < lkv; j++) {
      double p = Math.exp(logits[j] - max);
      denom += p;
      if (p != 0) {
        for (int e = 0; e < d; e++) {
          o[e] += p * Sdpa.toFloat(v[(int) vs.index(b, hk, j, e)], dtype);
        }
      }
    }
    for (int e = 0; e < d; e++) {
      o[e] /= denom;
    }
    return o;
  }
}
