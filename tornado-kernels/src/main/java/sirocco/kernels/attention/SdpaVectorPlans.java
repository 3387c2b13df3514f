package sirocco.kernels.attention;

import sirocco.runtime.Dim3;

/**
 * The host side of {@link SdpaVector#decode}: whether it can run a call ({@link #supports}), how to
 * launch it (the {@link Plan}: rows per block, key splits, grid, resident blocks and occupancy
 * hint, from the register estimates measured with ptxas), and its argument list.
 */
public final class SdpaVectorPlans {
  private SdpaVectorPlans() {}

  /**
   * Why this kernel cannot run the call, or null when it can. {@code kStrides}/{@code vStrides} are
   * element strides of k and v; the mask kind is one of {@code Sdpa.MASK_*}.
   */
  public static String supports(
      SdpaShape shape, int dtype, SdpaStrides kStrides, SdpaStrides vStrides, int maskKind) {
    if (dtype != Sdpa.BF16 && dtype != Sdpa.F16) {
      return "vector SDPA takes bf16 or f16 (got "
          + Sdpa.dtypeName(dtype)
          + "); float32 runs on the unfused kernels";
    }
    int d = shape.headDim();
    if (d != 64 && d != 96 && d != 128 && d != 256 && d != 512) {
      return "vector SDPA supports head dims 64, 96, 128, 256 and 512, got " + d;
    }
    if (shape.valueDim() != d) {
      return "vector SDPA needs v's head dim (" + shape.valueDim() + ") to equal q/k's (" + d + ")";
    }
    if (shape.qLen() > SdpaVector.MAX_QUERY_LEN) {
      return "vector SDPA takes at most "
          + SdpaVector.MAX_QUERY_LEN
          + " queries per head, got Lq = "
          + shape.qLen();
    }
    if (shape.kvLen() < 1) {
      return "vector SDPA needs at least one key (Lkv = 0)";
    }
    if (maskKind < Sdpa.MASK_NONE || maskKind > Sdpa.MASK_BOOL) {
      return "unknown mask kind " + maskKind;
    }
    if (kStrides.dim() != 1 || vStrides.dim() != 1) {
      return "vector SDPA needs k and v rows contiguous (last stride 1), got k "
          + kStrides
          + ", v "
          + vStrides;
    }
    if (!kStrides.alignedTo(8) || !vStrides.alignedTo(8)) {
      return "vector SDPA reads k and v rows with 16-byte loads: offsets and strides must be"
          + " multiples of 8 elements, got k "
          + kStrides
          + ", v "
          + vStrides;
    }
    return null;
  }

  /**
   * A launch of {@link SdpaVector#decode}: {@code rows} query rows per block, {@code rowGroups}
   * blocks per GQA group, {@code splits} key splits of {@code splitKeys} keys. {@code splits == 1}:
   * one pass, {@code partial = false}; otherwise pass 1 of split-K ({@code partial = true})
   * followed by {@link SdpaSplitK#combine} with {@link SdpaSplitK#combinePlan}. {@code blocksPerSm}
   * is the resident blocks the grid was sized for; {@code minBlocksPerSm} the occupancy hint the
   * launch carries ({@code KernelLaunch.minBlocksPerSm}, 0 = none).
   */
  public record Plan(
      int rows,
      int rowGroups,
      int splits,
      int splitKeys,
      Dim3 grid,
      Dim3 block,
      int sharedBytes,
      int blocksPerSm,
      int minBlocksPerSm,
      Class<?> kernelClass) {
    /** A plan of {@link SdpaVector#decode}. */
    public Plan(
        int rows,
        int rowGroups,
        int splits,
        int splitKeys,
        Dim3 grid,
        Dim3 block,
        int sharedBytes,
        int blocksPerSm,
        int minBlocksPerSm) {
      this(
          rows,
          rowGroups,
          splits,
          splitKeys,
          grid,
          block,
          sharedBytes,
          blocksPerSm,
          minBlocksPerSm,
          SdpaVector.class);
    }

    /** True when the launch writes partials and needs {@link SdpaSplitK#combine}. */
    public boolean partial() {
      return splits > 1;
    }

    /** This plan with occupancy hint {@code n} (0: none); the grid is unchanged. */
    public Plan withMinBlocksPerSm(int n) {
      return new Plan(
          rows,
          rowGroups,
          splits,
          splitKeys,
          grid,
          block,
          sharedBytes,
          blocksPerSm,
          n,
          kernelClass);
    }

    /** True when the plan launches {@link SdpaVectorMma} (tensor cores). */
    public boolean mma() {
      return kernelClass == SdpaVectorMma.class;
    }
  }

