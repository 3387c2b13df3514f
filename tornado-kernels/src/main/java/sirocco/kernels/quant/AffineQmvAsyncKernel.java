package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Variant D of the affine vector path ("qmv-async"): the mapping of {@link AffineQmvSplitKKernel}
 * (thread t owns 16-byte chunk t of every weight row, its x chunk in registers for the whole
 * kernel, a persistent grid walking batches of {@code fb} features, one barrier per batch) with the
 * weights, scales and biases of the next {@code stages - 1} batches in flight as <b>asynchronous
 * copies into shared memory</b> ({@link Vec#copyAsync}) instead of in registers.
 *
 * <h2>Why</h2>
 *
 * The split-K kernel is latency-bound per warp (run 12/26 profiles: DRAM 40–44%, 15.5 warps per SM,
 * long-scoreboard and barrier stalls): its loads in flight live in registers (16 for the weights of
 * the next batch, 8 for scales and biases), so it can keep only one batch ahead and runs 5 blocks
 * per SM at 88–96 registers. An asynchronous copy holds no register while in flight: here every
 * thread keeps {@code stages - 1} batches (at {@code fb = 4}, 3 stages: 2 × 4 × 16 B of weights,
 * 128 B per thread, 16 KiB per block of 4 warps) requested while it computes one, and the registers
 * left are x (32 at 4 bits), its sum and addresses.
 *
 * <h2>Shared memory and synchronisation</h2>
 *
 * Each thread copies exactly the bytes it consumes (its weight chunk of each feature, and the
 * aligned 4-byte pair of scales and of biases holding its group's), into slots of its own, so no
 * barrier is needed for the data: a thread's {@code waitAsync} makes its own copies visible to it.
 * Slot {@code (s, j, t)} of stage s, feature j, thread t: weights at int {@code 4·((s·fb + j)·T +
 * t)}, scale and bias pairs at short {@code 2·((s·fb + j)·T + t)} ({@code T} = threads). A stage is
 * refilled only after this thread consumed it (program order of one thread), so no barrier is
 * needed for reuse either. The one barrier per batch is the cross-warp reduction's, as in the
 * split-K kernel. Every iteration commits exactly one group (empty past the last batch) so that
 * {@code waitAsync(stages - 1)} always means "the group of the batch about to be consumed is
 * complete".
 *
 * <h2>Cost at n = 12288, k = 4096, 4-bit g64 bf16, 1 row</h2>
 *
 * Bytes as the split-K kernel (weights, scales, biases once; x once per block from L2). Shared
 * memory: {@code stages · fb · T · 24} bytes (36 KiB at 3 stages, 4 features, 128 threads);
 * shared-memory traffic 24 bytes written and read per thread per feature (≈ 60 MB per call over 132
 * SMs: ≈ 1.8 µs of the 128 B/clock shared pipe, overlapped). Predicted 10–11 µs if the in-flight
 * bytes were the limit; not faster than split-K (14.0) if instruction issue or the per-batch
 * barrier is.
 *
 * <p><b>Measured</b> (run 29, H200): 13.75 µs at 3 blocks per SM (split-K in the same run 16.72,
 * p10 14.88; 14.0 in run 26), 15.27 at the 6 that fit; 64 registers, 37 KiB of shared memory. The
 * in-flight bytes were not the whole limit: Nsight at 6 blocks per SM shows DRAM at 39%, 7.44 M
 * instructions (4.7 per code), stall cycles per issued instruction not-selected 1.53, long
 * scoreboard 1.40, selected 1.00, math pipe 0.85 — issue-bound now. 8-bit (fb = 2 to fit 48 KiB
 * with 8 warps) is slower than split-K: 20.87 against 17.79 µs.
 */
public final class AffineQmvAsyncKernel {
  private AffineQmvAsyncKernel() {}

  /** Features per batch. */
  public static final int FB = 4;

  /** Batches in shared memory (one consumed, the rest in flight). */
  public static final int STAGES = 3;

  /** Largest static shared-memory block the JIT allocates (48 KiB). */
  static final int SHARED_LIMIT = 48 * 1024;

  /**
   * Registers per thread the plan assumes to size its grid (a multiple of 8 at or above what ptxas
   * reports for the validated sets; see {@code HintedVariantsPtxTest} and the README).
   */
  static final int REGISTERS = 72;

  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,warps=4,fb=4,stages=3",
        "bits=4,groupSize=64,dtype=1,warps=4,fb=4,stages=3",
        "bits=8,groupSize=64,dtype=0,warps=8,fb=2,stages=3",
        "bits=4,groupSize=128,dtype=0,warps=4,fb=2,stages=4"
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
      @Specialize int warps,
      @Specialize int fb,
      @Specialize int stages) {
    int threads = 32 * warps;
    int[] wsh = ctx.allocateIntLocalArray(4 * stages * fb * threads); // [stages, fb, T] int4
    short[] ssh = ctx.allocateShortLocalArray(2 * stages * fb * threads); // [stages, fb, T] pair
    short[] bsh = ctx.allocateShortLocalArray(2 * stages * fb * threads); // [stages, fb, T] pair
    float[] red = ctx.allocateFloatLocalArray(2 * warps * fb); // [2, warps, fb] double buffer
    int e = QmvChunks.elems(bits);
    int tid = ctx.localIdx;
    int row = ctx.groupIdy;
    int chunks = k / e;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    int one = QmvChunks.opaqueOne(n);
    boolean valid = tid < chunks;
    int c = Math.min(tid, chunks - 1); // this thread's chunk (clamped for loading)
    int gi = c >> QmvChunks.log2(groupSize / e);
    int batches = (n + fb - 1) / fb;
    int step = ctx.groupCountX;

    // The first stages - 1 batches, before x.
    int cw = 4 * c; // this thread's chunk: first word within a row
    int half = gi & 1; // its group's scale within the copied pair (groups is even)
    int bt = ctx.groupIdx;
    for (int s = 0; s < stages - 1; s++) {
      request(
          wq,
          scales,
          biases,
          wsh,
          ssh,
          bsh,
          bt + s * step,
          s,
          batches,
          n,
          fb,
          threads,
          tid,
          cw,
          gi,
          wpr,
          groups);
      Vec.commitAsync();
    }

    // This thread's x chunk, in registers for the whole kernel (zeros for threads past k).
    int xb = row * k + c * e;
    Float4 zf = new Float4(0f, 0f, 0f, 0f);
    Int4 p0 = Vec.ldg4(x, xb);
    Int4 p1 = Vec.ldg4(x, xb + 8);
    Float4 x0 = QmvChunks.lo4(p0, dtype);
    Float4 x1 = QmvChunks.hi4(p0, dtype);
    Float4 x2 = QmvChunks.lo4(p1, dtype);
    Float4 x3 = QmvChunks.hi4(p1, dtype);
    Float4 x4 = zf;
    Float4 x5 = zf;
    Float4 x6 = zf;
    Float4 x7 = zf;
    if (bits == 4) {
      Int4 p2 = Vec.ldg4(x, xb + 16);
      Int4 p3 = Vec.ldg4(x, xb + 24);
      x4 = QmvChunks.lo4(p2, dtype);
      x5 = QmvChunks.hi4(p2, dtype);
      x6 = QmvChunks.lo4(p3, dtype);
      x7 = QmvChunks.hi4(p3, dtype);
    }
    float xs =
        ((AffineQmvSplitKKernel.sum4(x0) + AffineQmvSplitKKernel.sum4(x1))
                + (AffineQmvSplitKKernel.sum4(x2) + AffineQmvSplitKKernel.sum4(x3)))
            + ((AffineQmvSplitKKernel.sum4(x4) + AffineQmvSplitKKernel.sum4(x5))
                + (AffineQmvSplitKKernel.sum4(x6) + AffineQmvSplitKKernel.sum4(x7)));
    if (!valid) {
      x0 = zf;
      x1 = zf;
      x2 = zf;
      x3 = zf;
      x4 = zf;
      x5 = zf;
      x6 = zf;
      x7 = zf;
      xs = 0f;
    }

    int buf = 0;
    int slot = 0; // the stage holding batch bt
    while (bt < batches) {
      // Refill the stage consumed last iteration with the batch stages - 1 ahead; one group per
      // iteration, empty past the end, so that the wait below always covers batch bt.
      int refill = slot == 0 ? stages - 1 : slot - 1;
      request(
          wq,
          scales,
          biases,
          wsh,
          ssh,
          bsh,
          bt + (stages - 1) * step,
          refill,
          batches,
          n,
          fb,
          threads,
          tid,
          cw,
          gi,
          wpr,
          groups);
      Vec.commitAsync();
      Vec.waitAsync(stages - 1);

      int at = slot * fb * threads + tid; // slot (slot, 0, tid)
      float q0 =
          consume(wsh, ssh, bsh, at, half, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
      float q1 = 0f;
      float q2 = 0f;
      float q3 = 0f;
      if (fb > 1) {
        q1 =
            consume(
                wsh,
                ssh,
                bsh,
                at + threads,
                half,
                x0,
                x1,
                x2,
                x3,
                x4,
                x5,
                x6,
                x7,
                xs,
                bits,
                one,
                dtype);
      }
      if (fb > 2) {
        q2 =
            consume(
                wsh,
                ssh,
                bsh,
                at + 2 * threads,
                half,
                x0,
                x1,
                x2,
                x3,
                x4,
                x5,
                x6,
                x7,
                xs,
                bits,
                one,
                dtype);
        q3 =
            consume(
                wsh,
                ssh,
                bsh,
                at + 3 * threads,
                half,
                x0,
                x1,
                x2,
                x3,
                x4,
                x5,
                x6,
                x7,
                xs,
                bits,
                one,
                dtype);
      }
      AffineQmvSplitKKernel.reduceAndStore(
          ctx, red, buf, q0, q1, q2, q3, out, row, n, bt, fb, warps, dtype);
      // The other half of the slab is next; its last readers finished before this barrier.
      buf = warps * fb - buf;
      slot = slot == stages - 1 ? 0 : slot + 1;
      bt += step;
    }
    Vec.waitAsync(0); // nothing may be in flight into shared memory when the block exits
  }

  /**
   * Issues this thread's copies of batch {@code batch} into stage {@code stage}: for each of the
   * batch's {@code fb} features (clamped to the last), its 16-byte weight chunk and the aligned
   * pairs of scales and biases holding its group's. Nothing past the last batch.
   */
  static void request(
      int[] wq, // [n, wpr] packed u32
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      int[] wsh, // [stages, fb, T] int4 (shared)
      short[] ssh, // [stages, fb, T] pair (shared)
      short[] bsh, // [stages, fb, T] pair (shared)
      int batch,
      int stage,
      int batches,
      int n,
      int fb,
      int threads,
      int tid,
      int cw,
      int gi,
      int wpr,
      int groups) {
    if (batch < batches) {
      for (int j = 0; j < fb; j++) {
        int f = Math.min(batch * fb + j, n - 1);
        int at = (stage * fb + j) * threads + tid;
        Vec.copyAsync(wsh, 4 * at, wq, f * wpr + cw, 16);
        int pair = (f * groups + gi) & ~1;
        Vec.copyAsync(ssh, 2 * at, scales, pair, 4);
        Vec.copyAsync(bsh, 2 * at, biases, pair, 4);
      }
    }
  }

  /**
   * One feature's partial sum from its stage slot {@code at}: see {@link
   * AffineQmvSplitKKernel#partial}.
   */
  static float consume(
      int[] wsh, // [stages, fb, T] int4 (shared)
      short[] ssh, // [stages, fb, T] pair (shared)
      short[] bsh, // [stages, fb, T] pair (shared)
      int at,
      int half,
      Float4 x0,
      Float4 x1,
      Float4 x2,
      Float4 x3,
      Float4 x4,
      Float4 x5,
      Float4 x6,
      Float4 x7,
      float xs,
      int bits,
      int one,
      int dtype) {
    Int4 w = Vec.load4(wsh, 4 * at);
    short sc = ssh[2 * at + half];
    short bi = bsh[2 * at + half];
    return AffineQmvSplitKKernel.partial(
        w, sc, bi, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Shared bytes of a block: the stages, the reduction slab. */
  static int sharedBytes(int warps, int fb, int stages) {
    int threads = 32 * warps;
    return stages * fb * threads * (16 + 4 + 4) + 2 * warps * fb * 4;
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = AffineQmvSplitKKernel.supports(s);
    if (bad != null) {
      return bad;
    }
    if ((s.k() / s.groupSize()) % 2 != 0) {
      return "k/groupSize must be even (scales and biases are copied in aligned pairs), got "
          + s.k() / s.groupSize();
    }
    int w = AffineQmvSplitKKernel.warps(s);
    if (sharedBytes(w, 1, 2) > SHARED_LIMIT) {
      return "k too large: two stages of one feature need "
          + sharedBytes(w, 1, 2)
          + " bytes of shared memory, more than "
          + SHARED_LIMIT;
    }
    return null;
  }

  /**
   * Features per batch and stages for {@code s}: {@link #FB} and {@link #STAGES} where they fit
   * {@link #SHARED_LIMIT}, else fewer features (4, 2, 1) with at least two stages.
   */
  static int[] batching(QmmShape s) {
    int w = AffineQmvSplitKKernel.warps(s);
    for (int fb = FB; fb >= 1; fb /= 2) {
      for (int st = STAGES; st >= 2; st--) {
        if (sharedBytes(w, fb, st) <= SHARED_LIMIT) {
          return new int[] {fb, st};
        }
      }
    }
    throw new IllegalArgumentException("unsupported shape " + s + ": " + supports(s));
  }

  /**
   * Blocks the default plan launches per SM: {@link #PLANNED_BLOCKS_PER_SM}, or fewer where fewer
   * fit (registers at {@link #REGISTERS}, shared memory).
   */
  static int blocksPerSm(int warps, int fb, int stages) {
    int byRegs = AffineQmvSplitKKernel.residentBlocks(REGISTERS, warps);
    int byShared = (228 * 1024) / (sharedBytes(warps, fb, stages) + 1024);
    return Math.max(1, Math.min(PLANNED_BLOCKS_PER_SM, Math.min(byRegs, byShared)));
  }

  /**
   * Blocks per SM of the default plan. Measured (run 29, 12288×4096 4-bit g64 bf16, 1 row, 4-warp
   * blocks, 4 features, 3 stages): 1 per SM 18.43 µs, 2: 14.29, 3: 13.75, 4: 14.02, 6 (all that
   * fit): 15.27; more resident blocks than 3 add barrier and issue contention, not bandwidth.
   */
  static final int PLANNED_BLOCKS_PER_SM = 3;

  /**
   * One wave of persistent blocks (see {@link AffineQmvSplitKKernel#plan(QmmShape, int, int,
   * int)}).
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    int[] b = batching(s);
    int w = AffineQmvSplitKKernel.warps(s);
    int batches = (s.n() + b[0] - 1) / b[0];
    int blocks = Math.min(Math.max(1, smCount) * blocksPerSm(w, b[0], b[1]), batches);
    int per = (batches + blocks - 1) / blocks;
    blocks = (batches + per - 1) / per;
    return plan(s, blocks, b[0], b[1]);
  }

  /**
   * An explicit plan: {@code blocks} persistent blocks, {@code fb} (1, 2, 4), {@code stages} ≥ 2.
   */
  public static LaunchPlan plan(QmmShape s, int blocks, int fb, int stages) {
    if (fb != 1 && fb != 2 && fb != 4) {
      throw new IllegalArgumentException("fb must be 1, 2 or 4, got " + fb);
    }
    int w = AffineQmvSplitKKernel.warps(s);
    if (stages < 2 || sharedBytes(w, fb, stages) > SHARED_LIMIT) {
      throw new IllegalArgumentException(
          "stages must be >= 2 with "
              + fb
              + " features of "
              + w
              + " warps fitting "
              + SHARED_LIMIT
              + " bytes of shared memory, got "
              + stages);
    }
    return LaunchPlan.of(
        "AffineQmvAsyncKernel.qmv",
        Dim3.of(Math.max(1, blocks), s.rows()),
        Dim3.of(32 * w),
        sharedBytes(w, fb, stages),
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "warps",
        w,
        "fb",
        fb,
        "stages",
        stages);
  }
}
