package sirocco.kernels.quant;

import static sirocco.kernels.quant.QmmTiledTiles.fetchX;
import static sirocco.kernels.quant.QmmTiledTiles.loadHalf;
import static sirocco.kernels.quant.QmmTiledTiles.loadW;
import static sirocco.kernels.quant.QmmTiledTiles.sAt;
import static sirocco.kernels.quant.QmmTiledTiles.storeW;
import static sirocco.kernels.quant.QmmTiledTiles.storeX;
import static sirocco.kernels.quant.QmmTiledTiles.wAt;
import static sirocco.kernels.quant.QmmTiledTiles.xAt;
import static sirocco.kernels.quant.QmmTiledTiles.xSharedAt;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Quantized matmul for many rows of x: a shared-memory tiled tensor-core kernel ({@code mma.sync
 * m16n8k16}), transposed affine 4/8-bit weights, bf16/f16 x. {@link QmmMmaKernel} reads every x
 * fragment from L1/L2 for every mma and dequantizes each weight once per warp; this kernel stages
 * both operands in shared memory once per block and k step, so each weight is dequantized once per
 * block (amortised over {@code bm} rows) and each x element is read from global memory once per
 * block (amortised over {@code bn} features).
 *
 * <h2>Mapping</h2>
 *
 * A block computes {@code bm} rows of x by {@code bn} output features; k advances in steps of 64
 * (one g64 group, half a g128 group, two g32 groups). Warps tile the block as {@code bn / (16 mt)}
 * along features by {@code bm / (8 nt)} along rows, each warp computing {@code 16 mt} features by
 * {@code 8 nt} rows, i.e. {@code mt * nt} mma accumulators (A = weights, 16 features x 16 k; B = x,
 * 16 k x 8 rows; D[feature][row], the fragment layout of {@link QmmMmaKernel}). Per k step:
 *
 * <ol>
 *   <li>the block's threads issue the next step's global loads into registers: the x tile ({@code
 *       bm} x 64 halves, 16-byte loads, rows past the end clamped to the last row: computed, never
 *       stored) and the packed weight tile ({@code bn} x 64 codes, 16-byte loads of 4 words) with
 *       the scale and bias of each 4-word chunk (with {@code xAsync = 1} the x tile instead goes by
 *       {@code cp.async} straight into the free slot, waited for before the step's last barrier: no
 *       registers hold it and no stores write it; with two slots, 4-bit weights are requested two
 *       steps ahead, the next step's waiting in registers meanwhile);
 *   <li>every warp runs its {@code 4 * mt * nt} mmas of this step from shared memory, fragments
 *       read with {@code ctx.loadMatrixX4} ({@code ldmatrix .x4}): one instruction per 16x16 weight
 *       tile and per two 8-row x tiles, where 32-bit loads took four per tile and two per x tile,
 *       each with its own address arithmetic;
 *   <li>with one tile slot ({@code stages = 1}) a barrier; the threads store the x registers and
 *       <em>dequantize</em> the weights into shared memory as halves of the activation dtype,
 *       {@code w = q * s + b} rounded once (MLX's qmm does the same: its weights enter the mma as
 *       activation-dtype values); barrier. With two slots ({@code stages = 2}) the stores go to the
 *       other slot, which no warp reads in this step, so only the closing barrier remains.
 * </ol>
 *
 * <p>The dequantization: 4-bit codes (and 8-bit ones for f16) are or-ed into the mantissa of a
 * power of two P, giving the exact halves P + q two at a time; {@code Bf16.fma2} / {@code F16.fma2}
 * (one {@code fma.rn.bf16x2} / {@code fma.rn.f16x2} each) take P away exactly and then compute
 * {@code q * s + b} with a single rounding: two instructions per two weights plus the nibble
 * shuffling, instead of ~13 float and integer instructions per weight before (8-bit codes for bf16,
 * which has 7 mantissa bits, still go through float).
 *
 * <h2>Shared memory layout (no padding, no bank conflicts)</h2>
 *
 * Each tile row (a feature, or a row of x) is 64 halves = 32 ints = eight 16-byte chunks; chunk
 * {@code c} of row {@code r} is stored at chunk position {@code c ^ (r & 7)} (XOR swizzle). Each
 * 8x8 matrix of a {@code ldmatrix} is one chunk of eight consecutive rows (first row a multiple of
 * 8): the eight rows map the chunk to eight different positions, 4 banks each, so each matrix is
 * read in one conflict-free wavefront. A 16-byte store by eight consecutive threads writes eight
 * different chunk positions: one wavefront per quarter warp, the minimum. Shared memory per block:
 * {@code stages * (bm + bn) * 128} bytes (static up to 48 KiB, dynamic above: 56 KiB for the
 * default 128 x 96 with two slots, two blocks per SM).
 *
 * <h2>Precision</h2>
 *
 * x enters the mma exactly; each weight is rounded once to the activation dtype (relative error at
 * most 2^-9 for bf16, 2^-11 for f16), products are exact in the tensor core and accumulated in
 * float over all of k; the output is rounded once. So |out - exact| <= 2^-9 (bf16) sum|x w| plus
 * float accumulation error plus half an ulp of the output: the tests' tolerance.
 *
 * <h2>Cost for 256 rows x 4096 x 12288, 4-bit g64, bf16 (the shape; prediction)</h2>
 *
 * 25.8 GFLOP = 6.29 M mma instructions; weights 25.2 MB + scales/biases 1.6 MB + x 2 MB read from
 * L2/HBM (x and weights are re-read by each row block / feature block through L2, which holds
 * them). Per mma the warp reads {@code 4096 (wm + wr) / (wm * wr)} bytes of fragments from shared
 * memory (wm = 16 mt features, wr = 8 nt rows): 192 B for a 64x32 warp tile, 149 B for 48x64,
 * against 128 B/clock/SM of shared bandwidth; the x and weight tile stores add {@code 128 (bm +
 * bn)} bytes per {@code bm * bn / 32} mmas (64 B/mma at 128x128). Shared-memory bandwidth, not the
 * tensor cores (mma.sync about 1.4 clocks per m16n8k16 per SM on Hopper), is the bound: at 128x128
 * (mt=4, nt=4, 8 warps, 192 blocks, 2 per SM on 60 SMs) about 2 clocks per mma, i.e. 1024 clocks
 * per block step, 64 steps: ~65–80 µs, set by the SMs holding two blocks. At 256x96 (mt=3, nt=8, 8
 * warps) or 128x192 (mt=3, nt=8) the grid is 128 blocks, one wave of one block per SM, about 1.6
 * clocks per mma (1250 clocks per step): ~47–55 µs if the two barriers per step are hidden, more if
 * not (8 warps per SM only). Registers: mt*nt*4 accumulators (64 at 4x4, 96 at 3x8) + 4 mt
 * A-fragment words + 4 per x slot + ~30; ptxas 12.6 (ShippedKernelsPtxTest, sm_90, no spills): 128
 * at 128x128 (4x4: two blocks of 256 threads per SM), 167 at 128x192 (3x8) and 224 at 256x96 (3x8):
 * one block per SM.
 *
 * <p><b>History</b> (bench/RESULTS.md). That prediction (70–100 µs at 256 rows) was falsified in
 * run 22: 234–303 µs, the dequantization between the two barriers (then ~13 instructions per
 * weight) dominating. With the packed-pair dequantization and two tile slots (runs 53 and 55) the
 * 256x96 tiling took 152–157 µs flat from 64 to 256 rows against {@link QmmMmaKernel}'s 84.4 / 98.2
 * / 194.2 at 64 / 128 / 256 rows, and the op used it from 192 rows.
 *
 * <p><b>Where the time went, and what changed</b> (H200, runs 57–60, bench/RESULTS.md). Nsight on
 * 256x96 two slots: one block of 8 warps per SM, issued IPC 1.38, tensor pipe 25%; the loop's SASS
 * held 688 instructions per k step and warp for its 96 mmas. Three changes cut that: fragments
 * through {@code ctx.loadMatrixX4} (151.2 µs at 256 rows); tile addresses computed once per thread
 * and the next step's loads made unconditional (the last step reloads its own k), which removed
 * per-step parameter reloads, clamps and register moves (123.4 µs, 29.5 M instead of 41.8 M
 * instructions); and the compiler's shift division (ptxas had left {@code div.s32 x, 64} as a
 * reciprocal sequence; 227 → 164 registers). The smaller register count made 128 x 96 blocks of 8
 * warps of 48 x 32 fit two per SM at 96 registers, the default now: 72.5 / 74.1 / 114.3 µs at 64 /
 * 128 / 256 rows against {@link QmmMmaKernel}'s 82.5 / 95.0 / 188.6 (run 60). Still 1.85x the
 * 256-row target; Nsight on the 16-warp 256 x 96 tiling (118.5 µs) shows tensor pipe 34% and the
 * warps waiting on shared-memory loads, global loads and the step barrier about equally. Since then
 * (runs 63–70): the x tile by {@code cp.async} (4-bit), 4-bit weights two steps ahead: 65.3 / 66.6
 * / 106.7 / 197.9 µs at 64 / 128 / 256 / 512 rows. Left: the ldmatrix traffic itself (about 213
 * bytes of fragments per mma at 48 x 32 warp tiles against 128 B/clock/SM, i.e. ~1.7 clocks per mma
 * before any store), which larger warp tiles cut only at registers that cost occupancy, and bf16
 * 8-bit codes without the float detour (8-bit is 1.6x the 4-bit time).
 *
 * <p>Run 109 (H100, SASS of the 256x96 loop): a step is ~110 instructions of copy addressing, the
 * 96 mmas with their 28 ldmatrix, then ~130 of dequantization that only 6 of the 8 warps take (192
 * chunks, 256 threads), the tensor pipe idle in the first and last parts (41% busy, two warps per
 * scheduler). Spreading the dequantization over every thread, a word per k16 iteration between the
 * mmas, removed the last part from the SASS but was 6-12% slower at 192-512 rows (2.5% faster at
 * 128, two blocks per SM), so it was reverted.
 */
