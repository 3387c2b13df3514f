package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Variant B of the affine vector path ("qmv-splitk"): <b>k split across the whole block, x held in
 * registers for the whole kernel, features streamed in batches through a persistent grid</b>.
 * Affine 4/8-bit, bf16/f16, transposed weights, x rows one per grid.y slice.
 *
 * <h2>Mapping</h2>
 *
 * Thread t of a block owns chunk t of every weight row (16 bytes = {@code E = 128/bits} codes; the
 * block has {@code warps = ⌈k/E/32⌉} warps: 4 at k = 4096 4-bit, 8 at 8-bit). It loads its {@code
 * E} x values once, converts them to float32 and sums them — they stay in registers (32 at 4 bits)
 * — and so does its group index. The grid is persistent: block b walks batches {@code b, b +
 * blocks, …} of {@code fb} consecutive features; for each batch every thread issues one 16-byte
 * load per feature (a warp reads 512 contiguous bytes of a row), and the block as a whole reads
 * each feature's row exactly once.
 *
 * <p>Per batch a thread computes {@code fb} partial sums (one chunk each, scale/bias folded with
 * its chunk sum), then:
 *
 * <ol>
 *   <li>a <em>transposed</em> warp reduction: at {@code fb = 4}, lanes exchange halves of their
 *       partials (xor 16: two values, xor 8: one) and finish with three butterflies, so 6 shuffles
 *       reduce 4 features (instead of 20) and lane l ends with feature {@code (l >> 3) & 3};
 *   <li>one value per (warp, feature) into a double-buffered shared slab, <b>one barrier</b>, and
 *       threads {@code t < fb} add the warps' values and store.
 * </ol>
 *
 * Rotating prefetch as in {@link AffineQmvPersistentKernel}: right after feature j's chunk has been
 * consumed, its register receives feature j of the next batch, so the next batch's loads are in
 * flight during the reduction and the barrier.
 *
 * <h2>Cost at n = 12288, k = 4096, 4-bit g64 bf16, 1 row (H200, 132 SMs)</h2>
 *
 * <ul>
 *   <li>Bytes: weights/scales/biases once; x once per block (8 KiB, ≈ 7 blocks per SM: 7.6 MB of L2
 *       reads).
 *   <li>No shared-memory traffic for x at all (A and C read 4 bytes of shared memory per code: ≈
 *       6.4 µs of the shared pipe at 1 row, close to the 8 µs memory floor) and no x load
 *       instructions per code. The instruction count did not come out lower than A's, though: SASS
 *       (ptxas 13.0) grows by 152 instructions per extra feature from fb = 2 to 4 (≈ 4.7 per code,
 *       against ≈ 3.9 for A's chunk; the difference includes that feature's prologue loads and
 *       reduction step, and ~37 register moves ptxas adds for the rotating registers at 95
 *       registers).
 *   <li>Loads in flight: {@code fb} = 4 × 16 B per thread, always (rotating). <b>Registers: 95</b>
 *       at 4 bits (ptxas 12.0 sm_90; 82 on sm_80; ptxas 13.0 sm_90: 88), 72 at 8 bits: x in
 *       registers costs 33 of them, so 5 blocks of 4 warps per SM (20 warps, 40 KiB of weight loads
 *       in flight: still ≈ 2× what Little's law asks for). 615 blocks of 5 batches each. (f16, and
 *       bf16 with groups of 32: the plan asks for 6 blocks per SM, 80 registers; see {@link
 *       #minBlocksPerSm}.)
 *   <li>Per batch of 4 features: 6 shuffles, ~8 selects, 1 barrier per block: ≈ 0.2 instructions
 *       per code, but a barrier every 4 features couples the 4 warps of a block (a slow warp stalls
 *       the others).
 *   <li><b>Predicted: 10–12 µs.</b> Falsified (the barrier coupling, the moves or the lower warp
 *       count dominate) if it is slower than C by more than 1 µs; if it beats C, the shared-memory
 *       x traffic of A/C was the binding limit, and cutting B's register moves (or a rows &gt; 1
 *       form of this layout at 8 bits, where x is 16 registers per row) is the next step.
 * </ul>
 */
public final class AffineQmvSplitKKernel {
  private AffineQmvSplitKKernel() {}

  /**
   * Registers per thread the plan assumes to size the grid without an occupancy hint: what ptxas
   * 12.0 reports for the validated sets on sm_90 (95 at 4 bits, 72 at 8 bits; README), rounded up
   * to a multiple of 8. (ptxas 13.0, the H200's driver: 88 for bf16, 80 for f16 at 4 bits.)
   */
  static int registers(int bits) {
    return bits == 4 ? 96 : 72;
  }

  /** Registers per thread of a variant compiled with the hint of {@link #minBlocksPerSm}. */
  static final int HINTED_REGISTERS = 80;

  /**
   * Registers per thread the plan assumes for this specialization: {@link #HINTED_REGISTERS} where
   * {@link #minBlocksPerSm} asks for a hint (ptxas keeps to it), else {@link #registers(int)}.
   */
  static int registers(int bits, int groupSize, int dtype, int warps) {
    return minBlocksPerSm(bits, groupSize, dtype, warps) > 0 ? HINTED_REGISTERS : registers(bits);
  }

  /**
   * Blocks of {@code warps} warps that fit one SM at {@code regs} registers per thread, counted as
   * ptxas and the hardware do on sm_80/sm_90: the 64 K registers are four quarters of 16 K, each
   * warp takes its registers (in units of 256) from one quarter; at most 64 warps and 32 blocks.
   */
  static int residentBlocks(int regs, int warps) {
    int perWarp = (regs * 32 + 255) / 256 * 256;
    int warpsByRegs = 4 * (16384 / perWarp);
    return Math.max(1, Math.min(32, Math.min(64 / warps, warpsByRegs / warps)));
  }

  /**
   * The occupancy hint the default plan launches {@link #qmv} with, or 0 for none: at 4 bits, the
   * blocks of {@code warps} warps that fit an SM at {@link #HINTED_REGISTERS} registers (6 at 4
   * warps: 24 warps), where that is more than fit at the unhinted {@link #registers(int)} (5 at 4
   * warps) and ptxas 12.0 and 13.0 compile it without spills for sm_80 and sm_90: f16 with every
   * group size, bf16 with groups of 32. Measured at 4 warps, sm_90, registers before → with the
   * hint (12.0 / 13.0): f16 95–96 → 80 / 80 → 80; bf16 g32 95 → 80 / 88 → 80; the same at 1, 2, 3,
   * 6, 7, 8, 11 and 12 warps. Declined: bf16 with groups of 64 or 128 (the benchmarked 4-bit g64
   * bf16 included), which spill 8 B (12.0) or 4 B (13.0) at 80 on sm_90; 8 bits (72 registers
   * already fit 7 blocks of 4 warps); 5, 9, 10 and 13–16 warps (no block gained). {@code
   * ShippedKernelsPtxTest} compiles every variant this returns a hint for, with it, and fails on
   * any spill.
   */
  public static int minBlocksPerSm(int bits, int groupSize, int dtype, int warps) {
    if (bits != 4
        || warps < 1
        || !(dtype == Quant.F16 || (dtype == Quant.BF16 && groupSize == 32))) {
      return 0;
    }
    int hinted = residentBlocks(HINTED_REGISTERS, warps);
    return hinted > residentBlocks(registers(bits), warps) ? hinted : 0;
  }

  /** Features per batch. */
  public static final int FB = 4;

  /** bf16/f16 activations, scales, biases and output. */
  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,warps=4,fb=4",
        "bits=8,groupSize=64,dtype=0,warps=8,fb=4",
        "bits=4,groupSize=32,dtype=1,warps=16,fb=4",
        "bits=8,groupSize=128,dtype=1,warps=2,fb=2",
        "bits=4,groupSize=64,dtype=1,warps=4,fb=4"
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
      @Specialize int fb) {
    // May be launched early (QmmPolicy.earlyStart): nothing is read before the previous kernel
    // ends.
    ctx.waitForPriorGrids();
    float[] red = ctx.allocateFloatLocalArray(2 * warps * fb);
    int e = QmvChunks.elems(bits);
    int tid = ctx.localIdx;
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    int row = ctx.groupIdy;
    int chunks = k / e;
    int wpr = k * bits / 32;
    int groups = k / groupSize;
    int one = QmvChunks.opaqueOne(n);
    boolean valid = tid < chunks;
    int c = Math.min(tid, chunks - 1); // this thread's chunk (clamped for loading)
    int gi = c >> QmvChunks.log2(groupSize / e);
    int batches = (n + fb - 1) / fb;

    // First batch's loads, before x.
    int bt = ctx.groupIdx;
    int f0 = Math.min(bt * fb, n - 1);
    int f1 = Math.min(bt * fb + 1, n - 1);
    int f2 = Math.min(bt * fb + 2, n - 1);
    int f3 = Math.min(bt * fb + 3, n - 1);
    Int4 zi = new Int4(0, 0, 0, 0);
    Int4 w0 = Vec.ldg4(wq, f0 * wpr + 4 * c);
    short s0 = Vec.ldg(scales, f0 * groups + gi);
    short b0 = Vec.ldg(biases, f0 * groups + gi);
    Int4 w1 = zi;
    Int4 w2 = zi;
    Int4 w3 = zi;
    short s1 = 0;
    short s2 = 0;
    short s3 = 0;
    short b1 = 0;
    short b2 = 0;
    short b3 = 0;
    if (fb > 1) {
      w1 = Vec.ldg4(wq, f1 * wpr + 4 * c);
      s1 = Vec.ldg(scales, f1 * groups + gi);
      b1 = Vec.ldg(biases, f1 * groups + gi);
    }
    if (fb > 2) {
      w2 = Vec.ldg4(wq, f2 * wpr + 4 * c);
      s2 = Vec.ldg(scales, f2 * groups + gi);
      b2 = Vec.ldg(biases, f2 * groups + gi);
      w3 = Vec.ldg4(wq, f3 * wpr + 4 * c);
      s3 = Vec.ldg(scales, f3 * groups + gi);
      b3 = Vec.ldg(biases, f3 * groups + gi);
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
        ((sum4(x0) + sum4(x1)) + (sum4(x2) + sum4(x3)))
            + ((sum4(x4) + sum4(x5)) + (sum4(x6) + sum4(x7)));
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
    while (bt < batches) {
      int nbt = bt + ctx.groupCountX;
      int lb = nbt < batches ? nbt : bt; // past the end: re-load this batch (cached)
      int g0 = Math.min(lb * fb, n - 1);
      int g1 = Math.min(lb * fb + 1, n - 1);
      int g2 = Math.min(lb * fb + 2, n - 1);
      int g3 = Math.min(lb * fb + 3, n - 1);

      float q0 = partial(w0, s0, b0, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
      w0 = Vec.ldg4(wq, g0 * wpr + 4 * c);
      s0 = Vec.ldg(scales, g0 * groups + gi);
      b0 = Vec.ldg(biases, g0 * groups + gi);
      float q1 = 0f;
      float q2 = 0f;
      float q3 = 0f;
      if (fb > 1) {
        q1 = partial(w1, s1, b1, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
        w1 = Vec.ldg4(wq, g1 * wpr + 4 * c);
        s1 = Vec.ldg(scales, g1 * groups + gi);
        b1 = Vec.ldg(biases, g1 * groups + gi);
      }
      if (fb > 2) {
        q2 = partial(w2, s2, b2, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
        w2 = Vec.ldg4(wq, g2 * wpr + 4 * c);
        s2 = Vec.ldg(scales, g2 * groups + gi);
        b2 = Vec.ldg(biases, g2 * groups + gi);
        q3 = partial(w3, s3, b3, x0, x1, x2, x3, x4, x5, x6, x7, xs, bits, one, dtype);
        w3 = Vec.ldg4(wq, g3 * wpr + 4 * c);
        s3 = Vec.ldg(scales, g3 * groups + gi);
        b3 = Vec.ldg(biases, g3 * groups + gi);
      }

      reduceAndStore(ctx, red, buf, q0, q1, q2, q3, out, row, n, bt, fb, warps, dtype);
      // The other half of the slab is next; its last readers finished before this barrier.
      buf = warps * fb - buf;
      bt = nbt;
    }
  }

  /**
   * The batch's cross-thread sum and store: a <em>transposed</em> warp reduction (lane l ends with
   * the warp's sum of feature {@code (l >> sh) & (fb-1)}), one value per (warp, feature) into half
   * {@code buf} of the double-buffered slab {@code red}, one barrier, then threads {@code t < fb}
   * add the warps' values and store feature {@code bt·fb + t} of {@code row}.
   */
  static void reduceAndStore(
      KernelContext ctx,
      float[] red, // [2, warps, fb] (shared)
      int buf,
      float q0,
      float q1,
      float q2,
      float q3,
      short[] out, // [m, n] bf16/f16 bits
      int row,
      int n,
      int bt,
      int fb,
      int warps,
      int dtype) {
    int tid = ctx.localIdx;
    int lane = ctx.laneId();
    int warp = ctx.warpId();
    float v;
    int sh;
    if (fb == 4) {
      boolean h16 = (lane & 16) != 0;
      float ra = ctx.shuffleXor(h16 ? q0 : q2, 16);
      float rb = ctx.shuffleXor(h16 ? q1 : q3, 16);
      float k0 = (h16 ? q2 : q0) + ra; // feature 2*h16
      float k1 = (h16 ? q3 : q1) + rb; // feature 2*h16 + 1
      boolean h8 = (lane & 8) != 0;
      float r = ctx.shuffleXor(h8 ? k0 : k1, 8);
      v = (h8 ? k1 : k0) + r;
      v += ctx.shuffleXor(v, 4);
      v += ctx.shuffleXor(v, 2);
      v += ctx.shuffleXor(v, 1);
      sh = 3;
    } else if (fb == 2) {
      boolean h16 = (lane & 16) != 0;
      float r = ctx.shuffleXor(h16 ? q0 : q1, 16);
      v = (h16 ? q1 : q0) + r;
      v += ctx.shuffleXor(v, 8);
      v += ctx.shuffleXor(v, 4);
      v += ctx.shuffleXor(v, 2);
      v += ctx.shuffleXor(v, 1);
      sh = 4;
    } else {
      v = QmvChunks.warpSum(ctx, q0);
      sh = 5;
    }
    if ((lane & ((1 << sh) - 1)) == 0) {
      red[buf + warp * fb + (lane >> sh)] = v;
    }
    ctx.localBarrier();
    if (tid < fb) {
      float total = 0f;
      for (int w = 0; w < warps; w++) {
        total += red[buf + w * fb + tid];
      }
      int f = bt * fb + tid;
      if (f < n) {
        out[row * n + f] = QuantMath.floatToHalf(total, dtype);
      }
    }
  }

  static float sum4(Float4 v) {
    return (v.x() + v.y()) + (v.z() + v.w());
  }

  /** One feature's partial sum over this thread's chunk, scale and bias folded in. */
  static float partial(
      Int4 w,
      short s,
      short b,
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
    Float4 d = new Float4(0f, 0f, 0f, 0f);
    Float4 z = d;
    if (bits == 4) {
      d = QmvChunks.slot(w.x(), 0, 4, one, 1, x0, z, z, z, d);
      d = QmvChunks.slot(w.x(), 4, 4, one, 1, x1, z, z, z, d);
      d = QmvChunks.slot(w.y(), 0, 4, one, 1, x2, z, z, z, d);
      d = QmvChunks.slot(w.y(), 4, 4, one, 1, x3, z, z, z, d);
      d = QmvChunks.slot(w.z(), 0, 4, one, 1, x4, z, z, z, d);
      d = QmvChunks.slot(w.z(), 4, 4, one, 1, x5, z, z, z, d);
      d = QmvChunks.slot(w.w(), 0, 4, one, 1, x6, z, z, z, d);
      d = QmvChunks.slot(w.w(), 4, 4, one, 1, x7, z, z, z, d);
    } else {
      d = QmvChunks.slot(w.x(), 0, 8, one, 1, x0, z, z, z, d);
      d = QmvChunks.slot(w.y(), 0, 8, one, 1, x1, z, z, z, d);
      d = QmvChunks.slot(w.z(), 0, 8, one, 1, x2, z, z, z, d);
      d = QmvChunks.slot(w.w(), 0, 8, one, 1, x3, z, z, z, d);
    }
    return QmvChunks.fold(
        0f, d.x(), xs, QuantMath.halfToFloat(s, dtype), QuantMath.halfToFloat(b, dtype), bits);
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Warps per block: one chunk of a row per thread. */
  static int warps(QmmShape s) {
    int chunks = s.k() / QmvChunks.elems(s.bits());
    return (chunks + 31) / 32;
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    String bad = QmvChunks.basicRejection(s);
    if (bad != null) {
      return bad;
    }
    if (s.bits() == 2) {
      return "bits 4 or 8 only (a 2-bit chunk is 64 x values, too many to keep in registers)";
    }
    int maxWarps = 65536 / (registers(s.bits()) * 32);
    if (warps(s) > maxWarps) {
      return "k too large: one 16-byte chunk per thread needs "
          + warps(s)
          + " warps, more than the "
          + maxWarps
          + " that fit one SM at "
          + registers(s.bits())
          + " registers; AffineQmvWarpKernel tiles k";
    }
    if (s.rows() > 65535) {
      return "at most 65535 rows (grid.y), got " + s.rows();
    }
    return null;
  }

  /**
   * Blocks resident per SM: the hint where the plan asks for one ({@link #minBlocksPerSm}), else at
   * {@link #registers} registers per thread (at most 2048 threads).
   */
  static int blocksPerSm(QmmShape s) {
    int hint = minBlocksPerSm(s.bits(), s.groupSize(), s.dtype(), warps(s));
    return hint > 0 ? hint : unhintedBlocksPerSm(s);
  }

  /** Blocks resident per SM at {@link #registers(int)} registers per thread, without a hint. */
  static int unhintedBlocksPerSm(QmmShape s) {
    // Counted per register-file quarter like the hint: a flat 65536 / (regs * threads) counts
    // registers a warp cannot take (e.g. 1-warp blocks at 96: 21 by the flat count, 20 fit).
    return residentBlocks(registers(s.bits()), warps(s));
  }

  /**
   * One wave of {@code smCount × blocksPerSm} blocks (fewer when there are fewer batches of {@link
   * #FB} features), balanced so every block walks the same number of batches (±1); grid.y = rows.
   * Carries the occupancy hint of {@link #minBlocksPerSm} where there is one.
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    return plan(s, smCount, true);
  }

  /**
   * {@link #plan(QmmShape, int)}, or with {@code occupancyHint} false the plan as before hints
   * existed: no hint, the grid sized for {@link #registers(int)} (to time both).
   */
  public static LaunchPlan plan(QmmShape s, int smCount, boolean occupancyHint) {
    if (!occupancyHint) {
      return plan(s, smCount, unhintedBlocksPerSm(s), FB);
    }
    return plan(s, smCount, blocksPerSm(s), FB)
        .withMinBlocksPerSm(minBlocksPerSm(s.bits(), s.groupSize(), s.dtype(), warps(s)));
  }

  /**
   * A one-wave plan for an explicit number of resident blocks per SM (e.g. from the loaded
   * function's register count when the driver's JIT differs from {@link #registers}) and batch size
   * {@code fb} (1, 2, 4).
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int blocksPerSm, int fb) {
    int batches = (s.n() + fb - 1) / fb;
    int blocks = Math.min(Math.max(1, smCount) * Math.max(1, blocksPerSm), batches);
    int per = (batches + blocks - 1) / blocks;
    blocks = (batches + per - 1) / per;
    return plan(s, blocks, fb);
  }

  /**
   * An explicit plan: {@code blocks} persistent blocks, {@code fb} (1, 2, 4) features per batch.
   */
  public static LaunchPlan plan(QmmShape s, int blocks, int fb) {
    if (fb != 1 && fb != 2 && fb != 4) {
      throw new IllegalArgumentException("fb must be 1, 2 or 4, got " + fb);
    }
    int w = warps(s);
    return LaunchPlan.of(
        "AffineQmvSplitKKernel.qmv",
        Dim3.of(blocks, s.rows()),
        Dim3.of(32 * w),
        2 * w * fb * 4,
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "warps",
        w,
        "fb",
        fb);
  }
}
