package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Variant C of the affine vector path ("qmv-persistent"): <b>a persistent grid of warps, each
 * streaming whole features with the next step's loads always in flight</b>. Affine 2/4/8-bit,
 * bf16/f16, transposed weights, x rows handled one per grid.y slice (use {@link
 * AffineQmvWarpKernel} with rows &gt; 1 to share the weight read between rows).
 *
 * <h2>Mapping</h2>
 *
 * Grid ({@code blocks}, m) with {@code blocks = min(SMs × blocksPerSm, ⌈n/8⌉)} balanced so every
 * warp gets the same number of features (±1); a block is 8 warps. Each block stages its row of x
 * <em>once</em> (the whole of k, float32, padded layout of {@link QmvChunks}, plus 16-element
 * partial sums: k ≤ {@code 32·cpl·kTiles} elements, 18.9 KiB of shared memory at k = 4096 4-bit),
 * then global warp {@code gw} walks features {@code gw, gw + W, gw + 2W, …} (W = all warps of the
 * grid) in <em>steps</em> of {@code 32·cpl} chunks (one step per feature at k = 4096, 4-bit).
 *
 * <h2>Software pipelining with rotating registers</h2>
 *
 * A lane holds {@code cpl} (4) chunk registers {@code w0..w3} plus their scale/bias. In each step,
 * right after chunk j's dot product has consumed {@code wj}, the lane issues the load of chunk j of
 * the <em>next</em> step (the next feature) into {@code wj}. So while the step's arithmetic runs,
 * the next step's loads are already in flight, and when the step ends all 4 are outstanding — the
 * same 4 × 16 B per lane as variant A, but continuously, with no block launch, no x restaging and
 * no tail of half-empty blocks. The last step re-loads its own (cached) lines instead of branching.
 * The x offset of a step is one register; every shared load is that register plus a constant.
 *
 * <h2>Cost at n = 12288, k = 4096, 4-bit g64 bf16, 1 row (H200, 132 SMs)</h2>
 *
 * <ul>
 *   <li>Bytes: weights/scales/biases once from DRAM; x once per block (528 blocks × 8 KiB = 4.3 MB
 *       from L2, a third of variant A's).
 *   <li><b>Registers: 64</b> (ptxas 12.0 sm_90; 70 on sm_80; ptxas 13.0 sm_90: 64), 19,456 B
 *       shared: 4 blocks of 256 threads per SM (exactly 65,536 registers): 32 warps, 64 KiB of
 *       weight loads in flight per SM at all times, 3× the ≈ 21 KiB Little's law asks for. The plan
 *       assumes {@link #REGISTERS}; if the driver's JIT allocates more than 64, only 3 blocks fit
 *       and the grid (sized for 4) runs in 1.33 waves — re-plan with the measured count.
 *   <li>Work per warp: 3 features (the plan picks 512 blocks = 4096 warps × 3 = 12288 exactly).
 *   <li>Instructions per weight element ≈ 3.9 (as A: IMAD.SHL/SHF + LOP3 + FFMA per code, 8 LDS.128
 *       + fold + 3 loads per 32 codes) plus 5 shuffles per feature: ≈ 5.8 µs of issue;
 *       shared-memory x reads ≈ 6.4 µs of the shared pipe (4 B per code), both under the 8.1 µs
 *       memory time.
 *   <li><b>Predicted: 10–11 µs</b>. Falsified if it is not faster than A by ≥ 0.5 µs: then block
 *       churn and x restaging were not what limited A, and the remaining gap to 8 µs is the overlap
 *       of issue, shared pipe and memory (B, without shared x, should then be the faster one). If C
 *       is at ≤ 9.5 µs the loads-in-flight model is right and the remaining work is instruction
 *       count.
 * </ul>
 */
public final class AffineQmvPersistentKernel {
  private AffineQmvPersistentKernel() {}

  /** Warps per block. */
  public static final int WARPS = 8;

  /**
   * Registers per thread the plan assumes to size the grid: the most ptxas 12.0 reports for the
   * validated sets on sm_90 (64; README).
   */
  public static final int REGISTERS = 64;

  /** bf16/f16 activations, scales, biases and output. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,cpl=4,kTiles=1",
        "bits=8,groupSize=64,dtype=0,cpl=4,kTiles=2",
        "bits=4,groupSize=128,dtype=1,cpl=4,kTiles=2",
        "bits=2,groupSize=64,dtype=0,cpl=4,kTiles=1"
      })
  public static void qmv(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      short[] x, // [m, k] bf16/f16 bits
      short[] out, // [m, n] bf16/f16 bits
      int m,
      int n,
      int k,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int cpl,
      @Specialize int kTiles) {
    int e = QmvChunks.elems(bits);
    int cs = QmvChunks.stride(bits);
    int ppc = 8 / bits;
    int tc = 32 * cpl; // chunks per step
    int cap = tc * kTiles; // chunks of x staged (capacity)
    float[] xsh = ctx.allocateFloatLocalArray(32 * cpl * kTiles * (128 / bits + 4));
    float[] xpart = ctx.allocateFloatLocalArray(32 * cpl * kTiles * (8 / bits));

    int lane = ctx.laneId();
    int row = ctx.groupIdy;
    int gw = ctx.groupIdx * WARPS + ctx.warpId();
    int nw = ctx.groupCountX * WARPS;
    int chunks = k / e;
    int kSteps = (chunks + tc - 1) / tc;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    int gsh = QmvChunks.log2(groupSize / e);
    int one = QmvChunks.opaqueOne(n);
    int last = chunks - 1;

    // Loads of the first step (feature gw, clamped to a valid row), before x is staged.
    int f = gw;
    int ks = 0;
    int fl = Math.min(f, n - 1);
    int l0 = Math.min(lane, last);
    int l1 = Math.min(lane + 32, last);
    int l2 = Math.min(lane + 64, last);
    int l3 = Math.min(lane + 96, last);
    Int4 zi = new Int4(0, 0, 0, 0);
    Int4 w0 = Vec.ldg4(wq, fl * wpr + 4 * l0);
    short s0 = Vec.ldg(scales, fl * groups + (l0 >> gsh));
    short b0 = Vec.ldg(biases, fl * groups + (l0 >> gsh));
    Int4 w1 = zi;
    Int4 w2 = zi;
    Int4 w3 = zi;
    short s1 = 0;
    short s2 = 0;
    short s3 = 0;
    short b1 = 0;
    short b2 = 0;
    short b3 = 0;
    if (cpl > 1) {
      w1 = Vec.ldg4(wq, fl * wpr + 4 * l1);
      s1 = Vec.ldg(scales, fl * groups + (l1 >> gsh));
      b1 = Vec.ldg(biases, fl * groups + (l1 >> gsh));
    }
    if (cpl > 2) {
      w2 = Vec.ldg4(wq, fl * wpr + 4 * l2);
      s2 = Vec.ldg(scales, fl * groups + (l2 >> gsh));
      b2 = Vec.ldg(biases, fl * groups + (l2 >> gsh));
      w3 = Vec.ldg4(wq, fl * wpr + 4 * l3);
      s3 = Vec.ldg(scales, fl * groups + (l3 >> gsh));
      b3 = Vec.ldg(biases, fl * groups + (l3 >> gsh));
    }

    QmvChunks.stageTile(
        x,
        xsh,
        xpart,
        ctx.localIdx,
        32 * WARPS,
        row,
        m,
        k,
        0,
        chunks,
        cap,
        cap * cs,
        bits,
        1,
        dtype);
    ctx.localBarrier();

    Float4 zf = new Float4(0f, 0f, 0f, 0f);
    float acc = 0f;
    while (f < n) {
      // The next step: the following k step of this feature, or the next feature's first.
      int nks = ks + 1;
      int nf = f;
      if (nks == kSteps) {
        nks = 0;
        nf = f + nw;
      }
      // Past the end the loads repeat this step's (cached) addresses instead of branching.
      boolean more = nf < n;
      int lf = more ? nf : f;
      int lks = more ? nks : ks;
      int wb = lf * wpr;
      int sb = lf * groups;
      int cn = lks * tc + lane; // next step's chunk 0 of this lane
      int c = ks * tc + lane; // this step's chunk 0 of this lane
      int xo = c * cs;

      Float4 d = QmvChunks.dotChunk(w0, xsh, xo, 0, bits, one, 1, zf);
      float t =
          QmvChunks.fold(
              acc,
              d.x(),
              QmvChunks.chunkSum(xpart, c * ppc, bits),
              QuantMath.halfToFloat(s0, dtype),
              QuantMath.halfToFloat(b0, dtype),
              bits);
      acc = c <= last ? t : acc;
      int n0 = Math.min(cn, last);
      w0 = Vec.ldg4(wq, wb + 4 * n0);
      s0 = Vec.ldg(scales, sb + (n0 >> gsh));
      b0 = Vec.ldg(biases, sb + (n0 >> gsh));
      if (cpl > 1) {
        d = QmvChunks.dotChunk(w1, xsh, xo + 32 * cs, 0, bits, one, 1, zf);
        t =
            QmvChunks.fold(
                acc,
                d.x(),
                QmvChunks.chunkSum(xpart, (c + 32) * ppc, bits),
                QuantMath.halfToFloat(s1, dtype),
                QuantMath.halfToFloat(b1, dtype),
                bits);
        acc = c + 32 <= last ? t : acc;
        int n1 = Math.min(cn + 32, last);
        w1 = Vec.ldg4(wq, wb + 4 * n1);
        s1 = Vec.ldg(scales, sb + (n1 >> gsh));
        b1 = Vec.ldg(biases, sb + (n1 >> gsh));
      }
      if (cpl > 2) {
        d = QmvChunks.dotChunk(w2, xsh, xo + 64 * cs, 0, bits, one, 1, zf);
        t =
            QmvChunks.fold(
                acc,
                d.x(),
                QmvChunks.chunkSum(xpart, (c + 64) * ppc, bits),
                QuantMath.halfToFloat(s2, dtype),
                QuantMath.halfToFloat(b2, dtype),
                bits);
        acc = c + 64 <= last ? t : acc;
        int n2 = Math.min(cn + 64, last);
        w2 = Vec.ldg4(wq, wb + 4 * n2);
        s2 = Vec.ldg(scales, sb + (n2 >> gsh));
        b2 = Vec.ldg(biases, sb + (n2 >> gsh));

        d = QmvChunks.dotChunk(w3, xsh, xo + 96 * cs, 0, bits, one, 1, zf);
        t =
            QmvChunks.fold(
                acc,
                d.x(),
                QmvChunks.chunkSum(xpart, (c + 96) * ppc, bits),
                QuantMath.halfToFloat(s3, dtype),
                QuantMath.halfToFloat(b3, dtype),
                bits);
        acc = c + 96 <= last ? t : acc;
        int n3 = Math.min(cn + 96, last);
        w3 = Vec.ldg4(wq, wb + 4 * n3);
        s3 = Vec.ldg(scales, sb + (n3 >> gsh));
        b3 = Vec.ldg(biases, sb + (n3 >> gsh));
      }

      if (nks == 0) { // feature f is complete
        float sum = QmvChunks.warpSum(ctx, acc);
        if (lane == 0) {
          out[row * n + f] = QuantMath.floatToHalf(sum, dtype);
        }
        acc = 0f;
      }
      f = nf;
      ks = nks;
    }
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Chunks per lane per step (fixed: 4 × 16-byte loads in flight per lane). */
  static final int CPL = 4;

  /** The most shared memory a block may use for x (static shared memory is at most 48 KiB). */
  static final int MAX_SHARED = 44 * 1024;

  /** Steps of 32·cpl chunks needed to hold all of k. */
  static int kTiles(QmmShape s) {
    int chunks = s.k() / QmvChunks.elems(s.bits());
    return (chunks + 32 * CPL - 1) / (32 * CPL);
  }

  static int sharedBytes(int bits, int kTiles) {
    return 32 * CPL * kTiles * (QmvChunks.stride(bits) + 8 / bits) * 4;
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = QmvChunks.basicRejection(s);
    if (bad != null) {
      return bad;
    }
    if (sharedBytes(s.bits(), kTiles(s)) > MAX_SHARED) {
      return "k too large to stage x once per block ("
          + sharedBytes(s.bits(), kTiles(s))
          + " B of shared memory > "
          + MAX_SHARED
          + "); AffineQmvWarpKernel tiles k";
    }
    if (s.rows() > 65535) {
      return "at most 65535 rows (grid.y), got " + s.rows();
    }
    return null;
  }

  /**
   * Blocks of 8 warps resident per SM at {@link #REGISTERS} registers per thread and this shape's
   * shared memory (228 KiB per SM on Hopper, 1 KiB reserved per block), at most 8.
   */
  static int blocksPerSm(QmmShape s) {
    int byRegs = 65536 / (REGISTERS * 32 * WARPS);
    int byShared = (228 * 1024) / (sharedBytes(s.bits(), kTiles(s)) + 1024);
    return Math.max(1, Math.min(8, Math.min(byRegs, byShared)));
  }

  /**
   * One wave of {@code smCount × blocksPerSm} blocks (fewer when n is small), balanced so that
   * every warp walks ⌈n / warps⌉ or one fewer features; grid.y = rows of x.
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    return plan(s, smCount, blocksPerSm(s));
  }

  /**
   * As {@link #plan(QmmShape, int)} with an explicit number of resident blocks per SM, e.g. from
   * the loaded function's register count ({@code 65536 / (registers × 256)}, and the shared
   * memory), when the driver's JIT does not give the 64 registers {@link #REGISTERS} assumes.
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int blocksPerSm) {
    int kt = kTiles(s);
    int maxBlocks = Math.max(1, smCount) * Math.max(1, blocksPerSm);
    int needed = (s.n() + WARPS - 1) / WARPS; // one feature per warp
    int blocks = Math.min(maxBlocks, needed);
    int perWarp = (s.n() + blocks * WARPS - 1) / (blocks * WARPS);
    blocks = (s.n() + perWarp * WARPS - 1) / (perWarp * WARPS);
    return LaunchPlan.of(
        "AffineQmvPersistentKernel.qmv",
        Dim3.of(blocks, s.rows()),
        Dim3.of(32 * WARPS),
        sharedBytes(s.bits(), kt),
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "cpl",
        CPL,
        "kTiles",
        kt);
  }
}
