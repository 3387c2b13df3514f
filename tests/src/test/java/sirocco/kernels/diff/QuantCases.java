package sirocco.kernels.diff;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import sirocco.kernels.diff.Prepared.Kind;
import sirocco.kernels.diff.Prepared.Out;
import sirocco.kernels.diff.Prepared.Spec;
import sirocco.kernels.diff.Prepared.Tolerance;
import sirocco.kernels.quant.AffineDequantizeKernel;
import sirocco.kernels.quant.AffineQmvAsyncKernel;
import sirocco.kernels.quant.AffineQmvKernel;
import sirocco.kernels.quant.AffineQmvPersistentKernel;
import sirocco.kernels.quant.AffineQmvRowsKernel;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.AffineQmvWarpKernel;
import sirocco.kernels.quant.AffineQuantizeKernel;
import sirocco.kernels.quant.FpDequantizeKernel;
import sirocco.kernels.quant.FpQmvKernel;
import sirocco.kernels.quant.FpQuantizeKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmMmaAsyncFpKernel;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmMmaXSharedKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.QmmTiledKernel;
import sirocco.kernels.quant.QmmWgmmaKernel;
import sirocco.kernels.quant.QmmWgmmaTmaKernel;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.quant.QvmKernel;

/**
 * Case builders for the kernels of {@code sirocco.kernels.quant}. Geometry comes from each kernel's
 * own {@code plan} (the one {@code QmmOp}/{@code QuantizeOp} launch with), argument lists follow
 * {@code QmmOp.launch} and {@code QuantizeOp} (including their one-element dummies for the other
 * mode's arrays and nvfp4's global-scale array). Sizes are small (the Java backend is the slow
 * side) but chosen so that every kernel meets its tails: features not a multiple of a block's, rows
 * not a multiple of a tile's, k spanning more than one lane stride or tile where a kernel loops
 * over k.
 */
final class QuantCases {
  private QuantCases() {}

  /**
   * Tensor cores accumulate each m16n8k16 product in their own order and internal precision, the
   * Java backend in float in a fixed order; the affine path adds the offset codes 128+q (bf16) or
   * 1024+q (f16) before subtracting offset·scale·Σx, which scales that difference up. Allowed: two
   * ulps of the output dtype plus 2^-10 of the output's largest magnitude.
   */
  private static Tolerance mmaTolerance(int dtype) {
    return new Tolerance(
        dtype == Quant.F16 ? 0x1p-9 : 0x1p-6,
        0x1p-10,
        "tensor-core accumulation order/precision differs from the Java backend's float mma");
  }

  // ---- shared data ----

  /** The operands of one quantized matmul, as {@code QmmOp.Operands} holds them. */
  private record QmmData(
      int[] wq,
      Object scales,
      Object biases,
      byte[] fpScales,
      float[] globalScale,
      Object x,
      Object out) {}

  /**
   * Random weights, scales and activations for {@code s} and a poisoned output: W is {@code [n, k]}
   * ({@code transpose}) or {@code [k, n]}, quantized along its last axis.
   */
  private static QmmData data(Random r, QmmShape s) {
    int outer = s.transpose() ? s.n() : s.k();
    int axis = s.quantizedAxis();
    int words = outer * Quant.wordsPerRow(axis, s.bits());
    int groups = outer * (axis / s.groupSize());
    boolean affine = s.mode() == Quant.AFFINE;
    int[] wq = Gen.codeWords(r, s.mode(), words);
    Object scales = affine ? Gen.floats(s.dtype(), Gen.affineScales(r, groups)) : null;
    Object biases = affine ? Gen.floats(s.dtype(), Gen.affineBiases(r, groups)) : null;
    byte[] fp = affine ? null : Gen.fpScales(r, s.mode(), groups);
    // nvfp4 with a global scale other than the neutral one, so its factor is exercised.
    float[] gs = {
      s.mode() == Quant.NVFP4 ? (float) (500 + r.nextDouble() * 2500) : Quant.NO_GLOBAL_SCALE
    };
    Object x = Gen.floats(s.dtype(), Gen.normal(r, s.rows() * s.k(), 1.0));
    int outLen = s.rows() * s.n();
    Object out = s.dtype() == Quant.F32 ? Gen.poisonF32(outLen) : Gen.poison16(outLen);
    return new QmmData(wq, scales, biases, fp, gs, x, out);
  }