  /** Keys one block covers per iteration of its loop. */
  public static int keysPerIteration(int headDim) {
    return SdpaVector.WARPS * (headDim > 256 ? 2 : 4) * (32 / SdpaVector.lanesPerKey(headDim));
  }

  /**
   * Estimated registers per thread (see the class comment); the launch plan derives blocks per SM
   * from it until the compiler's report gives the real number.
   */
  public static int estimatedRegisters(int headDim, int rows) {
    int perLane = headDim > 256 ? 16 : 8;
    return 32 + rows * (2 * perLane + 16);
  }

  /**
   * Registers per thread of the variant compiled with occupancy hint {@code minBlocksPerSm} (0:
   * none): the estimate, capped at what lets that many blocks of {@link SdpaVector#THREADS} fit an
   * SM's 64 K (128 for 4), which ptxas then does not exceed.
   */
  public static int registers(int headDim, int rows, int minBlocksPerSm) {
    int est = estimatedRegisters(headDim, rows);
    return minBlocksPerSm == 0
        ? est
        : Math.min(est, 65536 / (minBlocksPerSm * SdpaVector.THREADS) / 8 * 8);
  }

  /**
   * Blocks of {@link SdpaVector#THREADS} resident per SM at {@code registers} per thread (at most
   * 8).
   */
  static int blocksPerSm(int registers) {
    return blocksPerSm(registers, SdpaVector.SHARED_BYTES);
  }

  /**
   * Blocks of {@link SdpaVector#THREADS} resident per SM at {@code registers} per thread and {@code
   * sharedBytes} of shared memory per block (at most 8).
   */
  static int blocksPerSm(int registers, int sharedBytes) {
    int regs = (registers + 7) / 8 * 8;
    int byRegs = Math.max(1, 65536 / (regs * SdpaVector.THREADS));
    int byShared = Math.max(1, (227 * 1024) / (sharedBytes + 1024));
    return Math.min(8, Math.min(byRegs, byShared));
  }

  /**
   * The occupancy hint {@link SdpaVector#decode} is launched with for one specialization on compute
   * capability {@code arch} ({@code 10 * major + minor}): 4 (blocks per SM, i.e. at most 128
   * registers) where ptxas 12.0 and 13.0 both compile that variant for sm_90 without spills, else 0
   * (none). Measured (sm_90, rows = 4, registers before → with the hint, 12.0 / 13.0): bf16 D = 64
   * no mask, one pass 166 → 127 / 166 → 128; bf16 D = 128 additive or boolean mask, split-K 168 →
   * 127 / 164 → 128; D = 256 no mask 164–166 → 127 / 154–162 → 128 (f16 164–166 → 127–128 / 154–155
   * → 128); f16 D = 64 and 128 without a causal mask 154–160 → 127–128 / 158–162 → 128; f16 D = 96
   * no mask 162–164 → 128 / 154–155 → 128, and one-pass additive or boolean 166 → 127 / 154 → 128.
   * The hint ({@code .maxntid 128, 1, 1}, {@code .minnctapersm 4}) costs ≤ 2% more static SASS
   * (ptxas 13.0). Declined (either compiler spills 4–32 bytes at 128): the causal mask everywhere
   * (the extra key limit per row); bf16 D = 96; bf16 D = 64 other than one-pass without a mask;
   * bf16 D = 128 other than split-K with an additive or boolean mask (no mask: 12.0 spills 16 B
   * where 13.0 does not); D = 256 with any mask; f16 D = 96 split-K with a mask; and sm_80, where
   * every bf16 variant but D = 128 without a mask spills 8–36 B at 128 registers. At rows = 3
   * (125–128 registers) the kernel already fits 4 blocks, and rows ≤ 2 (64–113) fit more than
   * shared memory allows (6), so neither asks. {@code ShippedKernelsPtxTest} compiles every variant
   * this returns a hint for, with the hint, and fails on any spill.
   */
  public static int minBlocksPerSm(
      int arch, int headDim, int dtype, int rows, int maskKind, boolean partial) {
    if (arch != 90 || rows != SdpaVector.MAX_ROWS || maskKind == Sdpa.MASK_CAUSAL) {
      return 0;
    }
    boolean none = maskKind == Sdpa.MASK_NONE;
    boolean f16 = dtype == Sdpa.F16;
    boolean fits =
        switch (headDim) {
          case 64 -> f16 || (none && !partial);
          case 96 -> f16 && (none || !partial);
          case 128 -> f16 || (partial && !none);
          case 256 -> none;
          default -> false;
        };
    return fits ? 4 : 0;
  }

