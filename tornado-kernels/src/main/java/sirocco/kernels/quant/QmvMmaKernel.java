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

  /** Most shared memory a plan may take (every sm_80+ part has at least 99 KiB per block). */
  static final int MAX_SHARED = 96 * 1024;

  @Kernel(
      validateWith = {
        "groupSize=64,dtype=0,mr=1,warps=4,steps=8",
        "groupSize=64,dtype=0,mr=4,warps=4,steps=8",
        "groupSize=64,dtype=1,mr=1,warps=4,steps=8",
        "groupSize=128,dtype=0,mr=6,warps=4,steps=8",
        "groupSize=32,dtype=0,mr=2,warps=4,steps=8",
        "groupSize=64,dtype=0,mr=1,warps=2,steps=16"
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
      @Specialize int steps) {
    int kk = STEP * warps * steps;
    int gpc = STEP / groupSize; // groups per k-step
    int wpr = kk / 8; // words per weight row
    int groups = kk / groupSize;
    int rs = rowStride(kk, gpc);
    int zb = zeroBase(mr, rs);
    int ss = scaleStride(groups);
    int[] wt = ctx.allocateIntLocalArray(16 * wpr);
    short[] st = ctx.allocateShortLocalArray(2 * 16 * ss);
    int[] xs = ctx.allocateIntLocalArray(zb + kk / 2);
    float[] red = ctx.allocateFloatLocalArray(warps * mr * 16);
    int tile = ctx.groupIdx;

    // The tile's 16 weight rows (contiguous in memory), scales and biases: asynchronous 16-byte
    // copies at constant offsets from one base per thread, all issued before anything waits.
    copyTile(ctx, wq, wt, scales, biases, st, n, tile, wpr, groups, ss, warps);
    Vec.commitAsync();
    stageX(ctx, x, xs, rows, ctx.groupIdy * mr, kk, rs, zb, mr, warps);
    Vec.waitAsync(0);
    ctx.localBarrier();

    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int s0 = ctx.warpId() * steps;
    int gb = g & 1;
    int wa = g * wpr + 4 * t; // + 16·(S ^ gb): the lane's piece of row g at k-step S
    int wb = wa + 8 * wpr;
    // The lane's x: row g/G where chunk t lies in local group g%G, else the zero row.
    boolean hasX = g < mr * gpc && g % gpc == (t * gpc) >> 2;
    int xo = (hasX ? (g / gpc) * rs : zb) + 16 * t + 64 * s0;
    int th = t >> 1;
    int xo0 = xo + slotOf(0, th);
    int xo1 = xo + slotOf(1, th);
    int xo2 = xo + slotOf(2, th);
    int xo3 = xo + slotOf(3, th);
    // The lane's scales: rows g and g+8, its columns' groups (local 2t % G and the next).
    int sa = g * ss + gpc * s0 + (2 * t) % gpc;
    int sb = sa + 8 * ss;
    int bo = 16 * ss; // biases follow the scales
    float offset = QmmMmaFragments.affineOffset(4, dtype);

    Float4 acc = new Float4(0f, 0f, 0f, 0f);
    for (int i = 0; i < steps; i++) {
      int pw = 16 * ((s0 + i) ^ gb);
      int o = 64 * i;
      int c = gpc * i;
      Int4 sh =
          new Int4(
              halves(st, sa + c, gpc),
              halves(st, bo + sa + c, gpc),
              halves(st, sb + c, gpc),
              halves(st, bo + sb + c, gpc));
      acc =
          step(
              ctx,
              xs,
              xo0 + o,
              xo1 + o,
              xo2 + o,
              xo3 + o,
              Vec.load4(wt, wa + pw),
              Vec.load4(wt, wb + pw),
              sh,
              acc,
              gpc,
              dtype,
              offset);
    }

    storeTile(ctx, red, out, acc, rows, n, tile, mr, warps, gpc, dtype);
  }

  /**
   * Asynchronous copies of the tile's 16 weight rows into {@code wt} (16-byte piece p of row r at
   * piece {@code p ^ 4·(r&1)}: see {@link #slotOf} for why the swizzle) and of its scales and
   * biases into {@code st} (rows of {@code ss} halves); rows past n copy row n-1.
   */
  static void copyTile(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32
      int[] wt, // [16, k/8] staged (shared)
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      short[] st, // [2, 16, ss] staged (shared)
      int n,
      int tile,
      int wpr,
      int groups,
      int ss,
      int warps) {
    int tid = ctx.localIdx;
    int ppr = wpr / 4; // 16-byte pieces per row
    for (int e = tid; e < 16 * ppr; e += 32 * warps) {
      int r = e / ppr;
      int p = e - r * ppr;
      int f = Math.min(tile * 16 + r, n - 1);
      Vec.copyAsync(wt, r * wpr + 4 * (p ^ ((r & 1) << 2)), wq, f * wpr + 4 * p, 16);
    }
    int spr = groups / 8; // 16-byte pieces per row of scales
    for (int e = tid; e < 32 * spr; e += 32 * warps) {
      int r = e / spr; // 0..31: scales of rows 0..15, then biases
      int p = e - r * spr;
      int f = Math.min(tile * 16 + (r & 15), n - 1);
      if (r < 16) {
        Vec.copyAsync(st, r * ss + 8 * p, scales, f * groups + 8 * p, 16);
      } else {
        Vec.copyAsync(st, r * ss + 8 * p, biases, f * groups + 8 * p, 16);
      }
    }
  }

  /**
   * One k-step: the 8 mmas of the lane's two rows (word j, half h) and the 8 of the all-ones A (x
   * sums per column), then {@code acc += s·D + (b − offset·s)·X} for columns 2t (x, z) and 2t+1 (y,
   * w) of rows g (x, y) and g+8 (z, w).
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
   * Halves per staged row of scales: the row's groups (a multiple of 8) and 8 more, so that the
   * rows of a warp's 8 row pairs start 4 banks apart.
   */
  static int scaleStride(int groups) {
    return groups + 8;
  }

  /** Staged halves {@code idx} (lo) and {@code idx+1} (hi; none with one group per k-step). */
  static int halves(short[] st, int idx, int gpc) {
    int lo = st[idx] & 0xFFFF;
    if (gpc == 1) {
      return lo;
    }
    return lo | (st[idx + 1] << 16);
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

  /**
   * Shared bytes of a block: the weight tile, its scales and biases, staged x (mr rows and the zero
   * row) and the reduction slab.
   */
  static int sharedBytes(int k, int groupSize, int mr, int warps) {
    int rs = rowStride(k, STEP / groupSize);
    return 16 * k / 8 * 4
        + 2 * 16 * scaleStride(k / groupSize) * 2
        + (zeroBase(mr, rs) + k / 2) * 4
        + warps * mr * 16 * 4;
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
    if (s.k() % (2 * STEP) != 0 || (s.k() / s.groupSize()) % 8 != 0) {
      return "k must be a multiple of 256 with a multiple of 8 groups (16-byte copies of a row's"
          + " pieces and scales; the row swizzle pairs 8 pieces), got k="
          + s.k()
          + " ("
          + s.k() / s.groupSize()
          + " groups)";
    }
    int shared = sharedBytes(s.k(), s.groupSize(), 1, 4);
    if (shared > MAX_SHARED) {
      return "k too large: the weight tile, one staged row of x and the zero row take "
          + shared
          + " B of shared memory, more than "
          + MAX_SHARED;
    }
    if ((s.rows() + rowsPerPass(s) - 1) / rowsPerPass(s) > 65535) {
      return "too many rows for grid.y (" + rowsPerPass(s) + " per block row): " + s.rows();
    }
    return null;
  }

  /** The default plan: {@link #defaultWarps} warps. */
  public static LaunchPlan plan(QmmShape s) {
    return plan(s, defaultWarps(s));
  }

  /**
   * An explicit plan: {@code warps} (1, 2, 4, 8) warps splitting the k-steps evenly, the rows per
   * block of {@link #rowsPerPass}, one block per 16-feature tile and row tile.
   */
  public static LaunchPlan plan(QmmShape s, int warps) {
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
    int mr = rowsPerPass(s);
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
        ks / warps);
  }
}