  private static Kind kind(int dtype) {
    return switch (dtype) {
      case Quant.BF16 -> Kind.BF16;
      case Quant.F16 -> Kind.F16;
      default -> Kind.F32;
    };
  }

  /** A one-element array of the dtype's storage: what {@code QuantKernels.dummy} passes. */
  private static Object dummyHalfOrFloat(int dtype) {
    return dtype == Quant.F32 ? new float[1] : new short[1];
  }

  static Prepared fromPlan(
      Method m, LaunchPlan p, String note, Object shape, List<Out> outs, Object... runtime) {
    if (!p.kernel().equals(ShippedKernels.key(m))) {
      throw new IllegalStateException(
          "case for " + ShippedKernels.key(m) + " got a plan for " + p.kernel());
    }
    return new Prepared(
        m,
        p.grid(),
        p.block(),
        p.arguments(runtime),
        outs,
        note,
        shape.toString(),
        p.minBlocksPerSm());
  }

  /**
   * An affine vector-path case whose kernel takes (wq, scales, biases, x, out, rows, n, k) and
   * writes argument 4 exactly.
   */
  private static Prepared affineRowsCase(
      Method m, LaunchPlan p, String note, QmmShape s, QmmData d) {
    return fromPlan(
        m,
        p,
        note,
        s,
        List.of(Out.of(4, kind(s.dtype()), Tolerance.EXACT)),
        d.wq(),
        d.scales(),
        d.biases(),
        d.x(),
        d.out(),
        s.rows(),
        s.n(),
        s.k());
  }

  // ---- quantize / dequantize ----

  static Prepared affineQuantize(Method m, Spec sp) {
    boolean f32 = m.getName().equals("quantizeF32");
    int bits = sp.i("bits");
    int g = sp.i("groupSize");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int rows = 16;
    int cols = 9 * g; // 144 groups: two blocks of 128 threads, the second partial
    Random r = sp.rnd();
    float[] w = Gen.normal(r, rows * cols, 0.05);
    // Degenerate groups: all zero, and all equal (scale clamps to 1e-7, codes round to one value).
    java.util.Arrays.fill(w, 0, g, 0f);
    java.util.Arrays.fill(w, g, 2 * g, 0.0317f);
    int groups = rows * cols / g;
    int wordsOut = rows * Quant.wordsPerRow(cols, bits);
    Prepared.supported(AffineQuantizeKernel.supports(bits, g, dtype, rows, cols));
    LaunchPlan p = AffineQuantizeKernel.plan(bits, g, dtype, rows, cols);
    return fromPlan(
        m,
        p,
        "dispatch",
        rows + "x" + cols,
        List.of(
            Out.bits(1),
            Out.of(2, kind(dtype), Tolerance.EXACT),
            Out.of(3, kind(dtype), Tolerance.EXACT)),
        Gen.floats(dtype, w),
        Gen.poison32(wordsOut),
        f32 ? Gen.poisonF32(groups) : Gen.poison16(groups),
        f32 ? Gen.poisonF32(groups) : Gen.poison16(groups),
        groups);
  }

