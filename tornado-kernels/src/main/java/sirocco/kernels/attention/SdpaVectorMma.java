package sirocco.kernels.attention;

import static sirocco.kernels.attention.SdpaVectorOps.headOf;
import static sirocco.kernels.attention.SdpaVectorOps.limitOf;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Decode attention on tensor cores ({@code mma.sync m16n8k16}) for head dims 64, 128, 256 and 512,
 * bf16/f16, no mask or causal: the same call, grid shape, partials and combine as {@link
 * SdpaVector#decode}, with both products on tensor cores. It exists for the long-context cells of
 * issue #8, where {@link SdpaVector} spends ~70 issued instructions per key at 4 rows (its dot
 * products and p·V in float FMAs, the score reduction through shared memory) and runs at about 1.4×
 * the read-only time of the same K/V bytes (bench/RESULTS.md runs 13–28).
 *
 * <h2>Products</h2>
 *
 * A warp takes 16 keys per iteration (the block's 4 warps: 64 consecutive keys). Lane {@code (g =
 * lane/4, t = lane%4)}:
 *
 * <ul>
 *   <li><b>Scores S = Q·Kᵀ</b> (M = query rows, N = 8 keys, K = 16 head elements): A is the block's
 *       q rows (row g; rows g+8 are zeros), held in registers for the whole kernel, B is Kᵀ, whose
 *       fragment (two consecutive elements of key g's row per register) is what lane (g, t) loads
 *       as 16-byte chunks {@code t, t+4, …} of key g. The head axis is summed in a permuted order
 *       (slot pair ↔ register of the lane's chunk), the same for A and B. Two independent tiles:
 *       keys 0–7 and 8–15. The accumulator leaves lane (g, t) with row g's scores of keys 2t, 2t+1
 *       (and 8+2t, 9+2t).
 *   <li><b>Online softmax</b> per row in base 2 (scores × scale·log2 e after the product, so q
 *       enters exactly): the row max over the 4 lanes of row g (two shuffles), the running max and
 *       the lane's share of the running sum; {@code alpha = exp2(m_old − m_new)}.
 *   <li><b>Oᵀ += Vᵀ·Pᵀ</b> (M = 16 head elements, N = 8 query rows, K = 16 keys): B is Pᵀ, whose
 *       fragment is exactly the score accumulator's layout (row g, keys 2t, 2t+1 and 8+2t, 9+2t),
 *       packed to bf16/f16 pairs; A is Vᵀ, built from lane (g, t)'s 16-byte chunks {@code g, g+8}
 *       of keys 2t, 2t+1, 2t+8, 2t+9 by pairing the same half of two keys' registers (one permute
 *       each): m-tile (chunk u, pair i) has head element {@code 8c+2i} in A row g and {@code
 *       8c+2i+1} in row g+8, c = g + 8u. The accumulator leaves lane (g, t) with rows 2t, 2t+1 of 8
 *       consecutive head elements per chunk.
 * </ul>
 *
 * Per warp iteration at D = 128 (16 keys): 16 16-byte loads, 32 mmas, 32 permutes, ~70 for the
 * softmax, masking and addresses: ≈ 10 instructions per key against ≈ 70 for {@link SdpaVector} at
 * 4 rows. Registers: q D/8, O D/4, K and V in flight D/4 each.
 *
 * <h2>Head dims 256 and 512: one slice of the head axis per warp</h2>
 *
 * A warp's registers for the whole head axis (q D/8, Oᵀ D/4, K and V D/4 each) do not fit above D =
 * 128, so there the block's 4 warps take the <b>same</b> 16 keys per iteration, warp w the head
 * elements {@code [w·D/4, (w+1)·D/4)} (64 or 128: exactly the D = 64 / 128 code on a shifted base).
 * Each warp's scores are partial sums over its slice; they meet in a double-buffered shared
 * exchange (one barrier per iteration) where every warp adds the four in the same order, so all
 * four run the same softmax with the same numbers and each keeps its own slice of Oᵀ. The block
 * then holds one state per row ({@code states = 1} in the merge). Why: the CUDA-core kernels at D =
 * 512 spend ~300 issued instructions per key at 4 rows and, with 8 warps per SM, cannot hide them
 * at the start and end of a split (S = 8192: 39 µs, ~9 µs of it fixed, against 33 µs for a
 * read-only kernel over the same bytes; bench/RESULTS.md run 81).
 *
 * <h2>Rows, keys, end</h2>
 *
 * Up to {@link #MAX_ROWS} rows (the GQA group's (head, query) pairs) per block: the 8 mma columns
 * of Oᵀ. Keys past the split's end or a row's causal horizon score −inf (the clamped loads read the
 * split's last key again). The rescale by alpha reaches the Oᵀ columns of rows 2t, 2t+1 through two
 * shuffles from their rows' lanes. At the end each warp's state per row (max, sum over its 4 lanes,
 * O) goes to shared memory and {@link SdpaVectorOps#combineStates} merges the {@link #WARPS} states
 * and stores the output or the float32 partials of {@link SdpaSplitK#combine}.
 *
 * <h2>Precision</h2>
 *
 * q, K and V enter the mma exactly; products are accumulated in float32. The probabilities enter
 * the second product as two parts in the input dtype, the rounded value and the rounding's
 * remainder (one more mma per m-tile): rounded alone (FlashAttention's choice) they cost up to 2^-9
 * (bf16) of Σp|v| per output, which the float64 oracle tests saw where values cancel; with the
 * remainder the error is that of float32 p, as in {@link SdpaVector}.
 */
public final class SdpaVectorMma {
  private SdpaVectorMma() {}

  /** Warps per block. */
  public static final int WARPS = 4;

  /** Threads per block. */
  public static final int THREADS = WARPS * 32;

  /** Query rows per block: the 8 columns of the Oᵀ mma. */
  public static final int MAX_ROWS = 8;

  /** Keys one warp covers per iteration (two 8-key score tiles, one 16-key Oᵀ step). */
  public static final int WARP_KEYS = 16;

  /** Keys one block covers per iteration. */
  public static final int ITER_KEYS = WARPS * WARP_KEYS;

  /**
   * Floats of the score exchange of head dims 256 and 512: two parities × {@link #WARPS} warps × 32
   * lanes × 4 scores.
   */
  static final int EXCHANGE_FLOATS = 2 * WARPS * 32 * 4;

  /**
   * Shared memory per block for the widest head dim: the warps' states per row (D = 128: 4 states
   * of 128; D = 512: one of 512), their maxima and sums, and the score exchange.
   */
  public static final int SHARED_BYTES =
      (MAX_ROWS * WARPS * 128 + MAX_ROWS * WARPS * 2 + EXCHANGE_FLOATS) * 4;

  /** Whether head dim {@code headDim} is split across the block's warps (256 and 512). */
  static boolean sliced(int headDim) {
    return headDim > 128;
  }

  /** Keys one block covers per iteration at {@code headDim}. */
  public static int iterationKeys(int headDim) {
    return sliced(headDim) ? WARP_KEYS : ITER_KEYS;
  }

  /** Same parameters as {@link SdpaVector#decode}; head dims 64–512, no mask or causal. */
  @Kernel(
      validateWith = {
        "headDim=512,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=512,dtype=1,rows=8,maskKind=1,hasSinks=true,partial=false",
        "headDim=256,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=256,dtype=1,rows=3,maskKind=1,hasSinks=false,partial=false",
        "headDim=128,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=128,dtype=1,rows=8,maskKind=1,hasSinks=true,partial=false",
        "headDim=64,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=true",
        "headDim=64,dtype=1,rows=3,maskKind=1,hasSinks=false,partial=false",
        "headDim=128,dtype=0,rows=1,maskKind=0,hasSinks=true,partial=true"
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
    // Launched early (SdpaLaunches.earlyStart): nothing is read before the previous kernel ends.
    // The combine after a split pass may become resident as soon as this grid has started: its
    // launch then overlaps this kernel's work (runs 48-49: 8192 keys, D = 64, 9.09 -> 8.81 µs).
    ctx.releaseDependentGrids();
    ctx.waitForPriorGrids();
    boolean sliced = sliced(headDim); // D = 256, 512: warp w takes slice w of the head axis
    int states = sliced ? 1 : WARPS; // per row at the end: one per warp, or one for the block
    float[] scratch = ctx.allocateFloatLocalArray(MAX_ROWS * states * headDim);
    float[] ml = ctx.allocateFloatLocalArray(MAX_ROWS * WARPS * 2);
    float[] xchg = ctx.allocateFloatLocalArray(sliced ? EXCHANGE_FLOATS : 4); // [2, WARPS, 32, 4]
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    int g = lane >> 2;
    int t = lane & 3;
    int slice = sliced ? headDim / WARPS : headDim;
    int dOff = sliced ? warp * slice : 0; // first head element of this warp's slice
    boolean wide = slice > 64; // two chunks of V per key and lane, four of K

    int gqa = hq / hkv;
    int groupRows = gqa * lq;
    int rowBase = ctx.groupIdx * rows;
    int split = ctx.groupIdy;
    int splits = ctx.groupCountY;
    int b = ctx.groupIdz / hkv;
    int hk = ctx.groupIdz - b * hkv;

    // ---- keys: the split's, up to the block's last causal horizon ----
    int kStart = split * splitKeys;
    int kEnd = Math.min(lkv, kStart + splitKeys);
    if (maskKind == Sdpa.MASK_CAUSAL) {
      int maxLim = limitOf(Math.min(rowBase, groupRows - 1), lq, lkv, maskKind);
      for (int r = 1; r < rows; r++) {
        maxLim = Math.max(maxLim, limitOf(Math.min(rowBase + r, groupRows - 1), lq, lkv, maskKind));
      }
      kEnd = Math.min(kEnd, maxLim + 1);
    }
    int last = kEnd - 1;

    // ---- this lane's score row g: q fragments (zeros past the block's rows), key horizon ----
    boolean rowOk = g < rows && rowBase + g < groupRows;
    int rr = Math.min(rowBase + g, groupRows - 1);
    int kMax = Math.min(last, limitOf(rr, lq, lkv, maskKind));
    int qRow = qOff + b * qSB + headOf(rr, hk, gqa, lq) * qSH + (rr % lq) * qSL + dOff + 8 * t;
    Int4 zi = new Int4(0, 0, 0, 0);
    Int4 q0 = rowOk ? qChunk(q, qRow) : zi;
    Int4 q1 = rowOk ? qChunk(q, qRow + 32) : zi;
    Int4 q2 = zi;
    Int4 q3 = zi;
    if (wide) {
      q2 = rowOk ? qChunk(q, qRow + 64) : zi;
      q3 = rowOk ? qChunk(q, qRow + 96) : zi;
    }

    // ---- addresses: the key row is the only part that moves ----
    int kLane = kOff + b * kSB + hk * kSH + dOff + 8 * t; // chunks t, t+4, … of a key row
    int vLane = vOff + b * vSB + hk * vSH + dOff + 8 * g; // chunks g, g+8 of a value row

    Float4 z4 = Sdpa.zero4();
    Float4 o0 = z4; // Oᵀ m-tiles: chunk g, pairs 0..3
    Float4 o1 = z4;
    Float4 o2 = z4;
    Float4 o3 = z4;
    Float4 o4 = z4; // chunk g+8 (D = 128)
    Float4 o5 = z4;
    Float4 o6 = z4;
    Float4 o7 = z4;
    float m = Sdpa.NEG_INF;
    float l = 0f;

    int parity = 0; // sliced: the exchange half this iteration writes
    int step = iterationKeys(headDim);
    for (int base = kStart + (sliced ? 0 : warp * WARP_KEYS); base < kEnd; base += step) {
      // 1. Every load of the iteration: K of keys g and 8+g, V of keys 2t, 2t+1, 2t+8, 2t+9.
      int ka = kLane + Math.min(base + g, last) * kSL;
      int kb = kLane + Math.min(base + 8 + g, last) * kSL;
      Int4 ka0 = Vec.ldg4(k, ka);
      Int4 ka1 = Vec.ldg4(k, ka + 32);
      Int4 kb0 = Vec.ldg4(k, kb);
      Int4 kb1 = Vec.ldg4(k, kb + 32);
      Int4 ka2 = zi;
      Int4 ka3 = zi;
      Int4 kb2 = zi;
      Int4 kb3 = zi;
      if (wide) {
        ka2 = Vec.ldg4(k, ka + 64);
        ka3 = Vec.ldg4(k, ka + 96);
        kb2 = Vec.ldg4(k, kb + 64);
        kb3 = Vec.ldg4(k, kb + 96);
      }
      int key = base + 2 * t;
      int va = vLane + Math.min(key, last) * vSL;
      int vb = vLane + Math.min(key + 1, last) * vSL;
      int vc = vLane + Math.min(key + 8, last) * vSL;
      int vd = vLane + Math.min(key + 9, last) * vSL;
      Int4 va0 = Vec.ldg4(v, va);
      Int4 vb0 = Vec.ldg4(v, vb);
      Int4 vc0 = Vec.ldg4(v, vc);
      Int4 vd0 = Vec.ldg4(v, vd);
      Int4 va1 = zi;
      Int4 vb1 = zi;
      Int4 vc1 = zi;
      Int4 vd1 = zi;
      if (wide) {
        va1 = Vec.ldg4(v, va + 64);
        vb1 = Vec.ldg4(v, vb + 64);
        vc1 = Vec.ldg4(v, vc + 64);
        vd1 = Vec.ldg4(v, vd + 64);
      }

      // 2. Scores of keys 0-7 (sa) and 8-15 (sb): two independent chains over the head axis.
      Float4 sa = scoreChunk(ctx, q0, ka0, z4, dtype);
      Float4 sb = scoreChunk(ctx, q0, kb0, z4, dtype);
      sa = scoreChunk(ctx, q1, ka1, sa, dtype);
      sb = scoreChunk(ctx, q1, kb1, sb, dtype);
      if (wide) {
        sa = scoreChunk(ctx, q2, ka2, sa, dtype);
        sb = scoreChunk(ctx, q2, kb2, sb, dtype);
        sa = scoreChunk(ctx, q3, ka3, sa, dtype);
        sb = scoreChunk(ctx, q3, kb3, sb, dtype);
      }

      float s0 = sa.x();
      float s1 = sa.y();
      float s2 = sb.x();
      float s3 = sb.y();
      if (sliced) {
        // The four slices' partial scores, summed in warp order by every warp. The half written
        // here was last read two iterations ago, before the previous iteration's barrier.
        int mine = parity * WARPS * 128 + lane * 4;
        Vec.store4(xchg, mine + warp * 128, new Float4(s0, s1, s2, s3));
        ctx.localBarrier();
        Float4 w0 = Vec.load4(xchg, mine);
        Float4 w1 = Vec.load4(xchg, mine + 128);
        Float4 w2 = Vec.load4(xchg, mine + 256);
        Float4 w3 = Vec.load4(xchg, mine + 384);
        s0 = ((w0.x() + w1.x()) + w2.x()) + w3.x();
        s1 = ((w0.y() + w1.y()) + w2.y()) + w3.y();
        s2 = ((w0.z() + w1.z()) + w2.z()) + w3.z();
        s3 = ((w0.w() + w1.w()) + w2.w()) + w3.w();
        parity ^= 1;
      }

      // 3. Online softmax of row g over its 16 keys (4 per lane).
      float x0 = key > kMax ? Sdpa.NEG_INF : s0 * scaleLog2;
      float x1 = key + 1 > kMax ? Sdpa.NEG_INF : s1 * scaleLog2;
      float x2 = key + 8 > kMax ? Sdpa.NEG_INF : s2 * scaleLog2;
      float x3 = key + 9 > kMax ? Sdpa.NEG_INF : s3 * scaleLog2;
      float mx = Math.max(Math.max(x0, x1), Math.max(x2, x3));
      mx = Math.max(mx, ctx.shuffleXor(mx, 1));
      mx = Math.max(mx, ctx.shuffleXor(mx, 2));
      float mn = Math.max(m, mx);
      float mu = mn == Sdpa.NEG_INF ? 0f : mn; // a row with no key yet: p = 0, not NaN
      float alpha = Intrinsics.exp2(m - mu);
      float p0 = Intrinsics.exp2(x0 - mu);
      float p1 = Intrinsics.exp2(x1 - mu);
      float p2 = Intrinsics.exp2(x2 - mu);
      float p3 = Intrinsics.exp2(x3 - mu);
      l = Math.fma(l, alpha, (p0 + p1) + (p2 + p3));
      m = mn;

      // 4. Rescale Oᵀ columns 2t, 2t+1 (rows 2t, 2t+1, whose states lanes 8t and 8t+4 hold).
      float ae = ctx.shuffleIdx(alpha, 8 * t);
      float ao = ctx.shuffleIdx(alpha, 8 * t + 4);
      o0 = rescale(o0, ae, ao);
      o1 = rescale(o1, ae, ao);
      o2 = rescale(o2, ae, ao);
      o3 = rescale(o3, ae, ao);
      if (wide) {
        o4 = rescale(o4, ae, ao);
        o5 = rescale(o5, ae, ao);
        o6 = rescale(o6, ae, ao);
        o7 = rescale(o7, ae, ao);
      }

      // 5. Oᵀ += Vᵀ·Pᵀ, Pᵀ straight from the score layout, as two halves-precision parts (the
      // rounded probabilities and what rounding left), so p·V keeps float32's accuracy.
      int h01 = Sdpa.pack(p0, p1, dtype);
      int h23 = Sdpa.pack(p2, p3, dtype);
      Int2 pt = new Int2(h01, h23);
      Int2 pr =
          new Int2(
              Sdpa.pack(p0 - Sdpa.lo(h01, dtype), p1 - Sdpa.hi(h01, dtype), dtype),
              Sdpa.pack(p2 - Sdpa.lo(h23, dtype), p3 - Sdpa.hi(h23, dtype), dtype));
      o0 = valueTile(ctx, va0.x(), vb0.x(), vc0.x(), vd0.x(), pt, pr, o0, dtype);
      o1 = valueTile(ctx, va0.y(), vb0.y(), vc0.y(), vd0.y(), pt, pr, o1, dtype);
      o2 = valueTile(ctx, va0.z(), vb0.z(), vc0.z(), vd0.z(), pt, pr, o2, dtype);
      o3 = valueTile(ctx, va0.w(), vb0.w(), vc0.w(), vd0.w(), pt, pr, o3, dtype);
      if (wide) {
        o4 = valueTile(ctx, va1.x(), vb1.x(), vc1.x(), vd1.x(), pt, pr, o4, dtype);
        o5 = valueTile(ctx, va1.y(), vb1.y(), vc1.y(), vd1.y(), pt, pr, o5, dtype);
        o6 = valueTile(ctx, va1.z(), vb1.z(), vc1.z(), vd1.z(), pt, pr, o6, dtype);
        o7 = valueTile(ctx, va1.w(), vb1.w(), vc1.w(), vd1.w(), pt, pr, o7, dtype);
      }
    }

    // ---- this warp's state per row into shared memory, then the block's merge ----
    l += ctx.shuffleXor(l, 1);
    l += ctx.shuffleXor(l, 2);
    int state = sliced ? 0 : warp; // sliced: every warp holds the same m and l
    if (t == 0 && g < rows && (!sliced || warp == 0)) {
      ml[(g * states + state) * 2] = m;
      ml[(g * states + state) * 2 + 1] = l;
    }
    int re = 2 * t; // Oᵀ columns: rows 2t (x, z) and 2t+1 (y, w)
    int at = (re * states + state) * headDim + dOff + 8 * g;
    int next = states * headDim; // row 2t+1
    if (re < rows) {
      storeRow(scratch, at, o0, o1, o2, o3, false);
      if (wide) {
        storeRow(scratch, at + 64, o4, o5, o6, o7, false);
      }
    }
    if (re + 1 < rows) {
      storeRow(scratch, at + next, o0, o1, o2, o3, true);
      if (wide) {
        storeRow(scratch, at + next + 64, o4, o5, o6, o7, true);
      }
    }
    ctx.localBarrier();
    SdpaVectorOps.combineStates(
        ctx, scratch, ml, out, partO, partML, sinks, states, THREADS, rowBase, groupRows, b, hk, hq,
        gqa, lq, split, splits, headDim, dtype, rows, hasSinks, partial);
  }

  // ---- pieces (inlined) ----

  /** Eight q elements as four packed pairs (q is read once per block: scalar loads). */
  static Int4 qChunk(short[] q, int at) {
    return new Int4(
        (Vec.ldg(q, at) & 0xFFFF) | (Vec.ldg(q, at + 1) << 16),
        (Vec.ldg(q, at + 2) & 0xFFFF) | (Vec.ldg(q, at + 3) << 16),
        (Vec.ldg(q, at + 4) & 0xFFFF) | (Vec.ldg(q, at + 5) << 16),
        (Vec.ldg(q, at + 6) & 0xFFFF) | (Vec.ldg(q, at + 7) << 16));
  }

  /**
   * Two 16-element steps of S = Q·Kᵀ over one 16-byte chunk of q (A, row g) and of key g's row (B):
   * registers 0-1 form the first step's slot pairs 2t and 2t+8, registers 2-3 the second's.
   */
  static Float4 scoreChunk(KernelContext ctx, Int4 qc, Int4 kc, Float4 acc, int dtype) {
    acc = mma(ctx, new Int4(qc.x(), 0, qc.y(), 0), new Int2(kc.x(), kc.y()), acc, dtype);
    return mma(ctx, new Int4(qc.z(), 0, qc.w(), 0), new Int2(kc.z(), kc.w()), acc, dtype);
  }

  /**
   * One Oᵀ m-tile, for both parts of Pᵀ ({@code pt} rounded, {@code pr} the rest): A = Vᵀ from
   * register i of keys 2t (a), 2t+1 (b), 2t+8 (c), 2t+9 (d) — low halves (head element 8c+2i) in
   * row g, high halves (8c+2i+1) in row g+8.
   */
  static Float4 valueTile(
      KernelContext ctx, int a, int b, int c, int d, Int2 pt, Int2 pr, Float4 acc, int dtype) {
    Int4 v =
        new Int4(
            (a & 0xFFFF) | (b << 16),
            (a >>> 16) | (b & 0xFFFF0000),
            (c & 0xFFFF) | (d << 16),
            (c >>> 16) | (d & 0xFFFF0000));
    return mma(ctx, v, pr, mma(ctx, v, pt, acc, dtype), dtype);
  }

  static Float4 mma(KernelContext ctx, Int4 a, Int2 b, Float4 c, int dtype) {
    return dtype == Sdpa.F16 ? ctx.mmaF16(a, b, c) : ctx.mmaBf16(a, b, c);
  }

  /** Columns 2t (x, z) by {@code ae}, 2t+1 (y, w) by {@code ao}. */
  static Float4 rescale(Float4 o, float ae, float ao) {
    return new Float4(o.x() * ae, o.y() * ao, o.z() * ae, o.w() * ao);
  }

  /**
   * Eight consecutive head elements of one row's state from the Oᵀ m-tiles (pairs 0-3) of one
   * chunk: column 2t (x, z; {@code odd} false) or 2t+1 (y, w).
   */
  static void storeRow(
      float[] scratch, int at, Float4 p0, Float4 p1, Float4 p2, Float4 p3, boolean odd) {
    Vec.store4(
        scratch,
        at,
        odd
            ? new Float4(p0.y(), p0.w(), p1.y(), p1.w())
            : new Float4(p0.x(), p0.z(), p1.x(), p1.z()));
    Vec.store4(
        scratch,
        at + 4,
        odd
            ? new Float4(p2.y(), p2.w(), p3.y(), p3.w())
            : new Float4(p2.x(), p2.z(), p3.x(), p3.z()));
  }

  // ---- host side ----

  /** Why this kernel cannot run the call (beyond {@link SdpaVectorPlans#supports}), or null. */
  public static String supports(SdpaShape shape, int maskKind) {
    int d = shape.headDim();
    if (d != 64 && d != 128 && d != 256 && d != 512) {
      return "tensor-core decode takes head dims 64, 128, 256 and 512, got " + d;
    }
    if (maskKind != Sdpa.MASK_NONE && maskKind != Sdpa.MASK_CAUSAL) {
      return "tensor-core decode takes no mask or causal, got " + Sdpa.maskName(maskKind);
    }
    return null;
  }

  /** Rows per block that split the GQA group's rows into equal-ish blocks of at most 8. */
  static int defaultRows(SdpaShape shape) {
    int groupRows = shape.gqa() * shape.qLen();
    int groups = (groupRows + MAX_ROWS - 1) / MAX_ROWS;
    return (groupRows + groups - 1) / groups;
  }

  /**
   * Registers per thread the plan assumes without a hint, rounded up to 8 (ptxas 12.x, sm_90, the
   * validated specializations: D = 128 120–132, D = 64 76–80, the sliced D = 512 136–142 and D =
   * 256 74–86): 3, 6, 3 and 5 blocks of 128 threads per SM.
   */
  static int registers(int headDim) {
    if (sliced(headDim)) {
      return headDim > 256 ? 144 : 88;
    }
    return headDim > 64 ? 136 : 80;
  }

  /**
   * The occupancy hint the plan launches with on compute capability {@code arch} ({@code 10 * major
   * + minor}): 4 blocks per SM (at most 128 registers) for D = 128 with 4 or 8 rows on sm_90, where
   * ptxas 12.x compiles every such variant without spills (HintedVariantsPtxTest); 0 (none)
   * otherwise. Unhinted, D = 128 takes 120–132 registers: 3 blocks, 12 warps per SM, and Nsight
   * showed the kernel waiting on its loads (run 38: long-scoreboard 12.3 stall cycles per issued
   * instruction, 17% achieved occupancy). The sliced D = 512 on sm_90, every row count: 4 blocks
   * (ptxas 12.6: 136–142 registers unhinted, 126–128 hinted, no spills: HintedVariantsPtxTest). The
   * sliced D = 256 takes 74–86 unhinted (5 blocks) and spills in bf16 one-pass variants at the
   * 6-block hint's 80, so it has none.
   */
  public static int minBlocksPerSm(int arch, int headDim, int rows) {
    if (arch != 90) {
      return 0;
    }
    return switch (headDim) {
      case 128 -> rows == 4 || rows == 8 ? 4 : 0;
      case 512 -> 4;
      default -> 0;
    };
  }

  /** The plan without an occupancy hint, on {@code smCount} SMs (splits fill one wave). */
  public static SdpaVectorPlans.Plan plan(SdpaShape shape, int smCount) {
    return plan(shape, smCount, 0, 0);
  }

  /**
   * The plan on {@code smCount} SMs of compute capability {@code arch} (0: no hint), with {@code
   * forceSplits} key splits (0: as many as fill one wave of resident blocks).
   */
  public static SdpaVectorPlans.Plan plan(SdpaShape shape, int smCount, int forceSplits, int arch) {
    int rows = defaultRows(shape);
    int hint = minBlocksPerSm(arch, shape.headDim(), rows);
    // 128-thread blocks like SdpaVector's; its larger shared footprint caps the count at 6.
    int blocks = hint > 0 ? hint : SdpaVectorPlans.blocksPerSm(registers(shape.headDim()));
    return SdpaVectorPlans.layout(
            shape,
            smCount,
            rows,
            blocks,
            forceSplits,
            MAX_ROWS,
            iterationKeys(shape.headDim()),
            THREADS,
            SHARED_BYTES,
            SdpaVectorMma.class)
        .withMinBlocksPerSm(hint);
  }
}
