package sirocco.kernels.attention;

import sirocco.api.Float4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Split-K decode attention in one launch ("last block combines", as in flash-decoding
 * implementations): pass 1 of {@link SdpaSplitK} ({@link SdpaVector#decode} with {@code partial})
 * followed, in the same kernel, by the combine of {@link SdpaSplitK#combine}, run by the block that
 * finishes a row group last. Opt-in ({@code -Dsirocco.sdpa.fusedCombine=true}); the two-launch path
 * stays the default until the GPU says which is faster.
 *
 * <h2>Why</h2>
 *
 * At short and medium contexts decode attention is dominated by fixed costs, and a kernel boundary
 * (the first kernel's drain, the second's launch and ramp) costs about 1.5–3 µs on the H200. Fusing
 * the combine removes that boundary; the price is that one block per row group does the whole
 * combine of its rows ({@code rows × splits × D} float32 partials) after the slowest split, where
 * the separate combine spreads it over {@code rows × D/32} blocks.
 *
 * <h2>Protocol</h2>
 *
 * The blocks of one row group (grid x and z fixed, every y = key split) share the int32 counter
 * {@code counters[z * gridX + x]}. Each block writes its partials, {@code localBarrier}, then
 * thread 0 runs {@code threadFence} (device scope: the block's partials are visible before its
 * count), {@code atomicAdd(counter, 1)}, and, when it saw {@code splits - 1} (the last block), a
 * second {@code threadFence} (acquire); the answer reaches the block through shared memory and a
 * second barrier. The last block then combines with plain, coherent loads ({@code ld.global}, never
 * {@code ld.global.nc}: the partials were written during this launch) and stores 0 to the counter.
 *
 * <p><b>Invariant</b>: every counter is 0 between launches — zero it once when the buffer is
 * created; each launch leaves it 0 (the last block resets it, after every other block of its row
 * group has counted). So the buffer needs no memset per launch and a CUDA graph can replay the
 * launch. Two launches that may run at the same time must not share counters (the op keeps one
 * buffer per stream); a launch that faults leaves the counters undefined.
 *
 * <h2>The combine in one block</h2>
 *
 * The group's rows are consecutive output rows ({@code row0 = (b·Hq + hk·gqa)·Lq + rowBase}), so
 * their partials are one contiguous run. (1) Every thread reads maxima {@code (r, s)} strided by
 * {@link #THREADS}; per row a warp shuffle and a shared-memory step give {@code M_r}. (2) The
 * {@code rows · D/4} float4 columns are spread over the threads, each column's splits over {@code
 * THREADS / columns} groups when there are fewer columns than threads; each thread folds its splits
 * with {@link SdpaSplitK#foldSplits} (four splits per iteration in flight). (3) The groups' sums
 * meet in shared memory and each column is normalised ({@link SdpaSplitK#outputScale}, sinks
 * included) and stored.
 */
public final class SdpaFusedCombine {
  private SdpaFusedCombine() {}

  /** Threads per block (those of {@link SdpaVector#decode}). */
  public static final int THREADS = SdpaVector.THREADS;

  /** Start of the per-warp row maxima ({@code WARPS · MAX_ROWS}) in the combine's shared array. */
  static final int MAX_AT = 0;

  /** Start of the groups' l sums ({@code groups · rows <= 8}). */
  static final int L_AT = MAX_AT + SdpaVector.WARPS * SdpaVector.MAX_ROWS;

  /** Start of the groups' column sums ({@link #sharedFloats}). */
  static final int ACC_AT = L_AT + 32;

  /**
   * The combine's shared floats for a specialization: the maxima and l sums, then the column sums,
   * {@code max(rows·D, THREADS·4)} (one float4 per column and group); at most 8.2 KiB (rows 4, D
   * 512), 2.2 KiB for rows·D ≤ 512.
   */
  public static int sharedFloats(int rows, int headDim) {
    return ACC_AT + Math.max(rows * headDim, THREADS * 4);
  }

  /** Shared memory per block in bytes: pass 1's, the combine's and the "last" flag. */
  public static int sharedBytes(int rows, int headDim) {
    return SdpaVector.SHARED_BYTES + sharedFloats(rows, headDim) * 4 + 16;
  }

  /**
   * {@link SdpaVector#decode} with {@code partial = true} followed by the combine of its row group
   * in the block that finishes last (see the class comment). Parameters as {@link
   * SdpaVector#decode}'s, plus {@code counters}: int32, at least {@code gridX · gridZ} elements,
   * all 0 before the launch (and 0 after it). Writes {@code out}; {@code partO}/{@code partML} are
   * scratch ({@code [B*Hq*Lq, splits, D]} and {@code [B*Hq*Lq, splits, 2]} float32). Launch with
   * the split-K plan of {@link SdpaVectorPlans#plan} (splits > 1).
   */
  @Kernel(
      validateWith = {
        "headDim=64,dtype=0,rows=4,maskKind=0,hasSinks=false",
        "headDim=96,dtype=1,rows=2,maskKind=1,hasSinks=true",
        "headDim=128,dtype=0,rows=4,maskKind=2,hasSinks=false",
        "headDim=128,dtype=0,rows=1,maskKind=3,hasSinks=true",
        "headDim=256,dtype=0,rows=3,maskKind=0,hasSinks=false",
        "headDim=512,dtype=0,rows=4,maskKind=0,hasSinks=true"
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
      int[] counters,
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
      @Specialize boolean hasSinks) {
    float[] sh = ctx.allocateFloatLocalArray(sharedFloats(rows, headDim));
    int[] flag = ctx.allocateIntLocalArray(4);
    SdpaVector.decode(
        ctx, q, k, v, maskAdd, maskBool, sinks, out, partO, partML, hq, hkv, lq, lkv, qOff, qSB,
        qSH, qSL, kOff, kSB, kSH, kSL, vOff, vSB, vSH, vSL, mOff, mSB, mSH, mSL, mSK, splitKeys,
        scaleLog2, headDim, dtype, rows, maskKind, hasSinks, true);

    // ---- is this the row group's last split? ----
    ctx.localBarrier(); // every thread's partial stores come before the count
    int counter = ctx.groupIdz * ctx.groupCountX + ctx.groupIdx;
    if (ctx.localIdx == 0) {
      ctx.threadFence(); // release: this block's partials are visible device-wide
      int before = ctx.atomicAdd(counters, counter, 1);
      boolean last = before == ctx.groupCountY - 1;
      if (last) {
        ctx.threadFence(); // acquire: every other block's partials are visible from here on
      }
      flag[0] = last ? 1 : 0;
    }
    ctx.localBarrier();
    if (flag[0] != 0) {
      combineGroup(ctx, sh, partO, partML, sinks, out, hq, hkv, lq, headDim, dtype, rows, hasSinks);
      if (ctx.localIdx == 0) {
        counters[counter] = 0; // every block of the group has counted: ready for the next launch
      }
    }
  }

  /** The combine of this block's row group, by one block; see the class comment. */
  static void combineGroup(
      KernelContext ctx,
      float[] sh,
      float[] partO,
      float[] partML,
      float[] sinks,
      short[] out,
      int hq,
      int hkv,
      int lq,
      int headDim,
      int dtype,
      int rows,
      boolean hasSinks) {
    int t = ctx.localIdx;
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    int splits = ctx.groupCountY;
    int gqa = hq / hkv;
    int b = ctx.groupIdz / hkv;
    int hk = ctx.groupIdz - b * hkv;
    int rowBase = ctx.groupIdx * rows;
    int live = Math.min(rows, gqa * lq - rowBase); // the last row group may be short
    int row0 = (b * hq + hk * gqa) * lq + rowBase;
    int base0 = row0 * splits;

    // (1) per-row max over the splits
    float m0 = Sdpa.NEG_INF;
    float m1 = Sdpa.NEG_INF;
    float m2 = Sdpa.NEG_INF;
    float m3 = Sdpa.NEG_INF;
    for (int i = t; i < live * splits; i += THREADS) {
      int r = i / splits;
      float m = SdpaSplitK.loadML(partML, (base0 + i) * 2, true);
      m0 = r == 0 ? Math.max(m0, m) : m0;
      if (rows > 1) {
        m1 = r == 1 ? Math.max(m1, m) : m1;
      }
      if (rows > 2) {
        m2 = r == 2 ? Math.max(m2, m) : m2;
      }
      if (rows > 3) {
        m3 = r == 3 ? Math.max(m3, m) : m3;
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      m0 = Math.max(m0, ctx.shuffleXor(m0, o));
      if (rows > 1) {
        m1 = Math.max(m1, ctx.shuffleXor(m1, o));
      }
      if (rows > 2) {
        m2 = Math.max(m2, ctx.shuffleXor(m2, o));
      }
      if (rows > 3) {
        m3 = Math.max(m3, ctx.shuffleXor(m3, o));
      }
    }
    if (lane == 0) {
      int at = MAX_AT + warp * SdpaVector.MAX_ROWS;
      sh[at] = m0;
      sh[at + 1] = m1;
      sh[at + 2] = m2;
      sh[at + 3] = m3;
    }
    ctx.localBarrier();

    // (2) fold: column col of row r over splits g, g + groups, ...
    int cols = headDim / 4;
    int columns = rows * cols;
    int groups = columns >= THREADS ? 1 : THREADS / columns;
    for (int w = t; w < columns * groups; w += THREADS) {
      int g = w / columns;
      int col = w - g * columns;
      int r = col / cols;
      int d = (col - r * cols) * 4;
      float mx = rowMax(sh, r);
      SdpaSplitK.foldSplits(
          partO,
          partML,
          sh,
          (row0 + r) * splits,
          g,
          groups,
          splits,
          d,
          headDim,
          mx,
          r < live && mx != Sdpa.NEG_INF,
          ACC_AT + w * 4,
          L_AT + g * rows + r,
          d == 0,
          true,
          true);
    }
    ctx.localBarrier();

    // (3) the groups' sums, normalised and stored
    for (int col = t; col < columns; col += THREADS) {
      int r = col / cols;
      int d = (col - r * cols) * 4;
      if (r < live) {
        float mx = rowMax(sh, r);
        Float4 o = Sdpa.zero4();
        float sum = 0f;
        for (int g = 0; g < groups; g++) {
          o = Sdpa.fma4(1f, Vec.load4(sh, ACC_AT + (g * columns + col) * 4), o);
          sum += sh[L_AT + g * rows + r];
        }
        int h = SdpaVectorOps.headOf(rowBase + r, hk, gqa, lq);
        float scale = SdpaSplitK.outputScale(mx, sum, sinks, h, hasSinks);
        int at = (row0 + r) * headDim + d;
        out[at] = Sdpa.fromFloat(o.x() * scale, dtype);
        out[at + 1] = Sdpa.fromFloat(o.y() * scale, dtype);
        out[at + 2] = Sdpa.fromFloat(o.z() * scale, dtype);
        out[at + 3] = Sdpa.fromFloat(o.w() * scale, dtype);
      }
    }
  }

  /** Row {@code r}'s max over the splits, from the per-warp maxima. */
  private static float rowMax(float[] sh, int r) {
    float mx = sh[MAX_AT + r];
    for (int w = 1; w < SdpaVector.WARPS; w++) {
      mx = Math.max(mx, sh[MAX_AT + w * SdpaVector.MAX_ROWS + r]);
    }
    return mx;
  }

  /** Counters a launch of {@code plan} needs: one per row group ({@code gridX · gridZ}). */
  public static long counters(SdpaVectorPlans.Plan plan) {
    return (long) plan.grid().x() * plan.grid().z();
  }

  /**
   * Arguments of {@link #decode} in order, after the context: {@code vectorArgs} (from {@link
   * SdpaVectorPlans#decodeArgs} for a split-K plan) with {@code counters} after the partials and
   * without the trailing {@code partial} flag.
   */
  public static Object[] decodeArgs(Object[] vectorArgs, Object counters) {
    if (!(vectorArgs[vectorArgs.length - 1] instanceof Boolean p) || !p) {
      throw new IllegalArgumentException("the fused combine needs a split-K plan (splits > 1)");
    }
    Object[] a = new Object[vectorArgs.length];
    System.arraycopy(vectorArgs, 0, a, 0, 9);
    a[9] = counters;
    System.arraycopy(vectorArgs, 9, a, 10, vectorArgs.length - 10);
    return a;
  }
}
