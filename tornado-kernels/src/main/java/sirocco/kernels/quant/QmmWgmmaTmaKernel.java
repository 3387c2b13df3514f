package sirocco.kernels.quant;

import static sirocco.kernels.quant.QmmWgmmaKernel.BK;
import static sirocco.kernels.quant.QmmWgmmaKernel.FEATURE_WORDS;
import static sirocco.kernels.quant.QmmWgmmaKernel.ROWS;

import sirocco.api.Float4x16;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Mbarrier;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * {@link QmmWgmmaKernel} with x brought in by the tensor memory accelerator: each step's x tile
 * (128 rows by 64 k) is one {@code cp.async.bulk.tensor} box, issued by one thread, landing with
 * the 128-byte swizzle that the warpgroup product reads ({@code warpgroupMma*Swizzled}), and
 * awaited on a transaction barrier per slot.
 *
 * <h2>Why</h2>
 *
 * Run 115 (H100, 256 rows) counted ~10.4 M L2 requests a launch at about one sector each, the L2
 * ~75% busy, and most of the bytes x: 128 rows of x are read by each of the 64 column blocks, ~128
 * MB a launch, which the 16-byte {@code cp.async} copies of {@link QmmWgmmaKernel} bring in a
 * sector a request. A box copy asks for whole lines, and takes the x copies' instructions and
 * address arithmetic (and the fence that published them to the tensor cores) off every thread. Not
 * yet measured: nothing here has run on a GPU (run 116 had no device).
 *
 * <h2>What differs from {@link QmmWgmmaKernel}</h2>
 *
 * <ul>
 *   <li>x comes as {@code xmap}, a tile map of x ({@code [rows, k]}, box 64 x 128, 128-byte
 *       swizzle: {@link #xMapBox}); rows past the last one land as zeros.
 *   <li>A slot is the 16 KiB box as the copy writes it, rows of 128 bytes, their 16-byte chunks
 *       swizzled; product s of a step reads k 16s .. 16s + 15 of it ({@code bIndex} = slot + 16s).
 *   <li>Thread 0 initialises a barrier per slot (one arrival: its own, announcing the box's bytes)
 *       and issues the box copies; every thread waits on the slot's barrier, by the parity of the
 *       slot's fills, before the step's products.
 *   <li>The words and scale/bias runs, the pipeline, the block barrier per two steps and the slot
 *       rotation are {@link QmmWgmmaKernel}'s: the barrier still guarantees that a slot's products
 *       are complete in every warpgroup before its refill is issued.
 * </ul>
 */
public final class QmmWgmmaTmaKernel {
  private QmmWgmmaTmaKernel() {}

  /** Halves per x slot: 128 rows of 64 k, 16 KiB, a multiple of the swizzle's 1024-byte period. */
  static final int TILE_HALVES = ROWS * BK;

  /** Bytes per row of a slot and of the swizzle pattern. */
  static final int SWIZZLE = 128;

  /** The box of the x map, {@code {cols, rows}}: one step's k by one block's rows. */
  public static int[] xMapBox() {
    return new int[] {BK, ROWS};
  }

  /** The product; see the class comment and {@link QmmWgmmaKernel#qmm}. */
  @Kernel(
      archs = {90},
      validateWith = {
        "groupSize=64,dtype=0,wg=3,pipe=1,ahead=4",
        "groupSize=32,dtype=1,wg=3,pipe=2,ahead=3",
        "groupSize=128,dtype=0,wg=2,pipe=1,ahead=5",
        "groupSize=64,dtype=1,wg=1,pipe=2,ahead=4"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32 4-bit codes, LSB first
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      long[] xmap, // [16] tile map of x [rows, k] bf16/f16 bits: box 64 x 128, 128-byte swizzle
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int wg,
      @Specialize int pipe,
      @Specialize int ahead) {
    int tid = ctx.localIdx;
    int t = tid & 3;
    int fl = 16 * (tid >> 5) + ((tid & 31) >> 2); // this lane's first A row, within the block
    int fa = ctx.groupIdx * 64 * wg + fl;
    int r0 = ctx.groupIdy * ROWS;
    int steps = k / BK;
    int sA = fa * (k / groupSize); // this lane's scale/bias row
    // Only cp.w() (the feature whose words and scale/bias run this thread copies) is used.
    Int4 cp = QmmWgmmaKernel.copyPlan(tid, r0, rows, k, ctx.groupIdx * 64 * wg + (tid >> 1), wg);

    int stages = QmmWgmmaKernel.stages(pipe, ahead);
    int pairSlots = QmmWgmmaKernel.pairSlots(ahead);
    // [stages, 128 rows, 64 k] halves, each row's 16-byte chunks swizzled.
    short[] xs = ctx.allocateShortLocalArray(stages * TILE_HALVES);
    // [stages] the slots' transaction barriers.
    long[] full = ctx.allocateLongLocalArray(stages);
    // [pairSlots, 64 wg features, FEATURE_WORDS] the block's words of a step pair.
    int[] ws = ctx.allocateIntLocalArray(pairSlots * 64 * wg * FEATURE_WORDS);
    // [pairSlots, 64 wg features, 2 (scales, biases), 4] halves.
    short[] ss = ctx.allocateShortLocalArray(pairSlots * 512 * wg);

    if (tid == 0) {
      for (int s = 0; s < stages; s++) {
        Mbarrier.init(full, s, 1);
      }
      Mbarrier.fenceInit();
    }
    ctx.localBarrier();
    for (int q = 0; q < ahead; q++) {
      request(
          ctx, xs, full, ws, ss, xmap, wq, scales, biases, cp, q, q >> 1, q, r0, steps, k, wg,
          groupSize);
    }
    Vec.waitAsync(ahead - 2);
    ctx.localBarrier();
    int wo = FEATURE_WORDS * fl;
    int so = 8 * fl;
    int sel = 0x4400 + 0x1111 * t;
    int wSlot = 64 * wg * FEATURE_WORDS;
    int sSlot = 512 * wg;
    Int4 p0 = QmmWgmmaKernel.pairs(ss, so, false, groupSize);
    Int4 a0 = QmmWgmmaKernel.product(ws, p0, wo, 0, 0, sel, sA, groupSize, dtype);
    Int4 a1 = QmmWgmmaKernel.product(ws, p0, wo, 0, 1, sel, sA, groupSize, dtype);
    Int4 a2 = QmmWgmmaKernel.product(ws, p0, wo, 0, 2, sel, sA, groupSize, dtype);
    Int4 a3 = QmmWgmmaKernel.product(ws, p0, wo, 0, 3, sel, sA, groupSize, dtype);

    // The loop of QmmWgmmaKernel.qmm (its comments say why each wait and barrier is where it is),
    // less the fences: the boxes reach shared memory through the asynchronous proxy the products
    // read through, and the barrier's wait orders them. Bit s of phases is the parity of slot s's
    // next fill to wait for (a slot is filled every stages steps).
    Float4x16 acc = Float4x16.zero();
    int phases = 0;
    int s0 = 0; // slot of step j
    int q0 = 0; // pair slot of steps j, j + 1
    for (int j = 0; j < steps; j += 2) {
      int s1 = QmmWgmmaKernel.next(s0, 1, stages);
      int s2 = QmmWgmmaKernel.next(s0, 2, stages);
      int q1 = QmmWgmmaKernel.next(q0, 1, pairSlots);
      int qa = QmmWgmmaKernel.next(q0, pairSlots - 1, pairSlots); // the slot before q0
      ctx.localBarrier();
      Mbarrier.waitParity(full, s0, phases >> s0);
      phases ^= 1 << s0;
      acc = issue(ctx, xs, s0, a0, a1, a2, a3, acc, dtype);
      QmmWgmmaKernel.settle(ctx, pipe);
      int sa = QmmWgmmaKernel.next(s0, ahead, stages); // step j - pipe - 1's slot: free
      request(
          ctx, xs, full, ws, ss, xmap, wq, scales, biases, cp, sa, qa, j + ahead, r0, steps, k, wg,
          groupSize);
      Int4 p1 = QmmWgmmaKernel.pairs(ss, so + q0 * sSlot, true, groupSize);
      int w1 = wo + q0 * wSlot + 8; // the odd step's 8 words of each feature
      Int4 c0 = QmmWgmmaKernel.product(ws, p1, w1, j + 1, 0, sel, sA, groupSize, dtype);
      Int4 c1 = QmmWgmmaKernel.product(ws, p1, w1, j + 1, 1, sel, sA, groupSize, dtype);
      Int4 c2 = QmmWgmmaKernel.product(ws, p1, w1, j + 1, 2, sel, sA, groupSize, dtype);
      Int4 c3 = QmmWgmmaKernel.product(ws, p1, w1, j + 1, 3, sel, sA, groupSize, dtype);
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }

      Mbarrier.waitParity(full, s1, phases >> s1);
      phases ^= 1 << s1;
      acc = issue(ctx, xs, s1, c0, c1, c2, c3, acc, dtype);
      QmmWgmmaKernel.settle(ctx, pipe);
      int sb = QmmWgmmaKernel.next(s1, ahead, stages); // step j - pipe's slot: free
      Vec.waitAsync(ahead - 3);
      request(
          ctx,
          xs,
          full,
          ws,
          ss,
          xmap,
          wq,
          scales,
          biases,
          cp,
          sb,
          qa,
          j + 1 + ahead,
          r0,
          steps,
          k,
          wg,
          groupSize);
      Int4 p2 = QmmWgmmaKernel.pairs(ss, so + q1 * sSlot, false, groupSize);
      int w2 = wo + q1 * wSlot;
      a0 = QmmWgmmaKernel.product(ws, p2, w2, j + 2, 0, sel, sA, groupSize, dtype);
      a1 = QmmWgmmaKernel.product(ws, p2, w2, j + 2, 1, sel, sA, groupSize, dtype);
      a2 = QmmWgmmaKernel.product(ws, p2, w2, j + 2, 2, sel, sA, groupSize, dtype);
      a3 = QmmWgmmaKernel.product(ws, p2, w2, j + 2, 3, sel, sA, groupSize, dtype);
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }
      s0 = s2;
      q0 = q1;
    }

    ctx.warpgroupWait(0);
    QmmWgmmaKernel.store(out, acc, r0 + 2 * t, fa, rows, n, dtype);
  }

  /** The four k16 products of the step in slot {@code stage}, committed. */
  private static Float4x16 issue(
      KernelContext ctx,
      short[] xs, // [stages * TILE_HALVES] the x boxes
      int stage,
      Int4 p0,
      Int4 p1,
      Int4 p2,
      Int4 p3,
      Float4x16 acc,
      int dtype) {
    int slot = stage * TILE_HALVES;
    ctx.warpgroupFence();
    Float4x16 d = slab(ctx, xs, slot, 0, p0, acc, dtype);
    d = slab(ctx, xs, slot, 1, p1, d, dtype);
    d = slab(ctx, xs, slot, 2, p2, d, dtype);
    d = slab(ctx, xs, slot, 3, p3, d, dtype);
    ctx.warpgroupCommit();
    return d;
  }

  /** Product {@code s}: k 16s .. 16s + 15 of the box at half {@code slot}, A fragment {@code a}. */
  private static Float4x16 slab(
      KernelContext ctx,
      short[] xs, // [stages * TILE_HALVES] the x boxes
      int slot,
      int s,
      Int4 a,
      Float4x16 acc,
      int dtype) {
    if (dtype == Quant.F16) {
      return ctx.warpgroupMmaF16Swizzled(a, xs, slot + 16 * s, SWIZZLE, acc);
    }
    return ctx.warpgroupMmaBf16Swizzled(a, xs, slot + 16 * s, SWIZZLE, acc);
  }

  /**
   * Step {@code step}'s copies: thread 0 announces the box's bytes on the slot's barrier and copies
   * the box (k {@code BK step}, the block's rows); for an even step every thread also copies its
   * share of the step pair's words and scale/bias runs ({@link QmmWgmmaKernel#requestPair}). Then
   * the group is committed, an empty one past the last step (the waits count alike).
   */
  private static void request(
      KernelContext ctx,
      short[] xs, // [stages * TILE_HALVES]
      long[] full, // [stages]
      int[] ws, // [pairSlots, 64 wg, FEATURE_WORDS]
      short[] ss, // [pairSlots, 64 wg, 2, 4]
      long[] xmap, // [16]
      int[] wq, // [n, k/8]
      short[] scales, // [n, k/groupSize]
      short[] biases, // [n, k/groupSize]
      Int4 cp,
      int slot,
      int pairSlot,
      int step,
      int r0,
      int steps,
      int k,
      int wg,
      int groupSize) {
    if (step < steps) {
      if (ctx.localIdx == 0) {
        Mbarrier.arriveExpectTx(full, slot, 2 * TILE_HALVES);
        Vec.copyTileAsync(xs, slot * TILE_HALVES, xmap, BK * step, r0, full, slot);
      }
      if ((step & 1) == 0) {
        QmmWgmmaKernel.requestPair(
            ctx, ws, ss, wq, scales, biases, cp, pairSlot, step, k, wg, groupSize);
      }
    }
    Vec.commitAsync();
  }

  /** Why {@code s} cannot run here, or null: as {@link QmmWgmmaKernel#supports}. */
  public static String supports(QmmShape s, boolean sm90) {
    return QmmWgmmaKernel.supports(s, sm90);
  }

  /** The default plan: {@link QmmWgmmaKernel#plan(QmmShape)}'s warpgroups, pipeline and steps. */
  public static LaunchPlan plan(QmmShape s) {
    LaunchPlan base = QmmWgmmaKernel.plan(s);
    return plan(s, base.get("wg"), base.get("pipe"), base.get("ahead"));
  }

  /**
   * {@code wg} warpgroups (1..4) per block, {@code pipe} 1 or 2, {@code ahead} 3..6 steps: as
   * {@link QmmWgmmaKernel#plan(QmmShape, int, int, int)}, with this kernel's shared memory.
   */
  public static LaunchPlan plan(QmmShape s, int wg, int pipe, int ahead) {
    return QmmWgmmaKernel.plan(
        "QmmWgmmaTmaKernel.qmm", s, wg, pipe, ahead, sharedBytes(wg, pipe, ahead));
  }

  /**
   * Shared bytes of a plan, as the compiler lays the arrays out (each at a multiple of 1024 bytes
   * in a kernel that copies tiles): the boxes (16 KiB a slot), the barriers, the words and the
   * scale/bias runs of the pair slots.
   */
  static int sharedBytes(int wg, int pipe, int ahead) {
    int stages = QmmWgmmaKernel.stages(pipe, ahead);
    int pairs = QmmWgmmaKernel.pairSlots(ahead);
    int bytes = stages * TILE_HALVES * 2;
    bytes = align(bytes + 8 * stages);
    bytes = align(bytes + pairs * 64 * wg * FEATURE_WORDS * 4);
    return bytes + pairs * 512 * wg * 2;
  }

  private static int align(int bytes) {
    return (bytes + 1023) & -1024;
  }
}