  static Prepared fpQuantize(Method m, Spec sp) {
    boolean f32 = m.getName().equals("quantizeF32");
    int mode = sp.i("mode");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int g = Quant.modeGroupSize(mode, 0);
    int bits = Quant.elementBits(mode, 0);
    int rows = 7;
    int cols = 640; // 7 * 640 / 32 = 140 groups (280 for nvfp4): more than one block of 128
    Random r = sp.rnd();
    float[] w = Gen.normal(r, rows * cols, 0.5);
    java.util.Arrays.fill(w, 0, g, 0f); // an all-zero group: scale code of 0
    int groups = rows * cols / g;
    float gs = mode == Quant.NVFP4 ? (float) (200 + r.nextDouble() * 2000) : Quant.NO_GLOBAL_SCALE;
    Prepared.supported(FpQuantizeKernel.supports(mode, dtype, rows, cols));
    LaunchPlan p = FpQuantizeKernel.plan(mode, dtype, rows, cols);
    return fromPlan(
        m,
        p,
        "dispatch",
        Quant.modeName(mode) + " " + rows + "x" + cols,
        List.of(Out.bits(1), Out.bits(2)),
        Gen.floats(dtype, w),
        Gen.poison32(rows * Quant.wordsPerRow(cols, bits)),
        Gen.poison8(groups),
        new float[] {gs},
        groups);
  }

  static Prepared affineDequantize(Method m, Spec sp) {
    boolean f32 = m.getName().equals("dequantizeF32");
    int bits = sp.i("bits");
    int g = sp.i("groupSize");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int rows = 5;
    int cols = 512; // 320 octets: two blocks of 256 threads, the second partial
    Random r = sp.rnd();
    int groups = rows * cols / g;
    Prepared.supported(AffineDequantizeKernel.supports(bits, g, dtype, rows, cols));
    LaunchPlan p = AffineDequantizeKernel.plan(bits, g, dtype, rows, cols);
    int n = rows * cols;
    return fromPlan(
        m,
        p,
        "dispatch",
        rows + "x" + cols,
        List.of(Out.of(3, kind(dtype), Tolerance.EXACT)),
        Gen.words(r, rows * Quant.wordsPerRow(cols, bits)),
        Gen.floats(dtype, Gen.affineScales(r, groups)),
        Gen.floats(dtype, Gen.affineBiases(r, groups)),
        dtype == Quant.F32 ? Gen.poisonF32(n) : Gen.poison16(n),
        n / 8);
  }

  static Prepared fpDequantize(Method m, Spec sp) {
    boolean f32 = m.getName().equals("dequantizeF32");
    int mode = sp.i("mode");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int rows = 5;
    int cols = 512;
    Random r = sp.rnd();
    int g = Quant.modeGroupSize(mode, 0);
    int n = rows * cols;
    float gs = mode == Quant.NVFP4 ? (float) (200 + r.nextDouble() * 2000) : Quant.NO_GLOBAL_SCALE;
    Prepared.supported(FpDequantizeKernel.supports(mode, dtype, rows, cols));
    LaunchPlan p = FpDequantizeKernel.plan(mode, dtype, rows, cols);
    return fromPlan(
        m,
        p,
        "dispatch",
        Quant.modeName(mode) + " " + rows + "x" + cols,
        List.of(Out.of(3, kind(dtype), Tolerance.EXACT)),
        Gen.codeWords(r, mode, rows * Quant.wordsPerRow(cols, Quant.elementBits(mode, 0))),
        Gen.fpScales(r, mode, n / g),
        new float[] {gs},
        dtype == Quant.F32 ? Gen.poisonF32(n) : Gen.poison16(n),
        n / 8);
  }

  // ---- vector path ----

  static Prepared affineQmv(Method m, Spec sp) {
    boolean f32 = m.getName().equals("qmvF32");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int rpw = sp.i("rowsPerWarp");
    // k = 2048: 64 units of 32, so each lane walks two; n = 75: the last block is partial.
    QmmShape s = QmmShape.affine(sp.i("bits"), sp.i("groupSize"), dtype, 3, 75, 2048);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(AffineQmvKernel.supports(s));
    LaunchPlan p = AffineQmvKernel.plan(s, rpw);
    return fromPlan(
        m,
        p,
        rpw == 2 ? "dispatch" : "AffineQmvKernel.plan(s, " + rpw + ")",
        s,
        List.of(Out.of(4, kind(dtype), Tolerance.EXACT)),
        d.wq(),
        d.scales(),
        d.biases(),
        d.x(),
        d.out(),
        s.n(),
        s.k());
  }

