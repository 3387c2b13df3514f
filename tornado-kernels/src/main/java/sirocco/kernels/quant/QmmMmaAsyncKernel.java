package sirocco.kernels.quant;

import static sirocco.kernels.quant.QmmMmaAsyncLayout.fragA;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.rowWords;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.slotsPerUnit;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.unitsPerLane;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.wordsPerLane;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.wordsPerUnit;
import static sirocco.kernels.quant.QmmMmaAsyncLayout.xSlot;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Split-K quantized matmul on tensor cores with the weights streamed through a <b>multi-stage
 * asynchronous-copy pipeline in shared memory</b> (rung {@code qmm-mma-async}): the mapping,
 * fragments and folding of {@link QmmMmaSplitKKernel} (ks warps splitting k, x held as B fragments
 * in registers for the whole kernel, 16 features per batch, persistent blocks, one barrier per
 * batch for the cross-warp reduction), with the words, scales and biases of the next {@code stages
 * - 1} batches requested by {@link Vec#copyAsync} instead of held in registers.
 *
 * <h2>Why</h2>
 *
 * The register version is latency-bound (run 25 Nsight at 1 row: DRAM 40%, long-scoreboard and
 * barrier stalls ~2 cycles each per issued instruction): a warp's next batch is requested only
 * while the current one is consumed, one batch (2 KiB per warp, 32 KiB per SM) ahead, and holding a
 * second batch in registers (depth 2, 128 registers; run 27, since removed) was slower. Copies into
 * shared memory hold no registers while in flight: at 3 stages each SM has two batches (64 KiB)
 * requested while it computes a third.
 *
 * <h2>Staging</h2>
 *
 * A warp stages its own slice only: per batch, 16 rows × {@code 4·wps} words (the warp's k slice of
 * each of the 16 features), copied as 16-byte chunks spread over the warp's lanes, and the {@code
 * cpw} scales and biases of each row (one copy of {@code 2·cpw} bytes per lane: lanes 0–15 the
 * scales of rows 0–15, lanes 16–31 the biases). Rows are padded to {@code 4·wps + 8} words so that
 * the lanes' 8-byte reads (lane (g, t) reads rows g and g+8 at word {@code t·wpl + 4·wpl·c}) fall
 * in distinct banks. Since lanes read words other lanes copied, each stage's {@code waitAsync} is
 * followed by a warp barrier; a stage is refilled only after the block barrier of the batch that
 * read it, so no read can see a later copy.
 *
 * <p>Shared memory: {@code stages · ks · (16·(4·wps + 8)·4 + 64·cpw)} bytes of stages (45 056 per
 * stage at ks = 16, wps = 8, g64), the reduction slab {@code 2·ks·128·4} and the x sums: about 107
 * KiB at the default 2 stages (152 KiB at 3), more than the 48 KiB of static shared memory, so the
 * JIT declares it as dynamic shared memory (sm_80: ≤ 163 KiB, sm_90: ≤ 227 KiB). One 512-thread
 * block per SM.
 *
 * <h2>Measured (run 30, H200, 12288×4096 4-bit g64 bf16)</h2>
 *
 * Correct on the GPU (the shipped-kernel cases) but slower than the register version: 16.48 µs at
 * 1–2 rows against 14.95, 16.81 against 15.35 at 8, 27.86 against 23.64 at 16 (2 stages: 15.80 at 1
 * row; 4 stages and 32 warps slower). Nsight at 1 row: 6.80 M instructions against 4.84 M, DRAM
 * 37%, wait/not-selected/long-scoreboard stalls 1.79/1.20/1.09 per issued instruction, barrier
 * stalls down from 1.99 to 0.43: the copies' per-chunk addressing (a clamp, a division, a multiply
 * per copy) and scalar shared reads cost more issue slots than the latency they hide at 16 warps
 * per SM. Next for this kernel: loop-invariant copy offsets (one add per copy), vector shared
 * reads, and fewer warps' worth of registers per SM.
 *
 * <h2>Measured since (runs 88–95, graph replay)</h2>
 *
 * Unchanged since run 30, it measured faster than the register version at 1–8 rows on every shape
 * measured (run 89: 12.2–12.6 against 13.3–13.7 µs at 12288×4096 g64 bf16), and the op's default
 * there ({@code QmmPolicy.MMA_ASYNC_MAX_ROWS}). Then: early start (0.2–0.3 µs), the exponent bits
 * of the unpacking from a register ({@link QmmMmaFragments#magic4}: one LOP3 per fragment register
 * instead of two, run 94) and full batches copied from per-lane offsets ({@link
 * QmmMmaAsyncCopies#requestFull}, run 95): 10.82–11.22 µs at 2–8 rows. Then x requested before the
 * first stages and two stages instead of three ({@link #STAGES}, run 98): 10.69–10.75 µs at 1–8
 * rows.
 *
 * <h2>Two row tiles ({@code rt = 2}, run 100)</h2>
 *
 * As in {@link QmmMmaSplitKKernel}: a warp also holds the B fragments of rows 8–15 of its 16-row
 * block row and feeds each unpacked A fragment to both tiles' mmas, so 16 rows stream the weights
 * once (with one tile per warp, 16 rows run two row tiles, 22 µs in run 89 against the register
 * kernel's 14.65 with two; with two, 13.4 against 15.3 on the H100 of run 100). The fold, the
 * reduction slab and the x sums double. The default plan holds two above 8 rows where the shape
 * allows ({@link #rowTiles}); {@code tornado bench qmm --kernel qmm-mma-async@16x2x2} times two
 * explicitly. With {@code rt = 1} the PTX is the same as before {@code rt} existed (compared after
 * the change).
 *
 * <h2>Two blocks per SM, early refills, reduction rounds (explicit plans only, run 102)</h2>
 *
 * Asked of the H200's 1–8-row miss (75% of the read-only time there against the H100's 90%): {@code
 * bps = 2} runs two 512-thread blocks per SM at 64 registers, {@code early = 1} requests every
 * stage before the block waits for x and refills a stage right after the barrier of the batch that
 * read it. Neither beat the default on the H100 (2 rows: 14.15 and 11.82 µs against 11.79; 16 rows
 * with two row tiles, early: 14.65 against 13.26). On the same H100 with the plan sized for 80–96
 * SMs, which puts an H200's bytes per SM on each block, a third stage did not help either: a block
 * needs ~1.6 µs to consume a batch, so the copies in flight are not what limits it. Nor is the
 * block barrier per batch: with one barrier and reduction per round of {@code rb} = 2–6 batches
 * ({@link #plan(QmmShape, int, int, int, int, int, int, int)}) the 80-SM case gained at most 3.4%
 * and the whole H100 lost 2–7%. Nsight (96 SMs): 353 instructions per warp and batch, 149 on the
 * ALU pipe, the warps stalled mostly waiting for issue slots and the ALU pipe.
 *
 * <h2>The bias term on the tensor cores (bf16, run 103)</h2>
 *
 * A batch used to fold each group's {@code bias - offset·scale} (one FFMA per row) times the
 * group's x sums read from shared memory (two loads and four FFMAs per row tile), every scale and
 * bias a 2-byte load and a conversion. Where {@link QmmMmaAsyncFold#tensorBias} holds, a row's
 * scales and biases are one 8-byte load each ({@link QmmMmaAsyncFold#sharedGroups}) and the whole
 * term is one or two more mmas per batch ({@link QmmMmaAsyncFold#biasTerm}: scales and biases
 * against -offset·X and X, the x sums in three bf16 parts held in registers, {@link
 * QmmMmaAsyncFold#sumFragment}). PTX of the loop 384 → 328 instructions at g64, 353 → 325 warp
 * instructions per batch under Nsight; H100, graph replay: 6–9% faster with the plan sized for
 * 80–96 SMs (an H200's bytes per SM), 4–9% at 12–72 rows, even at 1–8 rows on the whole H100
 * (bench/RESULTS.md, run 103).
 *
 * <h2>Fewer instructions per batch (prepared in run 107, timed in run 108)</h2>
 *
 * Counted in the static SASS of the 4-bit g64 bf16 loop (ptxas 13.0, sm_90), per warp and batch.
 * H200, 12288×4096 g64 bf16, graph replay (run 108): the first two items took 1 / 2 / 8 / 16 rows
 * from 9.85 / 9.90 / 9.99 / 12.52 µs to 9.71 / 9.79 / 9.93 / 12.39; {@code fu = 1} then 9.53 / 9.48
 * / 9.60 at 1 / 2 / 8 rows (and 2-bit 9.34 → 9.04 at 1 row), the default for one row tile since
 * ({@link #fmaUnpack}).
 *
 * <ul>
 *   <li>The reducer's entry is computed once per kernel ({@link QmmMmaReduce#ownSlot}, one row tile
 *       only). Before, ptxas placed ~23 instructions of its index arithmetic on every warp's path
 *       after the batch barrier, the 12 warps that reduce nothing included.
 *   <li>The word copies address chunks 2–4 as constant offsets from the first: the full refill went
 *       from 38 instructions to 31.
 *   <li>With {@code fu = 1} ({@link #fmaUnpack}: bf16, one row tile) 4-bit reads half its fragment
 *       registers in place with {@code fma.bf16x2} ({@link QmmMmaFragments#fragA4Fma}, x of those k
 *       slots taken times 4 once per kernel). The compute's shifts drop from 48 to 16, at 32 more
 *       packed fmas. The issue count stays, but the ALU pipe, which takes a warp instruction every
 *       two cycles and carried ~124 of the ~260, then carries ~92. bf16 2-bit does the same for
 *       three of its four registers ({@link QmmMmaFragments#fragA2Fma}: one shift per word instead
 *       of seven).
 * </ul>
 *
 * <h2>2-, 3-, 5- and 6-bit codes (runs 106 and 108)</h2>
 *
 * A lane's codes of a group come in units of 16 ({@link QmmMmaAsyncLayout}): one 2-bit word or
 * three 6-bit words. Code i and code i+8 of a unit go to one fragment register: at 2 bits they sit
 * 16 bits apart, so {@link QmmMmaFragments#fragA2} needs one shift and one LOP3, as at 4 bits; at 6
 * bits 48 bits apart, so {@link QmmMmaFragments#fragA6} shifts each (twice where one straddles two
 * words) and merges them with two LOP3. A unit feeds four k steps, two x slots each holding the x
 * of codes 4s..4s+3 and 4s+8..4s+11 (two 8-byte loads, {@link QmmMmaAsyncLayout#loadXUnitSlot}), in
 * the order the 4-bit {@link QmmMmaFragments#fragB} pairs. A slice holds at most 8 slots per lane,
 * as at 4 bits, so the k split, grid and register hint are those of the 4-bit shape of the same
 * size ({@link QmmMmaAsyncLayout#layoutTwin}; 16 warps at k = 4096: 4 words per lane at 2 bits, 12
 * at 6). Odd words per lane and group (2-bit and 6-bit g64) are read one at a time, so those rows
 * are padded to 4 (mod 8) banks ({@link QmmMmaAsyncLayout#rowWords}); groups of 32 are refused (a
 * unit would span two groups). H100, 12288×4096 g64 bf16, 2-bit: 9.56–10.11 µs at 1–8 rows against
 * {@code qmv-rows}' 13.40–58.31, and 54.0 against 651 at 96 rows (69% of the read-only time at 1
 * row, against 4-bit's 91%: twice the codes per byte for an issue-bound kernel); 6-bit: 18.35–18.60
 * at 1–8 rows against 18.67–60.20, 89.25 against 655.89 at 96 (79%; its PTX is 30% longer than
 * 4-bit's for 1.5 times the bytes).
 *
 * <p>3- and 5-bit units are 48 and 80 bits, so at g64 the odd lanes' units, and at g128 every
 * lane's second, start at bit 16 of a word: a lane reads the two (3-bit) or three (5-bit) words
 * from the unit's start word and moves them down 16 bits where it starts mid-word ({@link
 * QmmMmaAsyncLayout#unitWords}: a select at g64, where the lane decides it, and nothing or two
 * instructions per word at g128, where the unit does), then pairs codes as at 6 bits ({@link
 * QmmMmaFragments#fragAUnit}). Rows 4 (mod 8) banks apart keep those reads conflict-free except
 * 3-bit g64 (two lanes a bank: its lanes start at words 0, 1, 3, 4 of a group). Slices of 3, 5 or
 * 10 chunks a row are copied from the lane's precomputed offsets ({@link
 * QmmMmaAsyncCopies#requestFullWords}), wider ones by {@link QmmMmaAsyncCopies#request}'s general
 * loop. Registers (ptxas 13.0, sm_90, k = 4096): 91–96 with one row tile, 125–128 with two, no
 * spills. H200, 12288×4096 g64 bf16 (run 108): 3-bit 14.84 / 15.05 / 31.16 µs at 1 / 6 / 32 rows
 * against {@code qmv-rows}' 14.47 / 44.69 / 230.43, 5-bit 16.76 / 16.69 / 33.39 against 16.43 /
 * 45.94 / 237.86 (42% and 54% of the read-only time at 1 row: ~5 ALU instructions per fragment
 * register against 4-bit's ~1.5). Run 109 builds each 3- and 5-bit pair with one byte permute and
 * one shift ({@link QmmMmaFragments#pairUnit}): H100, g64 bf16, 1 / 6 / 32 rows, 3-bit 14.53 /
 * 14.81 / 30.68 µs to 11.23 / 11.51 / 24.44, 5-bit 17.09 / 16.98 / 32.66 to 14.80 / 14.86 / 29.08;
 * 6-bit the same way ({@link QmmMmaFragments#pair6}): 17.70 / 17.64 / 33.60 to 16.96 / 17.17 /
 * 30.90.
 *
 * <h2>Limits</h2>
 *
 * As {@link QmmMmaSplitKKernel} (affine, bf16/f16, transposed, the same k splits) for 4-bit codes
 * and 2-, 3-, 5- and 6-bit ones with groups of 64 or 128, one 16-feature tile per warp, and 2, 4 or
 * 8 groups per warp slice (a row's scales are one copy of 4, 8 or 16 bytes); two row tiles at at
 * most 128 registers, which 4-bit g32 exceeds by 80 bytes of spill ({@link #plan(QmmShape, int,
 * int, int, int)}).
 */
public final class QmmMmaAsyncKernel {
  private QmmMmaAsyncKernel() {}

  /**
   * Default stages (batches in shared memory: one consumed, the rest in flight). Two measured
   * fastest on every shape timed (run 98, graph replay, x requested first): 12288×4096 bf16 g64
   * 10.69 / 10.75 µs at 2 / 8 rows against 10.77 / 10.96 at 3 stages and 11.74 / 12.04 at 4; f16,
   * g128, g32 and 4096×4096 the same order (g32 12.42 against 14.05 at 2 rows). Why more copies in
   * flight cost time was not isolated.
   */
  public static final int STAGES = 2;

  /**
   * The default plans' {@code fu} for {@code s} at {@code rt} row tiles: 1 ({@link
   * QmmMmaFragments#fragA4Fma}, {@link QmmMmaFragments#fragA2Fma}: part of the unpacking on the FMA
   * pipe) for bf16 4- and 2-bit codes with one row tile, else 0. Run 108 (H200, 12288×4096 g64
   * bf16, graph replay, µs, fu 0 against 1): 4-bit 1 / 2 / 8 rows 9.77 / 9.76 / 9.92 against 9.53 /
   * 9.48 / 9.60, 2-bit 1 / 8 rows 9.34 / 9.98 against 9.04 / 9.72; with two row tiles (16 rows)
   * 12.30 against 12.54, so two tiles keep 0.
   */
  public static int fmaUnpack(QmmShape s, int rt) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    if (rt != 1 && rt != 2) {
      throw new IllegalArgumentException("rt must be 1 or 2 (row tiles of 8 per warp), got " + rt);
    }
    return QmmMmaAsyncPlans.fmaUnpack(s, rt);
  }

  /** Shared memory one block may use on sm_90 (227 KiB opt-in); sm_80 allows 163 KiB. */
  static final int SHARED_LIMIT = 227 * 1024;

  /** Shared memory of one SM on sm_90 (each resident block also reserves 1 KiB of it). */
  static final int SM_SHARED = 228 * 1024;

  @Kernel(
      validateWith = {
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=3,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=1,ks=16,wps=8,stages=3,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=128,dtype=0,ks=16,wps=8,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=32,dtype=0,ks=16,wps=8,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=0,ks=8,wps=4,stages=4,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=4,groupSize=128,dtype=1,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=1,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2,rt=1,early=1,rb=1,fu=0",
        "bits=4,groupSize=128,dtype=1,ks=16,wps=8,stages=3,rt=2,early=1,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2,rt=1,early=0,rb=3,fu=0",
        "bits=4,groupSize=64,dtype=1,ks=16,wps=8,stages=2,rt=2,early=0,rb=2,fu=0",
        "bits=4,groupSize=32,dtype=0,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=4,groupSize=32,dtype=1,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=2,groupSize=64,dtype=0,ks=16,wps=4,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=2,groupSize=64,dtype=1,ks=16,wps=4,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=2,groupSize=128,dtype=0,ks=16,wps=4,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=2,groupSize=64,dtype=0,ks=16,wps=4,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=2,groupSize=128,dtype=1,ks=16,wps=4,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=6,groupSize=64,dtype=0,ks=16,wps=12,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=6,groupSize=64,dtype=1,ks=16,wps=12,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=6,groupSize=64,dtype=0,ks=16,wps=12,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=6,groupSize=128,dtype=1,ks=16,wps=12,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=6,groupSize=64,dtype=1,ks=2,wps=6,stages=3,rt=1,early=0,rb=1,fu=0",
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2,rt=1,early=0,rb=1,fu=1",
        "bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=1",
        "bits=4,groupSize=128,dtype=0,ks=16,wps=8,stages=2,rt=1,early=0,rb=1,fu=1",
        "bits=4,groupSize=32,dtype=0,ks=16,wps=8,stages=2,rt=2,early=0,rb=1,fu=1",
        "bits=4,groupSize=64,dtype=0,ks=8,wps=4,stages=3,rt=1,early=1,rb=1,fu=1",
        "bits=2,groupSize=64,dtype=0,ks=16,wps=4,stages=2,rt=1,early=0,rb=1,fu=1",
        "bits=2,groupSize=128,dtype=0,ks=16,wps=4,stages=2,rt=2,early=0,rb=1,fu=1",
        "bits=3,groupSize=64,dtype=0,ks=16,wps=6,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=3,groupSize=64,dtype=1,ks=16,wps=6,stages=2,rt=2,early=0,rb=1,fu=0",
        "bits=3,groupSize=128,dtype=0,ks=16,wps=6,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=3,groupSize=64,dtype=0,ks=8,wps=3,stages=3,rt=1,early=0,rb=1,fu=0",
        "bits=5,groupSize=64,dtype=0,ks=16,wps=10,stages=2,rt=1,early=0,rb=1,fu=0",
        "bits=5,groupSize=128,dtype=1,ks=16,wps=10,stages=2,rt=2,early=0,rb=1,fu=0"
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
      @Specialize int wps,
      @Specialize int stages,
      @Specialize int rt,
      @Specialize int early,
      @Specialize int rb,
      @Specialize int fu) {
    // May be launched early (QmmPolicy.earlyStart): the first copies are requested after this, so
    // nothing is read before the previous kernel ends.
    ctx.waitForPriorGrids();
    int magic = QmmMmaFragments.magic4(dtype, n);
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int warp = ctx.warpId();
    int wpl = wordsPerLane(groupSize, bits); // words per lane of one group's row segment
    int upl = unitsPerLane(groupSize, bits); // units (QmmMmaAsyncLayout) per lane and group
    int wpu = wordsPerUnit(bits);
    int spu = slotsPerUnit(bits); // x fragment slots (pairs of k steps) per unit
    int cpw = QmmMmaAsyncLayout.groupsPerSlice(wps, groupSize, bits); // groups per warp slice
    int rs = rowWords(bits, wps, wpl); // padded words per staged row
    int batches = (n + 15) / 16;
    // words per weight row
    int wpr = bits == 4 ? k / 8 : bits == 2 ? k / 16 : bits == 6 ? k / 16 * 3 : k / 32 * bits;
    // 3 and 5 bits (QmmMmaAsyncLayout.halfWordUnits): a group's row segment and the lane's first
    // word and half-word in it (g64: unit t starts at half-word bits·t; g128: units 2t, 2t+1).
    boolean hw = QmmMmaAsyncLayout.halfWordUnits(bits);
    int gwords = hw ? QmmMmaAsyncLayout.groupWords(groupSize, bits) : 4 * wpl;
    int laneWord = hw ? (bits * upl * t) >> 1 : t * wpl;
    int laneOdd = hw && upl == 1 ? t & 1 : 0;
    int groups = k / groupSize;
    int lw = warp * 4 * wps; // the warp's first word of a row
    int gw = warp * cpw; // the warp's first group of a row
    float offset = QmmMmaFragments.affineOffset(bits, dtype);
    int slab = ks * rt * 128;
    int[] wsh = ctx.allocateIntLocalArray(stages * ks * 16 * rs); // [stages, ks, 16, rs] words
    short[] ssh = ctx.allocateShortLocalArray(stages * ks * 32 * cpw); // [stages, ks, 2, 16, cpw]
    float[] red = ctx.allocateFloatLocalArray(2 * rb * slab); // [2, rb, ks, rt, 128] reduction slab
    float[] xsum = ctx.allocateFloatLocalArray(rt * ks * cpw * 8); // [rt, ks, cpw, 8] x sums
    int step = ctx.groupCountX;
    // Per-lane copy offsets, fixed for the whole kernel (requestFull): chunk q = lane + 32u of a
    // batch is 16-byte chunk q % wps of row q / wps.
    Int4 so = QmmMmaAsyncCopies.srcOffsets(lane, wps, wpr, lw);
    Int4 dso = QmmMmaAsyncCopies.dstOffsets(lane, wps, rs);
    int sso = (lane & 15) * groups + gw; // the lane's scale (or bias) row's first group

    // x first: the warp's slice of x (a few KiB for the whole grid) is requested before the first
    // stages so that it does not queue behind them. Held raw in xf_j until the stages are
    // requested, then made into B fragments. (Run 98: 3 stages 10.84 -> 10.77 us at 2 rows.)
    int mBase = ctx.groupIdy * 8 * rt;
    int xr = mBase + g < rows ? (mBase + g) * k : -1;
    int lanew = lw + t * wpl; // the lane's first word of a row; group c adds 4*wpl*c
    // The lane's first code of a row (the unit widths' x slots).
    int lanek = hw ? warp * cpw * groupSize + 16 * upl * t : lanew * 32 / bits;
    Int4 xf0 = xSlot(x, xr, lanew, lanek, 0, wpl, wps, groupSize, bits);
    Int4 xf1 = xSlot(x, xr, lanew, lanek, 1, wpl, wps, groupSize, bits);
    Int4 xf2 = xSlot(x, xr, lanew, lanek, 2, wpl, wps, groupSize, bits);
    Int4 xf3 = xSlot(x, xr, lanew, lanek, 3, wpl, wps, groupSize, bits);
    Int4 xf4 = xSlot(x, xr, lanew, lanek, 4, wpl, wps, groupSize, bits);
    Int4 xf5 = xSlot(x, xr, lanew, lanek, 5, wpl, wps, groupSize, bits);
    Int4 xf6 = xSlot(x, xr, lanew, lanek, 6, wpl, wps, groupSize, bits);
    Int4 xf7 = xSlot(x, xr, lanew, lanek, 7, wpl, wps, groupSize, bits);
    // Row tile 1 (rt = 2: rows mBase + 8..15): the same A fragments feed both tiles' mmas.
    int yr = rt > 1 && mBase + 8 + g < rows ? (mBase + 8 + g) * k : -1;
    Int4 zx = new Int4(0, 0, 0, 0);
    Int4 yf0 = zx;
    Int4 yf1 = zx;
    Int4 yf2 = zx;
    Int4 yf3 = zx;
    Int4 yf4 = zx;
    Int4 yf5 = zx;
    Int4 yf6 = zx;
    Int4 yf7 = zx;
    if (rt > 1) {
      yf0 = xSlot(x, yr, lanew, lanek, 0, wpl, wps, groupSize, bits);
      yf1 = xSlot(x, yr, lanew, lanek, 1, wpl, wps, groupSize, bits);
      yf2 = xSlot(x, yr, lanew, lanek, 2, wpl, wps, groupSize, bits);
      yf3 = xSlot(x, yr, lanew, lanek, 3, wpl, wps, groupSize, bits);
      yf4 = xSlot(x, yr, lanew, lanek, 4, wpl, wps, groupSize, bits);
      yf5 = xSlot(x, yr, lanew, lanek, 5, wpl, wps, groupSize, bits);
      yf6 = xSlot(x, yr, lanew, lanek, 6, wpl, wps, groupSize, bits);
      yf7 = xSlot(x, yr, lanew, lanek, 7, wpl, wps, groupSize, bits);
    }

    // The first stages - 1 batches (early = 1: all stages, before x is waited for below).
    int bt = ctx.groupIdx;
    for (int s = 0; s < stages - 1 + early; s++) {
      QmmMmaAsyncCopies.request(
          wq,
          scales,
          biases,
          wsh,
          ssh,
          bt + s * step,
          s,
          batches,
          n,
          ks,
          wps,
          cpw,
          rs,
          lane,
          warp,
          lw,
          gw,
          wpr,
          groups);
      Vec.commitAsync();
    }

    // x as B fragments (steps h = 0, 1 of word j in xf_j), for the whole kernel, and the per-group
    // sums X of x (rows 2t, 2t+1: group c at xsum[warp, c, 2t + r]).
    Float4 zf = new Float4(0f, 0f, 0f, 0f);
    Int4 ones = QmmMmaFragments.onesFragment(dtype);
    int xsAt = warp * cpw * 8 + 2 * t;
    int ys = ks * cpw * 8; // row tile 1's sums follow tile 0's
    for (int c = 0; c < cpw; c++) {
      Float4 o = zf;
      Float4 oy = zf;
      for (int i = 0; i < upl * spu; i++) {
        int j = c * upl * spu + i;
        Int4 p = QmmMmaSplitKKernel.pick(xf0, xf1, xf2, xf3, xf4, xf5, xf6, xf7, j);
        // A slot holds x in 4-bit order for either width (loadXWord).
        Int2 b0 = QmmMmaFragments.fragB(p, 0, 4);
        Int2 b1 = QmmMmaFragments.fragB(p, 1, 4);
        o = QmmMmaKernel.mma(ctx, ones, b0, o, dtype);
        o = QmmMmaKernel.mma(ctx, ones, b1, o, dtype);
        // The sums above take x as it is; the mmas take it as fragA's k slots need it.
        Int4 fr =
            QmmMmaAsyncLayout.xFragments(new Int4(b0.x(), b0.y(), b1.x(), b1.y()), bits, dtype, fu);
        Int4 fy = zx;
        if (rt > 1) {
          Int4 py = QmmMmaSplitKKernel.pick(yf0, yf1, yf2, yf3, yf4, yf5, yf6, yf7, j);
          Int2 c0 = QmmMmaFragments.fragB(py, 0, 4);
          Int2 c1 = QmmMmaFragments.fragB(py, 1, 4);
          oy = QmmMmaKernel.mma(ctx, ones, c0, oy, dtype);
          oy = QmmMmaKernel.mma(ctx, ones, c1, oy, dtype);
          fy =
              QmmMmaAsyncLayout.xFragments(
                  new Int4(c0.x(), c0.y(), c1.x(), c1.y()), bits, dtype, fu);
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
    // x row g's sums as the B fragments of the bias mma (biasTerm), held for the whole kernel;
    // without it (tensorBias) they are read from xsum per group.
    boolean tb = QmmMmaAsyncFold.tensorBias(dtype, cpw, rt);
    int xg = warp * cpw * 8 + g; // x row g's sum of group c at xg + 8c
    Int4 xs0 = tb ? QmmMmaAsyncFold.sumFragment(xsum, xg, 0, t, cpw, offset) : zx;
    Int4 xs1 = tb && cpw > 4 ? QmmMmaAsyncFold.sumFragment(xsum, xg, 1, t, cpw, offset) : zx;
    Int4 ys0 = tb && rt > 1 ? QmmMmaAsyncFold.sumFragment(xsum, ys + xg, 0, t, cpw, offset) : zx;
    Int4 ys1 =
        tb && rt > 1 && cpw > 4
            ? QmmMmaAsyncFold.sumFragment(xsum, ys + xg, 1, t, cpw, offset)
            : zx;

    int tid = ctx.localIdx;
    int buf = 0;
    int slot = 0; // the stage holding batch bt
    int li = 0; // batches this block has walked
    // Reducers of one batch of a round (rb > 1): groups of at least one batch's tile of threads.
    int rgroups = Math.max(1, 32 * ks / (128 * rt));
    int rsize = 32 * ks / rgroups;
    // rb = 1, one row tile, a thread per entry of the batch tile: the thread's entry, once
    // (QmmMmaReduce.ownSlot). Two row tiles keep the per-batch form: at their 128-register cap
    // the two registers the hoist holds spilled 24 bytes (g64 bf16, ptxas 13.0).
    boolean own = rb == 1 && rt == 1 && QmmMmaReduce.ownsEntries(ks, rt);
    int eSlot = QmmMmaReduce.ownSlot(tid, rt, mBase, rows);
    int eOut = QmmMmaReduce.ownOut(tid, rt, mBase, n);
    while (bt < batches) {
      // Refill the stage read last batch (its readers passed that batch's block barrier) with the
      // batch stages - 1 ahead; one group per iteration, empty past the end, so the wait below
      // always covers batch bt. Lanes read words other lanes copied: a warp barrier after it.
      // (early = 1 refilled it right after that barrier instead.) With rounds of rb > 1 batches
      // there is no block barrier per batch; a stage's words are the warp's own, so the warp's
      // lanes having read it (a warp barrier) is enough.
      if (early == 0) {
        if (rb > 1) {
          ctx.warpBarrier();
        }
        QmmMmaAsyncCopies.refill(
            wq,
            scales,
            biases,
            wsh,
            ssh,
            bt + (stages - 1) * step,
            slot == 0 ? stages - 1 : slot - 1,
            batches,
            n,
            ks,
            wps,
            cpw,
            rs,
            lane,
            warp,
            lw,
            gw,
            wpr,
            groups,
            sso,
            so,
            dso);
      }
      Vec.waitAsync(stages - 1);
      ctx.warpBarrier();

      int rowA = ((slot * ks + warp) * 16 + g) * rs + laneWord; // the lane's words of row g
      int rowB = rowA + 8 * rs; // and of row g + 8
      int sc = ((slot * ks + warp) * 32 + g) * cpw; // scales of row g; +8·cpw row g+8
      int bi = sc + 16 * cpw; // biases
      Float4 acc = zf;
      Float4 accY = zf; // row tile 1 (rt = 2)
      Int4 sa = zx; // tensorBias: the cpw scales of row g, packed in pairs
      Int4 sb = zx; // of row g + 8
      if (tb) {
        sa = QmmMmaAsyncFold.sharedGroups(ssh, sc, cpw);
        sb = QmmMmaAsyncFold.sharedGroups(ssh, sc + 8 * cpw, cpw);
        // The rows that the lane's slots of the bias fragment come from (t < 2 scales, t >= 2
        // biases).
        int pr = t >= 2 ? bi : sc;
        Int4 pa = QmmMmaAsyncFold.sharedGroups(ssh, pr, cpw);
        Int4 pb = QmmMmaAsyncFold.sharedGroups(ssh, pr + 8 * cpw, cpw);
        acc = QmmMmaAsyncFold.biasTerm(ctx, pa, pb, xs0, xs1, t, cpw, acc);
        if (rt > 1) {
          accY = QmmMmaAsyncFold.biasTerm(ctx, pa, pb, ys0, ys1, t, cpw, accY);
        }
      }
      for (int c = 0; c < cpw; c++) {
        Float4 d = zf;
        Float4 e = zf;
        for (int i = 0; i < upl; i++) {
          // The unit's words in the lane's rows (written out so that 4-bit's PTX stays as it was).
          // 3/5 bits: the words the unit touches, from its start word, moved down to bit 0.
          int at = hw ? gwords * c + ((bits * i) >> 1) : 4 * wpl * c + i * wpu;
          int wn = hw ? (bits + 1) / 2 : wpu; // words read: 3-bit 2, 5-bit 3
          int wa = wsh[rowA + at];
          int wb = wsh[rowB + at];
          int wa1 = wn > 1 ? wsh[rowA + at + 1] : 0;
          int wb1 = wn > 1 ? wsh[rowB + at + 1] : 0;
          int wa2 = wn > 2 ? wsh[rowA + at + 2] : 0;
          int wb2 = wn > 2 ? wsh[rowB + at + 2] : 0;
          if (hw) {
            int odd = laneOdd ^ ((bits * i) & 1);
            Int4 ua = QmmMmaAsyncLayout.unitWords(wa, wa1, wa2, odd);
            Int4 ub = QmmMmaAsyncLayout.unitWords(wb, wb1, wb2, odd);
            wa = ua.x();
            wa1 = ua.y();
            wa2 = ua.z();
            wb = ub.x();
            wb1 = ub.y();
            wb2 = ub.z();
          }
          for (int u = 0; u < spu; u++) {
            int j = (c * upl + i) * spu + u;
            Int4 xf = QmmMmaSplitKKernel.pick(xf0, xf1, xf2, xf3, xf4, xf5, xf6, xf7, j);
            // Unpacked once, for both row tiles.
            Int4 a0 = fragA(wa, wa1, wa2, wb, wb1, wb2, 2 * u, bits, dtype, magic, fu);
            Int4 a1 = fragA(wa, wa1, wa2, wb, wb1, wb2, 2 * u + 1, bits, dtype, magic, fu);
            d = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, xf, d, dtype);
            if (rt > 1) {
              Int4 yf = QmmMmaSplitKKernel.pick(yf0, yf1, yf2, yf3, yf4, yf5, yf6, yf7, j);
              e = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, yf, e, dtype);
            }
          }
        }
        float a;
        float b;
        if (tb) {
          a = QmmMmaSplitKKernel.groupValue(sa, c, dtype);
          b = QmmMmaSplitKKernel.groupValue(sb, c, dtype);
        } else {
          // The bias term per group: bias - offset * scale in one FFMA (offset, 64 or 128, is a
          // power of two: the product is exact, one rounding).
          a = QuantMath.halfToFloat(ssh[sc + c], dtype);
          b = QuantMath.halfToFloat(ssh[sc + 8 * cpw + c], dtype);
          float za = Math.fma(-offset, a, QuantMath.halfToFloat(ssh[bi + c], dtype));
          float zb = Math.fma(-offset, b, QuantMath.halfToFloat(ssh[bi + 8 * cpw + c], dtype));
          acc = QmmMmaAsyncFold.biasGroup(xsum, xsAt + 8 * c, za, zb, acc);
          if (rt > 1) {
            accY = QmmMmaAsyncFold.biasGroup(xsum, ys + xsAt + 8 * c, za, zb, accY);
          }
        }
        acc = QmmMmaAsyncFold.scaled(a, b, d, acc);
        if (rt > 1) {
          accY = QmmMmaAsyncFold.scaled(a, b, e, accY);
        }
      }

      // Warp w's row tile v at (w·rt + v)·128: QmmMmaReduce's layout (mt = 1);
      // entry li % rb of the round's half of the slab.
      int entry = rb == 1 ? buf : buf + (li % rb) * slab;
      Vec.store4(red, entry + warp * rt * 128 + lane * 4, acc);
      if (rt > 1) {
        Vec.store4(red, entry + warp * rt * 128 + 128 + lane * 4, accY);
      }
      slot = slot == stages - 1 ? 0 : slot + 1;
      li++;
      bt += step;
      if (rb > 1 && li % rb != 0 && bt < batches) {
        continue; // the round goes on: no block barrier for this batch
      }
      ctx.localBarrier();
      if (rb > 1) {
        // The round's batches (cnt of them, the last bt - step), a group of threads each.
        int cnt = li % rb == 0 ? rb : li % rb;
        int grp = tid / rsize;
        for (int j = 0; j < cnt; j++) {
          if (j % rgroups == grp) {
            QmmMmaReduce.batch(
                red,
                out,
                buf + j * slab,
                tid - grp * rsize,
                rsize,
                bt - (cnt - j) * step,
                16,
                mBase,
                rows,
                n,
                ks,
                1,
                rt,
                dtype);
          }
        }
        buf = rb * slab - buf;
        continue;
      }
      // rb = 1: the batch just walked, as before rounds existed.
      int done = bt - step;
      int read = slot == 0 ? stages - 1 : slot - 1; // the stage batch done was read from
      if (early == 1) {
        // Every warp has read this stage: refill it now, before the reduction, with the batch
        // stages ahead (the prologue requested all stages).
        QmmMmaAsyncCopies.refill(
            wq,
            scales,
            biases,
            wsh,
            ssh,
            done + stages * step,
            read,
            batches,
            n,
            ks,
            wps,
            cpw,
            rs,
            lane,
            warp,
            lw,
            gw,
            wpr,
            groups,
            sso,
            so,
            dso);
      }
      if (own) {
        QmmMmaReduce.sumOwn(red, out, eSlot, eOut, tid, buf, done, n, ks, rt, dtype);
      } else {
        QmmMmaReduce.batch(red, out, buf, tid, 32 * ks, done, 16, mBase, rows, n, ks, 1, rt, dtype);
      }
      // The other half of the slab is next; its last readers finished before this barrier.
      buf = slab - buf;
    }
    Vec.waitAsync(0); // nothing may be in flight into shared memory when the block exits
  }

  // ---- dispatch helpers ----

  /** Float64 reference: see {@link QmmReference#affine}. */
  public static QmmReference.Result reference(
      int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return QmmReference.affine(wq, scales, biases, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    return QmmMmaAsyncPlans.supports(s);
  }

  /**
   * The default plan: {@link QmmMmaAsyncLayout#defaultKs}'s k split, {@link #STAGES} stages, and
   * {@link #rowTiles} row tiles per warp.
   */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    String why = supports(s);
    if (why != null) {
      throw new IllegalArgumentException("s cannot be computed by this kernel: " + why);
    }
    return QmmMmaAsyncPlans.defaultPlan(s, smCount);
  }

  /**
   * Row tiles per warp in the default plan: 2 above 8 rows where at most 16 warps split k (512
   * threads of at most 128 registers) and two stages of two tiles fit in shared memory; else 1
   * (also where this kernel cannot take {@code s}). Run 100 (H100, 12288x4096 g64 bf16, graph
   * replay) timed two tiles at 13.1–13.4 µs over 9–16 rows and 21.6–21.8 at 24–32, against one
   * tile's 22 at 12–16 (run 89, H200) and the register kernel's 15.0–15.3 and 23.8–24.1. g32 takes
   * two since run 103 (H100, bf16, 9 / 16 / 32 / 48 / 72 rows: 16.95 / 17.79 / 28.54 / 39.87 /
   * 61.90 µs against the op's 25.39 / 26.04 ({@code qmm-mma-splitk}) / 36.50 / 98.94 ({@code
   * qmm-mma}) / 63.71 ({@code qmm-tiled}); f16 16 / 32 rows 20.27 / 33.75 against 31.29 / 37.56),
   * although its 128 registers spill 80 bytes.
   */
  public static int rowTiles(QmmShape s) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    return supports(s) != null ? 1 : QmmMmaAsyncPlans.rowTiles(s);
  }

  /**
   * An explicit plan: {@code ks} warps splitting k (as {@link QmmMmaSplitKKernel#plan(QmmShape,
   * int, int, int, int)}), {@code stages} ≥ 2, one block per SM, persistent, one row tile of 8 rows
   * per warp.
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int ks, int stages) {
    return plan(s, smCount, ks, stages, 1);
  }

  /**
   * An explicit plan with {@code rt} (1, 2) row tiles of 8 rows per warp: with 2, each unpacked A
   * fragment feeds the mmas of 16 rows, whose x fragments a second register set holds (16 rows then
   * stream the weights once instead of twice; run 100: see {@link #rowTiles}). Two tiles take 128
   * registers or more (ptxas 13.0, ks = 16, unhinted, since run 103's bias mma: g64 130, g128 133,
   * g32 135), so such plans carry {@link QmmMmaSplitKKernel}'s one-block hint ({@code .maxntid 512,
   * .minnctapersm 1}: at most 128; g64 and g128 then spill nothing, g32 80 bytes, which it was
   * refused for until run 103 measured it faster all the same, {@link #rowTiles}).
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int ks, int stages, int rt) {
    return plan(s, smCount, ks, stages, rt, 1, 0);
  }

  /**
   * An explicit plan with {@code bps} (1, 2) persistent blocks per SM and {@code early} (0, 1):
   * with 1, every stage is requested before the block waits for x, and a stage is refilled right
   * after the block barrier of the batch that read it (before the reduction) instead of at the top
   * of the next batch; the wait before a batch counts the same groups either way. Two blocks per SM
   * carry the two-block hint ({@code .minnctapersm 2}: at most 64 registers for 512 threads) and
   * must fit their shared memory twice in an SM's 228 KiB.
   */
  public static LaunchPlan plan(
      QmmShape s, int smCount, int ks, int stages, int rt, int bps, int early) {
    return plan(s, smCount, ks, stages, rt, bps, early, 1);
  }

  /**
   * An explicit plan whose cross-warp reduction runs once per round of {@code rb} (1–8) batches
   * instead of after every batch: the warps' partial sums of a round go to {@code rb} entries of
   * the slab, and only the round's last batch (or the block's last) has a block barrier, after
   * which groups of threads reduce the round's batches, one group per batch. Between those barriers
   * the warps run apart (a stage is the warp's own, so a warp barrier guards its refill). Not with
   * {@code early = 1}.
   */
  public static LaunchPlan plan(
      QmmShape s, int smCount, int ks, int stages, int rt, int bps, int early, int rb) {
    return plan(s, smCount, ks, stages, rt, bps, early, rb, fmaUnpack(s, rt));
  }

  /**
   * An explicit plan with {@code fu} (0, 1): with 1, bf16 4-bit codes unpack by {@link
   * QmmMmaFragments#fragA4Fma} (half the fragment registers read in place by {@code fma.bf16x2}, a
   * third of the shifts) and bf16 2-bit codes by {@link QmmMmaFragments#fragA2Fma} (three quarters
   * in place, one shift per word instead of seven); the default is {@link #fmaUnpack}. 1 is refused
   * for other widths and dtypes.
   */
  public static LaunchPlan plan(
      QmmShape s, int smCount, int ks, int stages, int rt, int bps, int early, int rb, int fu) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    return QmmMmaAsyncPlans.build(s, smCount, ks, stages, rt, bps, early, rb, fu, false);
  }
}
