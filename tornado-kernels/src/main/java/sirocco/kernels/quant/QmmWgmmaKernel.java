package sirocco.kernels.quant;

import sirocco.api.Float4x16;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Intrinsics;
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
 * step barrier (run 109). A warpgroup product reads its B operand (x) from shared memory itself, 64
 * x 128 x 16 per instruction, while the warps go on dequantizing the next step's A fragments (the
 * weights) in registers.
 *
 * <h2>Mapping</h2>
 *
 * A block of {@code wg} warpgroups computes {@code 64 wg} features by 128 rows of x ({@link
 * #ROWS}); warpgroup {@code j} the features {@code 64 j .. 64 j + 63} of the block, one m64n128
 * accumulator ({@link Float4x16}) per thread; lane (g, t) of warp {@code w} of a group holds
 * features {@code 16 w + g} and {@code 16 w + g + 8} as A rows. k advances by 64 per step (four k16
 * products). Product s of a step reads k {@code 16 s + {2t, 2t + 1, 2t + 8, 2t + 9}} of the A rows,
 * which are byte t of words {@code 2 s} and {@code 2 s + 1} of the step's 8 words: a thread
 * dequantizes one byte (two codes) of each word.
 *
 * <h2>Shared memory</h2>
 *
 * {@code ahead + pipe + 1} slots, one per step in flight and one more, each holding the step's x
 * tile (128 rows x 64 k, 16 KiB and 128 bytes of padding) in the core-matrix layout {@code wgmma}
 * reads without swizzling: per k16 slab, the core matrices (8 rows x 8 k, 128 contiguous bytes) of
 * k 0-7 for row groups 0..15 ({@link #SBO} = 128 bytes apart), then those of k 8-15 ({@link #LBO} =
 * 2064 bytes above). A core-matrix row is 8 consecutive k of one x row: one 16-byte {@code
 * cp.async}, a quarter warp copying one row's 8 chunks.
 *
 * <p>{@code (ahead + 1) / 2 + 1} pair slots, one per pair of steps (even, odd) in flight and one
 * more, copied with the even step, each holding
 *
 * <ul>
 *   <li>the block's words of the two steps ({@code [64 wg features, 16]}, rows padded to {@link
 *       #FEATURE_WORDS}; two 16-byte copies per thread);
 *   <li>per feature the aligned run of scales and of biases holding the two steps' groups ({@link
 *       #pairHalves}: 4 or 2 halves, one 8- or 4-byte copy per thread; n is a multiple of 64, so a
 *       run never runs past the arrays' end).
 * </ul>
 *
 * <h2>Pipeline, per step j</h2>
 *
 * <ol>
 *   <li>even j only, a block barrier: steps j and j + 1 landed (every thread waited for its copies
 *       and fenced the x tiles to the asynchronous proxy), every warpgroup waited for step j -
 *       pipe's products;
 *   <li>fence, the four products of step j from the fragments dequantized in step j - 1, commit;
 *   <li>while they run: odd j only, wait for this thread's copies of steps j + 1, j + 2 and fence;
 *       request step j + ahead into the slot of step j - pipe - 1 (even j) or j - pipe (odd j);
 *       dequantize step j + 1's fragments from its words;
 *   <li>with {@code pipe = 1}, wait for this step's products; with 2, the previous step's were
 *       waited for right after this step's were issued.
 * </ol>
 *
 * So a step's copies have {@code ahead - 2} or more steps to land. k is a multiple of 128: the loop
 * runs two steps per iteration ({@link #qmm}'s comments say why).
 *
 * <h2>Measured (runs 110–115, H100, 12288 x 4096 4-bit g64 bf16, graph replay)</h2>
 *
 * Earlier forms stored x in a permuted k order (each lane's 16 consecutive codes of a word pair, so
 * x went in by 4-byte copies): ~118 µs at 64–256 rows, 101.3 at 256 once those copies stopped
 * landing on 4 banks, 95.5 with the weights loaded into registers a step ahead (run 111 call A),
 * 104.6 two steps ahead (call B), 142 with the weights in shared memory by small copies (call C: L1
 * 87% busy, the 4-byte copies of x alone 8 times the wavefronts of 16-byte ones), against {@link
 * QmmTiledKernel}'s 91.6. The present form (call E): 99.4 µs at 256 rows ({@code @3x2x3}, the
 * default plan; {@code qmm-tiled} 92.6), 89.9 at 128 (62.4), 193.8 at 512 (182.1). Nsight on call
 * D's form (before the slot rotation by compare, the pairs loaded once a step and the present copy
 * mapping, which together moved AHEAD 3 by nothing measurable): L1 41%, L2 69% busy, no stall
 * reason dominant, 383 warp instructions per warp and step (integer address and selection work
 * beside the 16 fragment registers' dequantization) against 768 cycles of tensor work per SM and
 * step: latency-bound on its own instruction chains with 12 warps per SM. Since then (run 112, not
 * yet on a GPU: no device could be started) each thread's copy offsets are computed once ({@link
 * #copyPlan}) and the scale halves once per group: local ptxas 13.0 makes a 64-k step 243 SASS
 * instructions instead of 337 ({@code wg = 3}, same 127 registers). Run 114 call C timed that form:
 * 96.9 µs at 256 rows ({@code @3x2x3}; {@code @3x1x3} 96.3) against {@code qmm-tiled}'s 92.5, one
 * block per SM at {@code wg = 3}, two at {@code wg = 2} (153.8: fewer features per x tile). Nsight
 * (call D): tensor pipe 30% active, L2 77% busy at 10% DRAM, a third of the stalls on the copy
 * waits and a quarter on the barrier, read then as the copies' requests being the bottleneck. Run
 * 115 (H100, three forms in one call, each against {@code qmm-tiled}'s 91.4–92.4): x by whole lines
 * ({@link #cellRow}) was slower, 102.3 at 256 rows; adding the pair slots 98.5 ({@code @3x1x4}
 * 97.6); one barrier per two steps, the present form, 99.3 ({@code @3x1x4} 98.2), 73.6 at 128 rows
 * (62.4), 193.3 at 512 (179.6). Nsight: L2 requests 10.8 M a launch before the pair slots, 10.4 M
 * after, the barrier stall halved, the time the same: neither the copies' requests nor the barrier
 * holds it back. Until it beats {@link QmmTiledKernel} the op uses it only when asked ({@code
 * -Dsirocco.qmm.wgmmaMinRows}). {@link QmmWgmmaTmaKernel} is this kernel with x brought in by tile
 * copies (run 116, not yet run on a GPU).
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
   * Bytes between the core matrices of k 0-7 and of k 8-15 of a slab: 16 row groups of 128 B, and
   * 16 more so that the eight chunks of a row start on different banks (see {@link #cellRow}).
   */
  static final int LBO = 2048 + 16;

  /** Bytes between the core matrices of consecutive groups of 8 rows. */
  static final int SBO = 128;

  /**
   * Halves per k16 slab (2 LBO bytes: two sets of 16 core matrices, 32 bytes past a multiple of
   * 128), so that chunks 0-7 (k 8c .. 8c + 7) of a row start 0, 16, .. 112 bytes past a multiple of
   * 128.
   */
  static final int SLAB_HALVES = LBO;

  /** Halves per x tile slot (128 rows x 64 k, four slabs). */
  static final int SLOT_HALVES = 4 * SLAB_HALVES;

  /**
   * Words per feature in a pair slot: a step pair's 16 and 4 of padding, so that the fragment reads
   * of a warp's 8 features (8 bytes each) fall on 16 different banks (at 16 they would share 4
   * ways, at 8, the former one-step slot, 2).
   */
  static final int FEATURE_WORDS = 20;

  /** The product; see the class comment. */
  @Kernel(
      archs = {90},
      validateWith = {
        "groupSize=64,dtype=0,wg=3,pipe=1,ahead=4",
        "groupSize=32,dtype=1,wg=3,pipe=1,ahead=3",
        "groupSize=128,dtype=0,wg=2,pipe=1,ahead=5",
        "groupSize=64,dtype=1,wg=1,pipe=1,ahead=4",
        "groupSize=64,dtype=0,wg=2,pipe=2,ahead=4",
        "groupSize=128,dtype=1,wg=2,pipe=2,ahead=3",
        // Within sm_80's 163 KiB too: the shipped-kernel checks also compile these for sm_80 (and
        // expect the arch refusal, which a plan needing more shared memory would pre-empt).
        "groupSize=32,dtype=1,wg=4,pipe=1,ahead=3",
        "groupSize=64,dtype=1,wg=2,pipe=1,ahead=5",
        "groupSize=64,dtype=0,wg=3,pipe=2,ahead=3"
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
      @Specialize int pipe,
      @Specialize int ahead) {
    int tid = ctx.localIdx;
    int t = tid & 3;
    int fl = 16 * (tid >> 5) + ((tid & 31) >> 2); // this lane's first A row, within the block
    int fa = ctx.groupIdx * 64 * wg + fl;
    int r0 = ctx.groupIdy * ROWS;
    int steps = k / BK;
    int sA = fa * (k / groupSize); // this lane's scale/bias row
    // This thread's copies, their step-invariant parts computed once (recomputed every step, their
    // address arithmetic was a third of the loop's instructions: run 111 call D's SASS).
    Int4 cp = copyPlan(tid, r0, rows, k, ctx.groupIdx * 64 * wg + (tid >> 1), wg);

    int stages = stages(pipe, ahead);
    int pairSlots = pairSlots(ahead);
    // [stages, 4 slabs, 2 k halves, 16 row groups, 8 rows, 8 k] halves.
    short[] xs = ctx.allocateShortLocalArray(stages * SLOT_HALVES);
    // [pairSlots, 64 wg features, FEATURE_WORDS] the block's words of a step pair (16 a feature).
    int[] ws = ctx.allocateIntLocalArray(pairSlots * 64 * wg * FEATURE_WORDS);
    // [pairSlots, 64 wg features, 2 (scales, biases), 4] halves: the aligned runs holding the step
    // pair's groups (4 halves each at groups of 32, else 2, the biases then at half 2).
    short[] ss = ctx.allocateShortLocalArray(pairSlots * 512 * wg);

    // Prologue: steps 0 .. ahead - 1 requested (a group per step even past the last one, so the
    // waits count alike); steps 0 and 1 awaited and shared; step 0's fragments.
    for (int q = 0; q < ahead; q++) {
      request(ctx, xs, ws, ss, x, wq, scales, biases, cp, q, q >> 1, q, steps, k, wg, groupSize);
    }
    Vec.waitAsync(ahead - 2);
    ctx.fenceSharedAsync();
    ctx.localBarrier();
    // This thread's words and scale/bias pairs within a slot; its byte of each word.
    int wo = FEATURE_WORDS * fl;
    int so = 8 * fl;
    int sel = 0x4400 + 0x1111 * t;
    int wSlot = 64 * wg * FEATURE_WORDS;
    int sSlot = 512 * wg;
    Int4 p0 = pairs(ss, so, false, groupSize);
    Int4 a0 = product(ws, p0, wo, 0, 0, sel, sA, groupSize, dtype);
    Int4 a1 = product(ws, p0, wo, 0, 1, sel, sA, groupSize, dtype);
    Int4 a2 = product(ws, p0, wo, 0, 2, sel, sA, groupSize, dtype);
    Int4 a3 = product(ws, p0, wo, 0, 3, sel, sA, groupSize, dtype);

    // Two steps per iteration (steps is even), so that the fragments alternate between two sets of
    // registers: the products of one step read their set while the other set is dequantized for
    // the next step. With one set, ptxas gives the next step's fragments the registers the running
    // products read and serializes every product (C7513). The fragments come from shared memory,
    // never from a load in flight: loaded into registers, the words were loop-carried values and
    // the dequantization, or a copy of them at the loop's back edge, waited for the load there (run
    // 111 calls A and B: 45% and 37% of the stall samples, long scoreboard).
    // One block barrier per iteration, before the even step's products (run 114 call D: a quarter
    // of the stalls at the barrier, then one per step; run 115: the barrier stall halved, the time
    // within 1 µs, the waits moving elsewhere). Before it every thread waited for its copies of
    // both steps and fenced the x tiles to the asynchronous proxy, and every warpgroup
    // waited for the products of step j - pipe and dequantized step j - 1's fragments. So after
    // it the iteration may refill the slots of steps j - pipe - 1 (step j + ahead, requested while
    // step j's products run) and j - pipe (step j + 1 + ahead, while step j + 1's run): one slot
    // more than steps in flight. In the second half this thread's copies of steps j + 2 and j + 3
    // are awaited (ahead - 3 younger groups stay in flight) and fenced; the fence comes before the
    // new copies: ptxas makes it a full memory barrier for the thread (MEMBAR.ALL.CTA), which
    // would wait for them.
    // Slots rotate by a compare, not a remainder: stages is rarely a power of two, and each % was
    // a chain of integer multiplies per use.
    // A step pair's words and scale/bias runs rotate through pairSlots slots of their own, copied
    // with the even step (step j + ahead or j + 1 + ahead, whichever is even) into the pair slot
    // before q0: that of steps j - 2, j - 1, whose fragments were dequantized before this
    // iteration's barrier.
    Float4x16 acc = Float4x16.zero();
    int s0 = 0; // slot of step j
    int q0 = 0; // pair slot of steps j, j + 1
    for (int j = 0; j < steps; j += 2) {
      int s1 = next(s0, 1, stages);
      int s2 = next(s0, 2, stages);
      int q1 = next(q0, 1, pairSlots);
      int qa = next(q0, pairSlots - 1, pairSlots); // the slot before q0
      acc = issue(ctx, xs, s0, true, a0, a1, a2, a3, acc, dtype);
      settle(ctx, pipe);
      int sa = next(s0, ahead, stages); // step j - pipe - 1's slot: free
      request(
          ctx, xs, ws, ss, x, wq, scales, biases, cp, sa, qa, j + ahead, steps, k, wg, groupSize);
      Int4 p1 = pairs(ss, so + q0 * sSlot, true, groupSize);
      int w1 = wo + q0 * wSlot + 8; // the odd step's 8 words of each feature
      Int4 c0 = product(ws, p1, w1, j + 1, 0, sel, sA, groupSize, dtype);
      Int4 c1 = product(ws, p1, w1, j + 1, 1, sel, sA, groupSize, dtype);
      Int4 c2 = product(ws, p1, w1, j + 1, 2, sel, sA, groupSize, dtype);
      Int4 c3 = product(ws, p1, w1, j + 1, 3, sel, sA, groupSize, dtype);
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }

      acc = issue(ctx, xs, s1, false, c0, c1, c2, c3, acc, dtype);
      settle(ctx, pipe);
      int sb = next(s1, ahead, stages); // step j - pipe's slot: free
      Vec.waitAsync(ahead - 3);
      ctx.fenceSharedAsync();
      int jb = j + 1 + ahead;
      request(ctx, xs, ws, ss, x, wq, scales, biases, cp, sb, qa, jb, steps, k, wg, groupSize);
      // Past the last step the slot holds stale data: dequantized, never used.
      Int4 p2 = pairs(ss, so + q1 * sSlot, false, groupSize);
      int w2 = wo + q1 * wSlot;
      a0 = product(ws, p2, w2, j + 2, 0, sel, sA, groupSize, dtype);
      a1 = product(ws, p2, w2, j + 2, 1, sel, sA, groupSize, dtype);
      a2 = product(ws, p2, w2, j + 2, 2, sel, sA, groupSize, dtype);
      a3 = product(ws, p2, w2, j + 2, 3, sel, sA, groupSize, dtype);
      if (pipe == 1) {
        ctx.warpgroupWait(0);
      }
      s0 = s2;
      q0 = q1;
    }

    ctx.warpgroupWait(0);
    store(out, acc, r0 + 2 * t, fa, rows, n, dtype);
  }

  /**
   * The block's results of this thread: quad i of {@code acc} holds rows {@code rr + 8i} and {@code
   * rr + 8i + 1} ({@code rr}: the block's first row + 2t) of features {@code fa} and {@code fa +
   * 8}.
   */
  static void store(
      short[] out, // [rows, n] bf16/f16 bits
      Float4x16 acc,
      int rr,
      int fa,
      int rows,
      int n,
      int dtype) {
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
   * The products of the step in slot {@code stage}: the block barrier if {@code barrier} (even
   * steps), then the four k16 products from the fragments {@code p0 .. p3} (each: feature fa's and
   * fa + 8's codes at k 2t, 2t + 1, then at 2t + 8, 2t + 9 of its slab), committed.
   */
  private static Float4x16 issue(
      KernelContext ctx,
      short[] xs, // [stages * SLOT_HALVES] the x tiles
      int stage,
      boolean barrier,
      Int4 p0,
      Int4 p1,
      Int4 p2,
      Int4 p3,
      Float4x16 acc,
      int dtype) {
    if (barrier) {
      ctx.localBarrier();
    }
    int slot = stage * SLOT_HALVES;
    ctx.warpgroupFence();
    Float4x16 d = slab(ctx, xs, slot, 0, p0, acc, dtype);
    d = slab(ctx, xs, slot, 1, p1, d, dtype);
    d = slab(ctx, xs, slot, 2, p2, d, dtype);
    d = slab(ctx, xs, slot, 3, p3, d, dtype);
    ctx.warpgroupCommit();
    return d;
  }

  /**
   * After step j's products are issued: with {@code pipe = 2}, wait for step j - 1's, so that its
   * fragment registers can take step j + 1's while step j's products run (and they stay in flight
   * through the next step's barrier); with {@code pipe = 1} the step ends waiting for its own.
   */
  static void settle(KernelContext ctx, int pipe) {
    if (pipe == 2) {
      ctx.warpgroupWait(1);
    }
  }

  /**
   * Step {@code step}'s copies, this thread's share ({@code cp}: {@link #copyPlan}): its x tile
   * chunks into slot {@code slot}; for an even step also the step pair's words and scale/bias runs
   * into pair slot {@code pairSlot}: two 16-byte chunks of the block's words (feature {@code tid /
   * 4}, and 32 wg features on, words 4 (tid & 3) .. of the 16 of the pair), and the aligned run of
   * scales (even tid) or biases (odd tid) of feature {@code cp.w()} holding the pair's groups
   * ({@link #pairHalves}). Then the group is committed, an empty one for a step past the last (so
   * that the waits count alike). A feature's words of a step pair are 64 contiguous bytes of one
   * line and its run of scales a few bytes of one line: copied once a pair, half the line requests
   * of copies made each step (aimed at run 114 call D's L2, 77% busy at 10% DRAM; run 115: 4 µs
   * faster at 256 rows, yet the L2's requests fell only from 10.8 M to 10.4 M a launch).
   */
  private static void request(
      KernelContext ctx,
      short[] xs, // [stages * SLOT_HALVES]
      int[] ws, // [pairSlots, 64 wg, FEATURE_WORDS]
      short[] ss, // [pairSlots, 64 wg, 2, 4]
      short[] x, // [rows, k]
      int[] wq, // [n, k/8]
      short[] scales, // [n, k/groupSize]
      short[] biases, // [n, k/groupSize]
      Int4 cp,
      int slot,
      int pairSlot,
      int step,
      int steps,
      int k,
      int wg,
      int groupSize) {
    if (step < steps) {
      // Cell i of this thread is 16 wg rows below cell i - 1, same chunk (see copyPlan).
      int src = cp.x() + step * BK;
      int dst = slot * SLOT_HALVES + cp.y();
      for (int i = 0; i < (8 + wg - 1) / wg; i++) {
        if (i < cp.z()) {
          Vec.copyAsync(xs, dst + 128 * wg * i, x, src + 16 * wg * i * k, 16);
        }
      }
      if ((step & 1) == 0) {
        requestPair(ctx, ws, ss, wq, scales, biases, cp, pairSlot, step, k, wg, groupSize);
      }
    }
    Vec.commitAsync();
  }

  /**
   * An even step's copies of the step pair's words and scale/bias runs into pair slot {@code
   * pairSlot} (see {@link #request}); {@code cp.w()}: the feature whose run this thread copies.
   */
  static void requestPair(
      KernelContext ctx,
      int[] ws, // [pairSlots, 64 wg, FEATURE_WORDS]
      short[] ss, // [pairSlots, 64 wg, 2, 4]
      int[] wq, // [n, k/8]
      short[] scales, // [n, k/groupSize]
      short[] biases, // [n, k/groupSize]
      Int4 cp,
      int pairSlot,
      int step,
      int k,
      int wg,
      int groupSize) {
    int tid = ctx.localIdx;
    int f = cp.w();
    int fw = f - (tid >> 1) + (tid >> 2); // 4 threads a feature's 64 bytes
    int dw = pairSlot * 64 * wg * FEATURE_WORDS + FEATURE_WORDS * (tid >> 2) + 4 * (tid & 3);
    int sw = fw * (k / 8) + 8 * step + 4 * (tid & 3);
    Vec.copyAsync(ws, dw, wq, sw, 16);
    Vec.copyAsync(ws, dw + 32 * wg * FEATURE_WORDS, wq, sw + 32 * wg * (k / 8), 16);
    int run = pairHalves(groupSize);
    int e = (f * (k / groupSize) + BK * step / groupSize) & -run;
    int d = pairSlot * 512 * wg + 8 * (tid >> 1) + run * (tid & 1);
    if ((tid & 1) == 0) {
      Vec.copyAsync(ss, d, scales, e, 2 * run);
    } else {
      Vec.copyAsync(ss, d, biases, e, 2 * run);
    }
  }

  /**
   * The step-invariant parts of thread {@code tid}'s copies: {@code x} the x half of its first tile
   * cell ({@code tid}: {@link #cellRow}, {@link #cellChunk}) at k 0, {@code y} that cell's half
   * within a slot, {@code z} how many of its cells ({@code tid + 128 wg i}, i below {@code 8 / wg}
   * rounded up: rows {@code 16 wg i} further down, same chunk) hold rows of x, {@code w} the
   * feature {@code f} whose words and scale/bias pair it copies. Cells past the last row of x are
   * not copied: their shared rows only ever feed output rows that are not stored.
   */
  static Int4 copyPlan(int tid, int r0, int rows, int k, int f, int wg) {
    int row = cellRow(tid);
    int c = cellChunk(tid);
    int below = Math.min(ROWS, rows - r0) - row; // rows of x at and below the first cell's
    int cells = below <= 0 ? 0 : (below + 16 * wg - 1) / (16 * wg);
    return new Int4((r0 + row) * k + 8 * c, sharedHalf(row, 8 * c), cells, f);
  }

  /**
   * The A fragment of product {@code s} (0..3) of step {@code step}: byte t of words 2s (k 2t, 2t +
   * 1 of the slab) and 2s + 1 (k 2t + 8, 2t + 9) of this lane's features fl and fl + 8, each code
   * pair dequantized with its group's scale and bias. {@code w}: fl's 8 words of the step in its
   * pair slot; {@code pairs}: the step's scale/bias pairs ({@link #pairs}); {@code sel}: the byte
   * permute taking byte t.
   */
  static Int4 product(
      int[] ws, // [pairSlots, 64 wg, FEATURE_WORDS]
      Int4 pairs,
      int w,
      int step,
      int s,
      int sel,
      int sA,
      int groupSize,
      int dtype) {
    Int2 wa = Vec.load2(ws, w + 2 * s);
    Int2 wb = Vec.load2(ws, w + 8 * FEATURE_WORDS + 2 * s); // feature fl + 8
    // Half of the pair: the group's parity (features fl and fl + 8 agree: 8 rows of groups apart).
    // Written as two quotients (BK * step is a multiple of groupSize, or step / 2 of 128-k groups;
    // 16 s stays within a 64-k step), the half is one expression for the step's products that
    // share a group, which ptxas then computes once.
    int p = 0x1010 + 0x2222 * ((sA + BK * step / groupSize + 16 * s / groupSize) & 1);
    int s2a = Intrinsics.bytePermute(pairs.x(), 0, p);
    int b2a = Intrinsics.bytePermute(pairs.y(), 0, p);
    int s2b = Intrinsics.bytePermute(pairs.z(), 0, p);
    int b2b = Intrinsics.bytePermute(pairs.w(), 0, p);
    return new Int4(
        code2(wa.x(), sel, s2a, b2a, dtype),
        code2(wb.x(), sel, s2b, b2b, dtype),
        code2(wa.y(), sel, s2a, b2a, dtype),
        code2(wb.y(), sel, s2b, b2b, dtype));
  }

  /**
   * The scale and bias pairs of features fl ({@code x, y}) and fl + 8 ({@code z, w}) of the even or
   * {@code odd} step of a pair, at {@code c} (fl's runs in the pair slot): loaded once for the
   * step's four products. With groups of 32 each step has its own pair, the second of each run for
   * the odd step; larger groups share one pair (scales, then biases at half 2).
   */
  static Int4 pairs(
      short[] ss, // [pairSlots, 64 wg, 2, 4]
      int c,
      boolean odd,
      int groupSize) {
    if (pairHalves(groupSize) == 4) {
      Int2 sa = Vec.load2(ss, c);
      Int2 ba = Vec.load2(ss, c + 4);
      Int2 sb = Vec.load2(ss, c + 64); // 8 features of 8 halves on
      Int2 bb = Vec.load2(ss, c + 68);
      return new Int4(
          odd ? sa.y() : sa.x(),
          odd ? ba.y() : ba.x(),
          odd ? sb.y() : sb.x(),
          odd ? bb.y() : bb.x());
    }
    Int2 a = Vec.load2(ss, c);
    Int2 b = Vec.load2(ss, c + 64);
    return new Int4(a.x(), a.y(), b.x(), b.y());
  }

  /**
   * Halves of scales (and of biases) a step pair copies per feature: the aligned run holding its
   * groups, 4 at groups of 32 (two pairs), else 2 (a pair spans 128 k or more). The copies ({@link
   * #request}) and the reads ({@link #pairs}) must agree on it.
   */
  static int pairHalves(int groupSize) {
    return groupSize == 32 ? 4 : 2;
  }

  /**
   * x tile slots: the {@code ahead + pipe} steps in flight and one more, refilled in an iteration's
   * first half (see {@link #qmm}'s loop).
   */
  static int stages(int pipe, int ahead) {
    return ahead + pipe + 1;
  }

  /**
   * Pair slots for {@code ahead} steps in flight: those of the step pairs requested and of the pair
   * being read, and one more, refilled in the iteration after the one reading it last (see {@link
   * #qmm}'s loop).
   */
  static int pairSlots(int ahead) {
    return (ahead + 1) / 2 + 1;
  }

  /** Slot {@code s + d} of {@code stages} ({@code d < stages}). */
  static int next(int s, int d, int stages) {
    int n = s + d;
    return n >= stages ? n - stages : n;
  }

  /**
   * Codes 2t and 2t + 1 of {@code w} (its byte t) dequantized into a packed pair; {@code sel} =
   * {@code 0x4400 + 0x1111 t}.
   */
  private static int code2(int w, int sel, int s2, int b2, int dtype) {
    // Byte t of w into the low half, byte t of w >>> 4 into the high one; the mask keeps a nibble.
    int q2 = Intrinsics.bytePermute(w, w >>> 4, sel) & 0x000F000F;
    return QmmTiledTiles.pairFma(q2, s2, b2, dtype);
  }

  /** One k16 product: slab {@code s} of the slot at half {@code slot}, A fragment {@code a}. */
  private static Float4x16 slab(
      KernelContext ctx,
      short[] xs, // [stages * SLOT_HALVES] the x tiles
      int slot,
      int s,
      Int4 a,
      Float4x16 acc,
      int dtype) {
    int at = slot + s * SLAB_HALVES;
    if (dtype == Quant.F16) {
      return ctx.warpgroupMmaF16(a, xs, at, LBO, SBO, acc);
    }
    return ctx.warpgroupMmaBf16(a, xs, at, LBO, SBO, acc);
  }

  /**
   * The x row (0..127) of copy cell {@code cell} (0..1023) of a tile. Warp-sized runs of 32 cells
   * are 4 rows by the 8 chunks of the step, lane l row l / 8, chunk l % 8: a 16-byte copy is served
   * a quarter warp (8 lanes) at a time, here one row's 128 contiguous bytes of x, one whole line.
   * With 8 rows of one chunk a quarter read 8 half-used sectors (run 111 call D); with 2 rows of 64
   * bytes (run 114: 96.3 µs at 256 rows, L2 77% busy) every line took two requests. Yet this
   * mapping measured slower (run 115: 102.3 µs before the pair slots, against run 114's 96.9 at
   * {@code @3x2x3}), and did not lower the L2's request count; run 114's mapping under the present
   * form is untimed ({@code bench/results/2026-12-07-run115/b2x.diff}). The chunks land on 8
   * different 16-byte bank groups thanks to {@link #LBO} and {@link #SLAB_HALVES}. Run r is rows 4r
   * ..: so that cells {@code 128 wg} apart (one per block-sized stride of a thread) are {@code 16
   * wg} rows apart with one chunk.
   */
  static int cellRow(int cell) {
    return cell >> 3;
  }

  /** The 16-byte chunk (0..7, k 8c .. 8c + 7) of copy cell {@code cell}: see {@link #cellRow}. */
  static int cellChunk(int cell) {
    return cell & 7;
  }

  /**
   * Half offset within a slot of x at row {@code row} (0..127), k {@code kk} of the step (0..63):
   * slab kk / 16, core-matrix set (k 0-7 or 8-15 of the slab), row group, row, k within 8.
   */
  static int sharedHalf(int row, int kk) {
    return (kk >> 4) * SLAB_HALVES
        + ((kk >> 3) & 1) * (LBO / 2)
        + (row >> 3) * (SBO / 2)
        + (row & 7) * 8
        + (kk & 7);
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
      return "group size >= 32 only (one pair of scales covers a 64-k step), got " + s.groupSize();
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

  /**
   * The default plan: 192 features per block where n allows, else 128, else 64; pipe 2, ahead 3
   * (run 111 call E, 256 rows: 99.35 µs; pipe 1 ahead 3: 99.52; pipe 1 ahead 4: 101.07).
   */
  public static LaunchPlan plan(QmmShape s) {
    int wg = s.n() % 192 == 0 ? 3 : s.n() % 128 == 0 ? 2 : 1;
    return plan(s, wg, 2, 3);
  }

  /**
   * {@code wg} warpgroups (1..4) per block, {@code 64 wg} features by 128 rows; {@code pipe} 1 (a
   * step waits for its products) or 2 (for the previous step's: one more slot); {@code ahead}
   * (3..6) steps between a step's copies and its products ({@code ahead - 2} for them to land).
   */
  public static LaunchPlan plan(QmmShape s, int wg, int pipe, int ahead) {
    return plan("QmmWgmmaKernel.qmm", s, wg, pipe, ahead, sharedBytes(wg, pipe, ahead));
  }

  /**
   * The plan of {@code kernel} (this kernel or {@link QmmWgmmaTmaKernel}, same grid, block and
   * specialization) needing {@code bytes} of shared memory: the arguments checked, then refused
   * over sm_90's {@link QmmMmaAsyncKernel#SHARED_LIMIT}.
   */
  static LaunchPlan plan(String kernel, QmmShape s, int wg, int pipe, int ahead, int bytes) {
    if (wg < 1 || wg > 4) {
      throw new IllegalArgumentException("wg must be 1..4 warpgroups, got " + wg);
    }
    if (pipe != 1 && pipe != 2) {
      throw new IllegalArgumentException("pipe must be 1 or 2, got " + pipe);
    }
    if (ahead < 3 || ahead > 6) {
      throw new IllegalArgumentException("ahead must be 3..6 steps, got " + ahead);
    }
    if (s.n() % (64 * wg) != 0) {
      throw new IllegalArgumentException(
          "wg=" + wg + " needs n a multiple of " + 64 * wg + ", got " + s.n());
    }
    if (bytes > QmmMmaAsyncKernel.SHARED_LIMIT) {
      throw new IllegalArgumentException(
          "wg="
              + wg
              + ", pipe="
              + pipe
              + ", ahead="
              + ahead
              + " needs "
              + bytes
              + " bytes of shared memory, more than sm_90's "
              + QmmMmaAsyncKernel.SHARED_LIMIT
              + ": fewer steps ahead or warpgroups");
    }
    return LaunchPlan.of(
        kernel,
        Dim3.of(s.n() / (64 * wg), (s.rows() + ROWS - 1) / ROWS),
        Dim3.of(128 * wg),
        bytes,
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "wg",
        wg,
        "pipe",
        pipe,
        "ahead",
        ahead);
  }

  /**
   * Shared bytes of a plan: per slot the x tile (16512 bytes: 16 KiB and the bank padding); per
   * pair slot the block's words of two steps (80 bytes a feature with the padding) and the
   * scale/bias runs (16 bytes a feature). Within sm_90's {@link QmmMmaAsyncKernel#SHARED_LIMIT} for
   * every plan but {@code wg = 4, pipe = 2, ahead = 6} (9 slots and 4 pair slots: 246912 bytes).
   */
  static int sharedBytes(int wg, int pipe, int ahead) {
    return stages(pipe, ahead) * SLOT_HALVES * 2
        + pairSlots(ahead) * 64 * wg * (4 * FEATURE_WORDS + 16);
  }

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }
}