  /**
   * The default plan without an occupancy hint: rows per block balanced over the GQA group (at most
   * {@link SdpaVector#MAX_ROWS}), blocks per SM from {@link #estimatedRegisters}, splits chosen to
   * fill {@code smCount} SMs.
   */
  public static Plan plan(SdpaShape shape, int smCount) {
    int rows = defaultRows(shape);
    return plan(shape, smCount, rows, blocksPerSm(estimatedRegisters(shape.headDim(), rows)), 0);
  }

  /**
   * The plan dispatch launches on a GPU of compute capability {@code arch} ({@code 10 * major +
   * minor}) for a call in {@code dtype} with mask kind {@code maskKind}: {@link #plan(SdpaShape,
   * int)}, unless the variant it would launch has an occupancy hint ({@link #minBlocksPerSm}); then
   * the grid is sized for that many blocks per SM (more splits) and the plan carries the hint. The
   * hint depends on whether the launch is split-K, which depends on the blocks per SM: the plan for
   * the hinted blocks is taken when its own variant (one pass or split-K) has the hint, and when
   * its splits are at least {@link #MIN_HINTED_SPLIT_KEYS} keys long.
   */
  public static Plan planFor(SdpaShape shape, int smCount, int arch, int dtype, int maskKind) {
    int rows = defaultRows(shape);
    int d = shape.headDim();
    Plan plain = plan(shape, smCount);
    int hint =
        Math.max(
            minBlocksPerSm(arch, d, dtype, rows, maskKind, false),
            minBlocksPerSm(arch, d, dtype, rows, maskKind, true));
    if (hint == 0) {
      return plain;
    }
    Plan p = plan(shape, smCount, rows, blocksPerSm(registers(d, rows, hint)), 0);
    if (p.partial() && p.splitKeys() < MIN_HINTED_SPLIT_KEYS) {
      return plain;
    }
    int n = minBlocksPerSm(arch, d, dtype, rows, maskKind, p.partial());
    return n == 0 ? plain : p.withMinBlocksPerSm(n);
  }

  /**
   * Fewest keys per split at which {@link #planFor} takes the hinted (more-split) plan. Below it
   * the extra splits cost more in per-block setup and in the combine than the occupancy gains.
   * Measured on the H200 (RESULTS run 16, bf16 D = 256, Hq 32, Hkv 8, µs hinted vs not): hinted
   * splits of 16 keys (Lq 1, S 1024) 15.51 vs 13.47, 32 keys (Lq 1, S 2048) 18.07 vs 17.19, 48 keys
   * (Lq 3, S 1024) 16.35 vs 15.95; 64 keys (Lq 1, S 4096) 22.41 vs 22.72, 96 keys (Lq 3, S 2048)
   * 21.84 vs 22.45, 128 keys (Lq 1, S 8192) 32.11 vs 33.22.
   */
  static final int MIN_HINTED_SPLIT_KEYS = 64;

  /** Rows per block that split the GQA group's {@code gqa * Lq} rows into equal-ish blocks. */
  public static int defaultRows(SdpaShape shape) {
    int groupRows = shape.gqa() * shape.qLen();
    int groups = (groupRows + SdpaVector.MAX_ROWS - 1) / SdpaVector.MAX_ROWS;
    return (groupRows + groups - 1) / groups;
  }

  /**
   * A plan with explicit knobs: {@code rows} per block (1..4), {@code blocksPerSm} resident blocks
   * the SM count is multiplied by to size the grid, and {@code forceSplits} (0 = choose: as many
   * splits as fit {@code smCount * blocksPerSm} blocks, at most one per block iteration of keys).
   */
  public static Plan plan(
      SdpaShape shape, int smCount, int rows, int blocksPerSm, int forceSplits) {
    return layout(
        shape,
        smCount,
        rows,
        blocksPerSm,
        forceSplits,
        SdpaVector.MAX_ROWS,
        keysPerIteration(shape.headDim()),
        SdpaVector.THREADS,
        SdpaVector.SHARED_BYTES,
        SdpaVector.class);
  }

