package sirocco.kernels.attention;

import static sirocco.kernels.attention.SdpaVectorOps.chunkDots;
import static sirocco.kernels.attention.SdpaVectorOps.headOf;
import static sirocco.kernels.attention.SdpaVectorOps.limitOf;
import static sirocco.kernels.attention.SdpaVectorOps.loadQ4;
import static sirocco.kernels.attention.SdpaVectorOps.pick;
import static sirocco.kernels.attention.SdpaVectorOps.pv;
import static sirocco.kernels.attention.SdpaVectorOps.reduce;
import static sirocco.kernels.attention.SdpaVectorOps.rowExp;
import static sirocco.kernels.attention.SdpaVectorOps.rowMax;
import static sirocco.kernels.attention.SdpaVectorOps.rowSum;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * The code of {@link SdpaVector#decode} (see its class comment for the work decomposition, the
 * iteration and the costs), shared with {@link SdpaVectorStaged#decode}. Kernel-subset code,
 * inlined into both kernels; {@code staged} is a constant at each call.
 */
final class SdpaVectorBody {
  private SdpaVectorBody() {}

  /**
   * The body of {@link SdpaVector#decode} (the parameters are its parameters) and {@link
   * SdpaVectorStaged#decode}: with {@code staged}, K and V reach registers through {@link
   * SdpaKvStages}' shared-memory ring instead of direct loads.
   */
  static void run(
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
      int headDim,
      int dtype,
      int rows,
      int maskKind,
      boolean hasSinks,
      boolean partial,
      boolean staged) {
    // May be launched early (SdpaLaunches.earlyStart): nothing is read before the previous kernel
    // ends. No early release of the combine: it slowed these kernels (runs 48-49, e.g. D = 512 at
    // 1024 keys 11.77 -> 12.42 µs).
    ctx.waitForPriorGrids();
    float[] scratch = ctx.allocateFloatLocalArray(SdpaVector.SCRATCH_FLOATS);
    float[] ml = ctx.allocateFloatLocalArray(SdpaVector.ML_FLOATS);
    short[] kvStage = ctx.allocateShortLocalArray(SdpaKvStages.shorts(staged)); // see SdpaKvStages

    // ---- lane layout ----
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    int tpk = SdpaVector.lanesPerKey(headDim);
    int kpw = 32 / tpk;
    boolean wide = headDim > 256;
    int steps = wide ? 2 : 4;
    int grp = lane / tpk;
    int sub = lane - grp * tpk;
    int d0 = sub * 8;
    int d1 = 256 + sub * 8;
    // Idle lanes exist only for D = 96 (and untested widths): the tests fold for the others.
    boolean act0 = tpk * 8 <= headDim || d0 < headDim;
    boolean act1 = wide && (headDim >= 512 || d1 < headDim);
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

    // ---- addresses: everything but the key row is fixed per lane ----
    int kLane = kOff + b * kSB + hk * kSH + c0;
    int vLane = vOff + b * vSB + hk * vSH + c0;
    int dc = act1 ? 256 : -c0; // D = 512: the second chunk (an idle lane: chunk 0 again)
    int laneKey = warp * steps * kpw + grp; // step 0's key, relative to the iteration's first
    int last = kEnd - 1;
    int iterKeys = SdpaVector.WARPS * steps * kpw;
    // Staged: the first STAGES - 1 iterations' K and V on their way before q's loads, so that
    // the ring fills while q arrives (the compiler keeps memory operations in program order).
    if (staged) {
      for (int st = 0; st < SdpaKvStages.STAGES - 1; st++) {
        int ahead = kStart + st * iterKeys;
        if (ahead < kEnd) {
          SdpaKvStages.issue(
              kvStage,
              st,
              k,
              v,
              kLane,
              vLane,
              ahead + laneKey,
              last,
              kpw,
              kSL,
              vSL,
              dc,
              wide,
              warp,
              lane);
        }
        Vec.commitAsync();
      }
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

    // ---- the score values this lane finishes (mask, split tail) and publishes ----
    // Value v = 4*row + step of the lane's key group. Slab path: lane sub sums value sub and, when
    // a group has more values than lanes (tpk = 8, rows > 2), value sub + tpk. Shuffle path (see
    // the class comment for which): warpScores() leaves lane l with the value whose row is l's top
    // rowBits bits and whose step the next one (D = 512) or two; the lanes sharing it differ in
    // the low `spare` bits, and the first of them publishes it.
    boolean shuffled = tpk == 32 && rows * steps <= 8;
    int rowBits = rows > 2 ? 2 : rows > 1 ? 1 : 0;
    int spare = 5 - rowBits - (wide ? 1 : 2);
    int va =
        shuffled
            ? 4 * (lane >> (5 - rowBits) & (1 << rowBits) - 1) + (lane >> spare & steps - 1)
            : sub;
    int vb = va + tpk;
    boolean pubA = shuffled ? (lane & (1 << spare) - 1) == 0 : rows * 4 >= tpk || va < rows * 4;
    boolean hasB = !shuffled && rows * 4 > tpk;
    int rowA = va >> 2;
    int rowB = vb >> 2 & 3;
    int keyOffA = (va & 3) * kpw;
    int keyOffB = (vb & 3) * kpw;
    // Largest key each value may see: the split's end, and the row's causal horizon.
    int kMaxA = kEnd - 1;
    int kMaxB = kEnd - 1;
    if (maskKind == Sdpa.MASK_CAUSAL) {
      kMaxA = Math.min(kMaxA, pick(rowA, lim0, lim1, lim2, lim3));
      kMaxB = Math.min(kMaxB, pick(rowB, lim0, lim1, lim2, lim3));
    }
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

    // Partial-dot slots: lane slots SdpaVector.P_STRIDE floats apart, key group g shifted by g *
    // tpk floats.
    // A group's slots span tpk * SdpaVector.P_STRIDE floats, a multiple of 32 banks, so the shift
    // is what
    // puts the groups' reads of one reduce() load on different banks (conflict-free), while each
    // lane reads partner t at a constant offset t * SdpaVector.P_STRIDE from its own base.
    int pGroup =
        warp * SdpaVector.WARP_SLAB
            + grp * tpk * (SdpaVector.P_STRIDE + 1); // first lane of this key group
    int pLane = pGroup + sub * SdpaVector.P_STRIDE; // this lane's partial-dot slot
    int sGroup = SdpaVector.S_OFFSET + (warp * kpw + grp) * 16; // this key group's scores
    // Lanes holding a real chunk: the reduction sums only theirs (D = 96: 12 of each 16).
    int sumLanes = headDim / 8 < tpk ? headDim / 8 : tpk;

    int iter = 0;
    for (int base = kStart; base < kEnd; base += iterKeys) {
      // Step u of this key group reads key key0 + u*kpw; a warp reads steps*kpw consecutive keys.
      // Keys past the split's end are clamped to its last key (a valid row; scored -inf below).
      int key0 = base + laneKey;
      int j0 = Math.min(key0, last);
      int j1 = Math.min(key0 + kpw, last);

      // 1. All loads of the iteration first: 8 x 16 bytes per lane in flight. D = 512: slots
      // 0, 1 = step 0's two chunks, slots 2, 3 = step 1's (the second at a constant offset).
      Int4 k0;
      Int4 k1;
      Int4 k2;
      Int4 k3;
      Int4 v0;
      Int4 v1;
      Int4 v2;
      Int4 v3;
      if (staged) {
        Vec.waitAsync(SdpaKvStages.STAGES - 2); // this lane's copies of this iteration landed
        int at = SdpaKvStages.slot(iter % SdpaKvStages.STAGES, warp, lane);
        k0 = Vec.load4(kvStage, at);
        k1 = Vec.load4(kvStage, at + SdpaKvStages.SLOT);
        k2 = Vec.load4(kvStage, at + 2 * SdpaKvStages.SLOT);
        k3 = Vec.load4(kvStage, at + 3 * SdpaKvStages.SLOT);
        v0 = Vec.load4(kvStage, at + 4 * SdpaKvStages.SLOT);
        v1 = Vec.load4(kvStage, at + 5 * SdpaKvStages.SLOT);
        v2 = Vec.load4(kvStage, at + 6 * SdpaKvStages.SLOT);
        v3 = Vec.load4(kvStage, at + 7 * SdpaKvStages.SLOT);
        // The stage read last iteration (now in registers) takes the iteration STAGES - 1 ahead.
        int ahead = base + (SdpaKvStages.STAGES - 1) * iterKeys;
        if (ahead < kEnd) {
          SdpaKvStages.issue(
              kvStage,
              (iter + SdpaKvStages.STAGES - 1) % SdpaKvStages.STAGES,
              k,
              v,
              kLane,
              vLane,
              ahead + laneKey,
              last,
              kpw,
              kSL,
              vSL,
              dc,
              wide,
              warp,
              lane);
        }
        Vec.commitAsync();
        iter++;
      } else if (wide) {
        int ka = kLane + j0 * kSL;
        int kb = kLane + j1 * kSL;
        int vA = vLane + j0 * vSL;
        int vB = vLane + j1 * vSL;
        k0 = Vec.ldg4(k, ka);
        k1 = Vec.ldg4(k, ka + dc);
        k2 = Vec.ldg4(k, kb);
        k3 = Vec.ldg4(k, kb + dc);
        v0 = Vec.ldg4(v, vA);
        v1 = Vec.ldg4(v, vA + dc);
        v2 = Vec.ldg4(v, vB);
        v3 = Vec.ldg4(v, vB + dc);
      } else {
        int j2 = Math.min(key0 + 2 * kpw, last);
        int j3 = Math.min(key0 + 3 * kpw, last);
        k0 = Vec.ldg4(k, kLane + j0 * kSL);
        k1 = Vec.ldg4(k, kLane + j1 * kSL);
        k2 = Vec.ldg4(k, kLane + j2 * kSL);
        k3 = Vec.ldg4(k, kLane + j3 * kSL);
        v0 = Vec.ldg4(v, vLane + j0 * vSL);
        v1 = Vec.ldg4(v, vLane + j1 * vSL);
        v2 = Vec.ldg4(v, vLane + j2 * vSL);
        v3 = Vec.ldg4(v, vLane + j3 * vSL);
      }
      int keyA = key0 + keyOffA;
      int keyB = key0 + keyOffB;
      float maskA = SdpaVectorOps.maskLog2(maskAdd, maskBool, maskRowA, keyA, last, mSK, maskKind);
      float maskB = 0f;
      if (hasB) {
        maskB = SdpaVectorOps.maskLog2(maskAdd, maskBool, maskRowB, keyB, last, mSK, maskKind);
      }

      // 2. Partial dots of this lane's elements, chunk by chunk: each unpacked K chunk serves every
      // row before the next is unpacked. dk_u = (row 0..3) of step u.
      Float4 dk0;
      Float4 dk1;
      Float4 dk2 = Sdpa.zero4();
      Float4 dk3 = Sdpa.zero4();
      if (!wide) {
        dk0 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k0, rows, dtype);
        dk1 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k1, rows, dtype);
        dk2 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k2, rows, dtype);
        dk3 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k3, rows, dtype);
      } else {
        dk0 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k0, rows, dtype);
        dk0 = chunkDots(q02, q03, q12, q13, q22, q23, q32, q33, k1, rows, dtype, act1, dk0);
        dk1 = chunkDots(q00, q01, q10, q11, q20, q21, q30, q31, k2, rows, dtype);
        dk1 = chunkDots(q02, q03, q12, q13, q22, q23, q32, q33, k3, rows, dtype, act1, dk1);
      }

      // 3. Sum the partials over the key group's lanes, mask, publish the scores.
      if (!shuffled) {
        Vec.store4(scratch, pLane, new Float4(dk0.x(), dk1.x(), dk2.x(), dk3.x()));
        if (rows > 1) {
          Vec.store4(scratch, pLane + 4, new Float4(dk0.y(), dk1.y(), dk2.y(), dk3.y()));
        }
        if (rows > 2) {
          Vec.store4(scratch, pLane + 8, new Float4(dk0.z(), dk1.z(), dk2.z(), dk3.z()));
        }
        if (rows > 3) {
          Vec.store4(scratch, pLane + 12, new Float4(dk0.w(), dk1.w(), dk2.w(), dk3.w()));
        }
        ctx.warpBarrier();
        float sa = reduce(scratch, pGroup + va, sumLanes); // lanes without a value: discarded
        if (pubA) {
          scratch[sGroup + va] = keyA > kMaxA ? Sdpa.NEG_INF : sa + maskA;
        }
        if (hasB) {
          float sb = reduce(scratch, pGroup + vb, sumLanes);
          scratch[sGroup + vb] = keyB > kMaxB ? Sdpa.NEG_INF : sb + maskB;
        }
      } else {
        if (!act0) { // widths 136..248 (layout test only): every lane's partial is summed here
          dk0 = Sdpa.zero4();
          dk1 = Sdpa.zero4();
          dk2 = Sdpa.zero4();
          dk3 = Sdpa.zero4();
        }
        float sa = SdpaVectorOps.warpScores(ctx, lane, rows, wide, dk0, dk1, dk2, dk3);
        ctx.warpBarrier(); // every lane has read the previous iteration's scores
        if (pubA) {
          scratch[sGroup + va] = keyA > kMaxA ? Sdpa.NEG_INF : sa + maskA;
        }
      }
      ctx.warpBarrier();

      // 4. Online softmax once per iteration per row, then p·V into the float32 accumulators.
      Float4 s0 = Vec.load4(scratch, sGroup);
      float n0 = rowMax(m0, s0, wide);
      Float4 p0 = rowExp(s0, n0 == Sdpa.NEG_INF ? 0f : n0, wide);
      float n1 = m1;
      float n2 = m2;
      float n3 = m3;
      Float4 p1 = Sdpa.zero4();
      Float4 p2 = Sdpa.zero4();
      Float4 p3 = Sdpa.zero4();
      float grow = n0 - m0;
      if (rows > 1) {
        Float4 s = Vec.load4(scratch, sGroup + 4);
        n1 = rowMax(m1, s, wide);
        p1 = rowExp(s, n1 == Sdpa.NEG_INF ? 0f : n1, wide);
        grow += n1 - m1;
      }
      if (rows > 2) {
        Float4 s = Vec.load4(scratch, sGroup + 8);
        n2 = rowMax(m2, s, wide);
        p2 = rowExp(s, n2 == Sdpa.NEG_INF ? 0f : n2, wide);
        grow += n2 - m2;
      }
      if (rows > 3) {
        Float4 s = Vec.load4(scratch, sGroup + 12);
        n3 = rowMax(m3, s, wide);
        p3 = rowExp(s, n3 == Sdpa.NEG_INF ? 0f : n3, wide);
        grow += n3 - m3;
      }
      // Rescale only when some row's max moved. Each n - m is >= 0, or NaN (a NaN score, or a row
      // still at -inf), so grow <= 0 means every max stayed: alpha would be exactly 1 (ex2(0) = 1)
      // and x * 1 = x, so skipping changes no bit. With D >= 256 the branch is warp-uniform (one
      // key group per warp); with more groups a lane runs the rescale when any group of its warp
      // needs it, with its own (possibly 1) alpha.
      if (!(grow <= 0f)) {
        float a0 = Intrinsics.exp2(m0 - (n0 == Sdpa.NEG_INF ? 0f : n0));
        l0 *= a0;
        o00 = Sdpa.scale4(o00, a0);
        o01 = Sdpa.scale4(o01, a0);
        if (wide) {
          o02 = Sdpa.scale4(o02, a0);
          o03 = Sdpa.scale4(o03, a0);
        }
        if (rows > 1) {
          float a1 = Intrinsics.exp2(m1 - (n1 == Sdpa.NEG_INF ? 0f : n1));
          l1 *= a1;
          o10 = Sdpa.scale4(o10, a1);
          o11 = Sdpa.scale4(o11, a1);
          if (wide) {
            o12 = Sdpa.scale4(o12, a1);
            o13 = Sdpa.scale4(o13, a1);
          }
        }
        if (rows > 2) {
          float a2 = Intrinsics.exp2(m2 - (n2 == Sdpa.NEG_INF ? 0f : n2));
          l2 *= a2;
          o20 = Sdpa.scale4(o20, a2);
          o21 = Sdpa.scale4(o21, a2);
          if (wide) {
            o22 = Sdpa.scale4(o22, a2);
            o23 = Sdpa.scale4(o23, a2);
          }
        }
        if (rows > 3) {
          float a3 = Intrinsics.exp2(m3 - (n3 == Sdpa.NEG_INF ? 0f : n3));
          l3 *= a3;
          o30 = Sdpa.scale4(o30, a3);
          o31 = Sdpa.scale4(o31, a3);
          if (wide) {
            o32 = Sdpa.scale4(o32, a3);
            o33 = Sdpa.scale4(o33, a3);
          }
        }
      }
      l0 += rowSum(p0, wide);
      if (rows > 1) {
        l1 += rowSum(p1, wide);
      }
      if (rows > 2) {
        l2 += rowSum(p2, wide);
      }
      if (rows > 3) {
        l3 += rowSum(p3, wide);
      }
      m0 = n0;
      m1 = n1;
      m2 = n2;
      m3 = n3;
      if (!wide) {
        o00 = pv(o00, p0, v0, v1, v2, v3, false, true, dtype);
        o01 = pv(o01, p0, v0, v1, v2, v3, true, true, dtype);
        if (rows > 1) {
          o10 = pv(o10, p1, v0, v1, v2, v3, false, true, dtype);
          o11 = pv(o11, p1, v0, v1, v2, v3, true, true, dtype);
        }
        if (rows > 2) {
          o20 = pv(o20, p2, v0, v1, v2, v3, false, true, dtype);
          o21 = pv(o21, p2, v0, v1, v2, v3, true, true, dtype);
        }
        if (rows > 3) {
          o30 = pv(o30, p3, v0, v1, v2, v3, false, true, dtype);
          o31 = pv(o31, p3, v0, v1, v2, v3, true, true, dtype);
        }
      } else {
        o00 = pv(o00, p0, v0, v2, v0, v2, false, false, dtype);
        o01 = pv(o01, p0, v0, v2, v0, v2, true, false, dtype);
        o02 = pv(o02, p0, v1, v3, v1, v3, false, false, dtype);
        o03 = pv(o03, p0, v1, v3, v1, v3, true, false, dtype);
        if (rows > 1) {
          o10 = pv(o10, p1, v0, v2, v0, v2, false, false, dtype);
          o11 = pv(o11, p1, v0, v2, v0, v2, true, false, dtype);
          o12 = pv(o12, p1, v1, v3, v1, v3, false, false, dtype);
          o13 = pv(o13, p1, v1, v3, v1, v3, true, false, dtype);
        }
        if (rows > 2) {
          o20 = pv(o20, p2, v0, v2, v0, v2, false, false, dtype);
          o21 = pv(o21, p2, v0, v2, v0, v2, true, false, dtype);
          o22 = pv(o22, p2, v1, v3, v1, v3, false, false, dtype);
          o23 = pv(o23, p2, v1, v3, v1, v3, true, false, dtype);
        }
        if (rows > 3) {
          o30 = pv(o30, p3, v0, v2, v0, v2, false, false, dtype);
          o31 = pv(o31, p3, v0, v2, v0, v2, true, false, dtype);
          o32 = pv(o32, p3, v1, v3, v1, v3, false, false, dtype);
          o33 = pv(o33, p3, v1, v3, v1, v3, true, false, dtype);
        }
      }
    }

    if (staged) {
      Vec.waitAsync(0); // no copy may still be in flight into shared memory when the block exits
    }

    // ---- combine the SdpaVector.WARPS * kpw states of each row through shared memory ----
    ctx.localBarrier(); // every warp is done with the partial-dot slab
    int states = SdpaVector.WARPS * kpw;
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

    SdpaVectorOps.combineStates(
        ctx,
        scratch,
        ml,
        out,
        partO,
        partML,
        sinks,
        states,
        SdpaVector.THREADS,
        rowBase,
        groupRows,
        b,
        hk,
        hq,
        gqa,
        lq,
        split,
        splits,
        headDim,
        dtype,
        rows,
        hasSinks,
        partial);
  }
}
