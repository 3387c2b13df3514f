package sirocco.kernels.quant;

import sirocco.api.Float4x16;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Quantized matmul for many rows of x on Hopper's warpgroup tensor cores ({@code wgmma}, sm_90
 * only; rung {@code qmm-wgmma}): transposed affine 4-bit weights, bf16/f16 x.
 *
 * <h2>Why</h2>
 *
 * {@link QmmTiledKernel} runs {@code mma.sync} from fragments it loads with {@code ldmatrix}: at
 * 256 rows its tensor pipe is busy 44% of the time, the warps waiting on the fragment loads and the
 * step barrier (run 109). A warpgroup product reads its B operand from shared memory itself, 64 x
 * 128 x 16 per instruction, while the warps go on: the weights need no shared-memory round trip at
 * all (each warp dequantizes its A fragments in registers, as {@link QmmMmaAsyncKernel} does) and x
 * no fragment loads.
 *
 * <h2>Mapping</h2>
 *
 * A block of {@code wg} warpgroups computes {@code 64 wg} features by 128 rows of x ({@link
 * #ROWS}); warpgroup {@code j} the features {@code 64 j .. 64 j + 63} of the block, one m64n128
 * accumulator ({@link Float4x16}) per thread; warp {@code w} of a group holds features {@code 16 w
 * + g} and {@code 16 w + g + 8} as A rows. k advances by 64 per step (four k16 products).
 *
 * <p><b>The k order.</b> Within a step, lane t of a warp reads words {@code 2t, 2t + 1} of each of
 * its two features (k {@code 16t .. 16t + 15}, one 8-byte load per feature, one group's scale and
 * bias as groups are 32 or more) and feeds product s (0..3) the codes {@code 4s .. 4s + 3} of them:
 * A fragment slots {@code 2t, 2t+1} take k {@code 16t + 4s + {0, 1}} and slots {@code 2t+8, 2t+9}
 * take {@code 16t + 4s + {2, 3}}. The x tile is stored in that order ({@link #sharedHalf}), so each
 * pair of x halves lands by its own 4-byte {@code cp.async}; the product is the same sum over k in
 * another order.
 *
 * <p><b>Shared memory.</b> {@link #STAGES} slots of one x tile (128 rows x 64 k, 16 KiB), each four
 * k16 slabs of the core-matrix layout {@code wgmma} reads without swizzling: per slab, the core
 * matrices of logical k 0-7 for row groups 0..15 ({@link #SBO} = 128 bytes apart), then those of k
 * 8-15 ({@link #LBO} = 2048 bytes above). A slot is refilled two steps after its product was waited
 * for and a block barrier passed.
 *
 * <h2>Pipeline, per step</h2>
 *
 * <ol>
 *   <li>block barrier: every thread's copies of this step's tile have landed and been fenced to the
 *       asynchronous proxy, and every warpgroup has waited for its previous products;
 *   <li>fence, the four products of this step from the fragments dequantized last step, commit;
 *   <li>while they run: the next step's fragments dequantized from the words loaded last step; this
 *       thread's copies of the next tile awaited and fenced ({@code fence.proxy.async}); the tile
 *       two steps ahead requested into the slot the previous step read; the words, scales and
 *       biases two steps ahead loaded;
 *   <li>wait for this step's products.
 * </ol>
 *
 * k is a multiple of 128: the loop runs two steps per iteration ({@link #qmm}'s comments say why).
 *
 * <h2>Measured (run 110, H100, 12288 x 4096 4-bit g64 bf16, graph replay)</h2>
 *
 * Correct on the GPU (the shipped-kernel differential, both pipes). The first version took ~118 µs
 * at 64–256 rows with wg = 3 (the same per block: latency per step), 101.3 at 256 rows once the x
 * copies stopped landing 8-way on 4 banks, against {@link QmmTiledKernel}'s 91.9. Nsight then
 * showed the warps waiting on the next step's weights at copies and arithmetic placed right after
 * their loads, and behind the proxy fence (a full memory barrier for the thread): the present loop
 * keeps those loads raw until their step and fences first. That version and {@code pipe = 2} passed
 * the GPU differential but are not yet timed (bench/RESULTS.md, run 110), so the op uses this
 * kernel only when asked ({@code -Dsirocco.qmm.wgmmaMinRows}).
 *
 * <p>Precision: as {@link QmmTiledKernel} (each weight rounded once to the activation dtype, float
 * accumulation over all of k, one rounding of the output).
 */
public final class QmmWgmmaKernel {
  private QmmWgmmaKernel() {}

  /** k per step: four k16 products. */
  static final int BK = 64;

  /** Rows of x per block: the n of the m64n128k16 product. */
  static final int ROWS = 128;

  /**
   * x tile slots at {@code pipe = 1}: the tile being read, the next one landing, the one after
   * requested. {@code pipe = 2} keeps one more (the previous step's products may still read it).
   */
  static final int STAGES = 3;

  /** Halves per x tile slot (128 rows x 64 k). */
  static final int SLOT_HALVES = ROWS * BK;

  /** Bytes between the core matrices of k 0-7 and of k 8-15 of a slab (16 row groups of 128 B). */
  static final int LBO = 2048;

  /** Bytes between the core matrices of consecutive groups of 8 rows. */
  static final int SBO = 128;

  /** Halves per k16 slab (two sets of 16 core matrices). */
  static final int SLAB_HALVES = 2 * LBO / 2;

  /** The product; see the class comment. */
  @Kernel(
      archs = {90},
      validateWith = {
        "groupSize=64,dtype=0,wg=3,pipe=1",
        "groupSize=32,dtype=1,wg=3,pipe=1",
        "groupSize=128,dtype=0,wg=2,pipe=1",
        "groupSize=64,dtype=1,wg=1,pipe=1",
        "groupSize=64,dtype=0,wg=3,pipe=2",
        "groupSize=128,dtype=1,wg=2,pipe=2"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32 4-bit codes, LSB first
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int wg,
      @Specialize int pipe) {
    int tid = ctx.localIdx;
    int threads = 128 * wg;
    int lane = tid & 31;
    int g = lane >> 2;
    int t = lane & 3;
    int fa = ctx.groupIdx * 64 * wg + 16 * (tid >> 5) + g; // this lane's first A row (feature)
    int r0 = ctx.groupIdy * ROWS;
    int wpr = k / 8;
    int groups = k / groupSize;
    int steps = k / BK;

    // [stages, 4 slabs, 2 k halves, 16 row groups, 8 rows, 8 k] halves.
    int stages = STAGES + pipe - 1;
    short[] xs = ctx.allocateShortLocalArray(stages * SLOT_HALVES);

    // Words of this lane's features fa and fa + 8 at step 0, and their scale/bias rows.
    int wA = fa * wpr + 2 * t;
    int wB = wA + 8 * wpr;
    int sA = fa * groups;
    int sB = sA + 8 * groups;

    // Prologue: tiles 0 and 1 requested, tile 0 awaited; step 0's fragments; step 1's words.
    requestTile(xs, x, 0, r0, rows, k, 0, tid, threads);
    Vec.commitAsync();
    requestTile(xs, x, 1, r0, rows, k, BK, tid, threads);
    Vec.commitAsync();
    int grp = (16 * t) / groupSize;
    Int2 qa = Vec.ldg2(wq, wA);
    Int2 qb = Vec.ldg2(wq, wB);
    Int4 a0 = QmmTiledTiles.deq4(qa.x(), twice(scales[sA + grp]), twice(biases[sA + grp]), dtype);
    Int4 a1 = QmmTiledTiles.deq4(qa.y(), twice(scales[sA + grp]), twice(biases[sA + grp]), dtype);
    Int4 b0 = QmmTiledTiles.deq4(qb.x(), twice(scales[sB + grp]), twice(biases[sB + grp]), dtype);
    Int4 b1 = QmmTiledTiles.deq4(qb.y(), twice(scales[sB + grp]), twice(biases[sB + grp]), dtype);
    grp = (BK + 16 * t) / groupSize;
    qa = Vec.ldg2(wq, wA + 8);
    qb = Vec.ldg2(wq, wB + 8);
    int sa = scales[sA + grp];
    int ba = biases[sA + grp];
    int sb = scales[sB + grp];
    int bb = biases[sB + grp];
    Vec.waitAsync(1);
    ctx.fenceSharedAsync();

    // Two steps per iteration (steps is even), so that the fragments alternate between two sets of
    // registers: the products of one step read their set while the other set is dequantized for
    // the next step. With one set, ptxas gives the next step's fragments the registers the running
    // products read and serializes every product (C7513). The words, scales and biases of step j +
    // 2 are loaded in step j as they are, used only in step j + 1: arithmetic on them, or a copy
    // at a merge of the loop's values, waits for the load there (run 110 call C: ~40% of the warps'
    // stall samples on such instructions, long scoreboard).
    Float4x16 acc = Float4x16.zero();
    for (int j = 0; j < steps; j += 2) {
      acc = issue(ctx, xs, j, stages, a0, a1, b0, b1, acc, dtype);
      settle(ctx, pipe);
      Int4 c0 = QmmTiledTiles.deq4(qa.x(), twice(sa), twice(ba), dtype);
      Int4 c1 = QmmTiledTiles.deq4(qa.y(), twice(sa), twice(ba), dtype);
      Int4 d0 = QmmTiledTiles.deq4(qb.x(), twice(sb), twice(bb), dtype);
      Int4 d1 = QmmTiledTiles.deq4(qb.y(), twice(sb), twice(bb), dtype);
      refill(ctx, xs, x, j, steps, stages, r0, rows, k, tid, threads);
      grp = (BK * (j + 2) + 16 * t) / groupSize;
      int w2 = 8 * Math.min(j + 2, steps - 1);
      qa = Vec.ldg2(wq, wA + w2);
      qb = Vec.ldg2(wq, wB + w2);
      sa = scales[sA + Math.min(grp, groups - 1)];
      ba = biases[sA + Math.min(grp, groups - 1)];
      sb = scales[sB + Math.min(grp, groups - 1)];
      bb = biases[sB + Math.min(grp, groups - 1)];
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }

      acc = issue(ctx, xs, j + 1, stages, c0, c1, d0, d1, acc, dtype);
      settle(ctx, pipe);
      a0 = QmmTiledTiles.deq4(qa.x(), twice(sa), twice(ba), dtype);
      a1 = QmmTiledTiles.deq4(qa.y(), twice(sa), twice(ba), dtype);
      b0 = QmmTiledTiles.deq4(qb.x(), twice(sb), twice(bb), dtype);
      b1 = QmmTiledTiles.deq4(qb.y(), twice(sb), twice(bb), dtype);
      refill(ctx, xs, x, j + 1, steps, stages, r0, rows, k, tid, threads);
      grp = (BK * (j + 3) + 16 * t) / groupSize;
      int w3 = 8 * Math.min(j + 3, steps - 1);
      qa = Vec.ldg2(wq, wA + w3);
      qb = Vec.ldg2(wq, wB + w3);
      sa = scales[sA + Math.min(grp, groups - 1)];
      ba = biases[sA + Math.min(grp, groups - 1)];
      sb = scales[sB + Math.min(grp, groups - 1)];
      bb = biases[sB + Math.min(grp, groups - 1)];
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }
    }

    ctx.warpgroupWait(0);
    // Quad i: rows 8i + 2t, 8i + 2t + 1 of the block's x rows, features fa and fa + 8.
    int rr = r0 + 2 * t;
    QmmMmaKernel.store(out, acc.quad(0), rr + 0, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(1), rr + 8, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(2), rr + 16, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(3), rr + 24, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(4), rr + 32, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(5), rr + 40, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(6), rr + 48, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(7), rr + 56, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(8), rr + 64, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(9), rr + 72, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(10), rr + 80, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(11), rr + 88, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(12), rr + 96, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(13), rr + 104, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(14), rr + 112, fa, rows, n, 1f, dtype);
    QmmMmaKernel.store(out, acc.quad(15), rr + 120, fa, rows, n, 1f, dtype);
  }

  /**
   * Step {@code j}'s products: the block barrier (every thread's copies of tile j landed and fenced
   * to the asynchronous proxy, every warpgroup done with step j - 1), then the four products from
   * the fragments {@code a0, a1} (feature fa) and {@code b0, b1} (feature fa + 8), committed.
   */
  private static Float4x16 issue(
      KernelContext ctx,
      short[] xs, // [stages * SLOT_HALVES] the x tiles
      int j,
      int stages,
      Int4 a0,
      Int4 a1,
      Int4 b0,
      Int4 b1,
      Float4x16 acc,
      int dtype) {
    ctx.localBarrier();
    int slot = (j % stages) * SLOT_HALVES;
    ctx.warpgroupFence();
    Float4x16 d = slab(ctx, xs, slot, 0, a0.x(), b0.x(), a0.y(), b0.y(), acc, dtype);
    d = slab(ctx, xs, slot, 1, a0.z(), b0.z(), a0.w(), b0.w(), d, dtype);
    d = slab(ctx, xs, slot, 2, a1.x(), b1.x(), a1.y(), b1.y(), d, dtype);
    d = slab(ctx, xs, slot, 3, a1.z(), b1.z(), a1.w(), b1.w(), d, dtype);
    ctx.warpgroupCommit();
    return d;
  }

  /**
   * While step j's products run: this thread's copies of tile j + 1 awaited and fenced to the
   * asynchronous proxy, then tile j + 2 requested into the slot step j - 1 read (every warpgroup
   * waited for those products before this step's barrier). The fence comes before any load this
   * step issues: ptxas makes it a full memory barrier for the thread (MEMBAR.ALL.CTA), which would
   * wait for them.
   */
  private static void refill(
      KernelContext ctx,
      short[] xs, // [STAGES * SLOT_HALVES]
      short[] x, // [rows, k]
      int j,
      int steps,
      int stages,
      int r0,
      int rows,
      int k,
      int tid,
      int threads) {
    Vec.waitAsync(0);
    ctx.fenceSharedAsync();
    if (j + 2 < steps) {
      requestTile(xs, x, (j + 2) % stages, r0, rows, k, (j + 2) * BK, tid, threads);
    }
    Vec.commitAsync();
  }

  /**
   * After step j's products are issued: with {@code pipe = 2}, wait for step j - 1's, so that its
   * fragment registers can take step j + 1's while step j's products run (and they stay in flight
   * through the next step's barrier); with {@code pipe = 1} the step ends waiting for its own.
   */
  private static void settle(KernelContext ctx, int pipe) {
    if (pipe == 2) {
      ctx.warpgroupWait(1);
    }
  }

  /** A 16-bit scale or bias (as loaded, sign-extended) in both halves of an int. */
  private static int twice(int bits) {
    return (bits & 0xFFFF) * 0x10001;
  }

  /** One k16 product: slab {@code s} of the slot at half {@code slot}, A from four pairs. */
  private static Float4x16 slab(
      KernelContext ctx,
      short[] xs, // [STAGES * SLOT_HALVES] the x tiles
      int slot,
      int s,
      int ax,
      int ay,
      int az,
      int aw,
      Float4x16 acc,
      int dtype) {
    Int4 a = new Int4(ax, ay, az, aw);
    int at = slot + s * SLAB_HALVES;
    if (dtype == Quant.F16) {
      return ctx.warpgroupMmaF16(a, xs, at, LBO, SBO, acc);
    }
    return ctx.warpgroupMmaBf16(a, xs, at, LBO, SBO, acc);
  }

  /**
   * Requests this thread's pairs of x halves of the tile at {@code k0} into slot {@code stage}. The
   * tile is 512 cells (row, t): the 8 pairs of a row at k {@code 16t .. 16t + 15} of the step,
   * which land at halves {@code 2t, 2t + 1} of 8 core matrices. Thread {@code tid} takes cells
   * {@code tid + i * threads}, so a warp's 32 lanes copy 8 rows by 4 t: one each of the 32 banks
   * (with a row's 32 pairs on one warp instead, every lane of it would land in the 4 banks of t).
   * Rows past the end are clamped to the last row (computed, never stored).
   */
  private static void requestTile(
      short[] xs, // [STAGES * SLOT_HALVES]
      short[] x, // [rows, k]
      int stage,
      int r0,
      int rows,
      int k,
      int k0,
      int tid,
      int threads) {
    int cells = 4 * ROWS;
    for (int i = 0; i < (cells + threads - 1) / threads; i++) {
      int cell = tid + i * threads;
      if (cells % threads == 0 || cell < cells) {
        int row = cell >> 2;
        int t = cell & 3;
        int src = Math.min(r0 + row, rows - 1) * k + k0 + 16 * t;
        int dst = stage * SLOT_HALVES + rowHalf(row) + 2 * t;
        for (int s = 0; s < 4; s++) {
          Vec.copyAsync(xs, dst + s * SLAB_HALVES, x, src + 4 * s, 4);
          Vec.copyAsync(xs, dst + s * SLAB_HALVES + LBO / 2, x, src + 4 * s + 2, 4);
        }
      }
    }
  }

  /** Half offset of row {@code row} (0..127) within a core-matrix set: group of 8, row in it. */
  static int rowHalf(int row) {
    return (row >> 3) * (SBO / 2) + (row & 7) * 8;
  }

  /**
   * Half offset within a slot of x pair {@code p} (k {@code 2p, 2p + 1} of the step, 0..31) of row
   * 0: k {@code 16t + 4s + 2c + {0, 1}} is slab s, core-matrix set c (k 0-7 or 8-15), k {@code 2t,
   * 2t + 1} of it.
   */
  static int sharedPair(int p) {
    int t = p >> 3;
    int s = (p >> 1) & 3;
    int c = p & 1;
    return s * SLAB_HALVES + c * (LBO / 2) + 2 * t;
  }

  /** The logical half a step's k lands at, for tests: see {@link #sharedPair}. */
  static int sharedHalf(int row, int kInStep) {
    return sharedPair(kInStep >> 1) + rowHalf(row) + (kInStep & 1);
  }

  /** Why {@code s} cannot run here, or null. {@code sm90}: the device is sm_90 (Hopper). */
  public static String supports(QmmShape s, boolean sm90) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (!sm90) {
      return "sm_90 (Hopper) only: wgmma";
    }
    if (s.rows() < 64) {
      return "fewer than 64 rows (a block is 128 rows of x)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k])";
    }
    if (s.mode() != Quant.AFFINE || s.bits() != 4) {
      return "affine 4-bit weights only";
    }
    if (s.dtype() == Quant.F32) {
      return "bf16/f16 activations only (tensor cores)";
    }
    if (s.groupSize() < 32) {
      return "group size >= 32 only (a lane's 16 codes share one scale), got " + s.groupSize();
    }
    if (s.n() % 64 != 0) {
      return "n must be a multiple of 64 (whole warpgroup tiles), got " + s.n();
    }
    if (s.k() % (2 * BK) != 0) {
      return "k must be a multiple of "
          + 2 * BK
          + " (two k steps per loop iteration), got "
          + s.k();
    }
    if ((s.rows() + ROWS - 1) / ROWS > 65535) {
      return "too many rows for grid.y: " + s.rows();
    }
    return null;
  }

  /** The default plan: 192 features per block where n allows, else 128, else 64; pipe 1. */
  public static LaunchPlan plan(QmmShape s) {
    int wg = s.n() % 192 == 0 ? 3 : s.n() % 128 == 0 ? 2 : 1;
    return plan(s, wg, 1);
  }

  /**
   * {@code wg} warpgroups (1..4) per block, {@code 64 wg} features by 128 rows; {@code pipe} 1 (a
   * step waits for its products) or 2 (for the previous step's: one more x slot).
   */
  public static LaunchPlan plan(QmmShape s, int wg, int pipe) {
    if (wg < 1 || wg > 4) {
      throw new IllegalArgumentException("wg must be 1..4 warpgroups, got " + wg);
    }
    if (pipe != 1 && pipe != 2) {
      throw new IllegalArgumentException("pipe must be 1 or 2, got " + pipe);
    }
    if (s.n() % (64 * wg) != 0) {
      throw new IllegalArgumentException(
          "wg=" + wg + " needs n a multiple of " + 64 * wg + ", got " + s.n());
    }
    return LaunchPlan.of(
        "QmmWgmmaKernel.qmm",
        Dim3.of(s.n() / (64 * wg), (s.rows() + ROWS - 1) / ROWS),
        Dim3.of(128 * wg),
        (STAGES + pipe - 1) * SLOT_HALVES * 2,
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "wg",
        wg,
        "pipe",
        pipe);
  }

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }
}