  static Prepared affineQmvRows(Method m, Spec sp) {
    int dtype = sp.i("dtype");
    int xRows = sp.i("xRows");
    int rpw = sp.i("rowsPerWarp");
    // 2 * xRows - 1 rows: the second row block is partial; n = 75: so is the last feature block.
    int rows = Math.max(1, 2 * xRows - 1);
    QmmShape s = QmmShape.affine(sp.i("bits"), sp.i("groupSize"), dtype, rows, 75, 2048);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(AffineQmvRowsKernel.supports(s));
    LaunchPlan p = AffineQmvRowsKernel.plan(s, xRows, rpw);
    boolean f32 = dtype == Quant.F32;
    Object[] runtime =
        AffineQmvRowsKernel.arguments(
            s, d.wq(), d.scales(), d.biases(), d.x(), d.out(), new short[1], new float[1]);
    return fromPlan(
        m,
        p,
        "AffineQmvRowsKernel.plan(s, " + xRows + ", " + rpw + ")",
        s,
        List.of(Out.of(f32 ? 8 : 4, kind(dtype), Tolerance.EXACT)),
        runtime);
  }

  static Prepared affineQmvWarp(Method m, Spec sp) {
    int bits = sp.i("bits");
    int rows = sp.i("rows");
    int warps = sp.i("warps");
    // k past one tile of 32*cpl chunks and not a multiple of it (the clamped chunks are skipped);
    // 4 rows per block takes 6 rows (a partial second row block), as dispatch would.
    int k = bits == 4 ? 5120 : bits == 8 ? 2560 : 1280;
    int m0 = rows == 4 ? 6 : rows;
    QmmShape s = QmmShape.affine(bits, sp.i("groupSize"), sp.i("dtype"), m0, 29, k);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(AffineQmvWarpKernel.supports(s));
    LaunchPlan p = AffineQmvWarpKernel.plan(s, rows, warps);
    boolean dispatch = warps == 8 && rows == Math.min(4, m0);
    return affineRowsCase(
        m,
        p,
        dispatch ? "dispatch" : "AffineQmvWarpKernel.plan(s, " + rows + ", " + warps + ")",
        s,
        d);
  }

  static Prepared affineQmvPersistent(Method m, Spec sp) {
    int bits = sp.i("bits");
    int kTiles = sp.i("kTiles");
    // kTiles is ceil(k / elements per 32*cpl chunks): 4096 elements at 4 bits, 2048 at 8, 8192 at
    // 2.
    int tile = 32 * 4 * (128 / bits);
    int k = kTiles == 1 ? tile * 3 / 4 : tile + tile / 4;
    QmmShape s = QmmShape.affine(bits, sp.i("groupSize"), sp.i("dtype"), 2, 43, k);
    QmmData d = data(sp.rnd(), s);
    // With 43 features the grid is one block per 8 features on any GPU of >= 6 SMs, so the plan
    // does not depend on the device's SM count.
    Prepared.supported(AffineQmvPersistentKernel.supports(s));
    LaunchPlan p = AffineQmvPersistentKernel.plan(s, sp.smCount());
    return affineRowsCase(m, p, "dispatch", s, d);
  }

