package sirocco.kernels.attention;

import sirocco.api.Intrinsics;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * The unfused attention fallback: any query length, any head dims (v's may differ from q/k's), any
 * strides (including the last axis), every dtype and mask kind. Three launches over a float32 score
 * buffer {@code [B, Hq, Lq, Lkv]}:
 *
 * <ol>
 *   <li>{@link #scores16} / {@link #scores32}: {@code S = scale·q·kᵀ + mask}, masked entries −inf
 *       (one thread per score, float32 dot product with FMAs, unrolled by 4: 8 loads in flight);
 *   <li>{@link #softmax}: in place, one warp per row, float32, max-subtracted (online max and sum
 *       per lane, merged with shuffles), sinks in the denominator; a row with no unmasked key and
 *       no sink becomes all zeros;
 *   <li>{@link #pv16} / {@link #pv32}: {@code out = P·v} (one thread per output element, keys
 *       unrolled by 4).
 * </ol>
 *
 * It is the correctness backstop of the dispatch ladder and the on-GPU reference for the fused
 * kernels, so it favours simple, obviously correct indexing over speed: it reads K once per q head
 * (not once per GQA group) and materialises the scores.
 */
public final class SdpaUnfused {
  private SdpaUnfused() {}

  /** Threads per block of the element-wise launches. */
  public static final int THREADS = 256;

  /** Rows (warps) per softmax block. */
  public static final int SOFTMAX_ROWS = 4;

  /**
   * Scores for 16-bit q and k, one thread per element of {@code scores}.
   *
   * @param q {@code [B, Hq, Lq, D]} bits; {@code (b, h, i, e)} at {@code qOff + b*qSB + h*qSH +
   *     i*qSL + e*qSD}
   * @param k {@code [B, Hkv, Lkv, D]} bits; {@code (b, h, j, e)} at {@code kOff + b*kSB + h*kSH +
   *     j*kSL + e*kSD}
   * @param maskAdd float32 additive mask; {@code (b, h, i, j)} at {@code mOff + b*mSB + h*mSH +
   *     i*mSL + j*mSK}; read when {@code maskKind == MASK_ADDITIVE}
   * @param maskBool byte mask (0 = masked), indexed like {@code maskAdd}; read when {@code maskKind
   *     == MASK_BOOL}
   * @param scores {@code [B, Hq, Lq, Lkv]} float32 out, contiguous; masked entries −inf
   * @param total {@code B*Hq*Lq*Lkv}
   */
  @Kernel(validateWith = {"dtype=0,maskKind=0", "dtype=1,maskKind=1", "dtype=0,maskKind=2"})
  public static void scores16(
      KernelContext ctx,
      short[] q,
      short[] k,
      float[] maskAdd,
      byte[] maskBool,
      float[] scores,
      int hq,
      int hkv,
      int lq,
      int lkv,
      int headDim,
      int qOff,
      int qSB,
      int qSH,
      int qSL,
      int qSD,
      int kOff,
      int kSB,
      int kSH,
      int kSL,
      int kSD,
      int mOff,
      int mSB,
      int mSH,
      int mSL,
      int mSK,
      float scale,
      int total,
      @Specialize int dtype,
      @Specialize int maskKind) {
    int idx = ctx.globalIdx;
    if (idx >= total) {
      return;
    }
    int row = idx / lkv;
    int j = idx - row * lkv;
    int i = row % lq;
    int h = (row / lq) % hq;
    int b = row / (lq * hq);
    int hk = h / (hq / hkv);
    float s = Sdpa.NEG_INF;
    if (visible(maskBool, maskKind, b, h, i, j, lq, lkv, mOff, mSB, mSH, mSL, mSK)) {
      int qa = qOff + b * qSB + h * qSH + i * qSL;
      int ka = kOff + b * kSB + hk * kSH + j * kSL;
      float acc = 0f;
      int e = 0;
      for (; e + 4 <= headDim; e += 4) { // 8 independent loads in flight per thread
        float q0 = Sdpa.toFloat(Vec.ldg(q, qa + e * qSD), dtype);
        float q1 = Sdpa.toFloat(Vec.ldg(q, qa + (e + 1) * qSD), dtype);
        float q2 = Sdpa.toFloat(Vec.ldg(q, qa + (e + 2) * qSD), dtype);
        float q3 = Sdpa.toFloat(Vec.ldg(q, qa + (e + 3) * qSD), dtype);
        float k0 = Sdpa.toFloat(Vec.ldg(k, ka + e * kSD), dtype);
        float k1 = Sdpa.toFloat(Vec.ldg(k, ka + (e + 1) * kSD), dtype);
        float k2 = Sdpa.toFloat(Vec.ldg(k, ka + (e + 2) * kSD), dtype);
        float k3 = Sdpa.toFloat(Vec.ldg(k, ka + (e + 3) * kSD), dtype);
        acc = Math.fma(q3, k3, Math.fma(q2, k2, Math.fma(q1, k1, Math.fma(q0, k0, acc))));
      }
      for (; e < headDim; e++) {
        acc =
            Math.fma(
                Sdpa.toFloat(Vec.ldg(q, qa + e * qSD), dtype),
                Sdpa.toFloat(Vec.ldg(k, ka + e * kSD), dtype),
                acc);
      }
      s = acc * scale;
      if (maskKind == Sdpa.MASK_ADDITIVE) {
        s += Vec.ldg(maskAdd, mOff + b * mSB + h * mSH + i * mSL + j * mSK);
      }
    }
    scores[idx] = s;
  }

  /** {@link #scores16} for float32 q and k. */
  @Kernel(validateWith = {"maskKind=0", "maskKind=3"})
  public static void scores32(
      KernelContext ctx,
      float[] q,
      float[] k,
      float[] maskAdd,
      byte[] maskBool,
      float[] scores,
      int hq,
      int hkv,
      int lq,
      int lkv,
      int headDim,
      int qOff,
      int qSB,
      int qSH,
      int qSL,
      int qSD,
      int kOff,
      int kSB,
      int kSH,
      int kSL,
      int kSD,
      int mOff,
      int mSB,
      int mSH,
      int mSL,
      int mSK,
      float scale,
      int total,
      @Specialize int maskKind) {
    int idx = ctx.globalIdx;
    if (idx >= total) {
      return;
    }
    int row = idx / lkv;
    int j = idx - row * lkv;
    int i = row % lq;
    int h = (row / lq) % hq;
    int b = row / (lq * hq);
    int hk = h / (hq / hkv);
    float s = Sdpa.NEG_INF;
    if (visible(maskBool, maskKind, b, h, i, j, lq, lkv, mOff, mSB, mSH, mSL, mSK)) {
      int qa = qOff + b * qSB + h * qSH + i * qSL;
      int ka = kOff + b * kSB + hk * kSH + j * kSL;
      float acc = 0f;
      int e = 0;
      for (; e + 4 <= headDim; e += 4) {
        float q0 = Vec.ldg(q, qa + e * qSD);
        float q1 = Vec.ldg(q, qa + (e + 1) * qSD);
        float q2 = Vec.ldg(q, qa + (e + 2) * qSD);
        float q3 = Vec.ldg(q, qa + (e + 3) * qSD);
        float k0 = Vec.ldg(k, ka + e * kSD);
        float k1 = Vec.ldg(k, ka + (e + 1) * kSD);
        float k2 = Vec.ldg(k, ka + (e + 2) * kSD);
        float k3 = Vec.ldg(k, ka + (e + 3) * kSD);
        acc = Math.fma(q3, k3, Math.fma(q2, k2, Math.fma(q1, k1, Math.fma(q0, k0, acc))));
      }
      for (; e < headDim; e++) {
        acc = Math.fma(Vec.ldg(q, qa + e * qSD), Vec.ldg(k, ka + e * kSD), acc);
      }
      s = acc * scale;
      if (maskKind == Sdpa.MASK_ADDITIVE) {
        s += Vec.ldg(maskAdd, mOff + b * mSB + h * mSH + i * mSL + j * mSK);
      }
    }
    scores[idx] = s;
  }

  /** False when the causal or boolean mask hides key {@code j} from query {@code i}. */
  static boolean visible(
      byte[] maskBool,
      int maskKind,
      int b,
      int h,
      int i,
      int j,
      int lq,
      int lkv,
      int mOff,
      int mSB,
      int mSH,
      int mSL,
      int mSK) {
    if (maskKind == Sdpa.MASK_CAUSAL) {
      return j <= i + lkv - lq;
    }
    if (maskKind == Sdpa.MASK_BOOL) {
      return Vec.ldg(maskBool, mOff + b * mSB + h * mSH + i * mSL + j * mSK) != 0;
    }
    return true;
  }

  /**
   * Row softmax in place, one warp per row: each lane keeps a running (max, sum) of its keys in
   * base 2, the lanes merge them with a shuffle butterfly, the sink joins the denominator, and a
   * second sweep writes {@code 2^(s·log2 e - max) / sum}. A row whose every score is −inf (and
   * which has no sink) is written as zeros; with a sink it is zeros too (all weight on the sink).
   *
   * @param scores {@code [rows, Lkv]} float32, in place
   * @param sinks {@code [Hq]} float32 sink logits; read when {@code hasSinks}
   * @param rows {@code B*Hq*Lq}
   */
  @Kernel(validateWith = {"hasSinks=false", "hasSinks=true"})
  public static void softmax(
      KernelContext ctx,
      float[] scores,
      float[] sinks,
      int rows,
      int hq,
      int lq,
      int lkv,
      @Specialize boolean hasSinks) {
    int row = ctx.groupIdx * SOFTMAX_ROWS + ctx.warpId();
    if (row >= rows) {
      return; // the whole warp leaves together: no shuffle is left half-attended
    }
    int lane = ctx.laneId();
    int base = row * lkv;
    float m = Sdpa.NEG_INF;
    float l = 0f;
    for (int j = lane; j < lkv; j += 32) {
      float x = scores[base + j] * Sdpa.LOG2E;
      float mn = Math.max(m, x);
      if (mn != Sdpa.NEG_INF) {
        l = Math.fma(l, Intrinsics.exp2(m - mn), Intrinsics.exp2(x - mn));
        m = mn;
      }
    }
    for (int off = 16; off > 0; off /= 2) {
      float mo = ctx.shuffleXor(m, off);
      float lo = ctx.shuffleXor(l, off);
      float mn = Math.max(m, mo);
      if (mn != Sdpa.NEG_INF) {
        l = Math.fma(l, Intrinsics.exp2(m - mn), lo * Intrinsics.exp2(mo - mn));
        m = mn;
      }
    }
    if (hasSinks) {
      float s2 = sinks[(row / lq) % hq] * Sdpa.LOG2E;
      float mn = Math.max(m, s2);
      if (mn != Sdpa.NEG_INF) {
        l = Math.fma(l, Intrinsics.exp2(m - mn), Intrinsics.exp2(s2 - mn));
        m = mn;
      }
    }
    float inv = l > 0f ? 1f / l : 0f;
    for (int j = lane; j < lkv; j += 32) {
      float x = scores[base + j] * Sdpa.LOG2E;
      scores[base + j] = m == Sdpa.NEG_INF ? 0f : Intrinsics.exp2(x - m) * inv;
    }
  }

  /**
   * {@code out = P·v} for 16-bit v, one thread per output element.
   *
   * @param probs {@code [B, Hq, Lq, Lkv]} float32 from {@link #softmax}
   * @param v {@code [B, Hkv, Lkv, Dv]} bits; {@code (b, h, j, e)} at {@code vOff + b*vSB + h*vSH +
   *     j*vSL + e*vSD}
   * @param out {@code [B, Hq, Lq, Dv]} contiguous, v's dtype
   * @param total {@code B*Hq*Lq*Dv}
   */
  @Kernel(validateWith = {"dtype=0", "dtype=1"})
  public static void pv16(
      KernelContext ctx,
      float[] probs,
      short[] v,
      short[] out,
      int hq,
      int hkv,
      int lq,
      int lkv,
      int valueDim,
      int vOff,
      int vSB,
      int vSH,
      int vSL,
      int vSD,
      int total,
      @Specialize int dtype) {
    int idx = ctx.globalIdx;
    if (idx >= total) {
      return;
    }
    int row = idx / valueDim;
    int e = idx - row * valueDim;
    int h = (row / lq) % hq;
    int b = row / (lq * hq);
    int hk = h / (hq / hkv);
    int va = vOff + b * vSB + hk * vSH + e * vSD;
    int pa = row * lkv;
    float acc = 0f;
    int j = 0;
    for (; j + 4 <= lkv; j += 4) { // 8 independent loads in flight per thread
      float p0 = probs[pa + j];
      float p1 = probs[pa + j + 1];
      float p2 = probs[pa + j + 2];
      float p3 = probs[pa + j + 3];
      float x0 = Sdpa.toFloat(Vec.ldg(v, va + j * vSL), dtype);
      float x1 = Sdpa.toFloat(Vec.ldg(v, va + (j + 1) * vSL), dtype);
      float x2 = Sdpa.toFloat(Vec.ldg(v, va + (j + 2) * vSL), dtype);
      float x3 = Sdpa.toFloat(Vec.ldg(v, va + (j + 3) * vSL), dtype);
      acc = accumulate(acc, p0, x0);
      acc = accumulate(acc, p1, x1);
      acc = accumulate(acc, p2, x2);
      acc = accumulate(acc, p3, x3);
    }
    for (; j < lkv; j++) {
      acc = accumulate(acc, probs[pa + j], Sdpa.toFloat(Vec.ldg(v, va + j * vSL), dtype));
    }
    out[idx] = Sdpa.fromFloat(acc, dtype);
  }

  /** {@link #pv16} for float32 v and output. */
  @Kernel
  public static void pv32(
      KernelContext ctx,
      float[] probs,
      float[] v,
      float[] out,
      int hq,
      int hkv,
      int lq,
      int lkv,
      int valueDim,
      int vOff,
      int vSB,
      int vSH,
      int vSL,
      int vSD,
      int total) {
    int idx = ctx.globalIdx;
    if (idx >= total) {
      return;
    }
    int row = idx / valueDim;
    int e = idx - row * valueDim;
    int h = (row / lq) % hq;
    int b = row / (lq * hq);
    int hk = h / (hq / hkv);
    int va = vOff + b * vSB + hk * vSH + e * vSD;
    int pa = row * lkv;
    float acc = 0f;
    int j = 0;
    for (; j + 4 <= lkv; j += 4) {
      float p0 = probs[pa + j];
      float p1 = probs[pa + j + 1];
      float p2 = probs[pa + j + 2];
      float p3 = probs[pa + j + 3];
      float x0 = Vec.ldg(v, va + j * vSL);
      float x1 = Vec.ldg(v, va + (j + 1) * vSL);
      float x2 = Vec.ldg(v, va + (j + 2) * vSL);
      float x3 = Vec.ldg(v, va + (j + 3) * vSL);
      acc = accumulate(acc, p0, x0);
      acc = accumulate(acc, p1, x1);
      acc = accumulate(acc, p2, x2);
      acc = accumulate(acc, p3, x3);
    }
    for (; j < lkv; j++) {
      acc = accumulate(acc, probs[pa + j], Vec.ldg(v, va + j * vSL));
    }
    out[idx] = acc;
  }

  /**
   * {@code acc + p·x}, skipping masked keys (p = 0) so that inf or NaN in their v rows stays out.
   */
  static float accumulate(float acc, float p, float x) {
    return p != 0f ? Math.fma(p, x, acc) : acc;
  }

  /**
   * Widens a 16-bit tensor to float32 element by element ({@code dst[i] = src[i]}): how an additive
   * bf16/f16 mask becomes the float32 mask every attention kernel here takes.
   */
  @Kernel(validateWith = {"dtype=0", "dtype=1"})
  public static void widen(
      KernelContext ctx, short[] src, float[] dst, int n, @Specialize int dtype) {
    int idx = ctx.globalIdx;
    if (idx < n) {
      dst[idx] = Sdpa.toFloat(Vec.ldg(src, idx), dtype);
    }
  }

  // ---- host side ----

  /** The three launches and the score buffer they share. */
  public record Plan(
      Dim3 scoresGrid,
      Dim3 scoresBlock,
      Dim3 softmaxGrid,
      Dim3 softmaxBlock,
      Dim3 pvGrid,
      Dim3 pvBlock,
      int scoreFloats) {}

  /** The launches for {@code shape}; {@link #supports} first. */
  public static Plan plan(SdpaShape shape) {
    long scores = (long) shape.outputRows() * shape.kvLen();
    long outs = (long) shape.outputRows() * shape.valueDim();
    int rows = shape.outputRows();
    return new Plan(
        Dim3.of((int) Math.max(1, (scores + THREADS - 1) / THREADS)),
        Dim3.of(THREADS),
        Dim3.of((rows + SOFTMAX_ROWS - 1) / SOFTMAX_ROWS),
        Dim3.of(SOFTMAX_ROWS * 32),
        Dim3.of((int) Math.max(1, (outs + THREADS - 1) / THREADS)),
        Dim3.of(THREADS),
        (int) scores);
  }

  /**
   * Arguments of {@link #scores16} or {@link #scores32} in order, after the context. Arrays pass
   * through untouched (Java arrays on the Java backend, device buffers on a GPU); {@code ms} may be
   * null when there is no mask array.
   */
  public static Object[] scoresArgs(
      Object q,
      Object k,
      Object maskAdd,
      Object maskBool,
      Object scores,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides ms,
      float scale,
      int dtype,
      int maskKind) {
    SdpaStrides m = Sdpa.noMask(ms);
    long total = (long) shape.outputRows() * shape.kvLen();
    Object[] head = {
      q,
      k,
      maskAdd,
      maskBool,
      scores,
      shape.qHeads(),
      shape.kvHeads(),
      shape.qLen(),
      shape.kvLen(),
      shape.headDim(),
      qs.offset(),
      qs.batch(),
      qs.head(),
      qs.seq(),
      qs.dim(),
      ks.offset(),
      ks.batch(),
      ks.head(),
      ks.seq(),
      ks.dim(),
      m.offset(),
      m.batch(),
      m.head(),
      m.seq(),
      m.dim(),
      scale,
      (int) total
    };
    return dtype == Sdpa.F32 ? append(head, maskKind) : append(head, dtype, maskKind);
  }

  /** Arguments of {@link #softmax} in order, after the context. */
  public static Object[] softmaxArgs(
      Object scores, Object sinks, SdpaShape shape, boolean hasSinks) {
    return new Object[] {
      scores, sinks, shape.outputRows(), shape.qHeads(), shape.qLen(), shape.kvLen(), hasSinks
    };
  }

  /** Arguments of {@link #pv16} or {@link #pv32} in order, after the context. */
  public static Object[] pvArgs(
      Object probs, Object v, Object out, SdpaShape shape, SdpaStrides vs, int dtype) {
    long total = (long) shape.outputRows() * shape.valueDim();
    Object[] head = {
      probs,
      v,
      out,
      shape.qHeads(),
      shape.kvHeads(),
      shape.qLen(),
      shape.kvLen(),
      shape.valueDim(),
      vs.offset(),
      vs.batch(),
      vs.head(),
      vs.seq(),
      vs.dim(),
      (int) total
    };
    return dtype == Sdpa.F32 ? head : append(head, dtype);
  }

  private static Object[] append(Object[] head, Object... tail) {
    Object[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  /** Why the fallback cannot run the call, or null. It takes every dtype, mask and stride. */
  public static String supports(SdpaShape shape, int dtype) {
    if (dtype != Sdpa.BF16 && dtype != Sdpa.F16 && dtype != Sdpa.F32) {
      return "unknown dtype " + dtype;
    }
    long scores = (long) shape.outputRows() * shape.kvLen();
    if (scores > Integer.MAX_VALUE - THREADS) {
      return "the unfused fallback materialises "
          + scores
          + " float32 scores, more than one buffer can index (2^31 - 1)";
    }
    return null;
  }

  // ---- scalar float64 references, written from the math ----

  /**
   * One score in float64: {@code scale·Σ_e q[b,h,i,e]·k[b,h/gqa,j,e] + mask}, or −inf when the
   * causal or boolean mask hides the key. {@code qv}/{@code kv} are the elements already widened.
   */
  public static double referenceScore(
      double[] qRow, double[] kRow, double scale, double additive, boolean visible) {
    if (!visible) {
      return Double.NEGATIVE_INFINITY;
    }
    double s = 0;
    for (int e = 0; e < qRow.length; e++) {
      s += qRow[e] * kRow[e];
    }
    return s * scale + additive;
  }

  /** Softmax of one row in float64 with an optional sink logit; all −inf (no sink) gives zeros. */
  public static double[] referenceSoftmax(double[] logits, double sink, boolean hasSinks) {
    double max = hasSinks ? sink : Double.NEGATIVE_INFINITY;
    for (double x : logits) {
      max = Math.max(max, x);
    }
    double[] p = new double[logits.length];
    if (max == Double.NEGATIVE_INFINITY) {
      return p;
    }
    double denom = hasSinks ? Math.exp(sink - max) : 0;
    for (int j = 0; j < logits.length; j++) {
      p[j] = Math.exp(logits[j] - max);
      denom += p[j];
    }
    for (int j = 0; j < logits.length; j++) {
      p[j] /= denom;
    }
    return p;
  }

  /** {@code Σ_j p[j]·vRows[j][e]} in float64. */
  public static double[] referencePv(double[] p, double[][] vRows) {
    int dv = vRows.length == 0 ? 0 : vRows[0].length;
    double[] o = new double[dv];
    for (int j = 0; j < p.length; j++) {
      if (p[j] != 0) {
        for (int e = 0; e < dv; e++) {
          o[e] += p[j] * vRows[j][e];
        }
      }
    }
    return o;
  }
}
