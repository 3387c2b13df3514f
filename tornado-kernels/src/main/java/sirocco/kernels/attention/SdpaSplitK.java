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

  /** Threads per combine block. */
  public static final int THREADS = 128;

  /** Output elements per combine block: a block owns one row's {@code [d0, d0 + DIMS)}. */
  static final int DIMS = 32;

  /** Threads that share one split's {@link #DIMS} elements (a float4 each). */
  static final int LANES_PER_SPLIT = DIMS / 4;

  /**
   * Splits a block reads at once: thread {@code t} folds splits {@code t / LANES_PER_SPLIT +
   * i·GROUPS}.
   */
  static final int GROUPS = THREADS / LANES_PER_SPLIT;

  /**
   * The combine's shared floats: per group its {@link #DIMS} sums and its l sum; per warp a max.
   */
  static final int SHARED_FLOATS = GROUPS * DIMS + GROUPS + THREADS / 32;

  /** Shared memory per combine block in bytes. */
  public static final int SHARED_BYTES = SHARED_FLOATS * 4;

  /**
   * Pass 2: block {@code (row, j)} writes elements {@code [32j, 32j + 32)} of output row {@code
   * row} (a multiple of 8 elements long). First every thread of the block reads maxima ({@code t},
   * {@code t + 128}, …) and the block reduces them to {@code M}; then the {@link #GROUPS} groups of
   * 8 threads each fold every 16th split with weight {@code 2^(m_s - M)} — no running max, so a
   * split's loads do not wait for the previous split's arithmetic — and the groups' sums meet in
   * shared memory, where 32 threads normalise (sink included) and store one element each. Each
   * group's first split is requested together with the maxima, so that with at most {@link #GROUPS}
   * splits (short contexts, where this launch is pure latency) the block waits for memory once.
   *
   * <p>The op launches it with early start (sm_90+): its blocks may become resident while pass 1
   * runs, and {@code ctx.waitForPriorGrids()} holds them until pass 1 has finished, before the
   * first read of the partials.
   *
   * <p>Why this shape: the first version (one 256-thread block per row, each thread folding its
   * splits with an online max) ran as many dependent load rounds as splits per group, on only as
   * many blocks as rows; on the H200 it took 5.9–9.1 µs at S = 1024, D = 256 (Nsight, run 16) next
   * to pass 1's 7.4 µs.
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
    float[] sh = ctx.allocateFloatLocalArray(SHARED_FLOATS);
    int row = ctx.groupIdx;
    int d0 = ctx.groupIdy * DIMS;
    int t = ctx.localIdx;
    int base = row * splits;
    // Launched early (SdpaLaunches.earlyStart): pass 1 may still be writing the partials.
    ctx.waitForPriorGrids();

    // Group g's first four splits (g, g + GROUPS, g + 2 GROUPS, g + 3 GROUPS), requested together
    // with the maxima: up to 4 * GROUPS = 64 splits (every default plan on the H200) the block
    // waits for memory once, not once for the maxima and again per split the group folds.
    int g = t / LANES_PER_SPLIT;
    int c = t - g * LANES_PER_SPLIT;
    int dOff = d0 + c * 4;
    boolean mine = dOff < headDim; // D need not be a multiple of 32 (kernel tests)
    boolean ok0 = mine && g < splits;
    boolean ok1 = mine && g + GROUPS < splits;
    boolean ok2 = mine && g + 2 * GROUPS < splits;
    boolean ok3 = mine && g + 3 * GROUPS < splits;
    int at0 = base + g;
    int at1 = at0 + GROUPS;
    int at2 = at0 + 2 * GROUPS;
    int at3 = at0 + 3 * GROUPS;
    Float4 z = Sdpa.zero4();
    float m0 = ok0 ? Vec.ldg(partML, at0 * 2) : Sdpa.NEG_INF;
    float l0 = ok0 ? Vec.ldg(partML, at0 * 2 + 1) : 0f;
    Float4 x0 = ok0 ? Vec.ldg4(partO, at0 * headDim + dOff) : z;
    float m1 = ok1 ? Vec.ldg(partML, at1 * 2) : Sdpa.NEG_INF;
    float l1 = ok1 ? Vec.ldg(partML, at1 * 2 + 1) : 0f;
    Float4 x1 = ok1 ? Vec.ldg4(partO, at1 * headDim + dOff) : z;
    float m2 = ok2 ? Vec.ldg(partML, at2 * 2) : Sdpa.NEG_INF;
    float l2 = ok2 ? Vec.ldg(partML, at2 * 2 + 1) : 0f;
    Float4 x2 = ok2 ? Vec.ldg4(partO, at2 * headDim + dOff) : z;
    float m3 = ok3 ? Vec.ldg(partML, at3 * 2) : Sdpa.NEG_INF;
    float l3 = ok3 ? Vec.ldg(partML, at3 * 2 + 1) : 0f;
    Float4 x3 = ok3 ? Vec.ldg4(partO, at3 * headDim + dOff) : z;
    float m = Sdpa.NEG_INF;
    for (int s = t; s < splits; s += THREADS) {
      m = Math.max(m, Vec.ldg(partML, (base + s) * 2));
    }
    for (int o = 16; o > 0; o >>= 1) {
      m = Math.max(m, ctx.shuffleXor(m, o));
    }
    int maxAt = GROUPS * DIMS + GROUPS;
    if (ctx.laneId() == 0) {
      sh[maxAt + ctx.warpId()] = m;
    }
    ctx.localBarrier();
    float mx = sh[maxAt];
    for (int w = 1; w < THREADS / 32; w++) {
      mx = Math.max(mx, sh[maxAt + w]);
    }

    Float4 acc = Sdpa.zero4();
    float l = 0f;
    if (mx != Sdpa.NEG_INF && mine) {
      // Unrequested splits hold (-inf, 0, 0), like a split with no key: weight exp2(-inf) = 0, so
      // they add exactly nothing, in the same order as the loop below.
      float f0 = Intrinsics.exp2(m0 - mx);
      float f1 = Intrinsics.exp2(m1 - mx);
      float f2 = Intrinsics.exp2(m2 - mx);
      float f3 = Intrinsics.exp2(m3 - mx);
      acc = Sdpa.fma4(f3, x3, Sdpa.fma4(f2, x2, Sdpa.fma4(f1, x1, Sdpa.fma4(f0, x0, acc))));
      l = Math.fma(l3, f3, Math.fma(l2, f2, Math.fma(l1, f1, Math.fma(l0, f0, l))));
      for (int s = g + 4 * GROUPS; s < splits; s += GROUPS) {
        int at = base + s;
        float ms = Vec.ldg(partML, at * 2);
        float ls = Vec.ldg(partML, at * 2 + 1);
        Float4 x = Vec.ldg4(partO, at * headDim + dOff);
        float f = Intrinsics.exp2(ms - mx);
        acc = Sdpa.fma4(f, x, acc);
        l = Math.fma(ls, f, l);
      }
    }
    Vec.store4(sh, g * DIMS + c * 4, acc);
    if (c == 0) {
      sh[GROUPS * DIMS + g] = l;
    }
    ctx.localBarrier();
    if (t < DIMS && d0 + t < headDim) {
      float o = 0f;
      float sum = 0f;
      for (int k = 0; k < GROUPS; k++) {
        o += sh[k * DIMS + t];
        sum += sh[GROUPS * DIMS + k];
      }
      int h = (row / lq) % hq;
      float sink = hasSinks ? sinks[h] : Sdpa.NEG_INF;
      float scale =
          SdpaVectorOps.finalScale(mx, sum, sink, hasSinks)
              * SdpaVectorOps.finalKeep(mx, sink, hasSinks);
      out[row * headDim + d0 + t] = Sdpa.fromFloat(o * scale, dtype);
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
        new Dim3(rowsOut, (shape.headDim() + DIMS - 1) / DIMS, 1),
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
