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
 * Quantized matmul on tensor cores ({@code mma.sync m16n8k16}), transposed weights, bf16/f16
 * activations: the small-rows kernel (1–8 rows read every weight tile once for all rows), the
 * 16/32-row kernel and the tiled kernel for many rows are this one kernel with different {@link
 * Specialize} tile sizes (see {@link #plan}).
 *
 * <h2>Why tensor cores already at 1 row</h2>
 *
 * The floor for 4096x12288 at 4 bits is 8 µs (28.3 MB at 3.5 TB/s), i.e. about 24 weight elements
 * per clock per SM. On CUDA cores a weight element costs ~3 instructions per row of x, so 2–7 rows
 * are issue-bound well above the floor (6 rows ≈ 20 instructions per element). Here the mma does
 * all the multiply-adds for up to 8 rows of x at once; a weight element costs only its unpacking
 * (about 1 instruction for 4-bit affine codes), so the cost per element is nearly independent of
 * the number of rows up to 8, and grows slowly to 32.
 *
 * <h2>Roles and fragments</h2>
 *
 * A (16x16) is a tile of <em>weights</em>: 16 output features by 16 k; B (16x8) is <em>x</em>
 * transposed: 16 k by 8 rows of x; D[i][j] = out[row j][feature i]. With {@code g = lane/4, t =
 * lane%4}, a lane holds weights of features g and g+8 and x of row g, and owns outputs (features g,
 * g+8) x (rows 2t, 2t+1). The k order inside an mma is free as long as A and B agree, and it is
 * chosen so that unpacking ({@link QmmMmaFragments}) is cheap:
 *
 * <ul>
 *   <li>4-bit codes: nibbles (j, j+4) of a word form one A register: {@code (w >>> 4j) &
 *       0x000F000F} puts them in the two 16-bit halves, and or-ing {@code 0x4300} (bf16 128.0) into
 *       each half makes the exact values {@code 128 + q}; f16 moves them to bits 4..7 instead
 *       ({@code 0x00F000F0}) under {@code 0x5400} (64.0): {@code 64 + q}, a small offset because
 *       the offset's share of the fp32 sum cancels when it is removed (1024 + q failed MLX's bound
 *       at g128 in the split-K kernel). One shift (or none) and one lop3 per two elements. x is
 *       loaded 8 halves at a time (one 16-byte load per word) and its registers are repacked into
 *       the matching (j, j+4) pairs.
 *   <li>8-bit codes: bytes (0, 2) and (1, 3) form the A registers; f16 takes {@code 1024 + q}
 *       directly; bf16 (7 mantissa bits) splits each byte into nibbles and runs two mmas into the
 *       same accumulator, the high nibble as {@code 0x4500 | h} = 16·(128 + h).
 *   <li>fp modes decode each code to its exact bf16/f16 value (E2M1 and E4M3 values are exact in
 *       both); nvfp4 multiplies by its E4M3 group scale first (still exact: at most 6 significant
 *       bits), because its 16-element groups are narrower than an mma's k span. E2M1 pairs are
 *       built in place (bits moved under a power of two, then one packed fma: {@link
 *       QmmMmaFragments#fp4Pair}); E4M3 codes are decoded one at a time in float.
 * </ul>
 *
 * The affine offset and the group scale/bias are applied per chunk in float: {@code out += s·C + (b
 * − offset·s)·X}, where X, the sum of x over the chunk, comes from one extra mma per step with an
 * all-ones A (shared by all feature tiles of the warp). This is the group-sum trick on tensor
 * cores.
 *
 * <h2>Work split</h2>
 *
 * A <em>chunk</em> is {@code 4 * wordsPerLane} consecutive u32 words of a weight row, inside one
 * quantization group; lane t of a row's four lanes reads words {@code [t*wordsPerLane,
 * (t+1)*wordsPerLane)} of it with one 4-, 8- or 16-byte load per row (16 bytes whenever the group
 * is at least 64 bytes wide: 4-bit g128, 8-bit g64/g128, nvfp4). The words of the warp's next
 * {@code depth} chunks (1–3) are in flight while a chunk is computed: depth 1 is double buffering,
 * and each extra chunk costs {@code wordsPerLane * 2 * mt} registers. x, the group scales and
 * biases (shared by many warps, mostly L1/L2 hits) are loaded in the iteration that uses them:
 * rotating them too would cost 16 more registers per chunk in the 1–8-row plan, which at depth 3
 * already uses 80 (ptxas 12), the most that keeps its 384 blocks of 256 threads in one wave. A warp
 * computes {@code 16*mt} features x {@code 8*nt} rows; a block has {@code wn} such warps side by
 * side and {@code ks} warps splitting k (interleaved chunks, reduced through shared memory at the
 * end, conflict-free layout).
 *
 * <h2>Measured cost (H200, bf16, 4-bit g64, 4096x12288; CUDA C mirror, see the README)</h2>
 *
 * The JIT does not exist yet, so this design was measured through {@code proto/qmm_proto.cu}, a
 * statement-for-statement CUDA C transliteration (same loads, unpacking and arithmetic), on
 * 2026-12-01: mean of 40 back-to-back launches over 8 rotated weight copies, clocks warm. A
 * read-only kernel moving the same bytes takes 8.7–8.9 µs; cuBLAS bf16 dense 28.3 µs (1 row) and
 * 35.6 µs (256 rows).
 *
 * <ul>
 *   <li>rows 1 / 6 / 8: 20.9 / 23.0 / 24.4 µs with mt=1, ks=8; 21.1 / – / 21.4 µs with mt=2, ks=4
 *       (the plan's choice); 18.9–19.5 µs when each iteration also issues the following chunk's
 *       loads (not expressed in this Java version yet). The time is nearly flat in the number of
 *       rows (CUDA cores: 18.7 µs at 1 row, 75 µs at 6), which is the point of the design, but it
 *       is about 2.2x the floor: targets (≤ 9 / ≤ 10 µs) are NOT met.
 *   <li>rows 16: 25.2 µs (mt=2, nt=2, ks=4); rows 32: 34.6 µs (mt=2, nt=4, ks=4). Targets 14 and 24
 *       µs: NOT met.
 *   <li>rows 256: 192–203 µs (mt=2, nt=4, wn=2 or 4); target ≤ 61.8 µs: NOT met (5.5x cuBLAS).
 * </ul>
 *
 * <p>The Java kernel itself, compiled by Sirocco's JIT (jit branch at 21e8302, before its merge)
 * and loaded through the driver ({@code proto/JitEmit.java}, {@code proto/jit_bench.cu}), is
 * correct on the H200 (8 rows, 400 outputs against float64, none unwritten) and takes 25.0–25.5 µs
 * for 1–8 rows with the plan's tiling (64 registers from ptxas 12.6, 56 from the 580 driver's JIT):
 * about 4 µs slower than the CUDA C mirror.
 *
 * <p>A read-only kernel with exactly this kernel's access pattern (8-byte loads, 8 rows x 32 bytes
 * per warp instruction) runs at 10.4–11.5 µs, so neither the access pattern nor the instruction
 * count (~0.6 instructions per weight element) is the limit: the kernel is latency- and
 * occupancy-bound (56–166 registers, 1–4 blocks per SM, 1.5–3 waves, one dependent round trip per
 * chunk). What should close the gap, in order: a persistent grid (blocks = SMs x occupancy)
 * streaming chunks of several tiles with the next loads always in flight; fewer registers; an
 * asynchronous-copy intrinsic (cp.async) in kernel-api to keep many loads in flight without
 * registers; for many rows, shared-memory staging of x and weight tiles.
 */
