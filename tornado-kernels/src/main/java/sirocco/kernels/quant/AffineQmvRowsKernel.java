package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;
import sirocco.runtime.Dim3;

/**
 * Affine quantized matmul for a few rows of x on CUDA cores ("qmv-rows"): {@link AffineQmvKernel}'s
 * mapping and arithmetic, but each packed weight word is loaded and decoded once for {@code xRows}
 * rows of x instead of once per row. Same formats: W stored {@code [n, k]} (MLX's {@code
 * transpose=true}), every bit width 2–8, every group size, bf16/f16/f32 activations with scales and
 * biases in x's dtype. It serves what {@link QmmMmaKernel} cannot take at 2+ rows (2/3/5/6 bits,
 * and float32 x at every width).
 *
 * <h2>Mapping</h2>
 *
 * Grid ({@code ⌈n / (WARPS·rowsPerWarp)⌉}, {@code ⌈m / xRows⌉}). A block is {@link #WARPS} warps,
 * each owning {@code rowsPerWarp} (1 or 2) consecutive output features; grid.y is a block of {@code
 * xRows} (1–8) consecutive rows of x. Lanes stride over k in units of 32 elements as in {@link
 * AffineQmvKernel} (a unit is {@code bits} words of a weight row, inside one group). Per unit a
 * lane loads each feature's words ({@link AffineQmvKernel#unitLo}/{@link AffineQmvKernel#unitHi}:
 * the same 16-, 8- or 4-byte loads), scale and bias once; then, octet by octet (8 codes, {@link
 * AffineQmvKernel#octet}), it turns the codes into the floats {@code 1 + q/2^b} once and for every
 * row of the block loads the octet's 8 x values (one 16-byte load at bf16/f16, two at f32), sums
 * them and accumulates {@code d = Σ(1 + q/2^b)·x} per feature, folded with the group-sum trick
 * ({@link AffineQmvKernel#fold}: {@code S·d + (bias − S)·Σx}, {@code S = scale·2^b}). A shuffle
 * reduction per (row, feature) ends the block; lane 0 stores. Rows past m and features past n are
 * clamped for loading (valid memory) and never stored.
 *
 * <h2>Cost per weight element and row of x (instructions)</h2>
 *
 * Decoding (shift + LOP3 per code) is shared by the block's rows: {@code 2/xRows}; then 1 FFMA per
 * row, the x conversion and sum (2 per element and row, shared by the warp's features: {@code
 * 2/rowsPerWarp}) and the fold per octet ({@code 2/8}): ≈ 2.5 at 8 rows and 2 features per warp,
 * against {@link AffineQmvKernel}'s 3 + 2/rowsPerWarp, which also reads the weights once per row.
 * Measured as SASS (ptxas 13.0, sm_90; the unit loop is straight-line code, so the static count is
 * what one unit costs), 2 features per warp: each extra row of the block adds ≈ 212 instructions at
 * bf16 (≈ 190 in the unit loop for 64 weight elements: ≈ 3.0 per element and row) and ≈ 160 at f32
 * (≈ 2.2: no conversion); the whole kernel is 696 instructions at 2 rows bf16 (4 bits), against 520
 * for {@link AffineQmvKernel} at one. f16 x costs 2.2× bf16 (4328 instructions at 8 rows): the JIT
 * lowers {@code Float.float16ToFloat} with NaN-payload handling, ~10 instructions per element, as
 * it does in {@link AffineQmvKernel}. Not timed on a GPU yet: {@code tornado bench qmm --kernel
 * qmv-rows,qmv} (and {@code qmv-rows@RxF} for other plans).
 *
 * <h2>Registers (no spills anywhere)</h2>
 *
 * Per thread at 2 features per warp, over the widths 2/3/4/5/6/8 at group 64 (Sirocco JIT; ptxas
 * 12.6 in-process as CI runs it for sm_80 / sm_90, then ptxas 13.0 for sm_90, the H200 driver's
 * generation):
 *
 * <table>
 * <caption>registers by rows of x per block and dtype (sm_80 12.6 / sm_90 12.6 / sm_90 13.0)</caption>
 * <tr><th>xRows<th>bf16<th>f16<th>f32
 * <tr><td>2<td>56–64 / 56–72 / 56–69<td>58–66 / 62–72 / 64–72<td>60–72 / 64–72 / 64–72
 * <tr><td>3<td>64–80 / 64–72 / 64–72<td>67–80 / 64–70 / 69–80<td>78–80 / 72–80 / 70–80
 * <tr><td>4<td>72–79 / 72–78 / 72–80<td>72–74 / 70–78 / 72–80<td>78–92 / 72–80 / 78–80
 * <tr><td>5<td>72–80 / 72–80 / 72–80<td>72–76 / 75–80 / 72–83<td>77–95 / 78–80 / 78–80
 * <tr><td>6<td>72–80 / 72–80 / 76–91<td>72–76 / 72–80 / 79–90<td>79–92 / 76–96 / 89–96
 * <tr><td>7<td>76–82 / 76–90 / 80–96<td>74–94 / 72–85 / 84–95<td>78–96 / 79–96 / 87–95
 * <tr><td>8<td>79–84 / 80–89 / 86–103<td>79–84 / 79–87 / 85–96<td>80–112 / 86–96 / 88–107
 * </table>
 *
 * The most: 112 (3-bit f32, 8 rows, sm_80), 107 with ptxas 13.0 (8-bit f32, 8 rows). One feature
 * per warp: 47–64 at 2 and 8 rows. Up to 80 registers 3 blocks of 256 threads fit an SM, up to 128
 * two. The {@code validateWith} sets below cover every width at 8 rows (the most registers), every
 * other row count once, and one feature per warp; {@code ShippedKernelsPtxTest} fails on a spill.
 */