public final class QmmTiledKernel {
  private QmmTiledKernel() {}

  /** k per step: one 64-element slab (32 ints per tile row in shared memory). */
  static final int BK = 64;

  /** The product; see the class comment. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,bm=128,bn=128,mt=4,nt=4,stages=1,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=128,bn=192,mt=3,nt=8,stages=1,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=1,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=64,bn=128,mt=4,nt=4,stages=1,xAsync=0",
        "bits=4,groupSize=128,dtype=1,bm=128,bn=128,mt=4,nt=4,stages=1,xAsync=0",
        "bits=8,groupSize=64,dtype=0,bm=128,bn=128,mt=4,nt=4,stages=1,xAsync=0",
        "bits=4,groupSize=32,dtype=0,bm=64,bn=64,mt=2,nt=4,stages=1,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=128,bn=128,mt=4,nt=4,stages=2,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=2,xAsync=0",
        "bits=4,groupSize=128,dtype=1,bm=128,bn=128,mt=4,nt=4,stages=2,xAsync=0",
        "bits=8,groupSize=64,dtype=0,bm=128,bn=128,mt=4,nt=4,stages=2,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=128,bn=96,mt=3,nt=4,stages=2,xAsync=0",
        "bits=4,groupSize=128,dtype=1,bm=128,bn=96,mt=3,nt=4,stages=2,xAsync=0",
        "bits=8,groupSize=64,dtype=0,bm=128,bn=96,mt=3,nt=4,stages=2,xAsync=0",
        "bits=4,groupSize=32,dtype=0,bm=128,bn=96,mt=3,nt=4,stages=2,xAsync=0",
        "bits=4,groupSize=64,dtype=0,bm=128,bn=96,mt=3,nt=4,stages=2,xAsync=1",
        "bits=8,groupSize=128,dtype=1,bm=128,bn=128,mt=4,nt=4,stages=2,xAsync=1",
        "bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=2,xAsync=1",
        "bits=4,groupSize=32,dtype=1,bm=192,bn=96,mt=3,nt=8,stages=2,xAsync=1",
        "bits=4,groupSize=128,dtype=0,bm=256,bn=128,mt=4,nt=8,stages=2,xAsync=1"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32 codes, LSB first
      short[] scales, // [n, k/groupSize] bf16/f16 bits
      short[] biases, // [n, k/groupSize] bf16/f16 bits
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int bm,
      @Specialize int bn,
      @Specialize int mt,
      @Specialize int nt,
      @Specialize int stages,
      @Specialize int xAsync) {
    int tid = ctx.localIdx;
    int lane = tid & 31;
    int g = lane >> 2;
    int t = lane & 3;
    int warp = tid >> 5;
    int wf = bn / (16 * mt); // warps along features
    int threads = 32 * wf * (bm / (8 * nt));
    int cpf = bits / 2; // 16-byte weight chunks per feature per step (2 at 4 bits, 4 at 8)
    int xSlots = (bm * 8 + threads - 1) / threads; // x chunks per thread per step (<= 8)
    int wSlots = (bn * cpf + threads - 1) / threads; // weight chunks per thread (<= 2)
    int fBlock = ctx.groupIdx * bn;
    int rBlock = ctx.groupIdy * bm;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    int steps = k / BK;

    // [stages, bn, 64] and [stages, bm, 64] halves (swizzled rows of 32 ints): the current step's
    // tiles, and with 2 stages the next step's, stored while the current one is computed.
    int[] ws = ctx.allocateIntLocalArray(stages * bn * 32);
    short[] xs = ctx.allocateShortLocalArray(stages * bm * 64);

    // The rows this lane addresses for ctx.loadMatrixX4 (int offsets into a slot). A, a warp's 16
    // features: matrix l >> 3 = features 0-7 / 8-15 (bit 0) by k 0-7 / 8-15 (bit 1). B, two tiles
    // of 8 rows of x: matrix l >> 3 = k 0-7 / 8-15 (bit 0) of tile 0 / 1 (bit 1); bRowSingle for a
    // lone last tile (odd nt), whose lanes 16-31 repeat lanes 0-15's rows. Every row a lane
    // addresses is 8-aligned plus l & 7, so its swizzle is l & 7.
    int mat = lane >> 3;
    int sw = lane & 7;
    int cA = mat >> 1;
    int cB = mat & 1;
    int aRow = ((warp % wf) * 16 * mt + sw + 8 * (mat & 1)) * 32;
    int bRowSingle = ((warp / wf) * 8 * nt + sw) * 32;
    int bRow = bRowSingle + 8 * cA * 32;

    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    // Accumulators c<m><n>: feature tile m (16 features), row tile n (8 rows) of the warp.
    Float4 c00 = zero;
    Float4 c01 = zero;
    Float4 c02 = zero;
    Float4 c03 = zero;
    Float4 c04 = zero;
    Float4 c05 = zero;
    Float4 c06 = zero;
    Float4 c07 = zero;
    Float4 c10 = zero;
    Float4 c11 = zero;
    Float4 c12 = zero;
    Float4 c13 = zero;
    Float4 c14 = zero;
    Float4 c15 = zero;
    Float4 c16 = zero;
    Float4 c17 = zero;
    Float4 c20 = zero;
    Float4 c21 = zero;
    Float4 c22 = zero;
    Float4 c23 = zero;
    Float4 c24 = zero;
    Float4 c25 = zero;
    Float4 c26 = zero;
    Float4 c27 = zero;
    Float4 c30 = zero;
    Float4 c31 = zero;
    Float4 c32 = zero;
    Float4 c33 = zero;
    Float4 c34 = zero;
    Float4 c35 = zero;
    Float4 c36 = zero;
    Float4 c37 = zero;

    // Where this thread's x chunks, weight chunks and their scales/biases start in global memory
    // (at k = 0; -1 past the tile): loop-invariant, so each step only adds its k.
    boolean xFull = xSlots * threads == bm * 8; // every x slot of every thread in the tile
    int xg0 = xSlots > 0 ? xAt(tid + 0 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg1 = xSlots > 1 ? xAt(tid + 1 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg2 = xSlots > 2 ? xAt(tid + 2 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg3 = xSlots > 3 ? xAt(tid + 3 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg4 = xSlots > 4 ? xAt(tid + 4 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg5 = xSlots > 5 ? xAt(tid + 5 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg6 = xSlots > 6 ? xAt(tid + 6 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int xg7 = xSlots > 7 ? xAt(tid + 7 * threads, bm, rBlock, rows, k, xAsync == 0) : -1;
    int wg0 = wAt(tid, bn, bits, fBlock, wpr);
    int sg0 = sAt(tid, bn, bits, fBlock, groups);
    int wg1 = wSlots > 1 ? wAt(tid + threads, bn, bits, fBlock, wpr) : -1;
    int sg1 = wSlots > 1 ? sAt(tid + threads, bn, bits, fBlock, groups) : -1;

    // Next step's global loads, held in registers while the current step is computed.
    Int4 none = new Int4(0, 0, 0, 0);
    Int4 px0 = none;
    Int4 px1 = none;
    Int4 px2 = none;
    Int4 px3 = none;
    Int4 px4 = none;
    Int4 px5 = none;
    Int4 px6 = none;
    Int4 px7 = none;
    Int4 pw0 = none;
    Int4 pw1 = none;
    int ps0 = 0; // scale and bias bits (the dtype's 16 bits, zero-extended)
    int pb0 = 0;
    int ps1 = 0;
    int pb1 = 0;
    px0 = fetchX(x, xs, 2 * xSharedAt(tid, 0, threads), xg0, 0, xFull, xAsync);
    if (xSlots > 1) {
      px1 = fetchX(x, xs, 2 * xSharedAt(tid, 1, threads), xg1, 0, xFull, xAsync);
    }
    if (xSlots > 2) {
      px2 = fetchX(x, xs, 2 * xSharedAt(tid, 2, threads), xg2, 0, xFull, xAsync);
    }
    if (xSlots > 3) {
      px3 = fetchX(x, xs, 2 * xSharedAt(tid, 3, threads), xg3, 0, xFull, xAsync);
    }
    if (xSlots > 4) {
      px4 = fetchX(x, xs, 2 * xSharedAt(tid, 4, threads), xg4, 0, xFull, xAsync);
    }
    if (xSlots > 5) {
      px5 = fetchX(x, xs, 2 * xSharedAt(tid, 5, threads), xg5, 0, xFull, xAsync);
    }
    if (xSlots > 6) {
      px6 = fetchX(x, xs, 2 * xSharedAt(tid, 6, threads), xg6, 0, xFull, xAsync);
    }
    if (xSlots > 7) {
      px7 = fetchX(x, xs, 2 * xSharedAt(tid, 7, threads), xg7, 0, xFull, xAsync);
    }
    pw0 = loadW(wq, wg0, 0 * bits / 32);
    ps0 = loadHalf(scales, sg0, tid, bits, 0, groupSize);
    pb0 = loadHalf(biases, sg0, tid, bits, 0, groupSize);
    if (wSlots > 1) {
      pw1 = loadW(wq, wg1, 0 * bits / 32);
      ps1 = loadHalf(scales, sg1, tid + threads, bits, 0, groupSize);
      pb1 = loadHalf(biases, sg1, tid + threads, bits, 0, groupSize);
    }
    storeX(xs, 2 * xSharedAt(tid, 0, threads), xg0, xFull, xAsync, px0);
    if (xSlots > 1) {
      storeX(xs, 2 * xSharedAt(tid, 1, threads), xg1, xFull, xAsync, px1);
    }
    if (xSlots > 2) {
      storeX(xs, 2 * xSharedAt(tid, 2, threads), xg2, xFull, xAsync, px2);
    }
    if (xSlots > 3) {
      storeX(xs, 2 * xSharedAt(tid, 3, threads), xg3, xFull, xAsync, px3);
    }
    if (xSlots > 4) {
      storeX(xs, 2 * xSharedAt(tid, 4, threads), xg4, xFull, xAsync, px4);
    }
    if (xSlots > 5) {
      storeX(xs, 2 * xSharedAt(tid, 5, threads), xg5, xFull, xAsync, px5);
    }
    if (xSlots > 6) {
      storeX(xs, 2 * xSharedAt(tid, 6, threads), xg6, xFull, xAsync, px6);
    }
    if (xSlots > 7) {
      storeX(xs, 2 * xSharedAt(tid, 7, threads), xg7, xFull, xAsync, px7);
    }
    storeW(ws, 0, tid, bn, bits, dtype, pw0, ps0, pb0);
    if (wSlots > 1) {
      storeW(ws, 0, tid + threads, bn, bits, dtype, pw1, ps1, pb1);
    }
    // With two slots 4-bit weights run two steps ahead: step 1's are in flight before the loop,
    // and step st requests step st + 2's (HBM latency under load is about one step's compute). Run
    // 68: 65.3 / 66.6 / 197.9 µs at 64 / 128 / 512 rows against 68.2 / 68.9 / 204.4 one step
    // ahead. 8-bit (twice the weight registers) stays one step ahead, not timed two ahead on its
    // own: its slowdown in run 68 (184.9 against 171.2 µs at 256 rows) was the cp.async x tile's.
    boolean ahead2 = stages == 2 && bits == 4;
    if (ahead2) {
      int k1 = Math.min(1, steps - 1) * BK;
      pw0 = loadW(wq, wg0, k1 * bits / 32);
      ps0 = loadHalf(scales, sg0, tid, bits, k1, groupSize);
      pb0 = loadHalf(biases, sg0, tid, bits, k1, groupSize);
      if (wSlots > 1) {
        pw1 = loadW(wq, wg1, k1 * bits / 32);
        ps1 = loadHalf(scales, sg1, tid + threads, bits, k1, groupSize);
        pb1 = loadHalf(biases, sg1, tid + threads, bits, k1, groupSize);
      }
    }
    if (xAsync == 1) {
      Vec.commitAsync();
      Vec.waitAsync(0);
    }
    ctx.localBarrier();

    for (int st = 0; st < steps; st++) {
      // The slots (int offsets into the tiles) this step reads and the next step's are stored in.
      int cur = stages == 2 ? st & 1 : 0;
      int wCur = cur * bn * 32;
      int xCur = cur * bm * 32;
      int wNext = stages == 2 ? bn * 32 - wCur : 0;
      int xNext = stages == 2 ? bm * 32 - xCur : 0;
      // The last step loads (and stores into the free slot) its own k again: redundant, but no
      // branch and no merge of loaded and unloaded registers in the loop.
      int kn = Math.min(st + 1, steps - 1) * BK;
      px0 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 0, threads)), xg0, kn, xFull, xAsync);
      if (xSlots > 1) {
        px1 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 1, threads)), xg1, kn, xFull, xAsync);
      }
      if (xSlots > 2) {
        px2 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 2, threads)), xg2, kn, xFull, xAsync);
      }
      if (xSlots > 3) {
        px3 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 3, threads)), xg3, kn, xFull, xAsync);
      }
      if (xSlots > 4) {
        px4 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 4, threads)), xg4, kn, xFull, xAsync);
      }
      if (xSlots > 5) {
        px5 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 5, threads)), xg5, kn, xFull, xAsync);
      }
      if (xSlots > 6) {
        px6 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 6, threads)), xg6, kn, xFull, xAsync);
      }
      if (xSlots > 7) {
        px7 = fetchX(x, xs, 2 * (xNext + xSharedAt(tid, 7, threads)), xg7, kn, xFull, xAsync);
      }
      // The weights this step requests: the next step's, or with ahead2 the one after (the next
      // step's arrived during the previous step and wait in pw/ps/pb).
      int kw = ahead2 ? Math.min(st + 2, steps - 1) * BK : kn;
      Int4 qw0 = loadW(wq, wg0, kw * bits / 32);
      int qs0 = loadHalf(scales, sg0, tid, bits, kw, groupSize);
      int qb0 = loadHalf(biases, sg0, tid, bits, kw, groupSize);
      Int4 qw1 = none;
      int qs1 = 0;
      int qb1 = 0;
      if (wSlots > 1) {
        qw1 = loadW(wq, wg1, kw * bits / 32);
        qs1 = loadHalf(scales, sg1, tid + threads, bits, kw, groupSize);
        qb1 = loadHalf(biases, sg1, tid + threads, bits, kw, groupSize);
      }
      if (xAsync == 1) {
        Vec.commitAsync();
      }
      for (int kk = 0; kk < BK / 16; kk++) {
        // This lane's row chunk (k 16kk..16kk+7 or 16kk+8..16kk+15, swizzled) for each operand.
        int kA = (((2 * kk + cA) ^ sw) << 2);
        int kB = (((2 * kk + cB) ^ sw) << 2);
        Int4 e0 = ctx.loadMatrixX4(ws, wCur + aRow + kA);
        Int4 e1 = e0;
        if (mt > 1) {
          e1 = ctx.loadMatrixX4(ws, wCur + aRow + 512 + kA);
        }
        Int4 e2 = e0;
        if (mt > 2) {
          e2 = ctx.loadMatrixX4(ws, wCur + aRow + 1024 + kA);
        }
        Int4 e3 = e0;
        if (mt > 3) {
          e3 = ctx.loadMatrixX4(ws, wCur + aRow + 1536 + kA);
        }
        if (nt > 0) {
          Int4 f = ctx.loadMatrixX4(xs, 2 * (xCur + (nt > 1 ? bRow : bRowSingle) + 0 + kB));
          Int2 f0 = new Int2(f.x(), f.y());
          c00 = mma(ctx, e0, f0, c00, dtype);
          if (mt > 1) {
            c10 = mma(ctx, e1, f0, c10, dtype);
          }
          if (mt > 2) {
            c20 = mma(ctx, e2, f0, c20, dtype);
          }
          if (mt > 3) {
            c30 = mma(ctx, e3, f0, c30, dtype);
          }
          if (nt > 1) {
            Int2 f1 = new Int2(f.z(), f.w());
            c01 = mma(ctx, e0, f1, c01, dtype);
            if (mt > 1) {
              c11 = mma(ctx, e1, f1, c11, dtype);
            }
            if (mt > 2) {
              c21 = mma(ctx, e2, f1, c21, dtype);
            }
            if (mt > 3) {
              c31 = mma(ctx, e3, f1, c31, dtype);
            }
          }
        }
        if (nt > 2) {
          Int4 f = ctx.loadMatrixX4(xs, 2 * (xCur + (nt > 3 ? bRow : bRowSingle) + 512 + kB));
          Int2 f0 = new Int2(f.x(), f.y());
          c02 = mma(ctx, e0, f0, c02, dtype);
          if (mt > 1) {
            c12 = mma(ctx, e1, f0, c12, dtype);
          }
          if (mt > 2) {
            c22 = mma(ctx, e2, f0, c22, dtype);
          }
          if (mt > 3) {
            c32 = mma(ctx, e3, f0, c32, dtype);
          }
          if (nt > 3) {
            Int2 f1 = new Int2(f.z(), f.w());
            c03 = mma(ctx, e0, f1, c03, dtype);
            if (mt > 1) {
              c13 = mma(ctx, e1, f1, c13, dtype);
            }
            if (mt > 2) {
              c23 = mma(ctx, e2, f1, c23, dtype);
            }
            if (mt > 3) {
              c33 = mma(ctx, e3, f1, c33, dtype);
            }
          }
        }
        if (nt > 4) {
          Int4 f = ctx.loadMatrixX4(xs, 2 * (xCur + (nt > 5 ? bRow : bRowSingle) + 1024 + kB));
          Int2 f0 = new Int2(f.x(), f.y());
          c04 = mma(ctx, e0, f0, c04, dtype);
          if (mt > 1) {
            c14 = mma(ctx, e1, f0, c14, dtype);
          }
          if (mt > 2) {
            c24 = mma(ctx, e2, f0, c24, dtype);
          }
          if (mt > 3) {
            c34 = mma(ctx, e3, f0, c34, dtype);
          }
          if (nt > 5) {
            Int2 f1 = new Int2(f.z(), f.w());
            c05 = mma(ctx, e0, f1, c05, dtype);
            if (mt > 1) {
              c15 = mma(ctx, e1, f1, c15, dtype);
            }
            if (mt > 2) {
              c25 = mma(ctx, e2, f1, c25, dtype);
            }
            if (mt > 3) {
              c35 = mma(ctx, e3, f1, c35, dtype);
            }
          }
        }
        if (nt > 6) {
          Int4 f = ctx.loadMatrixX4(xs, 2 * (xCur + (nt > 7 ? bRow : bRowSingle) + 1536 + kB));
          Int2 f0 = new Int2(f.x(), f.y());
          c06 = mma(ctx, e0, f0, c06, dtype);
          if (mt > 1) {
            c16 = mma(ctx, e1, f0, c16, dtype);
          }
          if (mt > 2) {
            c26 = mma(ctx, e2, f0, c26, dtype);
          }
          if (mt > 3) {
            c36 = mma(ctx, e3, f0, c36, dtype);
          }
          if (nt > 7) {
            Int2 f1 = new Int2(f.z(), f.w());
            c07 = mma(ctx, e0, f1, c07, dtype);
            if (mt > 1) {
              c17 = mma(ctx, e1, f1, c17, dtype);
            }
            if (mt > 2) {
              c27 = mma(ctx, e2, f1, c27, dtype);
            }
            if (mt > 3) {
              c37 = mma(ctx, e3, f1, c37, dtype);
            }
          }
        }
      }
      if (stages == 1) {
        ctx.localBarrier(); // every warp is done reading this step's tiles
      }
      storeX(xs, 2 * (xNext + xSharedAt(tid, 0, threads)), xg0, xFull, xAsync, px0);
      if (xSlots > 1) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 1, threads)), xg1, xFull, xAsync, px1);
      }
      if (xSlots > 2) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 2, threads)), xg2, xFull, xAsync, px2);
      }
      if (xSlots > 3) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 3, threads)), xg3, xFull, xAsync, px3);
      }
      if (xSlots > 4) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 4, threads)), xg4, xFull, xAsync, px4);
      }
      if (xSlots > 5) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 5, threads)), xg5, xFull, xAsync, px5);
      }
      if (xSlots > 6) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 6, threads)), xg6, xFull, xAsync, px6);
      }
      if (xSlots > 7) {
        storeX(xs, 2 * (xNext + xSharedAt(tid, 7, threads)), xg7, xFull, xAsync, px7);
      }
      // The next step's weights: requested by the previous step (ahead2) or by this one.
      storeW(
          ws,
          wNext,
          tid,
          bn,
          bits,
          dtype,
          ahead2 ? pw0 : qw0,
          ahead2 ? ps0 : qs0,
          ahead2 ? pb0 : qb0);
      if (wSlots > 1) {
        storeW(
            ws,
            wNext,
            tid + threads,
            bn,
            bits,
            dtype,
            ahead2 ? pw1 : qw1,
            ahead2 ? ps1 : qs1,
            ahead2 ? pb1 : qb1);
      }
      pw0 = qw0;
      ps0 = qs0;
      pb0 = qb0;
      pw1 = qw1;
      ps1 = qs1;
      pb1 = qb1;
      if (xAsync == 1) {
        Vec.waitAsync(0); // this thread's copies of the next x tile have landed
      }
      ctx.localBarrier(); // the next step's tiles are in place (and, with 2 stages, this
      // step's slot is free for the step after)
    }

    int f0 = fBlock + (warp % wf) * 16 * mt + g;
    int r0 = rBlock + (warp / wf) * 8 * nt + 2 * t;
    if (mt > 0) {
      if (nt > 0) {
        QmmMmaKernel.store(out, c00, r0 + 0, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 1) {
        QmmMmaKernel.store(out, c01, r0 + 8, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 2) {
        QmmMmaKernel.store(out, c02, r0 + 16, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 3) {
        QmmMmaKernel.store(out, c03, r0 + 24, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 4) {
        QmmMmaKernel.store(out, c04, r0 + 32, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 5) {
        QmmMmaKernel.store(out, c05, r0 + 40, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 6) {
        QmmMmaKernel.store(out, c06, r0 + 48, f0 + 0, rows, n, 1f, dtype);
      }
      if (nt > 7) {
        QmmMmaKernel.store(out, c07, r0 + 56, f0 + 0, rows, n, 1f, dtype);
      }
    }
    if (mt > 1) {
      if (nt > 0) {
        QmmMmaKernel.store(out, c10, r0 + 0, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 1) {
        QmmMmaKernel.store(out, c11, r0 + 8, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 2) {
        QmmMmaKernel.store(out, c12, r0 + 16, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 3) {
        QmmMmaKernel.store(out, c13, r0 + 24, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 4) {
        QmmMmaKernel.store(out, c14, r0 + 32, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 5) {
        QmmMmaKernel.store(out, c15, r0 + 40, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 6) {
        QmmMmaKernel.store(out, c16, r0 + 48, f0 + 16, rows, n, 1f, dtype);
      }
      if (nt > 7) {
        QmmMmaKernel.store(out, c17, r0 + 56, f0 + 16, rows, n, 1f, dtype);
      }
    }
    if (mt > 2) {
      if (nt > 0) {
        QmmMmaKernel.store(out, c20, r0 + 0, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 1) {
        QmmMmaKernel.store(out, c21, r0 + 8, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 2) {
        QmmMmaKernel.store(out, c22, r0 + 16, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 3) {
        QmmMmaKernel.store(out, c23, r0 + 24, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 4) {
        QmmMmaKernel.store(out, c24, r0 + 32, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 5) {
        QmmMmaKernel.store(out, c25, r0 + 40, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 6) {
        QmmMmaKernel.store(out, c26, r0 + 48, f0 + 32, rows, n, 1f, dtype);
      }
      if (nt > 7) {
        QmmMmaKernel.store(out, c27, r0 + 56, f0 + 32, rows, n, 1f, dtype);
      }
    }
    if (mt > 3) {
      if (nt > 0) {
        QmmMmaKernel.store(out, c30, r0 + 0, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 1) {
        QmmMmaKernel.store(out, c31, r0 + 8, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 2) {
        QmmMmaKernel.store(out, c32, r0 + 16, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 3) {
        QmmMmaKernel.store(out, c33, r0 + 24, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 4) {
        QmmMmaKernel.store(out, c34, r0 + 32, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 5) {
        QmmMmaKernel.store(out, c35, r0 + 40, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 6) {
        QmmMmaKernel.store(out, c36, r0 + 48, f0 + 48, rows, n, 1f, dtype);
      }
      if (nt > 7) {
        QmmMmaKernel.store(out, c37, r0 + 56, f0 + 48, rows, n, 1f, dtype);
      }
    }
  }

  // ---- pieces ----

  static Float4 mma(KernelContext ctx, Int4 a, Int2 b, Float4 c, int dtype) {
    return dtype == Quant.F16 ? ctx.mmaF16(a, b, c) : ctx.mmaBf16(a, b, c);
  }

  // ---- dispatch helpers ----

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.rows() < 64) {
      // First, so that every small-rows call (decode, the common case) reads the same reason; no
      // row count in it: the op reports one decision per distinct explanation.
      return "fewer than 64 rows (a block tile is 64-256 rows of x; fewer rows use qmm-mma)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k])";
    }
    if (s.mode() != Quant.AFFINE || (s.bits() != 4 && s.bits() != 8)) {
      return "affine 4- and 8-bit weights only";
    }
    if (s.dtype() == Quant.F32) {
      return "bf16/f16 activations only (tensor cores)";
    }
    if (s.groupSize() < 32) {
      return "group size >= 32 only (a 16-byte chunk of codes shares one scale), got "
          + s.groupSize();
    }
    if (s.n() % 64 != 0) {
      return "n must be a multiple of 64 (whole feature tiles), got " + s.n();
    }
    if (s.k() % BK != 0) {
      return "k must be a multiple of " + BK + " (whole k steps), got " + s.k();
    }
    if ((s.rows() + 63) / 64 > 65535) {
      return "too many rows for grid.y: " + s.rows();
    }
    return null;
  }

  /**
   * The default tiling for {@code s}: 128 rows of x per block (192 or 256 for 4-bit codes at
   * 129–512 rows), 96, 128 or 64 features; the choice and its measurements: {@link
   * QmmTiledPlan#byDefault}.
   */
  public static LaunchPlan plan(QmmShape s) {
    return QmmTiledPlan.byDefault(s);
  }