  static Prepared affineQmvSplitK(Method m, Spec sp) {
    int bits = sp.i("bits");
    int warps = sp.i("warps");
    int fb = sp.i("fb");
    // warps = ceil(chunks / 32) with chunks = k / (128 / bits): k one chunk-row short of full.
    int e = 128 / bits;
    int k = (warps * 32 - 16) * e;
    QmmShape s = QmmShape.affine(bits, sp.i("groupSize"), sp.i("dtype"), 2, 22, k);
    Prepared.supported(AffineQmvSplitKKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    // fb = 4 is the dispatch plan; fb = 2 uses the explicit one-wave plan. With 22 features every
    // batch gets its own block on any GPU of >= 11 SMs, so blocksPerSm (1 here) does not matter.
    LaunchPlan p =
        fb == AffineQmvSplitKKernel.FB
            ? AffineQmvSplitKKernel.plan(s, sp.smCount())
            : AffineQmvSplitKKernel.plan(s, sp.smCount(), 1, fb);
    return affineRowsCase(
        m,
        p,
        fb == AffineQmvSplitKKernel.FB
            ? "dispatch"
            : "AffineQmvSplitKKernel.plan(s, sm, 1, " + fb + ")",
        s,
        d);
  }

  static Prepared affineQmvAsync(Method m, Spec sp) {
    int bits = sp.i("bits");
    int warps = sp.i("warps");
    int fb = sp.i("fb");
    int stages = sp.i("stages");
    // As the split-K case: k one chunk-row short of `warps` full warps (an even group count).
    int e = 128 / bits;
    int k = (warps * 32 - 16) * e;
    QmmShape s = QmmShape.affine(bits, sp.i("groupSize"), sp.i("dtype"), 2, 22, k);
    Prepared.supported(AffineQmvAsyncKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    // Two blocks: each walks 3 (fb = 4) or 6 (fb = 2) batches, so the stages wrap around and the
    // last refills fall past the end.
    LaunchPlan p = AffineQmvAsyncKernel.plan(s, 2, fb, stages);
    return affineRowsCase(
        m, p, "AffineQmvAsyncKernel.plan(s, 2, " + fb + ", " + stages + ")", s, d);
  }

  static Prepared qmmMmaAsync(Method m, Spec sp) {
    int ks = sp.i("ks");
    int wps = sp.i("wps");
    int g = sp.i("groupSize");
    int stages = sp.i("stages");
    // k = ks warps of wps words per lane (4 lanes x 32 / bits codes per word); 9 rows = two row
    // tiles; n = 100 is 7 batches, walked by 2 blocks so the stages wrap around.
    int k = ks * wps * 4 * 32 / sp.i("bits");
    QmmShape s = QmmShape.affine(sp.i("bits"), g, sp.i("dtype"), 9, 100, k);
    Prepared.supported(QmmMmaAsyncKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    int rt = sp.i("rt");
    int early = sp.i("early");
    int rb = sp.i("rb");
    int fu = sp.i("fu");
    LaunchPlan p = QmmMmaAsyncKernel.plan(s, 2, ks, stages, rt, 1, early, rb, fu);
    return fromPlan(
        m,
        p,
        "QmmMmaAsyncKernel.plan(s, 2, "
            + ks
            + ", "
            + stages
            + ", "
            + rt
            + ", 1, "
            + early
            + ", "
            + rb
            + ", "
            + fu
            + ")",
        s,
        List.of(Out.of(4, kind(s.dtype()), mmaTolerance(s.dtype()))),
        d.wq(),
        d.scales(),
        d.biases(),
        d.x(),
        d.out(),
        s.rows(),
        s.n(),
        s.k());
  }

  static Prepared qmmMmaAsyncFp(Method m, Spec sp) {
    int ks = sp.i("ks");
    int wps = sp.i("wps");
    int stages = sp.i("stages");
    int rt = sp.i("rt");
    // k = ks warps of wps words per lane (32 codes per word across the 4 lanes); 9 rows = two row
    // tiles; n = 100 is 7 batches walked by 2 blocks, so the stages wrap around.
    QmmShape s = QmmShape.fp(sp.i("mode"), sp.i("dtype"), 9, 100, ks * wps * 32);
    Prepared.supported(QmmMmaAsyncFpKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    LaunchPlan p = QmmMmaAsyncFpKernel.plan(s, 2, ks, stages, rt);
    return fromPlan(
        m,
        p,
        "QmmMmaAsyncFpKernel.plan(s, 2, " + ks + ", " + stages + ", " + rt + ")",
        s,
        List.of(Out.of(4, kind(s.dtype()), mmaTolerance(s.dtype()))),
        d.wq(),
        d.fpScales(),
        d.globalScale(),
        d.x(),
        d.out(),
        s.rows(),
        s.n(),
        s.k());
  }

  static Prepared fpQmv(Method m, Spec sp) {
    boolean f32 = m.getName().equals("qmvF32");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int mode = sp.i("mode");
    int rpw = sp.i("rowsPerWarp");
    // k = 1536: 48 (mx) or 96 (nvfp4) units of one group, more than one per lane.
    QmmShape s = QmmShape.fp(mode, dtype, 3, 75, 1536);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(FpQmvKernel.supports(s));
    LaunchPlan p = FpQmvKernel.plan(s, rpw);
    return fromPlan(
        m,
        p,
        rpw == 2 ? "dispatch" : "FpQmvKernel.plan(s, " + rpw + ")",
        s,
        List.of(Out.of(4, kind(dtype), Tolerance.EXACT)),
        d.wq(),
        d.fpScales(),
        d.globalScale(),
        d.x(),
        d.out(),
        s.n(),
        s.k());
  }

  // ---- qvm and qmm: both modes' scale arrays, the unused ones dummies (QmmOp.launch) ----

  static Prepared qvm(Method m, Spec sp) {
    boolean f32 = m.getName().equals("qvmF32");
    int dtype = f32 ? Quant.F32 : sp.i("dtype");
    int rpt = sp.i("rowsPerThread");
    // Rows that make the plan choose rowsPerThread (4 from 4 rows, 2 from 2..3, 1 from 1), with a
    // partial last row tile; n/8 = 136 octets: two blocks of 128 threads.
    int rows = rpt == 4 ? 5 : rpt == 2 ? 3 : 1;
    QmmShape s =
        new QmmShape(sp.i("mode"), sp.i("bits"), sp.i("groupSize"), dtype, rows, 1088, 96, false);
    Prepared.supported(QvmKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    return fromPlan(
        m,
        QvmKernel.plan(s),
        "dispatch",
        s,
        List.of(Out.of(6, kind(dtype), Tolerance.EXACT)),
        qmmArgs(s, d));
  }

  static Prepared qmm(Method m, Spec sp) {
    int mode = sp.i("mode");
    int mt = sp.i("mt");
    int nt = sp.i("nt");
    int wn = sp.i("wn");
    int ks = sp.i("ks");
    int depth = sp.i("depth");
    // Rows that fill nt 8-row tiles partially (5, 13, 27), or 34 for the many-rows tiling; n = 120
    // leaves a partial feature block for every tiling (16, 32 or 128 features per block); k gives
    // at least ks chunks and 8 where ks = 8: 512, 256 for ks = 1 (the Java backend's mma is the
    // slowest part of the suite), 1024 for nvfp4, whose chunks are 128 elements.
    int rows = wn == 4 ? 34 : nt == 1 ? 5 : nt == 2 ? 13 : 27;
    int k = mode == Quant.NVFP4 ? 1024 : ks == 1 ? 256 : 512;
    if (depth > 1) {
      // depth chunks per warp, and one more (a load issued in the loop) for 3 of the ks warps.
      int chunkK = 4 * sp.i("wordsPerLane") * 32 / sp.i("bits");
      k = chunkK * (ks * depth + 3);
    }
    QmmShape s =
        new QmmShape(mode, sp.i("bits"), sp.i("groupSize"), sp.i("dtype"), rows, 120, k, true);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(QmmMmaKernel.supports(s));
    LaunchPlan dispatch = QmmMmaKernel.plan(s);
    LaunchPlan p = QmmMmaKernel.plan(s, mt, nt, wn, ks, depth);
    boolean same =
        p.specialize().equals(dispatch.specialize())
            && p.grid().equals(dispatch.grid())
            && p.block().equals(dispatch.block());
    return fromPlan(
        m,
        p,
        same
            ? "dispatch"
            : "QmmMmaKernel.plan(s, " + mt + ", " + nt + ", " + wn + ", " + ks + ", " + depth + ")",
        s,
        List.of(Out.of(6, kind(s.dtype()), mmaTolerance(s.dtype()))),
        qmmArgs(s, d));
  }

  static Prepared qmmSplitK(Method m, Spec sp) {
    int ks = sp.i("ks");
    int mt = sp.i("mt");
    int g = sp.i("groupSize");
    // k gives exactly ks slices of wps words per lane (32 codes per word and lane group); 5 rows
    // (one partial row tile); n = 72 leaves a partial batch of 16*mt features; planned for 2 SMs
    // of one block, whatever the device, so each block walks several batches (the slab reused).
    // With two row tiles per warp (rt = 2) 13 rows: a full first tile and a partial second.
    int k = ks * sp.i("wps") * 32;
    int rt = sp.i("rt");
    QmmShape s = QmmShape.affine(sp.i("bits"), g, sp.i("dtype"), rt == 2 ? 13 : 5, 72, k);
    Prepared.supported(QmmMmaSplitKKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    LaunchPlan p = QmmMmaSplitKKernel.plan(s, 2, ks, mt, 1, rt);
    return fromPlan(
        m,
        p,
        "QmmMmaSplitKKernel.plan(s, 2, " + ks + ", " + mt + ", 1, " + rt + ")",
        s,
        List.of(Out.of(4, kind(s.dtype()), mmaTolerance(s.dtype()))),
        d.wq(),
        d.scales(),
        d.biases(),
        d.x(),
        d.out(),
        s.rows(),
        s.n(),
        s.k());
  }

  static Prepared qmmTiled(Method m, Spec sp) {
    int bm = sp.i("bm");
    int bn = sp.i("bn");
    int mt = sp.i("mt");
    int nt = sp.i("nt");
    int stages = sp.i("stages");
    int xAsync = sp.i("xAsync");
    // 70 rows: a partial row tile (two row tiles at bm = 64); two feature tiles where bn <= 96;
    // k = 256: four k steps, so the loads of the next step run while one is computed.
    QmmShape s =
        QmmShape.affine(
            sp.i("bits"), sp.i("groupSize"), sp.i("dtype"), 70, bn <= 96 ? 2 * bn : bn, 256);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(QmmTiledKernel.supports(s));
    LaunchPlan p = QmmTiledKernel.plan(s, bm, bn, mt, nt, stages, xAsync);
    return planCase(
        m, p, QmmTiledKernel.plan(s), "QmmTiledKernel.plan", s, d, bm, bn, mt, nt, stages, xAsync);
  }

  static Prepared qmmWgmma(Method m, Spec sp) {
    // wgmma exists on sm_90 only: elsewhere the case cannot run, which is not a failure.
    Assumptions.assumeTrue(sp.arch() == 90, "qmm-wgmma runs on sm_90 only, not sm_" + sp.arch());
    int wg = sp.i("wg");
    // 70 rows: a partial row block; two feature blocks; k = 768: twelve 64-k steps, so every slot
    // (4 to 8 of them) is filled, read and refilled at least once.
    QmmShape s = QmmShape.affine(4, sp.i("groupSize"), sp.i("dtype"), 70, 128 * wg, 768);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(QmmWgmmaKernel.supports(s, true));
    LaunchPlan p = QmmWgmmaKernel.plan(s, wg, sp.i("pipe"), sp.i("ahead"));
    return planCase(
        m, p, QmmWgmmaKernel.plan(s), "QmmWgmmaKernel.plan", s, d, wg, sp.i("pipe"), sp.i("ahead"));
  }

  static Prepared qmmWgmmaTma(Method m, Spec sp) {
    // Tile copies and wgmma exist on sm_90 only: elsewhere the case cannot run, not a failure.
    Assumptions.assumeTrue(
        sp.arch() == 90, "qmm-wgmma-tma runs on sm_90 only, not sm_" + sp.arch());
    int wg = sp.i("wg");
    // As qmmWgmma: 70 rows (a partial row block: its box's rows past 70 land as zeros), two
    // feature blocks, twelve 64-k steps (every slot's barrier through several phases).
    QmmShape s = QmmShape.affine(4, sp.i("groupSize"), sp.i("dtype"), 70, 128 * wg, 768);
    QmmData d = data(sp.rnd(), s);
    Prepared.supported(QmmWgmmaTmaKernel.supports(s, true));
    LaunchPlan p = QmmWgmmaTmaKernel.plan(s, wg, sp.i("pipe"), sp.i("ahead"));
    int[] box = QmmWgmmaTmaKernel.xMapBox();
    Prepared.TileMapArg xmap =
        new Prepared.TileMapArg(d.x(), s.k(), s.rows(), s.k(), box[0], box[1], 128);
    return fromPlan(
        m,
        p,
        p.specialize().equals(QmmWgmmaTmaKernel.plan(s).specialize())
            ? "dispatch"
            : "QmmWgmmaTmaKernel.plan(s, " + wg + ", " + sp.i("pipe") + ", " + sp.i("ahead") + ")",
        s,
        List.of(Out.of(4, kind(s.dtype()), mmaTolerance(s.dtype()))),
        d.wq(),
        d.scales(),
        d.biases(),
        xmap,
        d.out(),
        s.rows(),
        s.n(),
        s.k());
  }

  static Prepared qmmMmaXShared(Method m, Spec sp) {
    int wf = sp.i("wf");
    int mt = sp.i("mt");
    int nt = sp.i("nt");
    int stages = sp.i("stages");
    // 70 rows: a partial row block (two at 64 rows a block); n: one and a half feature blocks, so
    // the last block's warps read clamped rows and store nothing; k = 512: four steps, so every
    // slot is filled, read and refilled.
    int features = 16 * mt * wf;
    QmmShape s =
        QmmShape.affine(4, sp.i("groupSize"), sp.i("dtype"), 70, features + features / 2, 512);
    Prepared.supported(QmmMmaXSharedKernel.supports(s));
    QmmData d = data(sp.rnd(), s);
    int wAsync = sp.i("wAsync");
    LaunchPlan p = QmmMmaXSharedKernel.plan(s, wf, mt, nt, stages, wAsync);
    return planCase(
        m,
        p,
        QmmMmaXSharedKernel.plan(s),
        "QmmMmaXSharedKernel.plan",
        s,
        d,
        wf,
        mt,
        nt,
        stages,
        wAsync);
  }

  /**
   * A tensor-core case whose kernel takes (wq, scales, biases, x, out, rows, n, k) and writes
   * argument 4: noted "dispatch" where {@code p} is the kernel's default plan {@code dflt}, else
   * the call {@code fn(s, args...)} that made it.
   */
  private static Prepared planCase(
      Method m, LaunchPlan p, LaunchPlan dflt, String fn, QmmShape s, QmmData d, int... args) {
    StringBuilder call = new StringBuilder(fn).append("(s");
    for (int a : args) {
      call.append(", ").append(a);
    }
    return fromPlan(
        m,
        p,
        p.specialize().equals(dflt.specialize()) ? "dispatch" : call.append(')').toString(),
        s,
        List.of(Out.of(4, kind(s.dtype()), mmaTolerance(s.dtype()))),
        new Object[] {d.wq(), d.scales(), d.biases(), d.x(), d.out(), s.rows(), s.n(), s.k()});
  }

  private static Object[] qmmArgs(QmmShape s, QmmData d) {
    boolean affine = s.mode() == Quant.AFFINE;
    return new Object[] {
      d.wq(),
      affine ? d.scales() : dummyHalfOrFloat(s.dtype()),
      affine ? d.biases() : dummyHalfOrFloat(s.dtype()),
      affine ? new byte[1] : d.fpScales(),
      d.globalScale(),
      d.x(),
      d.out(),
      s.rows(),
      s.n(),
      s.k()
    };
  }
}
