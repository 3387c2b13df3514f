package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Streaming quantized matmul on tensor cores for a few rows of x (rung {@code qmv-mma}): one
 * 16-feature tile per block, the block's warps splitting k, <b>no barrier until the end</b>, each
 * warp streaming its rows' words {@code depth} k-steps ahead. Affine 4-bit, groups of 32/64/128,
 * bf16/f16 x, scales, biases and output, transposed weights.
 *
 * <h2>Why another tensor-core kernel</h2>
 *
 * The CUDA-core kernels spend 3 instructions per code (shift, lop3, FFMA) and 4.7 with their
 * overheads: ~9 M warp instructions for the benchmarked 12288×4096 matrix, as long as the 8 µs read
 * floor to issue alone (bench/RESULTS.md, run 29). {@link QmmMmaSplitKKernel} unpacks two codes per
 * lop3 and multiplies on the tensor cores (4.8 M instructions) but holds its slice of x in 32
 * registers, so one 16-warp block fits an SM, each warp has one batch of words in flight, and a
 * block barrier ends every batch: latency-bound at 15 µs (runs 22–27). This kernel keeps x in
 * shared memory, has nothing to synchronise inside its loop and keeps {@code depth} k-steps of
 * 16-byte loads in flight per lane.
 *
 * <h2>Mapping</h2>
 *
 * Block {@code (tile, rowTile)} computes features {@code 16·tile … +15} for rows {@code mr·rowTile
 * … +mr-1}. Lane {@code (g = lane/4, t = lane%4)} owns features {@code g} and {@code g+8} of the
 * tile (A rows of the m16n8k16 mma). A <em>k-step</em> is 128 codes: lane t reads 16 bytes (32
 * codes, chunk t) of each of its two rows, so 4 lanes read 64 contiguous bytes of a row. Warp w
 * takes the {@code steps} consecutive k-steps from {@code w·steps}. Per k-step: 8 mmas (word j of
 * the chunk, half h; {@link QmmMmaFragments#fragA}: {@code (w >>> sh) & 0x000F000F | magic} = two
 * exact halves offset+q), 8 mmas of an all-ones A for the x sums, then the fold {@code acc += s·D +
 * (b − offset·s)·X} in float.
 *
 * <p><b>Columns carry (row, group).</b> An mma's 16 k-slots come from the 4 lanes' chunks, which
 * span {@code G = 128/groupSize} groups (1, 2, 4). Column {@code c} of B (the 8 mma columns) is x
 * row {@code c / G} restricted to local group {@code c % G}: lane (g, t) supplies x for column g
 * only where chunk t lies in group {@code g % G}, else zeros. So C column c holds the dot of one
 * (row, group) and every group gets its own scale; {@code mr ≤ 8/G} rows share one pass over the
 * weights. Lane (g, t) holds C columns {@code 2t, 2t+1} of rows g, g+8, and so folds those.
 *
 * <p><b>x in shared memory</b>, staged once per block after the first loads are issued: rows {@code
 * 0 … mr-1} then a zero row, each 8-element word repacked into the B fragments of both halves
 * ({@link QmmMmaFragments#fragB}: one 16-byte shared load per word and lane). Chunk t's word j sits
 * at 16-byte slot {@code (j + t/2) mod 4} of the chunk, rows start on 32 banks (g128: 8 banks
 * apart) and the zero row 8 banks off, so the 32 lanes' loads of one word are free of bank
 * conflicts (derivation in {@link #slotOf}).
 *
 * <p>At the end each lane adds its columns of the same row (G = 4: and its neighbour's), the warps'
 * values meet in shared memory after the one barrier, and threads {@code < 16·mr} add them and
 * store.
 *
 * <h2>Budget at n = 12288, k = 4096, 1 row, 4-bit g64 bf16 (H200, 132 SMs)</h2>
 *
 * <ul>
 *   <li>768 blocks of 4 warps (8 k-steps each), 5.8 per SM: one wave if 6 fit (≤ 80 registers, 16
 *       KiB of shared memory each).
 *   <li>Per warp and k-step (2048 codes): 2 16-byte loads, 8 scale/bias loads, 4 shared loads, 16
 *       mmas, ~56 shifts and lop3s, ~20 for the fold: ≈ 0.06 warp instructions per code, 3 M for
 *       the matrix (the CUDA-core kernels: 7.4–9 M).
 *   <li>In flight per SM: 23 warps × 32 lanes × depth 4 × 32 B = 94 KiB (the read floor wants ~30
 *       KiB by Little's law at 3.5 TB/s).
 *   <li>x: 768 × 8 KiB of L2 reads at 1 row.
 * </ul>
 */
public final class QmvMmaKernel {
  private QmvMmaKernel() {}

  /** Codes per k-step: 4 lanes × 16 bytes of a row. */
  public static final int STEP = 128;

  /** Whether the default plan stages x and the scales before requesting weights (1) or after. */
  public static final int EARLY = 1;

  /** k-steps in flight per lane in the default plan. */
  public static final int DEPTH = 4;

  /** Most shared memory a plan may take (every sm_80+ part has at least 99 KiB per block). */
  static final int MAX_SHARED = 96 * 1024;

  @Kernel(
      validateWith = {
        "groupSize=64,dtype=0,mr=1,warps=4,steps=8,depth=4,early=1",
        "groupSize=64,dtype=0,mr=4,warps=4,steps=8,depth=4,early=1",
        "groupSize=64,dtype=1,mr=1,warps=4,steps=8,depth=4,early=1",
        "groupSize=128,dtype=0,mr=8,warps=4,steps=8,depth=4,early=1",
        "groupSize=32,dtype=0,mr=2,warps=4,steps=8,depth=4,early=1",
        "groupSize=64,dtype=0,mr=1,warps=2,steps=16,depth=4,early=0"
      })
  public static void qmv(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32 (4-bit codes)
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k, // = STEP·warps·steps (the specialization: shared memory is sized by it)
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int mr,
      @Specialize int warps,
      @Specialize int steps,
      @Specialize int depth,
      @Specialize int early) {
    int kk = STEP * warps * steps;
    int gpc = STEP / groupSize; // groups per k-step
    int rs = rowStride(kk, gpc);
    int zb = zeroBase(mr, rs);
    int[] xs = ctx.allocateIntLocalArray(zb + kk / 2);
    float[] red = ctx.allocateFloatLocalArray(warps * mr * 16);
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int warp = ctx.warpId();
    int tid = ctx.localIdx;
    int wpr = kk / 8;
    int groups = kk / groupSize;
    int tile = ctx.groupIdx;
    int fA = Math.min(tile * 16 + g, n - 1);
    int fB = Math.min(tile * 16 + g + 8, n - 1);
    int s0 = warp * steps;
    int wA = fA * wpr + 16 * s0 + 4 * t; // the lane's chunk of row A at the warp's first step
    int wB = fB * wpr + 16 * s0 + 4 * t;
    int pps = Math.max(1, gpc / 2); // scale pairs per k-step
    int srs = scaleRowStride(kk, groupSize);
    int[] sg = ctx.allocateIntLocalArray(8 * srs * 4);
    float offset = QmmMmaFragments.affineOffset(4, dtype);

    int last = steps - 1;
    Int4 zi = new Int4(0, 0, 0, 0);
    if (early == 1) {
      // x and the scales first: from an idle memory system they return in about one latency,
      // where behind the weights' first k-steps they waited for half the matrix (run 35).
      stageX(ctx, x, xs, rows, ctx.groupIdy * mr, kk, rs, zb, mr, warps);
      stageScales(ctx, scales, biases, sg, n, tile, kk, groupSize, srs, warps);
      ctx.localBarrier();
    }
    // Slots 0..depth-1: the first k-steps' words.
    Int4 a0 = Vec.ldg4(wq, wA);
    Int4 b0 = Vec.ldg4(wq, wB);
    Int4 a1 = zi;
    Int4 b1 = zi;
    Int4 a2 = zi;
    Int4 b2 = zi;
    Int4 a3 = zi;
    Int4 b3 = zi;
    if (depth > 1) {
      int q = Math.min(1, last);
      a1 = Vec.ldg4(wq, wA + 16 * q);
      b1 = Vec.ldg4(wq, wB + 16 * q);
    }
    if (depth > 2) {
      int q = Math.min(2, last);
      a2 = Vec.ldg4(wq, wA + 16 * q);
      b2 = Vec.ldg4(wq, wB + 16 * q);
    }
    if (depth > 3) {
      int q = Math.min(3, last);
      a3 = Vec.ldg4(wq, wA + 16 * q);
      b3 = Vec.ldg4(wq, wB + 16 * q);
    }
    if (early == 0) {
      stageX(ctx, x, xs, rows, ctx.groupIdy * mr, kk, rs, zb, mr, warps);
      stageScales(ctx, scales, biases, sg, n, tile, kk, groupSize, srs, warps);
      ctx.localBarrier();
    }

    // The lane's x: row g/G where chunk t lies in local group g%G, else the zero row.
    boolean hasX = g < mr * gpc && g % gpc == (t * gpc) >> 2;
    int xo = (hasX ? (g / gpc) * rs : zb) + 16 * t + 64 * s0;
    int th = t >> 1;
    int xo0 = xo + slotOf(0, th);
    int xo1 = xo + slotOf(1, th);
    int xo2 = xo + slotOf(2, th);
    int xo3 = xo + slotOf(3, th);
    // The lane's scale entry: row pair g, its columns' pair (t&1 where a k-step has 4 groups).
    int so = 4 * (g * srs + pps * s0 + (gpc == 4 ? t & 1 : 0));

    Float4 acc = new Float4(0f, 0f, 0f, 0f);
    for (int i = 0; i < steps; i += depth) {
      int o = 64 * i;
      acc =
          step(
              ctx,
              xs,
              xo0 + o,
              xo1 + o,
              xo2 + o,
              xo3 + o,
              a0,
              b0,
              Vec.load4(sg, so + 4 * pps * i),
              acc,
              gpc,
              dtype,
              offset);
      int q = Math.min(i + depth, last);
      a0 = Vec.ldg4(wq, wA + 16 * q);
      b0 = Vec.ldg4(wq, wB + 16 * q);
      if (depth > 1 && i + 1 < steps) {
        o += 64;
        acc =
            step(
                ctx,
                xs,
                xo0 + o,
                xo1 + o,
                xo2 + o,
                xo3 + o,
                a1,
                b1,
                Vec.load4(sg, so + 4 * pps * (i + 1)),
                acc,
                gpc,
                dtype,
                offset);
        q = Math.min(i + 1 + depth, last);
        a1 = Vec.ldg4(wq, wA + 16 * q);
        b1 = Vec.ldg4(wq, wB + 16 * q);
      }
      if (depth > 2 && i + 2 < steps) {
        o += 64;
        acc =
            step(
                ctx,
                xs,
                xo0 + o,
                xo1 + o,
                xo2 + o,
                xo3 + o,
                a2,
                b2,
                Vec.load4(sg, so + 4 * pps * (i + 2)),
                acc,
                gpc,
                dtype,
                offset);
        q = Math.min(i + 2 + depth, last);
        a2 = Vec.ldg4(wq, wA + 16 * q);
        b2 = Vec.ldg4(wq, wB + 16 * q);
      }
      if (depth > 3 && i + 3 < steps) {
        o += 64;
        acc =
            step(
                ctx,
                xs,
                xo0 + o,
                xo1 + o,
                xo2 + o,
                xo3 + o,
                a3,
                b3,
                Vec.load4(sg, so + 4 * pps * (i + 3)),
                acc,
                gpc,
                dtype,
                offset);
        q = Math.min(i + 3 + depth, last);
        a3 = Vec.ldg4(wq, wA + 16 * q);
        b3 = Vec.ldg4(wq, wB + 16 * q);
      }
    }

    storeTile(ctx, red, out, acc, rows, n, tile, mr, warps, gpc, dtype);
  }

  /**
   * One k-step: the 8 mmas of the lane's two rows (word j, half h) and the 8 of the all-ones A (x
   * sums per column), then {@code acc += s·D + (b − offset·s)·X} for columns 2t (x, z) and 2t+1 (y,
   * w) of rows g (x, y) and g+8 (z, w). {@code sa}/{@code sb} (scales), {@code ha}/{@code hb}
   * (biases): the halves of the two columns' groups, lo first.
   */
  static Float4 step(
      KernelContext ctx,
      int[] xs, // [zb + k/2] staged x (shared)
      int x0,
      int x1,
      int x2,
      int x3,
      Int4 a,
      Int4 b,
      Int4 sh, // scale and bias halves of rows g (x, y) and g+8 (z, w), lo first
      Float4 acc,
      int gpc,
      int dtype,
      float offset) {
    Int4 ones = QmmMmaFragments.onesFragment(dtype);
    Float4 z = new Float4(0f, 0f, 0f, 0f);
    Float4 d = z;
    Float4 e = z;
    for (int j = 0; j < 4; j++) {
      Int4 xf = Vec.load4(xs, j == 0 ? x0 : j == 1 ? x1 : j == 2 ? x2 : x3);
      Int2 p0 = new Int2(xf.x(), xf.y());
      Int2 p1 = new Int2(xf.z(), xf.w());
      int wa = QmmMmaFragments.wordAt(a, j);
      int wb = QmmMmaFragments.wordAt(b, j);
      d = QmmMmaKernel.mma(ctx, QmmMmaSplitKKernel.fragA(wa, wb, 0, dtype), p0, d, dtype);
      d = QmmMmaKernel.mma(ctx, QmmMmaSplitKKernel.fragA(wa, wb, 1, dtype), p1, d, dtype);
      e = QmmMmaKernel.mma(ctx, ones, p0, e, dtype);
      e = QmmMmaKernel.mma(ctx, ones, p1, e, dtype);
    }
    int sa = sh.x();
    int ha = sh.y();
    int sb = sh.z();
    int hb = sh.w();
    float s0 = QuantMath.halfLo(sa, dtype);
    float s1 = gpc == 1 ? s0 : QuantMath.halfHi(sa, dtype);
    float u0 = QuantMath.halfLo(sb, dtype);
    float u1 = gpc == 1 ? u0 : QuantMath.halfHi(sb, dtype);
    float c0 = QuantMath.halfLo(ha, dtype) - offset * s0;
    float c1 = (gpc == 1 ? QuantMath.halfLo(ha, dtype) : QuantMath.halfHi(ha, dtype)) - offset * s1;
    float v0 = QuantMath.halfLo(hb, dtype) - offset * u0;
    float v1 = (gpc == 1 ? QuantMath.halfLo(hb, dtype) : QuantMath.halfHi(hb, dtype)) - offset * u1;
    return new Float4(
        Math.fma(s0, d.x(), Math.fma(c0, e.x(), acc.x())),
        Math.fma(s1, d.y(), Math.fma(c1, e.y(), acc.y())),
        Math.fma(u0, d.z(), Math.fma(v0, e.x(), acc.z())),
        Math.fma(u1, d.w(), Math.fma(v1, e.y(), acc.w())));
  }

  // ---- pieces ----

  /** Ints per staged x row: k/2 (bf16/f16 pairs), 8 more (8 banks) with one group per k-step. */
  static int rowStride(int k, int gpc) {
    return k / 2 + (gpc == 1 ? 8 : 0);
  }

  /** Start of the zero row: after mr rows, 8 ints (8 banks) past a multiple of 32. */
  static int zeroBase(int mr, int rs) {
    int end = mr * rs;
    return end + ((8 - (end & 31)) & 31);
  }

  /**
   * Int offset of word j's 16-byte B fragments within a chunk whose lane has {@code th = t/2}. Bank
   * units (4 ints, 8 per 32 banks) of word j for chunks t = 0..3: j, 4+j, j+1, 5+j (mod 4 within
   * each half): a quarter-warp's 4 chunks of one row hit 4 distinct units, the zero row's (8 ints =
   * 2 units further) the other 4, and with one group per k-step the row pair of a quarter-warp, 8
   * ints apart ({@link #rowStride}), does the same.
   */
  static int slotOf(int j, int th) {
    return ((j + th) & 3) << 2;
  }

  /**
   * 16-byte entries per row pair of the staged scales: one per scale pair (two groups; one group
   * where a k-step has one), padded so that the 8 row pairs of a warp's load (and, with 4 groups
   * per k-step, its 2 pairs) fall on distinct 16-byte bank groups.
   */
  static int scaleRowStride(int k, int groupSize) {
    int pps = Math.max(1, STEP / groupSize / 2);
    int entries = k / STEP * pps;
    return (entries + 7) / 8 * 8 + pps;
  }

  /**
   * The tile's scales and biases, once per block with 2-byte loads that neighbouring threads
   * coalesce: entry (row pair r, pair P) = (scale pair, bias pair) of feature r, then of feature
   * r+8 (rows past n clamp to n-1), a pair being groups 2P, 2P+1 (lo, hi) or group P alone.
   */
  static void stageScales(
      KernelContext ctx,
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      int[] sg, // [8, srs, 4] staged (shared)
      int n,
      int tile,
      int k,
      int groupSize,
      int srs,
      int warps) {
    int gpc = STEP / groupSize;
    int groups = k / groupSize;
    int np = k / STEP * Math.max(1, gpc / 2);
    for (int e = ctx.localIdx; e < 8 * np; e += 32 * warps) {
      int r = e / np;
      int pi = e - r * np;
      int a = Math.min(tile * 16 + r, n - 1) * groups + (gpc == 1 ? pi : 2 * pi);
      int b = Math.min(tile * 16 + r + 8, n - 1) * groups + (gpc == 1 ? pi : 2 * pi);
      Vec.store4(
          sg,
          4 * (r * srs + pi),
          new Int4(
              halves(scales, a, gpc), halves(biases, a, gpc),
              halves(scales, b, gpc), halves(biases, b, gpc)));
    }
  }

  /** Halves {@code idx} (lo) and {@code idx+1} (hi; none with one group per k-step) of a. */
  static int halves(short[] a, int idx, int gpc) {
    int lo = Vec.ldg(a, idx) & 0xFFFF;
    if (gpc == 1) {
      return lo;
    }
    return lo | (Vec.ldg(a, idx + 1) << 16);
  }

  /**
   * Rows {@code r0 … r0+mr-1} of x (zeros past {@code rows}) as B fragments: word w of a row (8
   * elements) at k-step w/16, chunk (w/4)%4, slot {@link #slotOf}; then the zero row.
   */
  static void stageX(
      KernelContext ctx,
      short[] x, // [rows, k] bf16/f16 bits
      int[] xs, // [zb + k/2] staged (shared)
      int rows,
      int r0,
      int k,
      int rs,
      int zb,
      int mr,
      int warps) {
    int tid = ctx.localIdx;
    int wpr = k / 8;
    Int4 zi = new Int4(0, 0, 0, 0);
    for (int e = tid; e < mr * wpr; e += 32 * warps) {
      int r = e / wpr;
      int w = e - r * wpr;
      Int4 p = r0 + r < rows ? Vec.ldg4(x, (r0 + r) * k + 8 * w) : zi;
      Int2 h0 = QmmMmaFragments.fragB(p, 0, 4);
      Int2 h1 = QmmMmaFragments.fragB(p, 1, 4);
      int tt = (w >> 2) & 3;
      int at = r * rs + 64 * (w >> 4) + 16 * tt + slotOf(w & 3, tt >> 1);
      Vec.store4(xs, at, new Int4(h0.x(), h0.y(), h1.x(), h1.y()));
    }
    for (int e = tid; e < wpr; e += 32 * warps) {
      Vec.store4(xs, zb + 4 * e, zi);
    }
  }

  /**
   * The tile's output: each lane adds its columns of one row (G = 4: with its neighbour t^1), the
   * warps' values meet in {@code red} after the kernel's one barrier, and threads {@code < 16·mr}
   * add them and store rows below {@code rows}, features below {@code n}.
   */
  static void storeTile(
      KernelContext ctx,
      float[] red, // [warps, mr, 16] (shared)
      short[] out, // [rows, n] bf16/f16 bits
      Float4 acc,
      int rows,
      int n,
      int tile,
      int mr,
      int warps,
      int gpc,
      int dtype) {
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int at = ctx.warpId() * mr * 16 + g;
    if (gpc == 1) {
      // Columns 2t and 2t+1 are rows of their own.
      if (2 * t < mr) {
        red[at + 2 * t * 16] = acc.x();
        red[at + 2 * t * 16 + 8] = acc.z();
      }
      if (2 * t + 1 < mr) {
        red[at + (2 * t + 1) * 16] = acc.y();
        red[at + (2 * t + 1) * 16 + 8] = acc.w();
      }
    } else {
      float va = acc.x() + acc.y();
      float vb = acc.z() + acc.w();
      int r = t;
      if (gpc == 4) {
        va += ctx.shuffleXor(va, 1);
        vb += ctx.shuffleXor(vb, 1);
        r = t >> 1;
      }
      if (r < mr && (gpc == 2 || (t & 1) == 0)) {
        red[at + r * 16] = va;
        red[at + r * 16 + 8] = vb;
      }
    }
    ctx.localBarrier();
    int r0 = ctx.groupIdy * mr;
    for (int e = ctx.localIdx; e < mr * 16; e += 32 * warps) {
      int r = e >> 4;
      float sum = 0f;
      for (int w = 0; w < warps; w++) {
        sum += red[(w * mr) * 16 + e];
      }
      int f = tile * 16 + (e & 15);
      if (f < n && r0 + r < rows) {
        out[(r0 + r) * n + f] = QuantMath.floatToHalf(sum, dtype);
      }
    }
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Rows of x one pass over the weights serves: 8 columns over G groups per k-step. */
  static int maxRowsPerPass(int groupSize) {
    return 8 / (STEP / groupSize);
  }

  /** Shared bytes of a block: staged x (mr rows and the zero row) and the reduction slab. */
  static int sharedBytes(int k, int groupSize, int mr, int warps) {
    int rs = rowStride(k, STEP / groupSize);
    return (zeroBase(mr, rs) + k / 2) * 4
        + warps * mr * 16 * 4
        + 8 * scaleRowStride(k, groupSize) * 16;
  }

  /** Rows per block of the default plan: as many as one pass serves and shared memory holds. */
  static int rowsPerPass(QmmShape s) {
    int mr = Math.min(s.rows(), maxRowsPerPass(s.groupSize()));
    while (mr > 1 && sharedBytes(s.k(), s.groupSize(), mr, 4) > MAX_SHARED) {
      mr--;
    }
    return mr;
  }

  /** Warps splitting k in the default plan: 4, 2 or 1, the most that divide the k-steps. */
  static int defaultWarps(QmmShape s) {
    int ks = s.k() / STEP;
    return ks % 4 == 0 ? 4 : ks % 2 == 0 ? 2 : 1;
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k])";
    }
    if (s.mode() != Quant.AFFINE || s.bits() != 4) {
      return "affine 4-bit only (two codes unpacked per lop3 into tensor-core halves)";
    }
    if (s.dtype() == Quant.F32) {
      return "bf16/f16 activations only (tensor cores); f32 uses the vector path";
    }
    if (s.k() % STEP != 0) {
      return "k must be a multiple of " + STEP + " (4 lanes x 32 codes per k-step), got " + s.k();
    }
    int shared = sharedBytes(s.k(), s.groupSize(), 1, 4);
    if (shared > MAX_SHARED) {
      return "k too large: one staged row of x and the zero row take "
          + shared
          + " B of shared memory, more than "
          + MAX_SHARED;
    }
    if ((s.rows() + rowsPerPass(s) - 1) / rowsPerPass(s) > 65535) {
      return "too many rows for grid.y (" + rowsPerPass(s) + " per block row): " + s.rows();
    }
    return null;
  }

  /** The default plan: {@link #defaultWarps} warps, {@link #DEPTH} k-steps in flight. */
  public static LaunchPlan plan(QmmShape s) {
    return plan(s, defaultWarps(s), DEPTH);
  }

  /**
   * An explicit plan: {@code warps} (1, 2, 4, 8) warps splitting the k-steps evenly, {@code depth}
   * (1–4) k-steps in flight per lane, the rows per block of {@link #rowsPerPass}.
   */
  public static LaunchPlan plan(QmmShape s, int warps, int depth) {
    return plan(s, warps, depth, EARLY);
  }

  /**
   * {@link #plan(QmmShape, int, int)} with the staging order explicit: {@code early} 1 stages x and
   * the scales before the first weights are requested, 0 after.
   */
  public static LaunchPlan plan(QmmShape s, int warps, int depth, int early) {
    if (early != 0 && early != 1) {
      throw new IllegalArgumentException("early must be 0 or 1, got " + early);
    }
    int ks = s.k() / STEP;
    if (warps != 1 && warps != 2 && warps != 4 && warps != 8 || ks % warps != 0) {
      throw new IllegalArgumentException(
          "warps must be 1, 2, 4 or 8 and divide the "
              + ks
              + " k-steps of "
              + STEP
              + "; got warps="
              + warps);
    }
    if (depth < 1 || depth > 4) {
      throw new IllegalArgumentException("depth must be 1..4, got " + depth);
    }
    int mr = rowsPerPass(s);
    int steps = ks / warps;
    return LaunchPlan.of(
        "QmvMmaKernel.qmv",
        Dim3.of((s.n() + 15) / 16, (s.rows() + mr - 1) / mr),
        Dim3.of(32 * warps),
        sharedBytes(s.k(), s.groupSize(), mr, warps),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "mr",
        mr,
        "warps",
        warps,
        "steps",
        steps,
        "depth",
        Math.min(depth, steps),
        "early",
        early);
  }
}