  /**
   * An explicit tiling: {@code bm} rows of x by {@code bn} features per block, warps of {@code 16
   * mt} features ({@code mt} 1..4) by {@code 8 nt} rows ({@code nt} 1..8).
   */
  public static LaunchPlan plan(QmmShape s, int bm, int bn, int mt, int nt) {
    return plan(s, bm, bn, mt, nt, 1);
  }

  /**
   * An explicit tiling with {@code stages} tile slots: 1 (static shared memory, two barriers per k
   * step) or 2 (the next step's tiles stored while the current ones are read: one barrier per step,
   * twice the shared memory, dynamic above 48 KiB).
   */
  public static LaunchPlan plan(QmmShape s, int bm, int bn, int mt, int nt, int stages) {
    return plan(s, bm, bn, mt, nt, stages, 0);
  }

  /**
   * An explicit tiling whose x tile arrives by {@code cp.async} ({@code xAsync = 1}: no registers
   * staging it, no stores; needs two slots, as the copy into the next slot runs while the current
   * one is read) or through registers ({@code xAsync = 0}).
   */
  public static LaunchPlan plan(
      QmmShape s, int bm, int bn, int mt, int nt, int stages, int xAsync) {
    return QmmTiledPlan.explicit(s, bm, bn, mt, nt, stages, xAsync);
  }

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }
}
