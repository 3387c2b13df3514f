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
 * Split-K quantized matmul on tensor cores ({@code mma.sync m16n8k16}) for 1–8 rows of x per block
 * row: the tensor-core analogue of {@link AffineQmvSplitKKernel} (rung {@code qmm-mma-splitk}).
 * Affine 4-bit, groups of 32/64/128, bf16/f16 x, scales, biases and output, transposed weights.
 * Fragments, magic-number unpacking ({@code (w >>> sh) & 0x000F000F | 0x43004300} = two exact
 * halves 128+q) and the group-sum trick (x sums X from an all-ones A) are {@link QmmMmaKernel}'s.
 *
 * <h2>Mapping</h2>
 *
 * A block has {@code ks} warps; warp w owns the contiguous k slice {@code [w·k/ks, (w+1)·k/ks)} of
 * every weight row: {@code wps} words per lane (4 lanes per row, so 32·wps k; k/ks must be a
 * multiple of the group and at most 256). A group's row segment is 4 lanes × {@code wpl = group/32}
 * consecutive words (one 4/8/16-byte load per lane and row, all sectors used), so each mma stays
 * inside one group. At kernel start the warp loads its slice of x for the 8 rows of its row tile
 * (grid.y; rows past m are zeros) <b>once</b>, repacks it into B fragments in the k order of the
 * unpacked weights and keeps them in registers (4 per word: 32 at wps = 8), and computes the
 * per-group sums X with the all-ones mma, kept in shared memory (they are the same for the 8 lanes
 * of a column; in registers they saved nothing).
 *
 * <p>Persistent grid: block b walks batches {@code b, b + blocks, …} of {@code 16·mt} features (mt
 * 16-feature m16 tiles). Per batch a lane holds the words of its rows g and g+8 of each tile (16
 * registers per tile at wps = 8) and the scales and biases of the warp's groups (one 8-byte load
 * per row and array at 4 groups per slice). Rotating prefetch: as soon as group c's words have gone
 * through their mmas, their registers receive group c of the next batch (and the scales after the
 * last group), so the next batch's bytes are in flight during the fold, the reduction and the
 * barrier. Per group: 2·wpl mmas per tile into a fresh accumulator D, then {@code acc += s·D + (b −
 * offset·s)·X} in float (offset 128 bf16, 64 f16).
 *
 * <p>A depth-2 variant (a second register set, each batch's words requested a batch earlier, for
 * the long-scoreboard stalls Nsight showed at 1 row) was built, measured 25–28% slower at every row
 * count (bench/RESULTS.md, run 27) and removed.
 *
 * <p>Per batch reduction: each warp stores its {@code 16·mt × 8·rt} tiles (4 floats per lane and
 * tile, 16-byte stores, lane-major) into one half of a double-buffered shared slab, <b>one
 * barrier</b>, then threads (tile, feature, row) with row &lt; m add the ks values (4 independent
 * chains) and store the output in x's dtype. The reader of (f, r) reads word {@code (f&7)·16 +
 * (r>>1)·4 + (f>>3)·2 + (r&1)} of a warp's tile, with f and r taken from bits of its index so that
 * a warp's 32 reads hit 32 banks. The next batch writes the other half; the half written two
 * batches later was last read before this barrier.
 *
 * <h2>Budget at n = 12288, k = 4096, 4-bit g64 bf16 (H200, 132 SMs)</h2>
 *
 * <ul>
 *   <li>Plan: ks = 16 (256 k per warp, wps = 8), mt = 1, blocks of 512 threads, one per SM (96
 *       registers); 768 batches → 128 blocks of 6 batches. Bytes: weights, scales and biases once
 *       (28.3 MB); x once per block (8 rows × 8 KiB, from L2). In flight per SM after a batch's
 *       words are consumed: 16 warps × 2 KiB = 32 KiB (mt = 2: 64 KiB).
 *   <li>Instructions per warp and batch (4096 weights, PTX, mt = 1): 16 mmas, ~200 for unpacking
 *       (shift + lop3 per two codes), 32 FMAs of folding, 12 loads, ~60 of addressing and moves,
 *       plus the reduction (4 of 16 warps: 16 shared loads and adds, one store): ≈ 0.07 warp
 *       instructions per weight, ≈ 3.7 M for the matrix, ≈ 7 K issue cycles per scheduler (≈ 4 µs
 *       of the 8 µs floor: not the limit, but only 4 warps per scheduler hide it).
 *   <li>Registers (sm_90, unhinted; ptxas 12.0 / 13.0): mt = 1: 96 / 96 (g64 bf16), 94 / 94 (g64
 *       f16), 106 / 114 and 102 / 96 (g32), 72 (g128); ks = 32, wps = 4: 56–64. mt = 2: 134 / 134
 *       (g64 bf16), 131 / 135 (f16), 128 (g128; 130 with ptxas 12.6 once the compiler turned the
 *       divisions by powers of two into shifts), 147–174 (g32): above the 128 a block of 512
 *       threads allows, so those plans carry an occupancy hint ({@code .maxntid 512, .minnctapersm
 *       1}) and then compile to 128 without spills (g64; g32 spills). The reduction ({@link
 *       QmmMmaReduce#batch}) is a thread-strided loop: a constant-round form of it took 98 (g64),
 *       108 (g32), 95 (g128) and 62–72 at ks = 32 for the same work (ptxas 12.0).
 *   <li><b>Predicted</b> (not measured yet): 1 row 9.5–11 µs with the default plan (16x1x1), 9–10
 *       µs with two tiles per warp (16x2x1: twice the bytes in flight, half the barriers); 8 rows
 *       within 0.5 µs of 1 row (same mmas and bytes; x and the reduction grow). Falsified if 1 row
 *       takes more than 12 µs (then one batch in flight per warp is not enough: deeper rotation or
 *       an asynchronous copy is next) or 8 rows more than 1 µs over 1 row (then the per-batch
 *       reduction and barrier are the limit: fewer, larger batches).
 *   <li><b>Measured</b> (H200, run 22, bench/RESULTS.md): 15.0 / 15.0 / 15.1 / 15.3 µs at 1 / 2 / 4
 *       / 8 rows bf16 (16x2x1: 17.2–17.8; 32x1x1: 19.3–19.4), 24.1 at 16; f16 16.9 / 17.3 at 1 / 8;
 *       g128 14.8 / 15.5. The first prediction is falsified (15 µs at 1 row, over 12): Nsight at 1
 *       row shows one 16-warp block per SM (25% occupancy, registers), DRAM at 40% and no eligible
 *       warp 55% of the time, so more loads in flight per SM is what is missing; the second holds
 *       (8 rows within 0.3 µs of 1). Still 23% faster than {@link QmmMmaKernel} at 2–8 rows.
 * </ul>
 *
 * <h2>Limits</h2>
 *
 * k must split into at most {@link #MAX_KS} slices of at most {@link #MAX_WPS}·32 elements, each a
 * whole number of groups, with the registers of one block fitting an SM: k = 4096 (16 warps) and
 * 2048 (8) do, 8192 does not (32 warps of 256 k need more than 64 registers), nor do group counts
 * without such a divisor (e.g. k = 11008 g64: 172 groups); those fall through to {@link
 * QmmMmaKernel}. 8-bit codes are not handled (x would be held per 4-code word).
 *
 * <h2>More than 8 rows: two row tiles per warp ({@code rt = 2})</h2>
 *
 * With one row tile per warp, rows beyond 8 run ⌈rows/8⌉ row tiles over the same batches: the
 * weights come from L2 for the second tile, but each tile unpacks them again and the tiles share
 * the resident blocks, so 16 rows took 22.1–22.6 µs against 13.9 at 8 (12288x4096 g64 bf16). With
 * {@code rt = 2} a warp also holds the B fragments of rows 8–15 of its 16-row block row (32 more
 * registers) and each unpacked A fragment feeds both tiles' mmas; the fold, the slab and the
 * reduction double. ptxas 12.6 gives 126–128 registers (g64/g128, ks = 16, unhinted), the H200
 * driver's compiler more than 128 for g64 bf16 (its 512-thread launch failed, run 74), so these
 * plans always carry the one-block hint; g32 spills 32 bytes there and keeps {@code rt = 1}. The
 * default plan takes {@code rt = 2} above 8 rows (run 75, µs, one tile / two tiles): 9 rows 22.4 /
 * 15.4, 16 rows 22.6 / 15.7, 32 rows 39.2 / 26.1, 48 rows 54.0 / 36.8; f16 16 rows 27.1 / 17.4;
 * g128 16 rows 21.5 / 14.8; 4096x4096 32 rows 16.0 / 11.8.
 */
public final class QmmMmaSplitKKernel {
  private QmmMmaSplitKKernel() {}

  /** Most words per lane of a weight row in one warp's k slice (x: 4 registers per word). */
  public static final int MAX_WPS = 8;

  /** Most warps splitting k (a block of 1024 threads). */
  public static final int MAX_KS = 32;

  /** Affine 4-bit weights, bf16/f16 x, scales, biases and output. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,ks=16,mt=1,wps=8,rt=1",
        "bits=4,groupSize=64,dtype=0,ks=16,mt=2,wps=8,rt=1",
        "bits=4,groupSize=64,dtype=1,ks=16,mt=1,wps=8,rt=1",
        "bits=4,groupSize=64,dtype=0,ks=32,mt=1,wps=4,rt=1",
        "bits=4,groupSize=128,dtype=0,ks=16,mt=1,wps=8,rt=1",
        "bits=4,groupSize=32,dtype=1,ks=16,mt=1,wps=8,rt=1",
        "bits=4,groupSize=64,dtype=0,ks=16,mt=1,wps=8,rt=2",
        "bits=4,groupSize=128,dtype=1,ks=16,mt=1,wps=8,rt=2",
        "bits=4,groupSize=64,dtype=1,ks=16,mt=1,wps=8,rt=2"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32 (4-bit codes)
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
      @Specialize int ks,
      @Specialize int mt,
      @Specialize int wps,
      @Specialize int rt) {
    // May be launched early (QmmPolicy.earlyStart): nothing is read before the previous kernel
    // ends.
    ctx.waitForPriorGrids();
    int magic = QmmMmaFragments.magic4(dtype, n);
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int warp = ctx.warpId();
    int wpl = groupSize / 32; // words per lane of one group's row segment
    int cpw = wps / wpl; // groups per warp slice
    int fpb = 16 * mt; // features per batch
    int batches = (n + fpb - 1) / fpb;
    int wpr = k / 8;
    int groups = k / groupSize;
    int lw = warp * 4 * wps + t * wpl; // the lane's first word of a row; group c adds 4*wpl*c
    int gw = warp * cpw; // the warp's first group of a row
    float offset = QmmMmaFragments.affineOffset(bits, dtype);
    int slab = ks * mt * rt * 128;
    float[] red = ctx.allocateFloatLocalArray(2 * slab);

    // The first batch's words, scales and biases: issued before anything waits on memory.
    int bt = ctx.groupIdx;
    int f = bt * fpb + g;
    int pA0 = Math.min(f, n - 1);
    int pB0 = Math.min(f + 8, n - 1);
    int pA1 = Math.min(f + 16, n - 1);
    int pB1 = Math.min(f + 24, n - 1);
    Int4 zi = new Int4(0, 0, 0, 0);
    // Words of the lane's rows (A: feature g, B: g+8; tile 0 and 1) in slots 0-3 (lo), 4-7 (hi).
    Int4 aLo0 = zi;
    Int4 aHi0 = zi;
    Int4 bLo0 = zi;
    Int4 bHi0 = zi;
    Int4 aLo1 = zi;
    Int4 aHi1 = zi;
    Int4 bLo1 = zi;
    Int4 bHi1 = zi;
    for (int c = 0; c < cpw; c++) {
      int s = c * wpl;
      int o = lw + 4 * wpl * c;
      Int4 v = QmmMmaKernel.loadChunk(wq, pA0 * wpr + o, wpl);
      aLo0 = place(aLo0, 0, s, v, wpl);
      aHi0 = place(aHi0, 4, s, v, wpl);
      v = QmmMmaKernel.loadChunk(wq, pB0 * wpr + o, wpl);
      bLo0 = place(bLo0, 0, s, v, wpl);
      bHi0 = place(bHi0, 4, s, v, wpl);
      if (mt > 1) {
        v = QmmMmaKernel.loadChunk(wq, pA1 * wpr + o, wpl);
        aLo1 = place(aLo1, 0, s, v, wpl);
        aHi1 = place(aHi1, 4, s, v, wpl);
        v = QmmMmaKernel.loadChunk(wq, pB1 * wpr + o, wpl);
        bLo1 = place(bLo1, 0, s, v, wpl);
        bHi1 = place(bHi1, 4, s, v, wpl);
      }
    }
    // Scales and biases of the warp's groups, packed pairs of halves (group c in half c).
    Int4 sA0 = loadGroups(scales, pA0 * groups + gw, cpw);
    Int4 sB0 = loadGroups(scales, pB0 * groups + gw, cpw);
    Int4 hA0 = loadGroups(biases, pA0 * groups + gw, cpw);
    Int4 hB0 = loadGroups(biases, pB0 * groups + gw, cpw);
    Int4 sA1 = zi;
    Int4 sB1 = zi;
    Int4 hA1 = zi;
    Int4 hB1 = zi;
    if (mt > 1) {
      sA1 = loadGroups(scales, pA1 * groups + gw, cpw);
      sB1 = loadGroups(scales, pB1 * groups + gw, cpw);
      hA1 = loadGroups(biases, pA1 * groups + gw, cpw);
      hB1 = loadGroups(biases, pB1 * groups + gw, cpw);
    }

    // The warp's slice of x as B fragments (steps h = 0, 1 of slot j in xf_j), for the whole
    // kernel, and the per-group sums X of x (rows 2t, 2t+1: group c in sx_(c/2), half c%2).
    int mBase = ctx.groupIdy * 8 * rt;
    int xr = mBase + g < rows ? (mBase + g) * k : -1;
    int yr = rt > 1 && mBase + 8 + g < rows ? (mBase + 8 + g) * k : -1;
    Float4 zf = new Float4(0f, 0f, 0f, 0f);
    Int4 ones = QmmMmaFragments.onesFragment(dtype);
    Int4 xf0 = zi;
    Int4 xf1 = zi;
    Int4 xf2 = zi;
    Int4 xf3 = zi;
    Int4 xf4 = zi;
    Int4 xf5 = zi;
    Int4 xf6 = zi;
    Int4 xf7 = zi;
    // Row tile 1's fragments (rt = 2): the same weights' A fragments feed both tiles' mmas.
    Int4 yf0 = zi;
    Int4 yf1 = zi;
    Int4 yf2 = zi;
    Int4 yf3 = zi;
    Int4 yf4 = zi;
    Int4 yf5 = zi;
    Int4 yf6 = zi;
    Int4 yf7 = zi;
    int ys = ks * cpw * 8; // row tile 1's sums follow tile 0's
    float[] xsum = ctx.allocateFloatLocalArray(ks * cpw * 8 * rt);
    int xsAt = warp * cpw * 8 + 2 * t;
    for (int c = 0; c < cpw; c++) {
      Float4 o = zf;
      Float4 oy = zf;
      for (int i = 0; i < wpl; i++) {
        int j = c * wpl + i;
        int at = (lw + 4 * wpl * c + i) * 8;
        Int4 p = QmmMmaKernel.loadX(x, xr, at, bits);
        Int2 b0 = QmmMmaFragments.fragB(p, 0, bits);
        Int2 b1 = QmmMmaFragments.fragB(p, 1, bits);
        o = QmmMmaKernel.mma(ctx, ones, b0, o, dtype);
        o = QmmMmaKernel.mma(ctx, ones, b1, o, dtype);
        Int4 fr = new Int4(b0.x(), b0.y(), b1.x(), b1.y());
        Int4 fy = zi;
        if (rt > 1) {
          Int4 py = QmmMmaKernel.loadX(x, yr, at, bits);
          Int2 c0 = QmmMmaFragments.fragB(py, 0, bits);
          Int2 c1 = QmmMmaFragments.fragB(py, 1, bits);
          oy = QmmMmaKernel.mma(ctx, ones, c0, oy, dtype);
          oy = QmmMmaKernel.mma(ctx, ones, c1, oy, dtype);
          fy = new Int4(c0.x(), c0.y(), c1.x(), c1.y());
        }
        if (j == 0) {
          xf0 = fr;
          yf0 = fy;
        } else if (j == 1) {
          xf1 = fr;
          yf1 = fy;
        } else if (j == 2) {
          xf2 = fr;
          yf2 = fy;
        } else if (j == 3) {
          xf3 = fr;
          yf3 = fy;
        } else if (j == 4) {
          xf4 = fr;
          yf4 = fy;
        } else if (j == 5) {
          xf5 = fr;
          yf5 = fy;
        } else if (j == 6) {
          xf6 = fr;
          yf6 = fy;
        } else {
          xf7 = fr;
          yf7 = fy;
        }
      }
      if (g == 0) {
        xsum[xsAt + 8 * c] = o.x();
        xsum[xsAt + 8 * c + 1] = o.y();
        if (rt > 1) {
          xsum[ys + xsAt + 8 * c] = oy.x();
          xsum[ys + xsAt + 8 * c + 1] = oy.y();
        }
      }
    }
    ctx.warpBarrier();

    // Reduction layout: warp w's tile (feature tile u, row tile v) at ((w*mt + u)*rt + v)*128,
    // lane l's 4 floats at l*4 (16-byte stores); reader e of (tile, feature i, row r) is mapped so
    // a warp's 32 reads hit 32 banks.
    int tid = ctx.localIdx;

    int buf = 0;
    while (bt < batches) {
      int nbt = bt + ctx.groupCountX;
      // The next batch's rows (past the last batch: this one again, cached, never computed).
      int lb = nbt < batches ? nbt : bt;
      int nf = lb * fpb + g;
      int nA0 = Math.min(nf, n - 1);
      int nB0 = Math.min(nf + 8, n - 1);
      int nA1 = Math.min(nf + 16, n - 1);
      int nB1 = Math.min(nf + 24, n - 1);
      Float4 acc0 = zf;
      Float4 acc1 = zf;
      Float4 accY0 = zf; // row tile 1 (rt = 2)
      Float4 accY1 = zf;
      for (int c = 0; c < cpw; c++) {
        Float4 d0 = zf;
        Float4 d1 = zf;
        Float4 e0 = zf;
        Float4 e1 = zf;
        for (int i = 0; i < wpl; i++) {
          int j = c * wpl + i;
          Int4 xf = pick(xf0, xf1, xf2, xf3, xf4, xf5, xf6, xf7, j);
          Int4 yf = pick(yf0, yf1, yf2, yf3, yf4, yf5, yf6, yf7, j);
          // Each tile's two A fragments are unpacked once and feed both row tiles.
          int wa = slot(aLo0, aHi0, j);
          int wb = slot(bLo0, bHi0, j);
          Int4 a0 = QmmMmaFragments.fragA4(wa, wb, 0, dtype, magic);
          Int4 a1 = QmmMmaFragments.fragA4(wa, wb, 1, dtype, magic);
          d0 = mmaPair(ctx, a0, a1, xf, d0, dtype);
          if (rt > 1) {
            e0 = mmaPair(ctx, a0, a1, yf, e0, dtype);
          }
          if (mt > 1) {
            wa = slot(aLo1, aHi1, j);
            wb = slot(bLo1, bHi1, j);
            Int4 a2 = QmmMmaFragments.fragA4(wa, wb, 0, dtype, magic);
            Int4 a3 = QmmMmaFragments.fragA4(wa, wb, 1, dtype, magic);
            d1 = mmaPair(ctx, a2, a3, xf, d1, dtype);
            if (rt > 1) {
              e1 = mmaPair(ctx, a2, a3, yf, e1, dtype);
            }
          }
        }
        float xa = xsum[xsAt + 8 * c];
        float xb = xsum[xsAt + 8 * c + 1];
        acc0 = fold(acc0, d0, xa, xb, sA0, hA0, sB0, hB0, c, offset, dtype);
        if (mt > 1) {
          acc1 = fold(acc1, d1, xa, xb, sA1, hA1, sB1, hB1, c, offset, dtype);
        }
        if (rt > 1) {
          float ya = xsum[ys + xsAt + 8 * c];
          float yb = xsum[ys + xsAt + 8 * c + 1];
          accY0 = fold(accY0, e0, ya, yb, sA0, hA0, sB0, hB0, c, offset, dtype);
          if (mt > 1) {
            accY1 = fold(accY1, e1, ya, yb, sA1, hA1, sB1, hB1, c, offset, dtype);
          }
        }
        // Group c's words are consumed: their registers take the next batch's.
        int s = c * wpl;
        int o = lw + 4 * wpl * c;
        Int4 v = QmmMmaKernel.loadChunk(wq, nA0 * wpr + o, wpl);
        aLo0 = place(aLo0, 0, s, v, wpl);
        aHi0 = place(aHi0, 4, s, v, wpl);
        v = QmmMmaKernel.loadChunk(wq, nB0 * wpr + o, wpl);
        bLo0 = place(bLo0, 0, s, v, wpl);
        bHi0 = place(bHi0, 4, s, v, wpl);
        if (mt > 1) {
          v = QmmMmaKernel.loadChunk(wq, nA1 * wpr + o, wpl);
          aLo1 = place(aLo1, 0, s, v, wpl);
          aHi1 = place(aHi1, 4, s, v, wpl);
          v = QmmMmaKernel.loadChunk(wq, nB1 * wpr + o, wpl);
          bLo1 = place(bLo1, 0, s, v, wpl);
          bHi1 = place(bHi1, 4, s, v, wpl);
        }
      }
      sA0 = loadGroups(scales, nA0 * groups + gw, cpw);
      sB0 = loadGroups(scales, nB0 * groups + gw, cpw);
      hA0 = loadGroups(biases, nA0 * groups + gw, cpw);
      hB0 = loadGroups(biases, nB0 * groups + gw, cpw);
      if (mt > 1) {
        sA1 = loadGroups(scales, nA1 * groups + gw, cpw);
        sB1 = loadGroups(scales, nB1 * groups + gw, cpw);
        hA1 = loadGroups(biases, nA1 * groups + gw, cpw);
        hB1 = loadGroups(biases, nB1 * groups + gw, cpw);
      }

      int wAt = buf + warp * mt * rt * 128 + lane * 4;
      Vec.store4(red, wAt, acc0);
      if (rt > 1) {
        Vec.store4(red, wAt + 128, accY0);
      }
      if (mt > 1) {
        Vec.store4(red, wAt + rt * 128, acc1);
        if (rt > 1) {
          Vec.store4(red, wAt + 3 * 128, accY1);
        }
      }
      ctx.localBarrier();
      QmmMmaReduce.batch(red, out, buf, tid, 32 * ks, bt, fpb, mBase, rows, n, ks, mt, rt, dtype);
      // The other half of the slab is next; its last readers finished before this barrier.
      buf = slab - buf;
      bt = nbt;
    }
  }

  // ---- pieces ----

  /**
   * {@code d} after the mmas of one word's two k steps: A fragments {@code a0}, {@code a1} against
   * the B fragments of x slot {@code f} (step 0 in x, y; step 1 in z, w).
   */
  static Float4 mmaPair(KernelContext ctx, Int4 a0, Int4 a1, Int4 f, Float4 d, int dtype) {
    d = QmmMmaKernel.mma(ctx, a0, new Int2(f.x(), f.y()), d, dtype);
    return QmmMmaKernel.mma(ctx, a1, new Int2(f.z(), f.w()), d, dtype);
  }

  /** Word of slot j (0..7) of a row held in lo (slots 0-3) and hi (4-7). */
  static int slot(Int4 lo, Int4 hi, int j) {
    return j < 4 ? QmmMmaFragments.wordAt(lo, j) : QmmMmaFragments.wordAt(hi, j - 4);
  }

  /** h (slots base..base+3) with the wpl words of v stored from slot s, if they fall in h. */
  static Int4 place(Int4 h, int base, int s, Int4 v, int wpl) {
    if (s < base || s >= base + 4) {
      return h;
    }
    int i = s - base;
    if (wpl == 4) {
      return v;
    }
    if (wpl == 2) {
      return i == 0 ? new Int4(v.x(), v.y(), h.z(), h.w()) : new Int4(h.x(), h.y(), v.x(), v.y());
    }
    return new Int4(
        i == 0 ? v.x() : h.x(),
        i == 1 ? v.x() : h.y(),
        i == 2 ? v.x() : h.z(),
        i == 3 ? v.x() : h.w());
  }

  static Int4 pick(Int4 a0, Int4 a1, Int4 a2, Int4 a3, Int4 a4, Int4 a5, Int4 a6, Int4 a7, int j) {
    return j == 0
        ? a0
        : j == 1 ? a1 : j == 2 ? a2 : j == 3 ? a3 : j == 4 ? a4 : j == 5 ? a5 : j == 6 ? a6 : a7;
  }

  /**
   * The {@code cpw} consecutive halves from {@code idx} (the warp's groups of one row; {@code idx}
   * is a multiple of {@code cpw}) packed in pairs: one 8- or 16-byte load where {@code cpw} is 4 or
   * 8, else one load per half.
   */
  static Int4 loadGroups(short[] a, int idx, int cpw) {
    if (cpw == 8) {
      return Vec.ldg4(a, idx);
    }
    if (cpw == 4) {
      Int2 v = Vec.ldg2(a, idx);
      return new Int4(v.x(), v.y(), 0, 0);
    }
    return new Int4(
        half(a, idx, 0, cpw) | (half(a, idx, 1, cpw) << 16),
        half(a, idx, 2, cpw) | (half(a, idx, 3, cpw) << 16),
        half(a, idx, 4, cpw) | (half(a, idx, 5, cpw) << 16),
        half(a, idx, 6, cpw) | (half(a, idx, 7, cpw) << 16));
  }

  static int half(short[] a, int idx, int c, int cpw) {
    return c < cpw ? Vec.ldg(a, idx + c) & 0xFFFF : 0;
  }

  /** Half c of packed halves v, as float. */
  static float groupValue(Int4 v, int c, int dtype) {
    int w = QmmMmaFragments.wordAt(v, c >> 1);
    return (c & 1) == 0 ? QuantMath.halfLo(w, dtype) : QuantMath.halfHi(w, dtype);
  }

  /**
   * {@code acc + s·D + (b − offset·s)·X} for group c: features g (x, y) and g+8 (z, w), rows 2t,
   * 2t+1 with sums xa, xb.
   */
  static Float4 fold(
      Float4 acc,
      Float4 d,
      float xa,
      float xb,
      Int4 sA,
      Int4 hA,
      Int4 sB,
      Int4 hB,
      int c,
      float offset,
      int dtype) {
    float a = groupValue(sA, c, dtype);
    float b = groupValue(sB, c, dtype);
    // One FFMA each: offset (64 or 128) is a power of two, the product exact, one rounding.
    float za = Math.fma(-offset, a, groupValue(hA, c, dtype));
    float zb = Math.fma(-offset, b, groupValue(hB, c, dtype));
    return new Float4(
        Math.fma(a, d.x(), Math.fma(za, xa, acc.x())),
        Math.fma(a, d.y(), Math.fma(za, xb, acc.y())),
        Math.fma(b, d.z(), Math.fma(zb, xa, acc.z())),
        Math.fma(b, d.w(), Math.fma(zb, xb, acc.w())));
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Words per lane of one group's row segment (4-bit codes: a group is 4 lanes x this). */
  static int wordsPerLane(int groupSize) {
    return groupSize / 32;
  }

  /**
   * Registers per thread the plan assumes: the most that ptxas 12.0 (in-process) and 13.0 report
   * for sm_90 without a hint, rounded up to 8 (class comment, "Registers"). Slices of at most 4
   * words per lane measured 56–64 (ks = 32, the 1024-thread block that needs them ≤ 64). {@code
   * QmmMmaSplitKKernelTest} compiles the planned variants and checks them against this.
   */
  static int registers(int groupSize, int wps, int mt, int rt) {
    if (rt > 1) {
      // Two row tiles (ks = 16, wps = 8, no hint): ptxas 12.6 gives 126–128 at g64 and g128 and
      // 143 at g32, but the H200 driver's compiler took more than 128 at g64 bf16 and the launch
      // of 512 threads failed (run 74). Above 128, so every such plan carries the hint and is
      // compiled to at most 128.
      return 136;
    }
    if (mt == 1 && wps <= 4) {
      return 64;
    }
    if (mt == 1) {
      // g64 96 and g128 72 until the unpacking's exponent bits moved into a register (magic4):
      // ptxas 12.6 then gives up to 99 and 96 (f16). One 512-thread block per SM either way.
      return groupSize == 32 ? 120 : groupSize == 64 ? 104 : 96;
    }
    return groupSize == 32 ? 176 : 136;
  }

  /** Warps' registers (units of 256) that fit an SM's 4 quarters of 16 K at {@code regs}. */
  static boolean fits(int warps, int regs) {
    int perWarp = (regs * 32 + 255) / 256 * 256;
    return (warps + 3) / 4 * perWarp <= 16384;
  }

  /**
   * The k split of the default plan: the fewest warps (at most {@link #MAX_KS}) that divide the
   * row's groups evenly into slices of at most {@link #MAX_WPS} words per lane and fit an SM; 0
   * when there is none.
   */
  static int defaultKs(QmmShape s) {
    int groups = s.k() / s.groupSize();
    int wpl = wordsPerLane(s.groupSize());
    for (int ks = 1; ks <= MAX_KS; ks++) {
      int wps = groups / ks * wpl;
      if (groups % ks == 0 && wps <= MAX_WPS && fits(ks, registers(s.groupSize(), wps, 1, 1))) {
        return ks;
      }
    }
    return 0;
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad =
        s.affine4HalfRejection("x fragments held for one word of 8 codes per slot", "qmm-mma");
    if (bad != null) {
      return bad;
    }
    if (defaultKs(s) == 0) {
      int groups = s.k() / s.groupSize();
      return "k must split evenly over at most "
          + MAX_KS
          + " warps with at most "
          + MAX_WPS * 32
          + " k per warp (x held in registers) and one block's registers fitting an SM: "
          + groups
          + " groups of "
          + s.groupSize()
          + " have no such split";
    }
    if ((s.rows() + 7) / 8 > 65535) {
      return "too many rows for grid.y (8 per block row): " + s.rows();
    }
    return null;
  }

  /**
   * The default plan on {@code smCount} SMs: the k split of {@link #defaultKs}, one 16-feature tile
   * per warp, as many blocks per SM as fit at {@link #registers}.
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    int ks = defaultKs(s);
    int wps = s.k() / s.groupSize() / ks * wordsPerLane(s.groupSize());
    int regs = registers(s.groupSize(), wps, 1, 1);
    int rt = defaultRowTiles(s, ks, wps);
    // Two row tiles: one 512-thread block per SM at the hint's 128 registers.
    int bps = rt == 2 ? 1 : AffineQmvSplitKKernel.residentBlocks(regs, ks);
    return plan(s, smCount, ks, 1, bps, rt);
  }

  /**
   * Row tiles per warp {@link #plan(QmmShape, int)} gives {@code s} (1 where it is unsupported).
   */
  public static int rowTiles(QmmShape s) {
    int ks = defaultKs(s);
    if (ks == 0) {
      return 1;
    }
    return defaultRowTiles(s, ks, s.k() / s.groupSize() / ks * wordsPerLane(s.groupSize()));
  }

  /**
   * Static shared memory of a block: the double-buffered reduction slab ({@code ks·mt·rt} tiles of
   * 128 floats, twice) and the per-group x sums ({@code ks·cpw·8} floats per row tile).
   */
  static int sharedBytes(int ks, int mt, int rt, int cpw) {
    return (2 * ks * mt * 128 + ks * cpw * 8) * rt * 4;
  }

  /**
   * Row tiles per warp in the default plan: 2 above 8 rows where a block of {@code ks} warps can
   * hold 128 registers per thread (ks ≤ 16), its slab and sums fit the 48 KiB of static shared
   * memory and the groups are at least 64 (g32 spills at 128 registers); else 1.
   */
  static int defaultRowTiles(QmmShape s, int ks, int wps) {
    if (s.rows() <= 8 || s.groupSize() < 64 || ks > 16) {
      return 1;
    }
    return sharedBytes(ks, 1, 2, wps / wordsPerLane(s.groupSize())) <= 48 * 1024 ? 2 : 1;
  }

  /**
   * An explicit plan: {@code ks} warps per block splitting k (dividing the k/groupSize groups, at
   * most {@link #MAX_WPS}·32 k each), {@code mt} (1, 2) 16-feature tiles per warp and batch, and
   * {@code smCount × blocksPerSm} persistent blocks (fewer when there are fewer batches), balanced
   * so every block walks the same number of batches (±1).
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int ks, int mt, int blocksPerSm) {
    return plan(s, smCount, ks, mt, blocksPerSm, 1);
  }

  /**
   * An explicit plan with {@code rt} (1, 2) row tiles of 8 rows per warp: with 2, each A fragment
   * (the dequantized weights) feeds the mmas of 16 rows of x, which a second register set of x
   * fragments holds; with 1, more than 8 rows run as separate row tiles over the same resident
   * blocks, each dequantizing the weights again.
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int ks, int mt, int blocksPerSm, int rt) {
    int groups = s.k() / s.groupSize();
    int wpl = wordsPerLane(s.groupSize());
    if (ks < 1 || ks > MAX_KS || groups % ks != 0 || groups / ks * wpl > MAX_WPS) {
      throw new IllegalArgumentException(
          "ks must divide the "
              + groups
              + " groups of k into slices of at most "
              + MAX_WPS * 32
              + " k, with 1 <= ks <= "
              + MAX_KS
              + "; got ks="
              + ks);
    }
    if (mt != 1 && mt != 2) {
      throw new IllegalArgumentException("mt must be 1 or 2, got " + mt);
    }
    if (rt != 1 && rt != 2) {
      throw new IllegalArgumentException("rt must be 1 or 2 (row tiles of 8 per warp), got " + rt);
    }
    if (blocksPerSm < 1 || smCount < 1) {
      throw new IllegalArgumentException(
          "blocksPerSm and smCount must be positive, got " + blocksPerSm + " and " + smCount);
    }
    int wps = groups / ks * wpl;
    int shared = sharedBytes(ks, mt, rt, wps / wpl);
    if (shared > 48 * 1024) {
      throw new IllegalArgumentException(
          "ks*mt*rt too large: the reduction slab and x sums take "
              + shared
              + " B, more than the 48 KiB of static shared memory a kernel may declare; got ks="
              + ks
              + " mt="
              + mt
              + " rt="
              + rt);
    }
    int fpb = 16 * mt;
    int batches = (s.n() + fpb - 1) / fpb;
    int rowTiles = (s.rows() + 8 * rt - 1) / (8 * rt);
    // One wave: the row tiles share the resident blocks (and read the same weights about when).
    int blocks = Math.min(Math.max(1, smCount * blocksPerSm / rowTiles), batches);
    int per = (batches + blocks - 1) / blocks;
    blocks = (batches + per - 1) / per;
    // Where the registers ptxas would use do not fit blocksPerSm blocks (or one block at all),
    // the launch asks ptxas to fit them (.maxntid/.minnctapersm), or it would fail to launch.
    boolean hint = !fits(ks * blocksPerSm, registers(s.groupSize(), wps, mt, rt));
    LaunchPlan p =
        LaunchPlan.of(
            "QmmMmaSplitKKernel.qmm",
            Dim3.of(blocks, rowTiles),
            Dim3.of(32 * ks),
            shared,
            "bits",
            s.bits(),
            "groupSize",
            s.groupSize(),
            "dtype",
            s.dtype(),
            "ks",
            ks,
            "mt",
            mt,
            "wps",
            wps,
            "rt",
            rt);
    return hint ? p.withMinBlocksPerSm(blocksPerSm) : p;
  }
}