public final class AffineQmvRowsKernel {
  private AffineQmvRowsKernel() {}

  /** Warps per block. */
  public static final int WARPS = 8;

  /** Most rows of x one block takes (registers: 8 accumulators per feature). */
  public static final int MAX_X_ROWS = 8;

  /** Most rows of x one launch takes: 65535 row blocks (grid.y) of {@link #MAX_X_ROWS}. */
  public static final int MAX_ROWS = 65535 * MAX_X_ROWS;

  /**
   * x [m, k] times W [n, k]ᵀ in x's dtype. bf16/f16 use {@code scales, biases, x, out} and ignore
   * the float32 arrays; f32 the reverse: the op passes a one-element dummy for the arrays a dtype
   * does not read, so that one body serves every dtype.
   */
  @Kernel(
      validateWith = {
        "bits=2,groupSize=64,dtype=1,rowsPerWarp=2,xRows=8",
        "bits=3,groupSize=64,dtype=2,rowsPerWarp=2,xRows=8",
        "bits=4,groupSize=32,dtype=0,rowsPerWarp=2,xRows=8",
        "bits=5,groupSize=128,dtype=0,rowsPerWarp=2,xRows=8",
        "bits=6,groupSize=64,dtype=2,rowsPerWarp=2,xRows=8",
        "bits=8,groupSize=64,dtype=2,rowsPerWarp=2,xRows=8",
        "bits=6,groupSize=64,dtype=0,rowsPerWarp=2,xRows=7",
        "bits=5,groupSize=32,dtype=2,rowsPerWarp=2,xRows=6",
        "bits=3,groupSize=64,dtype=1,rowsPerWarp=2,xRows=5",
        "bits=2,groupSize=128,dtype=2,rowsPerWarp=2,xRows=4",
        "bits=8,groupSize=32,dtype=0,rowsPerWarp=2,xRows=3",
        "bits=6,groupSize=64,dtype=0,rowsPerWarp=2,xRows=2",
        "bits=4,groupSize=64,dtype=2,rowsPerWarp=1,xRows=8"
      })
  public static void qmv(
      KernelContext ctx,
      int[] wq, // [n, k*bits/32] packed u32
      short[] scales, // [n, k/groupSize] bf16/f16 bits (f32: a dummy)
      short[] biases, // [n, k/groupSize] bf16/f16 bits (f32: a dummy)
      short[] x, // [m, k] bf16/f16 bits (f32: a dummy)
      short[] out, // [m, n] bf16/f16 bits (f32: a dummy)
      float[] scalesF32, // [n, k/groupSize] (bf16/f16: a dummy)
      float[] biasesF32, // [n, k/groupSize] (bf16/f16: a dummy)
      float[] xF32, // [m, k] (bf16/f16: a dummy)
      float[] outF32, // [m, n] (bf16/f16: a dummy)
      int m,
      int n,
      int k,
      @Specialize int bits,
      @Specialize int groupSize,
      @Specialize int dtype,
      @Specialize int rowsPerWarp,
      @Specialize int xRows) {
    int lane = ctx.laneId();
    int n0 = (ctx.groupIdx * WARPS + ctx.warpId()) * rowsPerWarp;
    int m0 = ctx.groupIdy * xRows;
    int units = k / 32;
    int groups = k / groupSize;
    int wpr = k * bits / 32;
    int one = QmvChunks.opaqueOne(n);
    int w0 = Math.min(n0, n - 1) * wpr;
    int w1 = Math.min(n0 + 1, n - 1) * wpr;
    int g0 = Math.min(n0, n - 1) * groups;
    int g1 = Math.min(n0 + 1, n - 1) * groups;
    // a<r>: row m0 + r of x; component f: feature n0 + f.
    Float4 zero = new Float4(0f, 0f, 0f, 0f);
    Float4 a0 = zero;
    Float4 a1 = zero;
    Float4 a2 = zero;
    Float4 a3 = zero;
    Float4 a4 = zero;
    Float4 a5 = zero;
    Float4 a6 = zero;
    Float4 a7 = zero;
    for (int u = lane; u < units; u += 32) {
      Int4 lo0 = AffineQmvKernel.unitLo(wq, w0 + u * bits, bits);
      Int4 hi0 = AffineQmvKernel.unitHi(wq, w0 + u * bits, bits);
      Int4 lo1 = lo0;
      Int4 hi1 = hi0;
      if (rowsPerWarp > 1) {
        lo1 = AffineQmvKernel.unitLo(wq, w1 + u * bits, bits);
        hi1 = AffineQmvKernel.unitHi(wq, w1 + u * bits, bits);
      }
      int gi = (u * 32) / groupSize;
      Float4 sc = perFeature(scales, scalesF32, g0 + gi, g1 + gi, dtype, rowsPerWarp);
      Float4 bi = perFeature(biases, biasesF32, g0 + gi, g1 + gi, dtype, rowsPerWarp);
      for (int j = 0; j < 4; j++) {
        // The octet's codes as 1 + q/2^b, once for every row of the block.
        long o0 = AffineQmvKernel.octet(lo0, hi0, bits, j);
        long o1 = AffineQmvKernel.octet(lo1, hi1, bits, j);
        Float4 c0 = codes4(o0, 0, bits, one);
        Float4 c0h = codes4(o0, 4, bits, one);
        Float4 c1 = rowsPerWarp > 1 ? codes4(o1, 0, bits, one) : zero;
        Float4 c1h = rowsPerWarp > 1 ? codes4(o1, 4, bits, one) : zero;
        int xo = u * 32 + 8 * j;
        // Row r of the block reads x at xr (rows past m read the last row, never stored).
        int xr = xAt(m0, m, k) + xo;
        a0 = rowOctet(a0, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        if (xRows > 1) {
          xr = xAt(m0 + 1, m, k) + xo;
          a1 = rowOctet(a1, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 2) {
          xr = xAt(m0 + 2, m, k) + xo;
          a2 = rowOctet(a2, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 3) {
          xr = xAt(m0 + 3, m, k) + xo;
          a3 = rowOctet(a3, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 4) {
          xr = xAt(m0 + 4, m, k) + xo;
          a4 = rowOctet(a4, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 5) {
          xr = xAt(m0 + 5, m, k) + xo;
          a5 = rowOctet(a5, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 6) {
          xr = xAt(m0 + 6, m, k) + xo;
          a6 = rowOctet(a6, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
        if (xRows > 7) {
          xr = xAt(m0 + 7, m, k) + xo;
          a7 = rowOctet(a7, x, xF32, xr, c0, c0h, c1, c1h, sc, bi, bits, dtype, rowsPerWarp);
        }
      }
    }
    finish(ctx, a0, out, outF32, m0, m, n0, n, dtype, rowsPerWarp);
    if (xRows > 1) {
      finish(ctx, a1, out, outF32, m0 + 1, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 2) {
      finish(ctx, a2, out, outF32, m0 + 2, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 3) {
      finish(ctx, a3, out, outF32, m0 + 3, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 4) {
      finish(ctx, a4, out, outF32, m0 + 4, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 5) {
      finish(ctx, a5, out, outF32, m0 + 5, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 6) {
      finish(ctx, a6, out, outF32, m0 + 6, m, n0, n, dtype, rowsPerWarp);
    }
    if (xRows > 7) {
      finish(ctx, a7, out, outF32, m0 + 7, m, n0, n, dtype, rowsPerWarp);
    }
  }

  /** Element offset of row {@code row} of x, clamped to the last row (loads stay in bounds). */
  static int xAt(int row, int m, int k) {
    return Math.min(row, m - 1) * k;
  }

  /** A scale or bias of features 0 and 1 (components x, y) as float, from x's dtype. */
  static Float4 perFeature(short[] half, float[] f32, int i0, int i1, int dtype, int rowsPerWarp) {
    float v0 = param(half, f32, i0, dtype);
    float v1 = rowsPerWarp > 1 ? param(half, f32, i1, dtype) : 0f;
    return new Float4(v0, v1, 0f, 0f);
  }

  static float param(short[] half, float[] f32, int i, int dtype) {
    return dtype == Quant.F32 ? Vec.ldg(f32, i) : QuantMath.halfToFloat(Vec.ldg(half, i), dtype);
  }

  /**
   * Code {@code i} (0..7) of an octet as {@code 1 + q/2^bits}: the code moved to the top of the
   * mantissa of 1.0 (one shift, funnel shift across the two words where the octet spans them, and
   * one LOP3 with {@code one} = {@link QmvChunks#opaqueOne}).
   */
  static float code(long octet, int i, int bits, int one) {
    int top = 23 - bits; // mantissa bit where the code's lowest bit goes
    int sh = i * bits - top;
    int moved = sh >= 0 ? (int) (octet >>> sh) : (int) octet << -sh;
    return Float.intBitsToFloat((moved & (((1 << bits) - 1) << top)) | one);
  }

  /** Codes {@code p .. p+3} of an octet (see {@link #code}). */
  static Float4 codes4(long octet, int p, int bits, int one) {
    return new Float4(
        code(octet, p, bits, one),
        code(octet, p + 1, bits, one),
        code(octet, p + 2, bits, one),
        code(octet, p + 3, bits, one));
  }

  /** {@code d + Σ c·x} over 4 elements (codes as floats times x). */
  static float fma4(Float4 c, Float4 x, float d) {
    d = Math.fma(c.x(), x.x(), d);
    d = Math.fma(c.y(), x.y(), d);
    d = Math.fma(c.z(), x.z(), d);
    return Math.fma(c.w(), x.w(), d);
  }

  /**
   * One row's octet: loads its 8 x values at {@code xi} (one 16-byte load at bf16/f16, two at f32),
   * and adds each feature's {@code S·Σ(1+q/2^b)x + (bias − S)·Σx} to {@code acc}'s component.
   */
  static Float4 rowOctet(
      Float4 acc,
      short[] x,
      float[] xF32,
      int xi,
      Float4 c0,
      Float4 c0h,
      Float4 c1,
      Float4 c1h,
      Float4 sc,
      Float4 bi,
      int bits,
      int dtype,
      int rowsPerWarp) {
    Float4 xa;
    Float4 xb;
    if (dtype == Quant.F32) {
      xa = Vec.ldg4(xF32, xi);
      xb = Vec.ldg4(xF32, xi + 4);
    } else {
      Int4 p = Vec.ldg4(x, xi);
      xa = AffineQmvKernel.lo4(p, dtype);
      xb = AffineQmvKernel.hi4(p, dtype);
    }
    float xs = AffineQmvKernel.sum4(xa) + AffineQmvKernel.sum4(xb);
    float a =
        AffineQmvKernel.fold(acc.x(), fma4(c0h, xb, fma4(c0, xa, 0f)), xs, sc.x(), bi.x(), bits);
    float b = acc.y();
    if (rowsPerWarp > 1) {
      b = AffineQmvKernel.fold(b, fma4(c1h, xb, fma4(c1, xa, 0f)), xs, sc.y(), bi.y(), bits);
    }
    return new Float4(a, b, acc.z(), acc.w());
  }

  /** Sums one row's accumulators over the warp; lane 0 stores those inside [m, n]. */
  static void finish(
      KernelContext ctx,
      Float4 acc,
      short[] out,
      float[] outF32,
      int row,
      int m,
      int n0,
      int n,
      int dtype,
      int rowsPerWarp) {
    float v0 = AffineQmvKernel.warpSum(ctx, acc.x());
    float v1 = rowsPerWarp > 1 ? AffineQmvKernel.warpSum(ctx, acc.y()) : 0f;
    if (ctx.laneId() == 0 && row < m) {
      int o = row * n + n0;
      if (n0 < n) {
        store(out, outF32, o, v0, dtype);
      }
      if (rowsPerWarp > 1 && n0 + 1 < n) {
        store(out, outF32, o + 1, v1, dtype);
      }
    }
  }

  static void store(short[] out, float[] outF32, int i, float v, int dtype) {
    if (dtype == Quant.F32) {
      outF32[i] = v;
    } else {
      out[i] = QuantMath.floatToHalf(v, dtype);
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
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.mode() != Quant.AFFINE) {
      return "affine mode only (fp modes use FpQmvKernel)";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k]); transpose=false uses QvmKernel";
    }
    if (s.rows() > MAX_ROWS) {
      return "at most " + MAX_ROWS + " rows (65535 blocks of 8 on grid.y), got " + s.rows();
    }
    return null;
  }

  /**
   * The kernel's runtime arguments in order for {@code s}: {@code x}, {@code out}, {@code scales}
   * and {@code biases} in x's dtype go to the bf16/f16 or the float32 slots, {@code dummyHalf} (any
   * short array or buffer) and {@code dummyF32} (any float array or buffer) fill the others. Arrays
   * (tests) and device buffers (the op) alike.
   */
  public static Object[] arguments(
      QmmShape s,
      Object wq,
      Object scales,
      Object biases,
      Object x,
      Object out,
      Object dummyHalf,
      Object dummyF32) {
    boolean f32 = s.dtype() == Quant.F32;
    return new Object[] {
      wq,
      f32 ? dummyHalf : scales,
      f32 ? dummyHalf : biases,
      f32 ? dummyHalf : x,
      f32 ? dummyHalf : out,
      f32 ? scales : dummyF32,
      f32 ? biases : dummyF32,
      f32 ? x : dummyF32,
      f32 ? out : dummyF32,
      s.rows(),
      s.n(),
      s.k()
    };
  }

  /** The default plan: see {@link #plan(QmmShape, int, int)}. */
  public static LaunchPlan plan(QmmShape s) {
    return plan(s, defaultXRows(s.rows()), 2);
  }

  /**
   * Rows of x per block for {@code rows} rows: as few row blocks as {@link #MAX_X_ROWS} allows,
   * split evenly ({@code 9} rows: 2 blocks of 5, not 8 + 1), so no block computes many clamped
   * rows.
   */
  public static int defaultXRows(int rows) {
    int blocks = (rows + MAX_X_ROWS - 1) / MAX_X_ROWS;
    return (rows + blocks - 1) / blocks;
  }

  /** A plan with explicit rows of x per block (1..8) and features per warp (1 or 2). */
  public static LaunchPlan plan(QmmShape s, int xRows, int rowsPerWarp) {
    if (xRows < 1 || xRows > MAX_X_ROWS) {
      throw new IllegalArgumentException("xRows must be 1.." + MAX_X_ROWS + ", got " + xRows);
    }
    if (rowsPerWarp != 1 && rowsPerWarp != 2) {
      throw new IllegalArgumentException("rowsPerWarp must be 1 or 2, got " + rowsPerWarp);
    }
    int perBlock = WARPS * rowsPerWarp;
    int rowBlocks = (s.rows() + xRows - 1) / xRows;
    if (rowBlocks > 65535) {
      throw new IllegalArgumentException(
          "at most 65535 row blocks (grid.y), got " + s.rows() + " rows in blocks of " + xRows);
    }
    Dim3 grid = Dim3.of((s.n() + perBlock - 1) / perBlock, rowBlocks);
    return LaunchPlan.of(
        "AffineQmvRowsKernel.qmv",
        grid,
        Dim3.of(32 * WARPS),
        0,
        "bits",
        s.bits(),
        "groupSize",
        s.groupSize(),
        "dtype",
        s.dtype(),
        "rowsPerWarp",
        rowsPerWarp,
        "xRows",
        xRows);
  }
}