  /**
   * The grid of a decode kernel: {@code rows} (1..{@code maxRows}) query rows per block, key splits
   * of a multiple of {@code iterKeys} (the keys one block iteration covers) filling {@code smCount
   * * blocksPerSm} blocks, or {@code forceSplits} of them, launching {@code kernelClass}'s {@code
   * decode}.
   */
  static Plan layout(
      SdpaShape shape,
      int smCount,
      int rows,
      int blocksPerSm,
      int forceSplits,
      int maxRows,
      int iterKeys,
      int threads,
      int sharedBytes,
      Class<?> kernelClass) {
    if (rows < 1 || rows > maxRows) {
      throw new IllegalArgumentException("rows must be 1.." + maxRows + ", got " + rows);
    }
    if (smCount < 1 || blocksPerSm < 1 || forceSplits < 0) {
      throw new IllegalArgumentException(
          "smCount and blocksPerSm must be >= 1 and forceSplits >= 0, got "
              + smCount
              + ", "
              + blocksPerSm
              + ", "
              + forceSplits);
    }
    int lkv = Math.max(1, shape.kvLen());
    int groupRows = shape.gqa() * shape.qLen();
    int rowGroups = (groupRows + rows - 1) / rows;
    long baseBlocks = (long) shape.batch() * shape.kvHeads() * rowGroups;
    int maxSplits = (lkv + iterKeys - 1) / iterKeys;
    int splits;
    if (forceSplits > 0) {
      splits = Math.min(forceSplits, lkv);
    } else {
      // As many splits as fit in one wave of resident blocks (rounding up would leave a few
      // blocks for a second wave, which costs a whole block's time).
      long target = (long) smCount * blocksPerSm;
      splits = (int) Math.max(1, Math.min(maxSplits, target / baseBlocks));
    }
    int splitKeys;
    if (splits == 1) {
      splitKeys = lkv;
    } else {
      int per = (lkv + splits - 1) / splits;
      splitKeys = forceSplits > 0 ? per : (per + iterKeys - 1) / iterKeys * iterKeys;
      splits = (lkv + splitKeys - 1) / splitKeys;
    }
    if (baseBlocks > 65535L * 65535L) {
      throw new IllegalArgumentException("too many (batch, kv head) pairs for one launch");
    }
    Dim3 grid = new Dim3(rowGroups, splits, shape.batch() * shape.kvHeads());
    return new Plan(
        rows,
        rowGroups,
        splits,
        splitKeys,
        grid,
        Dim3.of(threads),
        sharedBytes,
        blocksPerSm,
        0,
        kernelClass);
  }

  /**
   * Arguments of {@link SdpaVector#decode} in order, after the context, for {@code plan} (one pass
   * when {@code plan.splits() == 1}, else pass 1 of split-K). Arrays pass through untouched (Java
   * arrays on the Java backend, device buffers on a GPU); an array the launch does not use may be
   * any array of its type. {@code ms} may be null when there is no mask array.
   */
  public static Object[] decodeArgs(
      Object q,
      Object k,
      Object v,
      Object maskAdd,
      Object maskBool,
      Object sinks,
      Object out,
      Object partO,
      Object partML,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms,
      double scale,
      int dtype,
      int maskKind,
      boolean hasSinks,
      Plan plan) {
    SdpaStrides m = Sdpa.noMask(ms);
    return new Object[] {
      q,
      k,
      v,
      maskAdd,
      maskBool,
      sinks,
      out,
      partO,
      partML,
      shape.qHeads(),
      shape.kvHeads(),
      shape.qLen(),
      shape.kvLen(),
      qs.offset(),
      qs.batch(),
      qs.head(),
      qs.seq(),
      ks.offset(),
      ks.batch(),
      ks.head(),
      ks.seq(),
      vs.offset(),
      vs.batch(),
      vs.head(),
      vs.seq(),
      m.offset(),
      m.batch(),
      m.head(),
      m.seq(),
      m.dim(),
      plan.splitKeys(),
      Sdpa.scaleLog2(scale),
      shape.headDim(),
      dtype,
      plan.rows(),
      maskKind,
      hasSinks,
      plan.partial()
    };
  }
}