public final class QmmMmaKernel {
  private QmmMmaKernel() {}

  /**
   * The product. {@code scales}/{@code biases} are used by affine mode, {@code fpScales} and {@code
   * globalScale} by fp modes; the arrays a mode does not use may be empty.
   */
  @Kernel(
      validateWith = {
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=1,wn=1,ks=4,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=1,wn=1,ks=8,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=1,mt=1,nt=2,wn=1,ks=4,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=2,wn=1,ks=4,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=4,wn=4,ks=1,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=1,nt=1,wn=1,ks=8,wordsPerLane=2,depth=1",
        "mode=0,bits=8,groupSize=64,dtype=0,mt=1,nt=2,wn=1,ks=8,wordsPerLane=4,depth=1",
        "mode=0,bits=4,groupSize=128,dtype=1,mt=2,nt=4,wn=4,ks=1,wordsPerLane=4,depth=1",
        "mode=1,bits=4,groupSize=32,dtype=0,mt=1,nt=1,wn=1,ks=8,wordsPerLane=1,depth=1",
        "mode=2,bits=4,groupSize=16,dtype=0,mt=1,nt=2,wn=1,ks=8,wordsPerLane=4,depth=1",
        "mode=3,bits=8,groupSize=32,dtype=1,mt=1,nt=4,wn=1,ks=4,wordsPerLane=2,depth=1",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=1,wn=1,ks=8,wordsPerLane=2,depth=2",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=2,nt=1,wn=1,ks=8,wordsPerLane=2,depth=3",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=1,nt=2,wn=1,ks=4,wordsPerLane=2,depth=2",
        "mode=0,bits=4,groupSize=64,dtype=0,mt=1,nt=2,wn=1,ks=4,wordsPerLane=2,depth=3",
        "mode=0,bits=8,groupSize=64,dtype=0,mt=2,nt=1,wn=1,ks=8,wordsPerLane=4,depth=3"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32 codes
      short[] scales, // [n, k/groupSize] bf16/f16 bits (affine)
      short[] biases, // [n, k/groupSize] bf16/f16 bits (affine)
      byte[] fpScales, // [n, k/groupSize] U8 scale codes (fp modes)
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int mode,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int mt,
      @Specialize int nt,
      @Specialize int wn,
      @Specialize int ks,
      @Specialize int wordsPerLane,
      @Specialize int depth) {
    // May be launched early (QmmPolicy.earlyStart): nothing is read before the previous kernel
    // ends.
    ctx.waitForPriorGrids();
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int warp = ctx.warpId();
    int wnI = warp % wn;
    int ksI = warp / wn;
    int nBase = (ctx.groupIdx * wn + wnI) * 16 * mt;
    int mBase = ctx.groupIdy * 8 * nt;
    int perWord = 32 / bits; // k per word
    int chunkWords = 4 * wordsPerLane;
    int chunkK = chunkWords * perWord;
    int chunks = k / chunkK;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    boolean affine = mode == Quant.AFFINE;
    boolean nv = mode == Quant.NVFP4;
    float offset = QmmMmaFragments.affineOffset(bits, dtype);

    // Weight rows of this lane (clamped for loading; never stored past n).
    int rowA0 = Math.min(nBase + g, n - 1);
    int rowB0 = Math.min(nBase + 8 + g, n - 1);
    int rowA1 = Math.min(nBase + 16 + g, n - 1);
    int rowB1 = Math.min(nBase + 24 + g, n - 1);
    // x rows of this lane, one per x tile; -1 when past the end.
    int xr0 = mBase + g < rows ? (mBase + g) * k : -1;
    int xr1 = mBase + 8 + g < rows ? (mBase + 8 + g) * k : -1;
    int xr2 = mBase + 16 + g < rows ? (mBase + 16 + g) * k : -1;
    int xr3 = mBase + 24 + g < rows ? (mBase + 24 + g) * k : -1;

    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    Float4 a0 = zero;
    Float4 a1 = zero;
    Float4 a2 = zero;
    Float4 a3 = zero;
    Float4 b0 = zero;
    Float4 b1 = zero;
    Float4 b2 = zero;
    Float4 b3 = zero;

    int lw = t * wordsPerLane; // this lane's first word inside a chunk
    // Chunks in flight; a slot holds one chunk's words of the lane's rows (A0, B0, A1, B1): n*
    // holds chunk c, the next to compute, p* and q* hold c + ks and c + 2ks (depth 2 and 3). Each
    // iteration takes n*, moves the others down one slot and issues chunk c + depth*ks into the
    // last, so depth chunks are in flight ahead of the one being computed. A slot past the warp's
    // last chunk is not loaded (it keeps stale words that are never computed).
    Int4 nA0 = new Int4(0, 0, 0, 0);
    Int4 nB0 = nA0;
    Int4 nA1 = nA0;
    Int4 nB1 = nA0;
    Int4 pA0 = nA0;
    Int4 pB0 = nA0;
    Int4 pA1 = nA0;
    Int4 pB1 = nA0;
    Int4 qA0 = nA0;
    Int4 qB0 = nA0;
    Int4 qA1 = nA0;
    Int4 qB1 = nA0;
    for (int j = 0; j < depth; j++) {
      if (ksI + j * ks < chunks) {
        int w0 = (ksI + j * ks) * chunkWords + lw;
        Int4 lA0 = loadChunk(wq, rowA0 * wpr + w0, wordsPerLane);
        Int4 lB0 = loadChunk(wq, rowB0 * wpr + w0, wordsPerLane);
        Int4 lA1 = nA1;
        Int4 lB1 = nB1;
        if (mt > 1) {
          lA1 = loadChunk(wq, rowA1 * wpr + w0, wordsPerLane);
          lB1 = loadChunk(wq, rowB1 * wpr + w0, wordsPerLane);
        }
        if (j == 0) {
          nA0 = lA0;
          nB0 = lB0;
          nA1 = lA1;
          nB1 = lB1;
        } else if (j == 1) {
          pA0 = lA0;
          pB0 = lB0;
          pA1 = lA1;
          pB1 = lB1;
        } else {
          qA0 = lA0;
          qB0 = lB0;
          qA1 = lA1;
          qB1 = lB1;
        }
      }
    }
    for (int c = ksI; c < chunks; c += ks) {
      Int4 uA0 = nA0;
      Int4 uB0 = nB0;
      Int4 uA1 = nA1;
      Int4 uB1 = nB1;
      if (depth > 1) {
        nA0 = pA0;
        nB0 = pB0;
        nA1 = pA1;
        nB1 = pB1;
      }
      if (depth > 2) {
        pA0 = qA0;
        pB0 = qB0;
        pA1 = qA1;
        pB1 = qB1;
      }
      if (c + depth * ks < chunks) {
        int w0 = (c + depth * ks) * chunkWords + lw;
        Int4 lA0 = loadChunk(wq, rowA0 * wpr + w0, wordsPerLane);
        Int4 lB0 = loadChunk(wq, rowB0 * wpr + w0, wordsPerLane);
        Int4 lA1 = uA1;
        Int4 lB1 = uB1;
        if (mt > 1) {
          lA1 = loadChunk(wq, rowA1 * wpr + w0, wordsPerLane);
          lB1 = loadChunk(wq, rowB1 * wpr + w0, wordsPerLane);
        }
        if (depth == 1) {
          nA0 = lA0;
          nB0 = lB0;
          nA1 = lA1;
          nB1 = lB1;
        } else if (depth == 2) {
          pA0 = lA0;
          pB0 = lB0;
          pA1 = lA1;
          pB1 = lB1;
        } else {
          qA0 = lA0;
          qB0 = lB0;
          qA1 = lA1;
          qB1 = lB1;
        }
      }
      int gi = (c * chunkK) / groupSize;
      // Per-chunk partial products (affine/mx: folded below; nvfp4: straight into the totals).
      Float4 c0 = nv ? a0 : zero;
      Float4 c1 = nv ? a1 : zero;
      Float4 c2 = nv ? a2 : zero;
      Float4 c3 = nv ? a3 : zero;
      Float4 d0 = nv ? b0 : zero;
      Float4 d1 = nv ? b1 : zero;
      Float4 d2 = nv ? b2 : zero;
      Float4 d3 = nv ? b3 : zero;
      Float4 o0 = zero;
      Float4 o1 = zero;
      Float4 o2 = zero;
      Float4 o3 = zero;
      for (int cc = 0; cc < wordsPerLane; cc++) {
        int wA0 = QmmMmaFragments.wordAt(uA0, cc);
        int wB0 = QmmMmaFragments.wordAt(uB0, cc);
        int wA1 = QmmMmaFragments.wordAt(uA1, cc);
        int wB1 = QmmMmaFragments.wordAt(uB1, cc);
        int kw = (c * chunkWords + lw + cc) * perWord;
        // fp4: the multiplier pairs of the lane's rows for this word; nvfp4 folds in its group
        // scales (16-element groups), mxfp4's is a constant.
        int mA0 = QmmMmaFragments.fp4Multiplier(1f, mode, dtype);
        int mB0 = mA0;
        int mA1 = mA0;
        int mB1 = mA0;
        if (nv) {
          int gw = kw / 16;
          mA0 = nvMultiplier(fpScales, rowA0 * groups + gw, dtype);
          mB0 = nvMultiplier(fpScales, rowB0 * groups + gw, dtype);
          if (mt > 1) {
            mA1 = nvMultiplier(fpScales, rowA1 * groups + gw, dtype);
            mB1 = nvMultiplier(fpScales, rowB1 * groups + gw, dtype);
          }
        }
        Int4 x0 = loadX(x, xr0, kw, bits);
        Int4 x1 = nt > 1 ? loadX(x, xr1, kw, bits) : x0;
        Int4 x2 = nt > 2 ? loadX(x, xr2, kw, bits) : x0;
        Int4 x3 = nt > 2 ? loadX(x, xr3, kw, bits) : x0;
        int steps = bits == 4 ? 2 : 1;
        for (int h = 0; h < steps; h++) {
          Int2 f0 = QmmMmaFragments.fragB(x0, h, bits);
          Int2 f1 = QmmMmaFragments.fragB(x1, h, bits);
          Int2 f2 = QmmMmaFragments.fragB(x2, h, bits);
          Int2 f3 = QmmMmaFragments.fragB(x3, h, bits);
          int digits = (affine && bits == 8 && dtype == Quant.BF16) ? 2 : 1;
          for (int dg = 0; dg < digits; dg++) {
            Int4 e0 = QmmMmaFragments.fragA(wA0, wB0, h, dg, mode, bits, dtype, mA0, mB0);
            c0 = mma(ctx, e0, f0, c0, dtype);
            if (nt > 1) {
              c1 = mma(ctx, e0, f1, c1, dtype);
            }
            if (nt > 2) {
              c2 = mma(ctx, e0, f2, c2, dtype);
              c3 = mma(ctx, e0, f3, c3, dtype);
            }
            if (mt > 1) {
              Int4 e1 = QmmMmaFragments.fragA(wA1, wB1, h, dg, mode, bits, dtype, mA1, mB1);
              d0 = mma(ctx, e1, f0, d0, dtype);
              if (nt > 1) {
                d1 = mma(ctx, e1, f1, d1, dtype);
              }
              if (nt > 2) {
                d2 = mma(ctx, e1, f2, d2, dtype);
                d3 = mma(ctx, e1, f3, d3, dtype);
              }
            }
          }
          if (affine) {
            Int4 ones = QmmMmaFragments.onesFragment(dtype);
            o0 = mma(ctx, ones, f0, o0, dtype);
            if (nt > 1) {
              o1 = mma(ctx, ones, f1, o1, dtype);
            }
            if (nt > 2) {
              o2 = mma(ctx, ones, f2, o2, dtype);
              o3 = mma(ctx, ones, f3, o3, dtype);
            }
          }
        }
      }
      if (nv) {
        a0 = c0;
        a1 = c1;
        a2 = c2;
        a3 = c3;
        b0 = d0;
        b1 = d1;
        b2 = d2;
        b3 = d3;
      } else {
        float sA0 = groupScale(scales, fpScales, rowA0 * groups + gi, mode, dtype);
        float sB0 = groupScale(scales, fpScales, rowB0 * groups + gi, mode, dtype);
        float zA0 = affine ? biasTerm(biases, rowA0 * groups + gi, sA0, offset, dtype) : 0f;
        float zB0 = affine ? biasTerm(biases, rowB0 * groups + gi, sB0, offset, dtype) : 0f;
        a0 = fold(a0, c0, o0, sA0, zA0, sB0, zB0);
        if (nt > 1) {
          a1 = fold(a1, c1, o1, sA0, zA0, sB0, zB0);
        }
        if (nt > 2) {
          a2 = fold(a2, c2, o2, sA0, zA0, sB0, zB0);
          a3 = fold(a3, c3, o3, sA0, zA0, sB0, zB0);
        }
        if (mt > 1) {
          float sA1 = groupScale(scales, fpScales, rowA1 * groups + gi, mode, dtype);
          float sB1 = groupScale(scales, fpScales, rowB1 * groups + gi, mode, dtype);
          float zA1 = affine ? biasTerm(biases, rowA1 * groups + gi, sA1, offset, dtype) : 0f;
          float zB1 = affine ? biasTerm(biases, rowB1 * groups + gi, sB1, offset, dtype) : 0f;
          b0 = fold(b0, d0, o0, sA1, zA1, sB1, zB1);
          if (nt > 1) {
            b1 = fold(b1, d1, o1, sA1, zA1, sB1, zB1);
          }
          if (nt > 2) {
            b2 = fold(b2, d2, o2, sA1, zA1, sB1, zB1);
            b3 = fold(b3, d3, o3, sA1, zA1, sB1, zB1);
          }
        }
      }
    }

    // Split-k: warps ksI > 0 hand their totals to warp ksI == 0 through shared memory.
    int per = 4 * mt * nt; // floats per lane
    float[] red = ctx.allocateFloatLocalArray(Math.max(1, (ks - 1) * wn * 32 * 4 * mt * nt));
    if (ks > 1) {
      if (ksI > 0) {
        int base = ((ksI - 1) * wn + wnI) * per * 32 + lane;
        stash(red, base, 0, a0);
        if (nt > 1) {
          stash(red, base, 4, a1);
        }
        if (nt > 2) {
          stash(red, base, 8, a2);
          stash(red, base, 12, a3);
        }
        if (mt > 1) {
          stash(red, base, 4 * nt, b0);
          if (nt > 1) {
            stash(red, base, 4 * nt + 4, b1);
          }
          if (nt > 2) {
            stash(red, base, 4 * nt + 8, b2);
            stash(red, base, 4 * nt + 12, b3);
          }
        }
      }
      ctx.localBarrier();
      if (ksI == 0) {
        for (int s = 1; s < ks; s++) {
          int base = ((s - 1) * wn + wnI) * per * 32 + lane;
          a0 = add(a0, red, base, 0);
          if (nt > 1) {
            a1 = add(a1, red, base, 4);
          }
          if (nt > 2) {
            a2 = add(a2, red, base, 8);
            a3 = add(a3, red, base, 12);
          }
          if (mt > 1) {
            b0 = add(b0, red, base, 4 * nt);
            if (nt > 1) {
              b1 = add(b1, red, base, 4 * nt + 4);
            }
            if (nt > 2) {
              b2 = add(b2, red, base, 4 * nt + 8);
              b3 = add(b3, red, base, 4 * nt + 12);
            }
          }
        }
      }
    }
    if (ksI == 0) {
      float gfac =
          nv ? Vec.ldg(globalScale, 0) / (448f * 6f) * QmmMmaFragments.fp4Unscale(mode, dtype) : 1f;
      int fA = nBase + g;
      int r0 = mBase + 2 * t;
      store(out, a0, r0, fA, rows, n, gfac, dtype);
      if (nt > 1) {
        store(out, a1, r0 + 8, fA, rows, n, gfac, dtype);
      }
      if (nt > 2) {
        store(out, a2, r0 + 16, fA, rows, n, gfac, dtype);
        store(out, a3, r0 + 24, fA, rows, n, gfac, dtype);
      }
      if (mt > 1) {
        store(out, b0, r0, fA + 16, rows, n, gfac, dtype);
        if (nt > 1) {
          store(out, b1, r0 + 8, fA + 16, rows, n, gfac, dtype);
        }
        if (nt > 2) {
          store(out, b2, r0 + 16, fA + 16, rows, n, gfac, dtype);
          store(out, b3, r0 + 24, fA + 16, rows, n, gfac, dtype);
        }
      }
    }
  }

  // ---- pieces ----

  static Float4 mma(KernelContext ctx, Int4 a, Int2 b, Float4 c, int dtype) {
    return dtype == Quant.F16 ? ctx.mmaF16(a, b, c) : ctx.mmaBf16(a, b, c);
  }

  /** {@code wordsPerLane} consecutive words (1, 2 or 4) with one load, in the low components. */
  static Int4 loadChunk(int[] wq, int index, int wordsPerLane) {
    if (wordsPerLane == 4) {
      return Vec.ldg4(wq, index);
    }
    if (wordsPerLane == 2) {
      Int2 v = Vec.ldg2(wq, index);
      return new Int4(v.x(), v.y(), 0, 0);
    }
    return new Int4(Vec.ldg(wq, index), 0, 0, 0);
  }

  /** x values of one word's k range: 8 halves (4-bit codes) or 4 (8-bit); zeros past the rows. */
  static Int4 loadX(short[] x, int rowBase, int kw, int bits) {
    if (rowBase < 0) {
      return new Int4(0, 0, 0, 0);
    }
    if (bits == 4) {
      return Vec.ldg4(x, rowBase + kw);
    }
    Int2 v = Vec.ldg2(x, rowBase + kw);
    return new Int4(v.x(), v.y(), 0, 0);
  }

  /** nvfp4: the {@link QmmMmaFragments#fp4Multiplier} of E4M3 group scale {@code gi}. */
  static int nvMultiplier(byte[] fpScales, int gi, int dtype) {
    return QmmMmaFragments.nvMultiplier(Vec.ldg(fpScales, gi), dtype);
  }

  static float groupScale(short[] scales, byte[] fpScales, int gi, int mode, int dtype) {
    if (mode == Quant.AFFINE) {
      return QuantMath.halfToFloat(Vec.ldg(scales, gi), dtype);
    }
    return QuantMath.e8m0Decode(Vec.ldg(fpScales, gi) & 0xFF);
  }

  /** {@code bias - offset * scale}: the coefficient of the chunk's x sum. */
  static float biasTerm(short[] biases, int gi, float s, float offset, int dtype) {
    return QuantMath.halfToFloat(Vec.ldg(biases, gi), dtype) - offset * s;
  }

  /** {@code acc + s*C + z*X} for features g (x, y) and g+8 (z, w); X per row of x in o.x, o.y. */
  static Float4 fold(Float4 acc, Float4 c, Float4 o, float sA, float zA, float sB, float zB) {
    return new Float4(
        Math.fma(sA, c.x(), Math.fma(zA, o.x(), acc.x())),
        Math.fma(sA, c.y(), Math.fma(zA, o.y(), acc.y())),
        Math.fma(sB, c.z(), Math.fma(zB, o.x(), acc.z())),
        Math.fma(sB, c.w(), Math.fma(zB, o.y(), acc.w())));
  }

  static void stash(float[] red, int base, int slot, Float4 v) {
    red[base + slot * 32] = v.x();
    red[base + (slot + 1) * 32] = v.y();
    red[base + (slot + 2) * 32] = v.z();
    red[base + (slot + 3) * 32] = v.w();
  }

  static Float4 add(Float4 v, float[] red, int base, int slot) {
    return new Float4(
        v.x() + red[base + slot * 32],
        v.y() + red[base + (slot + 1) * 32],
        v.z() + red[base + (slot + 2) * 32],
        v.w() + red[base + (slot + 3) * 32]);
  }

  /** Stores a D fragment: rows r0, r0+1 of x, features f and f+8. */
  static void store(short[] out, Float4 v, int r0, int f, int rows, int n, float gfac, int dtype) {
    if (f < n) {
      if (r0 < rows) {
        out[r0 * n + f] = QuantMath.floatToHalf(v.x() * gfac, dtype);
      }
      if (r0 + 1 < rows) {
        out[(r0 + 1) * n + f] = QuantMath.floatToHalf(v.y() * gfac, dtype);
      }
    }
    if (f + 8 < n) {
      if (r0 < rows) {
        out[r0 * n + f + 8] = QuantMath.floatToHalf(v.z() * gfac, dtype);
      }
      if (r0 + 1 < rows) {
        out[(r0 + 1) * n + f + 8] = QuantMath.floatToHalf(v.w() * gfac, dtype);
      }
    }
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference}. */
  public static QmmReference.Result reference(
      int[] wq,
      float[] scales,
      float[] biases,
      byte[] fpScales,
      float globalScale,
      float[] x,
      QmmShape s) {
    return s.mode() == Quant.AFFINE
        ? QmmReference.affine(wq, scales, biases, x, s)
        : QmmReference.fp(wq, fpScales, globalScale, x, s);
  }

  /**
   * Words each lane loads per chunk: a chunk (4 lanes) stays inside one group, at most 16 bytes.
   */
  static int wordsPerLane(QmmShape s) {
    if (s.mode() == Quant.NVFP4) {
      int k = s.k();
      return k % 128 == 0 ? 4 : k % 64 == 0 ? 2 : 1;
    }
    int groupWords = s.groupSize() * s.bits() / 32;
    return Math.min(4, groupWords / 4);
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
    if (s.dtype() == Quant.F32) {
      return "bf16/f16 activations only (tensor cores); f32 uses the vector path";
    }
    if (s.mode() == Quant.AFFINE && s.bits() != 4 && s.bits() != 8) {
      return "affine bits 4 and 8 only (codes must align with 32-bit words); "
          + s.bits()
          + "-bit uses the vector path";
    }
    if (s.mode() == Quant.NVFP4 && s.k() % 32 != 0) {
      return "nvfp4 needs k to be a multiple of 32 (one mma step spans two 16-element groups), got "
          + s.k();
    }
    if ((s.rows() + 7) / 8 > 65535) {
      return "too many rows for grid.y: " + s.rows();
    }
    return null;
  }

  /**
   * Tile sizes by rows (depth 1), measured through {@code tornado bench qmm --kernel
   * qmm-mma@MTxNTxWNxKS} (or {@code @MTxNTxWNxKSxD} for a depth) on the H200 (bench/RESULTS.md, run
   * 12; n=12288, k=4096, 4-bit g64 bf16, µs p50):
   *
   * <ul>
   *   <li>1–8 rows: two 16-feature tiles per warp and 8 warps splitting k (2x1x1x8): 19.6–19.9,
   *       against 25.0–25.4 for 2x1x1x4 (the earlier choice, from the CUDA C mirror: 384 blocks of
   *       4 warps filled a third of one wave, 11 warps per SM by Nsight Compute), 22.1–22.9 for
   *       1x1x1x4 and 21.3–21.5 for 1x1x2x4.
   *   <li>9–16 rows: one tile of 16 features by 16 rows, 4 warps along k (1x2x1x4): 25.6 at 16,
   *       against 28.8 for 2x2x1x4 and 36.8 for 2x1x1x8.
   *   <li>17–32 rows: 2x4x1x4: 32.4 at 32 (1x2x1x4 47.1, 1x4x1x4 49.4).
   *   <li>More rows: 32x32 per warp and 4 warps side by side (the CUDA C mirror's best).
   * </ul>
   */
  public static LaunchPlan plan(QmmShape s) {
    int wp = wordsPerLane(s);
    int chunks = s.k() / (4 * wp * (32 / s.bits()));
    if (s.rows() <= 32) {
      int mt = s.rows() > 8 && s.rows() <= 16 ? 1 : 2;
      int nt = s.rows() <= 8 ? 1 : s.rows() <= 16 ? 2 : 4;
      int ks = s.rows() <= 8 ? 8 : 4;
      while (ks > 1 && ks > chunks) {
        ks /= 2;
      }
      return plan(s, mt, nt, 1, ks, 1);
    }
    return plan(s, 2, 4, 4, 1, 1);
  }

  /** {@link #plan(QmmShape, int, int, int, int, int)} with one chunk in flight (depth 1). */
  public static LaunchPlan plan(QmmShape s, int mt, int nt, int wn, int ks) {
    return plan(s, mt, nt, wn, ks, 1);
  }

  /**
   * An explicit tiling: {@code mt} (1, 2) 16-feature tiles and {@code nt} (1, 2, 4) 8-row tiles per
   * warp, {@code wn} warps along features and {@code ks} (power of two) along k per block, and
   * {@code depth} (1, 2, 3) chunks of weight words in flight per warp ahead of the one computed.
   */
  public static LaunchPlan plan(QmmShape s, int mt, int nt, int wn, int ks, int depth) {
    if ((mt != 1 && mt != 2) || (nt != 1 && nt != 2 && nt != 4) || wn < 1 || ks < 1) {
      throw new IllegalArgumentException(
          "mt must be 1 or 2, nt 1, 2 or 4, wn and ks positive; got mt="
              + mt
              + " nt="
              + nt
              + " wn="
              + wn
              + " ks="
              + ks);
    }
    if (depth < 1 || depth > 3) {
      throw new IllegalArgumentException("depth must be 1, 2 or 3; got " + depth);
    }
    if (32 * wn * ks > 1024) {
      throw new IllegalArgumentException("block of " + 32 * wn * ks + " threads exceeds 1024");
    }
    int features = 16 * mt * wn;
    Dim3 grid = Dim3.of((s.n() + features - 1) / features, (s.rows() + 8 * nt - 1) / (8 * nt));
    int shared = ks > 1 ? (ks - 1) * wn * 32 * 4 * mt * nt * 4 : 4;
    return LaunchPlan.of(
        "QmmMmaKernel.qmm",
        grid,
        Dim3.of(32 * wn * ks),
        shared,
        "mode",
        s.mode(),
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "mt",
        mt,
        "nt",
        nt,
        "wn",
        wn,
        "ks",
        ks,
        "wordsPerLane",
        wordsPerLane(s),
        "depth",
        depth);
  }
}
