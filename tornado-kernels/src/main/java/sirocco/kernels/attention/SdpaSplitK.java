package sirocco.kernels.attention;

import sirocco.api.Float4;
import sirocco.api.Intrinsics;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Split-K ("2-pass") decode attention for long contexts. Pass 1 is {@link SdpaVector#decode} with
 * {@code partial = true}: each of {@code splits} key slices writes, per output row, its float32
 * unnormalised output {@code O_s = Σ_j 2^(s_j - m_s) v_j}, its running max {@code m_s} (base 2) and
 * sum {@code l_s}. Pass 2 ({@link #combine}) merges them: {@code M = max_s m_s}, {@code out = Σ_s
 * 2^(m_s - M) O_s / (Σ_s 2^(m_s - M) l_s + sink)}.
 *
 * <p>Partials stay float32: rounding them to bf16 loses the cancellation between splits (the bug
 * fixed in Layr-Labs/mlx PR #16). The number of splits comes from {@link SdpaVector#plan} (the SM
 * count and the key count), not from a fixed key threshold.
 */
public final class SdpaSplitK {
  private SdpaSplitK() {}

  /** Threads per combine block (one block per output row). */
  public static final int THREADS = 256;

  /** The combine's shared floats: 8 output elements per thread, then (max, sum) per split group. */
  static final int O_FLOATS = THREADS * 8;

  static final int ML_FLOATS = 2 * 32;

  /** Shared memory per combine block in bytes. */
  public static final int SHARED_BYTES = (O_FLOATS + ML_FLOATS) * 4;

  /**
   * Pass 2: one block per output row. Thread {@code t} owns output elements {@code 8*(t % cols)} ..
   * {@code +7} ({@code cols = D/8}) and folds the splits {@code t / cols}, {@code + groups}, … with
   * an online max; the {@code groups = 256 / cols} partial states are then merged through shared
   * memory by the threads of group 0, which normalise (sink included) and store.
   *
   * @param partO {@code [rowsOut, splits, D]} float32, from {@link SdpaVector#decode} with {@code
   *     partial}
   * @param partML {@code [rowsOut, splits, 2]} float32 (max in base 2, sum)
   * @param sinks {@code [Hq]} float32 sink logits (natural units); read when {@code hasSinks}
   * @param out {@code [B, Hq, Lq, D]} contiguous, bf16/f16 bits; row {@code r = (b*Hq + h)*Lq + i}
   * @param hq q heads (to find a row's head for its sink)
   * @param lq queries per head
   * @param splits number of key splits pass 1 used
   */
  @Kernel(
      validateWith = {
        "headDim=64,dtype=0,hasSinks=false",
        "headDim=96,dtype=1,hasSinks=true",
        "headDim=128,dtype=0,hasSinks=false",
        "headDim=256,dtype=0,hasSinks=true",
        "headDim=512,dtype=0,hasSinks=false"
      })
  public static void combine(
      KernelContext ctx,
      float[] partO,
      float[] partML,
      float[] sinks,
      short[] out,
      int hq,
      int lq,
      int splits,
      @Specialize int headDim,
      @Specialize int dtype,
      @Specialize boolean hasSinks) {
    float[] so = ctx.allocateFloatLocalArray(O_FLOATS);
    float[] sml = ctx.allocateFloatLocalArray(ML_FLOATS);
    int row = ctx.groupIdx;
    int cols = headDim / 8;
    int groups = Math.min(32, THREADS / cols);
    int t = ctx.localIdx;
    int grp = t / cols;
    int col = t - grp * cols;
    int d = col * 8;
    boolean active = grp < groups;

    float m = Sdpa.NEG_INF;
    float l = 0f;
    Float4 oa = Sdpa.zero4();
    Float4 ob = Sdpa.zero4();
    if (active) {
      for (int s = grp; s < splits; s += groups) {
        int at = row * splits + s;
        float ms = Vec.ldg(partML, at * 2);
        float ls = Vec.ldg(partML, at * 2 + 1);
        Float4 xa = Vec.ldg4(partO, at * headDim + d);
        Float4 xb = Vec.ldg4(partO, at * headDim + d + 4);
        float mn = Math.max(m, ms);
        if (mn != Sdpa.NEG_INF) {
          float keep = Intrinsics.exp2(m - mn);
          float f = Intrinsics.exp2(ms - mn);
          l = Math.fma(ls, f, l * keep);
          oa = Sdpa.fma4(f, xa, Sdpa.scale4(oa, keep));
          ob = Sdpa.fma4(f, xb, Sdpa.scale4(ob, keep));
          m = mn;
        }
      }
      Vec.store4(so, grp * headDim + d, oa);
      Vec.store4(so, grp * headDim + d + 4, ob);
      if (col == 0) {
        sml[grp * 2] = m;
        sml[grp * 2 + 1] = l;
      }
    }
    ctx.localBarrier();
    if (grp == 0) {
      float mx = Sdpa.NEG_INF;
      for (int g = 0; g < groups; g++) {
        mx = Math.max(mx, sml[g * 2]);
      }
      float sum = 0f;
      Float4 ra = Sdpa.zero4();
      Float4 rb = Sdpa.zero4();
      if (mx != Sdpa.NEG_INF) {
        for (int g = 0; g < groups; g++) {
          float f = Intrinsics.exp2(sml[g * 2] - mx);
          sum = Math.fma(f, sml[g * 2 + 1], sum);
          ra = Sdpa.fma4(f, Vec.load4(so, g * headDim + d), ra);
          rb = Sdpa.fma4(f, Vec.load4(so, g * headDim + d + 4), rb);
        }
      }
      int h = (row / lq) % hq;
      float sink = hasSinks ? sinks[h] : Sdpa.NEG_INF;
      float scale =
          SdpaVectorOps.finalScale(mx, sum, sink, hasSinks)
              * SdpaVectorOps.finalKeep(mx, sink, hasSinks);
      Vec.store4(
          out,
          row * headDim + d,
          Sdpa.pack8(Sdpa.scale4(ra, scale), Sdpa.scale4(rb, scale), dtype));
    }
  }

  /** A launch of {@link #combine} and the partial buffers pass 1 writes. */
  public record CombinePlan(
      Dim3 grid, Dim3 block, int sharedBytes, long partialOFloats, long partialMLFloats) {}

  /** The combine launch for {@code shape} after a pass 1 with {@code splits} splits. */
  public static CombinePlan combinePlan(SdpaShape shape, int splits) {
    if (splits < 1) {
      throw new IllegalArgumentException("splits must be >= 1, got " + splits);
    }
    int rowsOut = shape.outputRows();
    return new CombinePlan(
        Dim3.of(rowsOut),
        Dim3.of(THREADS),
        SHARED_BYTES,
        (long) rowsOut * splits * shape.headDim(),
        (long) rowsOut * splits * 2);
  }

  /** Arguments of {@link #combine} in order, after the context. */
  public static Object[] combineArgs(
      Object partO,
      Object partML,
      Object sinks,
      Object out,
      SdpaShape shape,
      int splits,
      int dtype,
      boolean hasSinks) {
    return new Object[] {
      partO,
      partML,
      sinks,
      out,
      shape.qHeads(),
      shape.qLen(),
      splits,
      shape.headDim(),
      dtype,
      hasSinks
    };
  }

  /**
   * Why split-K cannot run the call, or null: the pass-1 kernel's conditions ({@link
   * SdpaVector#supports}); the combine itself takes any row count.
   */
  public static String supports(
      SdpaShape shape, int dtype, SdpaStrides kStrides, SdpaStrides vStrides, int maskKind) {
    return SdpaVectorPlans.supports(shape, dtype, kStrides, vStrides, maskKind);
  }

  // ---- scalar float64 reference, written from the math ----

  /**
   * The combine of one output row in float64: {@code Σ_s 2^(m_s - M) O_s / (Σ_s 2^(m_s - M) l_s +
   * e^(sink - M·ln2))} with {@code M} the max over splits and the sink; 0 for a row with no
   * unmasked key and no sink.
   */
  public static double[] reference(
      float[] partO,
      float[] partML,
      float[] sinks,
      int row,
      int splits,
      int headDim,
      int hq,
      int lq,
      boolean hasSinks) {
    double mx = Double.NEGATIVE_INFINITY;
    for (int s = 0; s < splits; s++) {
      mx = Math.max(mx, partML[(row * splits + s) * 2]);
    }
    double sink2 =
        hasSinks ? sinks[(row / lq) % hq] / Math.log(2.0) : Double.NEGATIVE_INFINITY; // base 2
    double top = Math.max(mx, sink2);
    double[] o = new double[headDim];
    if (top == Double.NEGATIVE_INFINITY) {
      return o;
    }
    double denom = hasSinks ? Math.pow(2, sink2 - top) : 0;
    for (int s = 0; s < splits; s++) {
      double m = partML[(row * splits + s) * 2];
      if (m == Double.NEGATIVE_INFINITY) {
        continue;
      }
      double f = Math.pow(2, m - top);
      denom += f * partML[(row * splits + s) * 2 + 1];
      for (int e = 0; e < headDim; e++) {
        o[e] += f * partO[(row * splits + s) * headDim + e];
      }
    }
    for (int e = 0; e < headDim; e++) {
      o[e] = denom > 0 ? o[e] / denom : 0;
    }
    return o;
  }
}
