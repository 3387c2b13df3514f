package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Variant A of the affine vector path ("qmv-warp"): <b>one warp per output feature, every weight
 * load of a lane issued before any use, x staged once per block in shared memory as float32</b>.
 * Affine 2/4/8-bit, bf16/f16, transposed weights, 1–4 rows of x sharing each weight read.
 *
 * <h2>Mapping</h2>
 *
 * Grid ({@code ⌈m/rows⌉}, {@code ⌈n/warps⌉}): the row blocks are the fastest axis, so blocks that
 * read the same weights for different rows run side by side (L2 hits). A block is {@code warps}
 * warps, warp w owns feature {@code blockIdx.y * warps + w}. k is walked in <em>tiles</em> of
 * {@code 32 * cpl} chunks (a chunk = 16 bytes of a weight row = {@code E = 128/bits} codes, see
 * {@link QmvChunks}); for the measured shape (4-bit, k = 4096, cpl = 4) a row is exactly one tile.
 * Per tile:
 *
 * <ol>
 *   <li>lane l issues its {@code cpl} 16-byte weight loads (chunks {@code l, l+32, l+64, l+96}:
 *       each warp instruction reads 512 contiguous bytes) and its {@code cpl} scale and bias loads
 *       — all before the barrier, so they are in flight while x is staged;
 *   <li>the block stages the tile's x ({@code rows × 32·cpl} chunks, one task per thread): 16-byte
 *       bf16/f16 loads (L2/L1 hits after the first block), converted once to float32, stored in the
 *       padded layout (conflict-free 16-byte reads), plus each chunk's float sum;
 *   <li>after the barrier each lane computes {@code d = Σ(1+q/2^b)·x} per chunk and row (codes
 *       extracted once for all rows: 2 integer ops per code + 1 FFMA per row), folds scale/bias
 *       with the chunk sum.
 * </ol>
 *
 * Then a 5-step shuffle reduction per row, lane 0 stores. Chunks past k (k not a multiple of the
 * tile) are loaded clamped (same cache lines) and skipped; features past n are clamped for loading
 * and never stored; rows past m compute on stale x and are never stored.
 *
 * <h2>Cost at n = 12288, k = 4096, 4-bit g64 bf16, 1 row (H200, 132 SMs)</h2>
 *
 * <ul>
 *   <li>Bytes: 25.2 MB weights + 3.1 MB scales/biases from DRAM once; x (8 KiB) once per block from
 *       L2 (1536 blocks of 8 features: 12.6 MB of L2 reads, ≈45% on top of the DRAM stream; {@code
 *       warps = 16} halves it).
 *   <li>Loads in flight: 4 × 16 B weights + 8 × 2 B scale/bias per lane = 2 KiB + 512 B per warp
 *       from the start of the block. <b>Registers: 56</b> (ptxas 12.0 sm_90 and sm_80; ptxas 13.0
 *       sm_90: 56), 19,456 B shared per block → 4 blocks (32 warps) per SM, by registers: up to 64
 *       KiB of weight loads in flight per SM (≥ 21 KiB needed at 3.5 TB/s × ~800 ns). The brief's ≤
 *       40 registers is not reachable without a register cap ({@code .maxnreg} / {@code
 *       .minnctapersm}, which the JIT does not emit): 4 chunks + their scales/biases are 24
 *       registers, and ptxas hoists the shared-memory x loads.
 *   <li>Instructions (SASS, ptxas 13.0, measured as the difference between cpl 2 and 4): ≈ 124 per
 *       chunk of 32 codes = <b>3.9 per weight element</b>: per code IMAD.SHL or SHF + one LOP3 +
 *       FFMA (with the literal 1.0f ptxas used two LOP3s per code, see {@link
 *       QmvChunks#opaqueOne}), plus 8 LDS.128, the fold and the three loads per chunk. At 1 row
 *       that is ≈ 5.8 µs of pure issue over 132 SMs.
 *   <li>Shared-memory bandwidth: 4 bytes of x per code (8 LDS.128 of 512 B per warp-chunk): ≈ 6.4
 *       µs of the SMs' 128 B/clk at 1 row — as close to the 8 µs memory floor as the issue time. A,
 *       like C, needs memory, issue and the shared pipe all ≈ 75–80% busy to reach 8 µs.
 *   <li><b>Predicted at 1 row: 11–12.5 µs</b> (floor 8.0; today 19.8). Falsified if ≥ 14 µs: then
 *       the per-block serial chain (stage x → barrier → wait for weights → compute → exit) is not
 *       hidden by 4 co-resident blocks and C should be clearly faster; if C is not faster either,
 *       the loss is issue/shared-pipe overlap (check {@code smsp__inst_executed} and the MIO
 *       throttle stall reason).
 *   <li>Rows &gt; 1 (cpl 4 for 2 rows, 2 for 3–4 rows at 4 bits): codes are extracted once, but
 *       each row needs its own x from shared memory (4 B per code and row) and its own FFMA: SASS
 *       per chunk 136 / 176 / 224 / 272 at 1 / 2 / 3 / 4 rows. The shared pipe then binds: ≈ 12.8
 *       µs at 2 rows and ≈ 25.6 µs at 4 rows. <b>Predicted: 13–15 µs at 2 rows, 26–29 µs at 4
 *       rows</b> (no better than {@code QmmMmaKernel}'s 25 µs: use tensor cores from 3 rows).
 *       Falsified if 4 rows runs below 20 µs (then the shared pipe is faster than 128 B/clk for
 *       this pattern and the 1-row predictions of A/C are pessimistic).
 * </ul>
 */
public final class AffineQmvWarpKernel {
  private AffineQmvWarpKernel() {}

  /** bf16/f16 activations, scales, biases and output. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,rows=1,cpl=4,warps=8",
        "bits=4,groupSize=64,dtype=0,rows=1,cpl=4,warps=16",
        "bits=8,groupSize=64,dtype=0,rows=1,cpl=4,warps=8",
        "bits=4,groupSize=64,dtype=0,rows=2,cpl=4,warps=8",
        "bits=4,groupSize=64,dtype=0,rows=4,cpl=2,warps=8",
        "bits=8,groupSize=32,dtype=1,rows=4,cpl=4,warps=8",
        "bits=2,groupSize=128,dtype=1,rows=1,cpl=4,warps=8"
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
      @Specialize int rows,
      @Specialize int cpl,
      @Specialize int warps) {
    int e = QmvChunks.elems(bits);
    int cs = QmvChunks.stride(bits);
    int tileChunks = 32 * cpl;
    int rowStride = tileChunks * cs; // floats per row of the staged tile
    float[] xsh = ctx.allocateFloatLocalArray(rows * 32 * cpl * (128 / bits + 4));
    float[] xpart = ctx.allocateFloatLocalArray(rows * 32 * cpl * (8 / bits));
    int ppc = 8 / bits;

    int lane = ctx.laneId();
    int tid = ctx.localIdx;
    int f = ctx.groupIdy * warps + ctx.warpId();
    int fl = Math.min(f, n - 1);
    int m0 = ctx.groupIdx * rows;
    int chunks = k / e;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    int wrow = fl * wpr;
    int srow = fl * groups;
    int xoff = lane * cs;
    int one = QmvChunks.opaqueOne(n);

    float acc0 = 0f;
    float acc1 = 0f;
    float acc2 = 0f;
    float acc3 = 0f;
    Int4 zi = new Int4(0, 0, 0, 0);
    for (int t0 = 0; t0 < chunks; t0 += tileChunks) {
      // 1. This lane's weights, scales and biases for the tile, all issued before the barrier.
      int c0 = t0 + lane;
      int c1 = c0 + 32;
      int c2 = c0 + 64;
      int c3 = c0 + 96;
      int l0 = Math.min(c0, chunks - 1);
      int l1 = Math.min(c1, chunks - 1);
      int l2 = Math.min(c2, chunks - 1);
      int l3 = Math.min(c3, chunks - 1);
      Int4 w0 = Vec.ldg4(wq, wrow + 4 * l0);
      short s0 = Vec.ldg(scales, srow + ((l0 * e) >> QmvChunks.log2(groupSize)));
      short b0 = Vec.ldg(biases, srow + ((l0 * e) >> QmvChunks.log2(groupSize)));
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
        w1 = Vec.ldg4(wq, wrow + 4 * l1);
        s1 = Vec.ldg(scales, srow + ((l1 * e) >> QmvChunks.log2(groupSize)));
        b1 = Vec.ldg(biases, srow + ((l1 * e) >> QmvChunks.log2(groupSize)));
      }
      if (cpl > 2) {
        w2 = Vec.ldg4(wq, wrow + 4 * l2);
        w3 = Vec.ldg4(wq, wrow + 4 * l3);
        s2 = Vec.ldg(scales, srow + ((l2 * e) >> QmvChunks.log2(groupSize)));
        b2 = Vec.ldg(biases, srow + ((l2 * e) >> QmvChunks.log2(groupSize)));
        s3 = Vec.ldg(scales, srow + ((l3 * e) >> QmvChunks.log2(groupSize)));
        b3 = Vec.ldg(biases, srow + ((l3 * e) >> QmvChunks.log2(groupSize)));
      }

      // 2. Stage the tile's x (rows × tileChunks chunks), converted once, with chunk sums.
      if (t0 > 0) {
        ctx.localBarrier(); // every warp is done reading the previous tile
      }
      QmvChunks.stageTile(
          x,
          xsh,
          xpart,
          tid,
          32 * warps,
          m0,
          m,
          k,
          t0,
          chunks,
          tileChunks,
          rowStride,
          bits,
          rows,
          dtype);
      ctx.localBarrier();

      // 3. Dot products, one chunk at a time, all rows at once.
      Float4 zf = new Float4(0f, 0f, 0f, 0f);
      if (c0 < chunks) {
        Float4 d = QmvChunks.dotChunk(w0, xsh, xoff, rowStride, bits, one, rows, zf);
        float sc = QuantMath.halfToFloat(s0, dtype);
        float bi = QuantMath.halfToFloat(b0, dtype);
        acc0 =
            QmvChunks.fold(
                acc0, d.x(), QmvChunks.chunkSum(xpart, (lane) * ppc, bits), sc, bi, bits);
        if (rows > 1) {
          acc1 =
              QmvChunks.fold(
                  acc1,
                  d.y(),
                  QmvChunks.chunkSum(xpart, (tileChunks + lane) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 2) {
          acc2 =
              QmvChunks.fold(
                  acc2,
                  d.z(),
                  QmvChunks.chunkSum(xpart, (2 * tileChunks + lane) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 3) {
          acc3 =
              QmvChunks.fold(
                  acc3,
                  d.w(),
                  QmvChunks.chunkSum(xpart, (3 * tileChunks + lane) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
      }
      if (cpl > 1 && c1 < chunks) {
        Float4 d = QmvChunks.dotChunk(w1, xsh, xoff + 32 * cs, rowStride, bits, one, rows, zf);
        float sc = QuantMath.halfToFloat(s1, dtype);
        float bi = QuantMath.halfToFloat(b1, dtype);
        acc0 =
            QmvChunks.fold(
                acc0, d.x(), QmvChunks.chunkSum(xpart, (lane + 32) * ppc, bits), sc, bi, bits);
        if (rows > 1) {
          acc1 =
              QmvChunks.fold(
                  acc1,
                  d.y(),
                  QmvChunks.chunkSum(xpart, (tileChunks + lane + 32) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 2) {
          acc2 =
              QmvChunks.fold(
                  acc2,
                  d.z(),
                  QmvChunks.chunkSum(xpart, (2 * tileChunks + lane + 32) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 3) {
          acc3 =
              QmvChunks.fold(
                  acc3,
                  d.w(),
                  QmvChunks.chunkSum(xpart, (3 * tileChunks + lane + 32) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
      }
      if (cpl > 2 && c2 < chunks) {
        Float4 d = QmvChunks.dotChunk(w2, xsh, xoff + 64 * cs, rowStride, bits, one, rows, zf);
        float sc = QuantMath.halfToFloat(s2, dtype);
        float bi = QuantMath.halfToFloat(b2, dtype);
        acc0 =
            QmvChunks.fold(
                acc0, d.x(), QmvChunks.chunkSum(xpart, (lane + 64) * ppc, bits), sc, bi, bits);
        if (rows > 1) {
          acc1 =
              QmvChunks.fold(
                  acc1,
                  d.y(),
                  QmvChunks.chunkSum(xpart, (tileChunks + lane + 64) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 2) {
          acc2 =
              QmvChunks.fold(
                  acc2,
                  d.z(),
                  QmvChunks.chunkSum(xpart, (2 * tileChunks + lane + 64) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 3) {
          acc3 =
              QmvChunks.fold(
                  acc3,
                  d.w(),
                  QmvChunks.chunkSum(xpart, (3 * tileChunks + lane + 64) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
      }
      if (cpl > 2 && c3 < chunks) {
        Float4 d = QmvChunks.dotChunk(w3, xsh, xoff + 96 * cs, rowStride, bits, one, rows, zf);
        float sc = QuantMath.halfToFloat(s3, dtype);
        float bi = QuantMath.halfToFloat(b3, dtype);
        acc0 =
            QmvChunks.fold(
                acc0, d.x(), QmvChunks.chunkSum(xpart, (lane + 96) * ppc, bits), sc, bi, bits);
        if (rows > 1) {
          acc1 =
              QmvChunks.fold(
                  acc1,
                  d.y(),
                  QmvChunks.chunkSum(xpart, (tileChunks + lane + 96) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 2) {
          acc2 =
              QmvChunks.fold(
                  acc2,
                  d.z(),
                  QmvChunks.chunkSum(xpart, (2 * tileChunks + lane + 96) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
        if (rows > 3) {
          acc3 =
              QmvChunks.fold(
                  acc3,
                  d.w(),
                  QmvChunks.chunkSum(xpart, (3 * tileChunks + lane + 96) * ppc, bits),
                  sc,
                  bi,
                  bits);
        }
      }
    }

    acc0 = QmvChunks.warpSum(ctx, acc0);
    if (rows > 1) {
      acc1 = QmvChunks.warpSum(ctx, acc1);
    }
    if (rows > 2) {
      acc2 = QmvChunks.warpSum(ctx, acc2);
    }
    if (rows > 3) {
      acc3 = QmvChunks.warpSum(ctx, acc3);
    }
    if (lane == 0 && f < n) {
      if (m0 < m) {
        out[m0 * n + f] = QuantMath.floatToHalf(acc0, dtype);
      }
      if (rows > 1 && m0 + 1 < m) {
        out[(m0 + 1) * n + f] = QuantMath.floatToHalf(acc1, dtype);
      }
      if (rows > 2 && m0 + 2 < m) {
        out[(m0 + 2) * n + f] = QuantMath.floatToHalf(acc2, dtype);
      }
      if (rows > 3 && m0 + 3 < m) {
        out[(m0 + 3) * n + f] = QuantMath.floatToHalf(acc3, dtype);
      }
    }
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = QmvChunks.basicRejection(s);
    if (bad != null) {
      return bad;
    }
    if ((s.n() + 7) / 8 > 65535) {
      return "n too large for grid.y (at most 65535 blocks of 8 features), got " + s.n();
    }
    return null;
  }

  /** Rows of x sharing one block (1–4): all of them up to 4, then 4 per block. */
  static int rowsPerBlock(QmmShape s) {
    return Math.min(4, s.rows());
  }

  /**
   * Chunks per lane per tile: the largest of 4, 2, 1 whose staged x ({@code rows × 32·cpl} chunks
   * of {@code E+4} floats) fits 44 KiB of static shared memory.
   */
  static int chunksPerLane(int bits, int rows) {
    int cpl = 4;
    while (cpl > 1 && sharedBytes(bits, rows, cpl) > 44 * 1024) {
      cpl /= 2;
    }
    return cpl;
  }

  /** Static shared memory of one block: the staged x tile and its 16-element partial sums. */
  static int sharedBytes(int bits, int rows, int cpl) {
    return rows * 32 * cpl * (QmvChunks.stride(bits) + 8 / bits) * 4;
  }

  /**
   * The plan: 8 warps (features) per block, up to 4 rows per block, {@link #chunksPerLane}. The SM
   * count is not needed (a non-persistent grid: {@code ⌈n/8⌉ · ⌈m/4⌉} blocks); it is taken for the
   * uniform ladder signature.
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    return plan(s, rowsPerBlock(s), 8);
  }

  /** An explicit plan: {@code rows} (1–4) rows of x per block, {@code warps} (4, 8, 16) warps. */
  public static LaunchPlan plan(QmmShape s, int rows, int warps) {
    if (rows < 1 || rows > 4 || (warps != 4 && warps != 8 && warps != 16)) {
      throw new IllegalArgumentException(
          "rows must be 1–4 and warps 4, 8 or 16; got rows=" + rows + " warps=" + warps);
    }
    int cpl = chunksPerLane(s.bits(), rows);
    int shared = sharedBytes(s.bits(), rows, cpl);
    Dim3 grid = Dim3.of((s.rows() + rows - 1) / rows, (s.n() + warps - 1) / warps);
    return LaunchPlan.of(
        "AffineQmvWarpKernel.qmv",
        grid,
        Dim3.of(32 * warps),
        shared,
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "rows",
        rows,
        "cpl",
        cpl,
        "warps",
        warps);
  }
}
