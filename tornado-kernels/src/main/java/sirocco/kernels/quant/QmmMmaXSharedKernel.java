package sirocco.kernels.quant;

import static sirocco.kernels.quant.QmmMmaFragments.wordAt;
import static sirocco.kernels.quant.QmmMmaSplitKKernel.mmaPair;
import static sirocco.kernels.quant.QmmTiledTiles.deq4;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Quantized matmul for many rows of x on tensor cores ({@code mma.sync m16n8k16}) with the
 * <b>weights in registers and only x in shared memory</b> (rung {@code qmm-mma-xshared}):
 * transposed affine 4-bit weights, bf16/f16 x, k a multiple of 128.
 *
 * <h2>Why</h2>
 *
 * {@link QmmTiledKernel} dequantizes a block's weight tile into shared memory and reads both
 * operands back with {@code ldmatrix}: about 213 bytes of shared-memory fragments per mma at its
 * 48×32 warp tiles against 128 bytes per clock per SM, plus the tile stores, two barriers' worth of
 * waiting and a tensor pipe 25–34% busy (its class comment, runs 57–63). Here each warp owns its
 * features outright: a warp computes {@code 16·mt} features by all {@code 8·nt} rows of the block,
 * so no other warp needs its weights, and they go from global memory straight into the lanes that
 * use them, in the lanes' fragment order. Only x, which every warp of the block reads, is staged in
 * shared memory: 256/{@code mt} bytes per mma (128 at the default {@code mt = 2}), no weight tile,
 * no dequantization pass between barriers, one barrier per k step.
 *
 * <h2>Mapping</h2>
 *
 * A block is {@code wf} warps side by side along the features ({@code 16·mt·wf} features) and
 * {@code bm = 8·nt} rows of x; the grid is row blocks (x, fastest, so the row blocks of one feature
 * block run together and share its weights through L2) by feature blocks (y). k advances in steps
 * of 128. Per step a lane loads, for each of its {@code mt} 16-feature tiles, 4 consecutive words
 * (32 codes: k {@code 32t .. 32t+31} of the step, one 16-byte load) of features {@code g} and
 * {@code g+8}, and the scale and bias of the one group those 32 codes lie in (groups are 32, 64 or
 * 128 wide). Word {@code p} of the four is the lane's share of mma pair {@code p} (two k16 steps,
 * 32 k): the k order inside an mma is free as long as A and B agree, and this one gives lane t the
 * 8 consecutive k of word {@code p}: A register pairs are consecutive codes (the dequantization of
 * {@link QmmTiledTiles#deq4}, exact {@code P + q} halves and one rounding of {@code q·s + b}, as in
 * {@link QmmTiledKernel}), and the B fragments of both k16 steps are one 16-byte shared-memory read
 * of x's row g at those 8 k, as stored, no shuffling.
 *
 * <h2>x in shared memory</h2>
 *
 * {@code stages} slots of {@code [bm, 128]} halves, filled by {@code cp.async} {@code stages - 1}
 * steps ahead (rows past the end not copied: their outputs are computed from stale data and never
 * stored). A row is sixteen 16-byte chunks; chunk {@code c} of row {@code r} sits at chunk position
 * {@code c ^ 2·((c >> 3) & 1) ^ (r & 1)}. The eight lanes of a quarter warp read chunks {@code 4t +
 * p} (t = 0..3) of two adjacent rows: without the swizzle lanes t and t + 2 of a row hit the same
 * banks (chunks 8 apart are 128 bytes apart); with it the eight reads land on eight different bank
 * quads, one wavefront. The copies (consecutive chunks of a row per quarter warp) stay
 * conflict-free.
 *
 * <h2>Weights by cp.async ({@code wAsync = 1})</h2>
 *
 * By default a lane loads the next step's weights into registers while it computes this one: one
 * step ahead, 16 registers in flight at {@code mt = 2}. With {@code wAsync = 1} they go into the
 * slots with x, {@code stages - 1} steps ahead, each lane copying and later reading only its own
 * 16-byte entries (consecutive lanes, consecutive entries: no bank conflicts, no barrier needed for
 * them): 150 registers instead of 160 (ptxas 13.0) and 24 KiB more shared memory per block at three
 * slots (72 KiB: still three blocks per SM). Which one hides HBM latency better is for the GPU to
 * say.
 *
 * <h2>Cost for 256 rows × 4096 × 12288, 4-bit g64, bf16 (prediction, not measured)</h2>
 *
 * Per step and warp ({@code mt = 2}, {@code nt = 8}): 128 mmas, 8 words dequantized per m tile (~19
 * instructions per word: 304), 32 16-byte x reads, 4 weight loads and 8 scale loads, 8 x copies:
 * about 3.9 issue slots per mma, under the tensor pipe's ~4–7 clocks per mma per SM sub-partition.
 * Weights are read once from HBM and once per row block from L2 (4 row blocks of 64 at 256 rows:
 * 100 MB), x once per feature block (96 of 128 features: 192 MB from L2). Registers: 64
 * accumulators, 16 weight words and 8 scale/bias values for this step and as many for the next, 16
 * dequantized A registers: 160 unhinted from ptxas 13.0 (the H200 driver's compiler), so three
 * 128-thread blocks fit an SM and 256 rows make 384 blocks, one wave on 132 SMs (the in-process
 * ptxas 12.0 gives 176: two blocks per SM). The plan carries no occupancy hint (with one for three
 * blocks, 12.0 spills 20 bytes).
 */
public final class QmmMmaXSharedKernel {
  private QmmMmaXSharedKernel() {}

  /** k per step: one 16-byte load of 4 words (32 codes) per lane and feature row. */
  static final int BK = 128;

  /** Default warps per block (along the features). */
  static final int WF = 4;

  /** Default 16-feature tiles per warp. */
  static final int MT = 2;

  /** Default 8-row tiles per warp (and block): 64 rows. */
  static final int NT = 8;

  /** Default x slots in shared memory. */
  static final int STAGES = 3;

  /** The product; see the class comment. */
  @Kernel(
      validateWith = {
        "groupSize=64,dtype=0,wf=4,mt=2,nt=8,stages=3,wAsync=0",
        "groupSize=64,dtype=0,wf=4,mt=2,nt=8,stages=2,wAsync=0",
        "groupSize=128,dtype=1,wf=4,mt=2,nt=8,stages=3,wAsync=0",
        "groupSize=32,dtype=0,wf=4,mt=2,nt=8,stages=3,wAsync=0",
        "groupSize=64,dtype=1,wf=8,mt=1,nt=8,stages=3,wAsync=0",
        "groupSize=64,dtype=0,wf=2,mt=2,nt=4,stages=4,wAsync=0",
        "groupSize=64,dtype=0,wf=4,mt=2,nt=8,stages=3,wAsync=1",
        "groupSize=128,dtype=1,wf=4,mt=2,nt=8,stages=4,wAsync=1",
        "groupSize=64,dtype=1,wf=8,mt=1,nt=8,stages=2,wAsync=1"
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
      @Specialize int wf,
      @Specialize int mt,
      @Specialize int nt,
      @Specialize int stages,
      @Specialize int wAsync) {
    int tid = ctx.localIdx;
    int lane = tid & 31;
    int g = lane >> 2;
    int t = lane & 3;
    int warp = tid >> 5;
    int threads = 32 * wf;
    int bm = 8 * nt;
    int slotHalves = bm * BK; // one x slot: [bm, 128] halves
    int xSlots = bm * 16 / threads; // 16-byte x chunks each thread copies per step
    int rBlock = ctx.groupIdx * bm;
    int fWarp = ctx.groupIdy * 16 * mt * wf + warp * 16 * mt;
    int wpr = k / 8;
    int groups = k / groupSize;
    int steps = k / BK;
    int gps = BK / groupSize; // groups per step
    short[] xs = ctx.allocateShortLocalArray(stages * slotHalves); // [stages, bm, 128] swizzled
    // With wAsync = 1 the weights too go by cp.async, each lane's 2·mt 16-byte rows per step into
    // its own places: [stages, 2·mt, threads] 16-byte entries (consecutive lanes, consecutive
    // entries: conflict-free); a lane reads back only what it copied.
    int wEntries = wAsync == 1 ? 2 * mt * threads : 1;
    int[] ws = ctx.allocateIntLocalArray(stages * wEntries * 4);

    // The lane's weight rows (features g and g+8 of each tile; clamped: computed, never stored),
    // their first words and their first scale (the group of k 32t..32t+31 in every step).
    int fa0 = Math.min(fWarp + g, n - 1);
    int fb0 = Math.min(fWarp + 8 + g, n - 1);
    int fa1 = Math.min(fWarp + 16 + g, n - 1);
    int fb1 = Math.min(fWarp + 24 + g, n - 1);
    int gl = 32 * t / groupSize;
    int wa0 = fa0 * wpr + 4 * t;
    int wb0 = fb0 * wpr + 4 * t;
    int wa1 = fa1 * wpr + 4 * t;
    int wb1 = fb1 * wpr + 4 * t;
    int sa0 = fa0 * groups + gl;
    int sb0 = fb0 * groups + gl;
    int sa1 = fa1 * groups + gl;
    int sb1 = fb1 * groups + gl;

    // The first stages - 1 steps of x (an empty group past the end keeps the wait count right).
    for (int s = 0; s < stages - 1; s++) {
      if (s < steps) {
        requestX(x, xs, s, s * slotHalves, rBlock, rows, k, tid, threads, xSlots);
        if (wAsync == 1) {
          requestW(wq, ws, s, s * wEntries, wa0, wb0, wa1, wb1, tid, threads, mt);
        }
      }
      Vec.commitAsync();
    }

    // Step 0's weights (through registers: wAsync = 0), scales and biases; each step then loads
    // the next step's.
    Int4 none = new Int4(0, 0, 0, 0);
    Int4 qa0 = none;
    Int4 qb0 = none;
    if (wAsync == 0) {
      qa0 = Vec.ldg4(wq, wa0);
      qb0 = Vec.ldg4(wq, wb0);
    }
    int ca0 = Vec.ldg(scales, sa0) & 0xFFFF;
    int cb0 = Vec.ldg(scales, sb0) & 0xFFFF;
    int za0 = Vec.ldg(biases, sa0) & 0xFFFF;
    int zb0 = Vec.ldg(biases, sb0) & 0xFFFF;
    Int4 qa1 = none;
    Int4 qb1 = none;
    int ca1 = 0;
    int cb1 = 0;
    int za1 = 0;
    int zb1 = 0;
    if (mt > 1) {
      if (wAsync == 0) {
        qa1 = Vec.ldg4(wq, wa1);
        qb1 = Vec.ldg4(wq, wb1);
      }
      ca1 = Vec.ldg(scales, sa1) & 0xFFFF;
      cb1 = Vec.ldg(scales, sb1) & 0xFFFF;
      za1 = Vec.ldg(biases, sa1) & 0xFFFF;
      zb1 = Vec.ldg(biases, sb1) & 0xFFFF;
    }

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

    // The lane's x chunk offset within a slot for pair p is row g, chunk 4t + p, swizzled; rows
    // 8j + g share g's swizzle (8j is even), so tile j adds 8·j·128 halves.
    int rowG = g * BK;
    int cur = 0; // the slot holding step st
    for (int st = 0; st < steps; st++) {
      Vec.waitAsync(stages - 2); // this thread's copies of step st have landed
      // Every thread's copies have landed, and every warp is done with step st - 1, whose slot the
      // request below refills.
      ctx.localBarrier();
      int fill = cur == 0 ? stages - 1 : cur - 1;
      int ahead = st + stages - 1;
      if (ahead < steps) {
        requestX(x, xs, ahead, fill * slotHalves, rBlock, rows, k, tid, threads, xSlots);
        if (wAsync == 1) {
          requestW(wq, ws, ahead, fill * wEntries, wa0, wb0, wa1, wb1, tid, threads, mt);
        }
      }
      Vec.commitAsync();
      if (wAsync == 1) {
        // This step's weights, from the lane's own places (its copies have landed).
        int at = (cur * wEntries + tid) * 4;
        qa0 = Vec.load4(ws, at);
        qb0 = Vec.load4(ws, at + 4 * threads);
        if (mt > 1) {
          qa1 = Vec.load4(ws, at + 8 * threads);
          qb1 = Vec.load4(ws, at + 12 * threads);
        }
      }

      // The next step's weights (the last step reloads its own: no branch in the loop).
      int kn = Math.min(st + 1, steps - 1);
      Int4 na0 = none;
      Int4 nb0 = none;
      if (wAsync == 0) {
        na0 = Vec.ldg4(wq, wa0 + 16 * kn);
        nb0 = Vec.ldg4(wq, wb0 + 16 * kn);
      }
      int nca0 = Vec.ldg(scales, sa0 + gps * kn) & 0xFFFF;
      int ncb0 = Vec.ldg(scales, sb0 + gps * kn) & 0xFFFF;
      int nza0 = Vec.ldg(biases, sa0 + gps * kn) & 0xFFFF;
      int nzb0 = Vec.ldg(biases, sb0 + gps * kn) & 0xFFFF;
      Int4 na1 = none;
      Int4 nb1 = none;
      int nca1 = 0;
      int ncb1 = 0;
      int nza1 = 0;
      int nzb1 = 0;
      if (mt > 1) {
        if (wAsync == 0) {
          na1 = Vec.ldg4(wq, wa1 + 16 * kn);
          nb1 = Vec.ldg4(wq, wb1 + 16 * kn);
        }
        nca1 = Vec.ldg(scales, sa1 + gps * kn) & 0xFFFF;
        ncb1 = Vec.ldg(scales, sb1 + gps * kn) & 0xFFFF;
        nza1 = Vec.ldg(biases, sa1 + gps * kn) & 0xFFFF;
        nzb1 = Vec.ldg(biases, sb1 + gps * kn) & 0xFFFF;
      }

      // Scales and biases in both halves, for the packed-pair dequantization.
      int sA0 = ca0 * 0x10001;
      int sB0 = cb0 * 0x10001;
      int bA0 = za0 * 0x10001;
      int bB0 = zb0 * 0x10001;
      int sA1 = ca1 * 0x10001;
      int sB1 = cb1 * 0x10001;
      int bA1 = za1 * 0x10001;
      int bB1 = zb1 * 0x10001;
      int slot = cur * slotHalves + rowG;
      for (int p = 0; p < 4; p++) {
        // A fragments of pair p: codes 0-3 of word p are k step 0 (a0/a2 from feature g, a1/a3
        // from g+8), codes 4-7 step 1.
        Int4 da = deq4(wordAt(qa0, p), sA0, bA0, dtype);
        Int4 db = deq4(wordAt(qb0, p), sB0, bB0, dtype);
        Int4 e00 = new Int4(da.x(), db.x(), da.y(), db.y());
        Int4 e01 = new Int4(da.z(), db.z(), da.w(), db.w());
        Int4 e10 = e00;
        Int4 e11 = e01;
        if (mt > 1) {
          Int4 da1 = deq4(wordAt(qa1, p), sA1, bA1, dtype);
          Int4 db1 = deq4(wordAt(qb1, p), sB1, bB1, dtype);
          e10 = new Int4(da1.x(), db1.x(), da1.y(), db1.y());
          e11 = new Int4(da1.z(), db1.z(), da1.w(), db1.w());
        }
        int c = 4 * t + p;
        int at = slot + 8 * xChunkAt(g, c);
        // Row tile j: x rows 8j + g, the same 8 k; B of step 0 in x, y and of step 1 in z, w.
        Int4 f = Vec.load4(xs, at);
        c00 = mmaPair(ctx, e00, e01, f, c00, dtype);
        if (mt > 1) {
          c10 = mmaPair(ctx, e10, e11, f, c10, dtype);
        }
        if (nt > 1) {
          f = Vec.load4(xs, at + 8 * BK);
          c01 = mmaPair(ctx, e00, e01, f, c01, dtype);
          if (mt > 1) {
            c11 = mmaPair(ctx, e10, e11, f, c11, dtype);
          }
        }
        if (nt > 2) {
          f = Vec.load4(xs, at + 16 * BK);
          c02 = mmaPair(ctx, e00, e01, f, c02, dtype);
          if (mt > 1) {
            c12 = mmaPair(ctx, e10, e11, f, c12, dtype);
          }
        }
        if (nt > 3) {
          f = Vec.load4(xs, at + 24 * BK);
          c03 = mmaPair(ctx, e00, e01, f, c03, dtype);
          if (mt > 1) {
            c13 = mmaPair(ctx, e10, e11, f, c13, dtype);
          }
        }
        if (nt > 4) {
          f = Vec.load4(xs, at + 32 * BK);
          c04 = mmaPair(ctx, e00, e01, f, c04, dtype);
          if (mt > 1) {
            c14 = mmaPair(ctx, e10, e11, f, c14, dtype);
          }
        }
        if (nt > 5) {
          f = Vec.load4(xs, at + 40 * BK);
          c05 = mmaPair(ctx, e00, e01, f, c05, dtype);
          if (mt > 1) {
            c15 = mmaPair(ctx, e10, e11, f, c15, dtype);
          }
        }
        if (nt > 6) {
          f = Vec.load4(xs, at + 48 * BK);
          c06 = mmaPair(ctx, e00, e01, f, c06, dtype);
          if (mt > 1) {
            c16 = mmaPair(ctx, e10, e11, f, c16, dtype);
          }
        }
        if (nt > 7) {
          f = Vec.load4(xs, at + 56 * BK);
          c07 = mmaPair(ctx, e00, e01, f, c07, dtype);
          if (mt > 1) {
            c17 = mmaPair(ctx, e10, e11, f, c17, dtype);
          }
        }
      }

      qa0 = na0;
      qb0 = nb0;
      ca0 = nca0;
      cb0 = ncb0;
      za0 = nza0;
      zb0 = nzb0;
      qa1 = na1;
      qb1 = nb1;
      ca1 = nca1;
      cb1 = ncb1;
      za1 = nza1;
      zb1 = nzb1;
      cur = cur == stages - 1 ? 0 : cur + 1;
    }
    Vec.waitAsync(0); // nothing may be in flight into shared memory when the block exits

    // D[feature][row]: the lane holds features g, g+8 of each tile by rows 2t, 2t+1 of each tile.
    int r0 = rBlock + 2 * t;
    storeTiles(out, c00, c01, c02, c03, c04, c05, c06, c07, r0, fWarp + g, nt, rows, n, dtype);
    if (mt > 1) {
      storeTiles(
          out, c10, c11, c12, c13, c14, c15, c16, c17, r0, fWarp + 16 + g, nt, rows, n, dtype);
    }
  }

  /** The {@code nt} row tiles of one feature tile, from row {@code r0} (tile j adds 8j). */
  static void storeTiles(
      short[] out, // [rows, n] bf16/f16 bits
      Float4 d0,
      Float4 d1,
      Float4 d2,
      Float4 d3,
      Float4 d4,
      Float4 d5,
      Float4 d6,
      Float4 d7,
      int r0,
      int f,
      int nt,
      int rows,
      int n,
      int dtype) {
    store(out, d0, r0, f, rows, n, dtype);
    if (nt > 1) {
      store(out, d1, r0 + 8, f, rows, n, dtype);
    }
    if (nt > 2) {
      store(out, d2, r0 + 16, f, rows, n, dtype);
    }
    if (nt > 3) {
      store(out, d3, r0 + 24, f, rows, n, dtype);
    }
    if (nt > 4) {
      store(out, d4, r0 + 32, f, rows, n, dtype);
    }
    if (nt > 5) {
      store(out, d5, r0 + 40, f, rows, n, dtype);
    }
    if (nt > 6) {
      store(out, d6, r0 + 48, f, rows, n, dtype);
    }
    if (nt > 7) {
      store(out, d7, r0 + 56, f, rows, n, dtype);
    }
  }

  /**
   * Requests step {@code st}'s weights for the lane's own places in the slot at entry {@code slot}:
   * rows a0, b0 (and a1, b1 with {@code mt = 2}), 16 bytes each, from their first words {@code
   * wa0..wb1}.
   */
  static void requestW(
      int[] wq, // [n, k/8] packed u32
      int[] ws, // [stages, 2·mt, threads] 16-byte entries (shared)
      int st,
      int slot,
      int wa0,
      int wb0,
      int wa1,
      int wb1,
      int tid,
      int threads,
      int mt) {
    int at = (slot + tid) * 4;
    Vec.copyAsync(ws, at, wq, wa0 + 16 * st, 16);
    Vec.copyAsync(ws, at + 4 * threads, wq, wb0 + 16 * st, 16);
    if (mt > 1) {
      Vec.copyAsync(ws, at + 8 * threads, wq, wa1 + 16 * st, 16);
      Vec.copyAsync(ws, at + 12 * threads, wq, wb1 + 16 * st, 16);
    }
  }

  /**
   * Requests step {@code st}'s x tile into the slot at {@code slot} (halves): chunk q = tid + u ·
   * threads is chunk q & 15 of row q >> 4; rows past the end are not copied.
   */
  static void requestX(
      short[] x, // [rows, k] bf16/f16 bits
      short[] xs, // [stages, bm, 128] shared, swizzled
      int st,
      int slot,
      int rBlock,
      int rows,
      int k,
      int tid,
      int threads,
      int xSlots) {
    for (int u = 0; u < xSlots; u++) {
      int q = tid + u * threads;
      int r = q >> 4;
      int c = q & 15;
      if (rBlock + r < rows) {
        Vec.copyAsync(
            xs, slot + r * BK + 8 * xChunkAt(r, c), x, (rBlock + r) * k + st * BK + 8 * c, 16);
      }
    }
  }

  /** Where chunk {@code c} (0..15) of x row {@code r} sits in its slot row (class comment). */
  static int xChunkAt(int r, int c) {
    return c ^ (((c >> 3) & 1) << 1) ^ (r & 1);
  }

  /** One accumulator tile's four outputs: feature f (and f + 8) by rows r and r + 1. */
  static void store(short[] out, Float4 d, int r, int f, int rows, int n, int dtype) {
    if (f < n) {
      if (r < rows) {
        out[r * n + f] = QuantMath.floatToHalf(d.x(), dtype);
      }
      if (r + 1 < rows) {
        out[(r + 1) * n + f] = QuantMath.floatToHalf(d.y(), dtype);
      }
    }
    if (f + 8 < n) {
      if (r < rows) {
        out[r * n + f + 8] = QuantMath.floatToHalf(d.z(), dtype);
      }
      if (r + 1 < rows) {
        out[(r + 1) * n + f + 8] = QuantMath.floatToHalf(d.w(), dtype);
      }
    }
  }

  /**
   * Float64 reference: see {@link QmmReference#affine} (the kernel rounds each weight once to the
   * dtype before the mma; its tests allow that, as {@link QmmTiledKernel}'s do).
   */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad =
        s.affine4HalfRejection(
            "a lane's 16-byte load is 32 codes of one group", "qmm-tiled or qmm-mma");
    if (bad != null) {
      return bad;
    }
    if (s.k() % BK != 0) {
      return "k must be a multiple of "
          + BK
          + " (one 16-byte load per lane and row per step), got "
          + s.k();
    }
    return null;
  }

  /**
   * The default plan: {@value #WF} warps of {@value #MT} 16-feature tiles by {@value #NT} 8-row
   * tiles, {@value #STAGES} x slots (not tuned on the GPU yet).
   */
  public static LaunchPlan plan(QmmShape s) {
    return plan(s, WF, MT, NT, STAGES, 0);
  }

  /** An explicit plan with the weights through registers ({@code wAsync = 0}). */
  public static LaunchPlan plan(QmmShape s, int wf, int mt, int nt, int stages) {
    return plan(s, wf, mt, nt, stages, 0);
  }

  /**
   * An explicit plan: {@code wf} warps (1..32) of {@code mt} (1, 2) 16-feature tiles by {@code nt}
   * (1..8) 8-row tiles, {@code stages} (2..4) x slots; {@code 16·bm} x chunks must split evenly
   * over the block's threads. {@code wAsync} 1: the weights too go through the slots by {@code
   * cp.async} ({@code stages - 1} steps ahead instead of one, no registers in flight); 0: loaded
   * into registers one step ahead.
   */
  public static LaunchPlan plan(QmmShape s, int wf, int mt, int nt, int stages, int wAsync) {
    String why = supports(s);
    if (why != null) {
      throw new IllegalArgumentException("s: " + why);
    }
    if (wf < 1 || wf > 32 || mt < 1 || mt > 2 || nt < 1 || nt > 8) {
      throw new IllegalArgumentException(
          "wf must be 1..32, mt 1..2 and nt 1..8, got wf=" + wf + " mt=" + mt + " nt=" + nt);
    }
    if (stages < 2 || stages > 4) {
      throw new IllegalArgumentException("stages must be 2..4, got " + stages);
    }
    if (wAsync != 0 && wAsync != 1) {
      throw new IllegalArgumentException("wAsync must be 0 or 1, got " + wAsync);
    }
    int threads = 32 * wf;
    int bm = 8 * nt;
    if ((bm * 16) % threads != 0) {
      throw new IllegalArgumentException(
          "the "
              + bm * 16
              + " x chunks of a step (bm="
              + bm
              + ") must split evenly over "
              + threads
              + " threads (wf="
              + wf
              + ")");
    }
    // (With wAsync = 0 the one-entry weight array is unused and the compiler drops it.)
    int shared = stages * (bm * BK * 2 + (wAsync == 1 ? 2 * mt * threads * 16 : 0));
    if (shared > QmmMmaAsyncKernel.SHARED_LIMIT) {
      throw new IllegalArgumentException(
          "stages=" + stages + " at bm=" + bm + " needs " + shared + " B of shared memory");
    }
    int features = 16 * mt * wf;
    Dim3 grid = Dim3.of((s.rows() + bm - 1) / bm, (s.n() + features - 1) / features);
    if (grid.y() > 65535) {
      throw new IllegalArgumentException(
          "n=" + s.n() + " needs " + grid.y() + " feature blocks (max 65535; use larger wf or mt)");
    }
    return LaunchPlan.of(
        "QmmMmaXSharedKernel.qmm",
        grid,
        Dim3.of(threads),
        shared,
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "wf",
        wf,
        "mt",
        mt,
        "nt",
        nt,
        "stages",
        stages,
        "wAsync",
        wAsync);
  }
}
