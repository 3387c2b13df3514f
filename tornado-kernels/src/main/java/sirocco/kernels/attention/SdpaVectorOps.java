package sirocco.kernels.attention;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * The per-iteration pieces of {@link SdpaVector#decode}: dot products, the two score reductions,
 * the softmax steps and p·V. Static helpers, inlined by the compiler; {@code rows}, {@code wide}
 * and {@code dtype} are specialization constants there, so every test on them folds away.
 */
final class SdpaVectorOps {
  private SdpaVectorOps() {}

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

  // ---- step 2: partial dot products ----

  /** Dot product of 8 q values with the 8 packed elements of one 16-byte chunk. */
  static float dot8(Float4 qa, Float4 qb, Int4 w, int dtype) {
    return dot8(qa, qb, w, dtype, qa.x() * Sdpa.lo(w.x(), dtype), false);
  }

  /** {@link #dot8} added to {@code acc}: the same chain continued over the next 8 elements. */
  static float dot8(Float4 qa, Float4 qb, Int4 w, int dtype, float acc) {
    return dot8(qa, qb, w, dtype, acc, true);
  }

  private static float dot8(Float4 qa, Float4 qb, Int4 w, int dtype, float s, boolean first) {
    if (first) {
      s = Math.fma(qa.x(), Sdpa.lo(w.x(), dtype), s);
    }
    s = Math.fma(qa.y(), Sdpa.hi(w.x(), dtype), s);
    s = Math.fma(qa.z(), Sdpa.lo(w.y(), dtype), s);
    s = Math.fma(qa.w(), Sdpa.hi(w.y(), dtype), s);
    s = Math.fma(qb.x(), Sdpa.lo(w.z(), dtype), s);
    s = Math.fma(qb.y(), Sdpa.hi(w.z(), dtype), s);
    s = Math.fma(qb.z(), Sdpa.lo(w.w(), dtype), s);
    return Math.fma(qb.w(), Sdpa.hi(w.w(), dtype), s);
  }

  /**
   * One K chunk's dot products with rows 0..3 (x..w), rows past {@code rows} 0. Written per chunk
   * rather than per row, and unconditionally, so the chunk is unpacked once for every row (the
   * compiler shares the conversions within a block). An idle lane (D = 96) computes partials from
   * chunk 0 that nobody sums (see {@link #reduce}).
   */
  static Float4 chunkDots(
      Float4 q0a,
      Float4 q0b,
      Float4 q1a,
      Float4 q1b,
      Float4 q2a,
      Float4 q2b,
      Float4 q3a,
      Float4 q3b,
      Int4 w,
      int rows,
      int dtype) {
    return new Float4(
        dot8(q0a, q0b, w, dtype),
        rows > 1 ? dot8(q1a, q1b, w, dtype) : 0f,
        rows > 2 ? dot8(q2a, q2b, w, dtype) : 0f,
        rows > 3 ? dot8(q3a, q3b, w, dtype) : 0f);
  }

  /**
   * {@link #chunkDots} continuing the chains in {@code acc} (D = 512: a step's second chunk, one
   * 16-element chain per row and step); {@code acc} unchanged on a lane without a second chunk
   * ({@code on} false, widths between 256 and 512 only).
   */
  static Float4 chunkDots(
      Float4 q0a,
      Float4 q0b,
      Float4 q1a,
      Float4 q1b,
      Float4 q2a,
      Float4 q2b,
      Float4 q3a,
      Float4 q3b,
      Int4 w,
      int rows,
      int dtype,
      boolean on,
      Float4 acc) {
    return new Float4(
        on ? dot8(q0a, q0b, w, dtype, acc.x()) : acc.x(),
        rows > 1 && on ? dot8(q1a, q1b, w, dtype, acc.y()) : acc.y(),
        rows > 2 && on ? dot8(q2a, q2b, w, dtype, acc.z()) : acc.z(),
        rows > 3 && on ? dot8(q3a, q3b, w, dtype, acc.w()) : acc.w());
  }

  // ---- step 3: sums over a key group's lanes ----

  /**
   * Shared-memory path (tpk 8, 16): the sum of one value over the first {@code lanes} lanes of a
   * key group, {@code at} being the value's slot in the group's first lane. Partner t's copy sits
   * {@code t * P_STRIDE} further, a constant offset once unrolled: one load and one add per lane.
   *
   * <p>Why not shuffles here: with tpk lanes and {@code 4 * rows} values, a transposed shuffle
   * reduction costs one shuffle, one add and two selects per value pair and halving (tpk = 16, rows
   * = 4: 15 shuffles, 15 adds, 30 selects, plus publishing the scores), while the slab costs 4
   * vector stores and {@code lanes} loads and adds per value per lane (16 + 15), every lane busy.
   * At tpk = 32 the slab would need 32 loads and adds with half the lanes idle; see {@link
   * #warpScores}.
   */
  static float reduce(float[] scratch, int at, int lanes) {
    float s = scratch[at];
    for (int t = 1; t < lanes; t++) {
      s += scratch[at + t * SdpaVector.P_STRIDE];
    }
    return s;
  }

  /**
   * One transposed-reduction step: lanes with {@code hi} keep {@code b} and send {@code a}, the
   * others the opposite, so each lane ends with the pair sum of the value it kept.
   */
  static float fold(KernelContext ctx, float a, float b, boolean hi, int laneMask) {
    float r = ctx.shuffleXor(hi ? a : b, laneMask);
    return (hi ? b : a) + r;
  }

  /**
   * Shuffle path (tpk = 32, D = 256 and 512): sums the warp's partials of every (row, step) value
   * (step u's rows in {@code s_u}, steps 0, 1 only when {@code wide}) with a transposed reduction:
   * each xor stage halves the values a lane carries (rows first, lane bits 16 and 8, then steps),
   * and plain butterflies finish once one is left. Lane l ends with the value whose row is given by
   * its top {@code rowBits} bits and whose step by the next one ({@code wide}) or two, as {@code
   * decode} decodes it. Shuffles: 16 at D = 256, rows = 4 (against 4 × 16 × 5 for butterflies of
   * every value) and 9 at D = 512; the slab would take 32 loads and adds per value with at most 16
   * lanes busy.
   */
  static float warpScores(
      KernelContext ctx,
      int lane,
      int rows,
      boolean wide,
      Float4 s0,
      Float4 s1,
      Float4 s2,
      Float4 s3) {
    int bit = 16;
    // After the row stages: the lane's row, per step.
    float a0 = s0.x();
    float a1 = s1.x();
    float a2 = s2.x();
    float a3 = s3.x();
    if (rows > 2) {
      boolean h16 = (lane & 16) != 0; // rows 2, 3 (else 0, 1)
      boolean h8 = (lane & 8) != 0; // the odd row of the pair
      a0 = fold(ctx, fold(ctx, s0.x(), s0.z(), h16, 16), fold(ctx, s0.y(), s0.w(), h16, 16), h8, 8);
      a1 = fold(ctx, fold(ctx, s1.x(), s1.z(), h16, 16), fold(ctx, s1.y(), s1.w(), h16, 16), h8, 8);
      if (!wide) {
        a2 =
            fold(
                ctx, fold(ctx, s2.x(), s2.z(), h16, 16), fold(ctx, s2.y(), s2.w(), h16, 16), h8, 8);
        a3 =
            fold(
                ctx, fold(ctx, s3.x(), s3.z(), h16, 16), fold(ctx, s3.y(), s3.w(), h16, 16), h8, 8);
      }
      bit = 4;
    } else if (rows > 1) {
      boolean h16 = (lane & 16) != 0;
      a0 = fold(ctx, s0.x(), s0.y(), h16, 16);
      a1 = fold(ctx, s1.x(), s1.y(), h16, 16);
      if (!wide) {
        a2 = fold(ctx, s2.x(), s2.y(), h16, 16);
        a3 = fold(ctx, s3.x(), s3.y(), h16, 16);
      }
      bit = 8;
    }
    float v;
    if (wide) {
      v = fold(ctx, a0, a1, (lane & bit) != 0, bit);
      bit = bit / 2;
    } else {
      boolean h = (lane & bit) != 0; // steps 2, 3 (else 0, 1)
      float e0 = fold(ctx, a0, a2, h, bit);
      float e1 = fold(ctx, a1, a3, h, bit);
      bit = bit / 2;
      v = fold(ctx, e0, e1, (lane & bit) != 0, bit);
      bit = bit / 2;
    }
    // The lanes that differ only in the remaining low bits hold partial sums of the same value.
    if (bit >= 8) {
      v += ctx.shuffleXor(v, 8);
    }
    if (bit >= 4) {
      v += ctx.shuffleXor(v, 4);
    }
    if (bit >= 2) {
      v += ctx.shuffleXor(v, 2);
    }
    if (bit >= 1) {
      v += ctx.shuffleXor(v, 1);
    }
    return v;
  }

  // ---- step 4: online softmax and p·V ----

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

  /** Σ p of one iteration (D = 512: two steps; the sum of 0s would only add instructions). */
  static float rowSum(Float4 p, boolean wide) {
    return wide ? p.x() + p.y() : (p.x() + p.y()) + (p.z() + p.w());
  }

  /**
   * {@code o + Σ p_u·V_u} for four output elements: elements 0–3 ({@code second == false}) or 4–7
   * of the chunks {@code w0..w3}, one per step ({@code four}) or {@code w0, w1} only. Added in step
   * order, each element one fma chain.
   */
  static Float4 pv(
      Float4 o,
      Float4 p,
      Int4 w0,
      Int4 w1,
      Int4 w2,
      Int4 w3,
      boolean second,
      boolean four,
      int dtype) {
    Float4 r = pv(o, p.x(), w0, second, dtype);
    r = pv(r, p.y(), w1, second, dtype);
    if (four) {
      r = pv(r, p.z(), w2, second, dtype);
      r = pv(r, p.w(), w3, second, dtype);
    }
    return r;
  }

  private static Float4 pv(Float4 o, float p, Int4 w, boolean second, int dtype) {
    int a = second ? w.z() : w.x();
    int b = second ? w.w() : w.y();
    return new Float4(
        Math.fma(p, Sdpa.lo(a, dtype), o.x()),
        Math.fma(p, Sdpa.hi(a, dtype), o.y()),
        Math.fma(p, Sdpa.lo(b, dtype), o.z()),
        Math.fma(p, Sdpa.hi(b, dtype), o.w()));
  }

  // ---- after the loop: normalisation (also used by SdpaSplitK's combine) ----

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

  /**
   * The end of a decode block: {@code states} online-softmax states per row (row r's state s: max
   * and sum at {@code ml[(r * states + s) * 2]}, unnormalised output at {@code scratch[(r * states
   * + s) * headDim]}) merged per row and either normalised (sinks included), rounded and stored as
   * 16-byte rows of {@code out}, or stored as float32 partials for {@link SdpaSplitK#combine}. A
   * row whose every key was masked has max −inf and yields 0. Call after a barrier that follows the
   * states' stores; {@code threads} is the block size.
   */
  static void combineStates(
      KernelContext ctx,
      float[] scratch, // [rows, states, headDim] (shared)
      float[] ml, // [rows, states, 2] (shared)
      short[] out, // [B, Hq, Lq, D] bits
      float[] partO, // [B*Hq*Lq, splits, D]
      float[] partML, // [B*Hq*Lq, splits, 2]
      float[] sinks, // [Hq]
      int states,
      int threads,
      int rowBase,
      int groupRows,
      int b,
      int hk,
      int hq,
      int gqa,
      int lq,
      int split,
      int splits,
      int headDim,
      int dtype,
      int rows,
      boolean hasSinks,
      boolean partial) {
    int chunks = headDim / 8;
    for (int item = ctx.localIdx; item < rows * chunks; item += threads) {
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

  /**
   * The mask's base-2 term for key {@code min(key, last)} of the mask row starting at {@code row}
   * (key stride {@code mSK}): the additive value × log2 e, 0 or −inf for a boolean mask (0 =
   * masked), 0 for the other kinds (nothing is read).
   */
  static float maskLog2(
      float[] maskAdd, // broadcast to [B, Hq, Lq, Lkv] float32
      byte[] maskBool, // broadcast to [B, Hq, Lq, Lkv], 0 = masked
      int row,
      int key,
      int last,
      int mSK,
      int maskKind) {
    if (maskKind == Sdpa.MASK_ADDITIVE) {
      return Sdpa.additiveLog2(Vec.ldg(maskAdd, row + Math.min(key, last) * mSK));
    }
    if (maskKind == Sdpa.MASK_BOOL) {
      return Vec.ldg(maskBool, row + Math.min(key, last) * mSK) != 0 ? 0f : Sdpa.NEG_INF;
    }
    return 0f;
  }
}
