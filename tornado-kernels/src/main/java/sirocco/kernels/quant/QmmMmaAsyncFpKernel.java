package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Split-K quantized matmul on tensor cores for the <b>fp modes</b> (mxfp4, nvfp4, mxfp8) with the
 * weights streamed through an asynchronous-copy pipeline in shared memory (rung {@code
 * qmm-mma-fp-async}): {@link QmmMmaAsyncKernel}'s mapping (ks warps splitting k, x held as B
 * fragments in registers for the whole kernel, 16 features per batch, persistent blocks, {@code
 * stages} batches in shared memory, one block barrier and cross-warp reduction per batch), with the
 * A fragments built in place from the codes: E2M1 as {@link QmmMmaKernel} builds them ({@link
 * QmmMmaFragments#fp4Pair}), E4M3 by the same bit placement ({@link QmmMmaFragments#e4m3Pair}).
 *
 * <h2>Why</h2>
 *
 * Before it, fp weights at 2–16 rows ran on {@link QmmMmaKernel} (no k split, weights in
 * registers): mxfp4 18.0–18.7 µs at 1–8 rows on an H100 (run 104, 12288×4096 bf16) for 26.7 MB,
 * while the affine 4-bit async kernel reads its 28.3 MB in 11.7–12.0; mxfp8 decoded each E4M3 code
 * in float there. The codes sit in the words in the order affine codes do, so the copies, the x
 * fragments and the reduction are the affine kernel's; only the decoding and the scales differ.
 *
 * <h2>Layout and scales</h2>
 *
 * A lane's slot j is 8 consecutive codes of its row slice, codes {@code 32j + 8t} on (lane t), as
 * the affine kernel at groups of 32 has them: one word for E2M1 (word {@code 4j + t}), two for E4M3
 * (words {@code 8j + 2t}, {@code 8j + 2t + 1}, one k step each, their codes paired 0/2 and 1/3 as
 * {@link QmmMmaFragments#fragB8Pair} pairs x). A slice of {@code wps} slots per lane is {@code
 * 32·wps} codes, and the planning takes the affine 4-bit g32 shape of the same size ({@link
 * #layoutTwin}). Each staged row carries its {@code cpb} U8 scale codes (mxfp4/mxfp8: {@code wps},
 * one per slot; nvfp4: {@code 2·wps}, slot j of lane t in group {@code 2j + t/2}), copied by lanes
 * 0–15 as one 4/8/16-byte copy.
 *
 * <ul>
 *   <li>mxfp4, mxfp8: the element values come out exact, a slot's two mmas start from zero and its
 *       E8M0 scales (rows g, g + 8) multiply the sums in float, as {@link QmmMmaKernel} does: a
 *       2<sup>-127</sup>…2<sup>127</sup> scale times the elements would leave bf16/f16. mxfp8's NaN
 *       codes (0x7F, 0xFF), which the bit placement turns into ±480, are flagged per word ({@link
 *       QmmMmaFragments#e4m3NanBytes}) and make their feature's outputs NaN, as decoding does.
 *   <li>nvfp4: the E4M3 group scale is folded into the fragment's multiplier (16-element groups are
 *       narrower than an mma's k span), the mmas accumulate across the whole slice, and the global
 *       scale and {@link QmmMmaFragments#fp4Unscale} multiply the batch's sums once.
 * </ul>
 *
 * <h2>Measured (run 105, H100, 12288×4096, graph replay)</h2>
 *
 * Through the op, bf16: 1 / 6 rows mxfp4 15.53 / 16.34 µs (read-only time 10.25; before it {@link
 * FpQmvKernel} 17.89 at 1 row, {@link QmmMmaKernel} 30.11 at 6), nvfp4 14.60 / 15.09 (10.69; 18.53,
 * 30.45), mxfp8 20.41 / 22.02 (18.01; 22.26, 36.32); 16 rows mxfp4 17.3, nvfp4 17.1, mxfp8 34.2
 * (one row tile: its two-tile stages would not fit sm_80). mxfp8 runs at 82–88% of its read-only
 * time, the E2M1 modes at 66–73%: a fragment register of E2M1 pairs costs two LOP3, an IMAD and a
 * packed fma against affine 4-bit's one LOP3, and the affine kernel is already issue-bound (its run
 * 102 profile).
 *
 * <h2>Limits</h2>
 *
 * Transposed weights, bf16/f16 x, k splitting as the affine g32 shape does (at most 8 slots per
 * lane, so k a multiple of 32 per warp), {@code cpb} of 4, 8 or 16 bytes (mxfp4/mxfp8 {@code wps} 4
 * or 8, nvfp4 2, 4 or 8), one or two row tiles of 8 rows per warp.
 */
public final class QmmMmaAsyncFpKernel {
  private QmmMmaAsyncFpKernel() {}

  @Kernel(
      validateWith = {
        "mode=1,dtype=0,ks=16,wps=8,stages=2,rt=1",
        "mode=1,dtype=1,ks=16,wps=8,stages=2,rt=1",
        "mode=2,dtype=0,ks=16,wps=8,stages=2,rt=1",
        "mode=2,dtype=1,ks=16,wps=8,stages=2,rt=1",
        "mode=1,dtype=0,ks=8,wps=4,stages=3,rt=1",
        "mode=2,dtype=0,ks=8,wps=2,stages=2,rt=1",
        "mode=1,dtype=0,ks=16,wps=8,stages=2,rt=2",
        "mode=2,dtype=0,ks=16,wps=8,stages=2,rt=2",
        "mode=1,dtype=1,ks=16,wps=8,stages=2,rt=2",
        "mode=2,dtype=1,ks=16,wps=8,stages=2,rt=2",
        "mode=3,dtype=0,ks=16,wps=8,stages=2,rt=1",
        "mode=3,dtype=1,ks=16,wps=8,stages=2,rt=1",
        "mode=3,dtype=0,ks=8,wps=4,stages=3,rt=1",
        "mode=3,dtype=1,ks=8,wps=4,stages=2,rt=2"
      })
  public static void qmm(
      KernelContext ctx,
      int[] wq, // [n, k/8] packed u32 E2M1 codes (mxfp4, nvfp4), or [n, k/4] E4M3 (mxfp8)
      byte[] scales, // [n, k/groupSize] U8 scale codes (E8M0 mxfp4/mxfp8, E4M3 nvfp4)
      float[] globalScale, // [1] nvfp4 global scale (Quant.NO_GLOBAL_SCALE for none)
      short[] x, // [rows, k] bf16/f16 bits
      short[] out, // [rows, n] bf16/f16 bits
      int rows,
      int n,
      int k,
      @Specialize int mode,
      @Specialize int dtype,
      @Specialize int ks,
      @Specialize int wps,
      @Specialize int stages,
      @Specialize int rt) {
    // May be launched early (QmmPolicy.earlyStart): nothing is read before this.
    ctx.waitForPriorGrids();
    boolean nv = mode == Quant.NVFP4;
    boolean e8 = mode == Quant.MXFP8;
    int wpw = e8 ? 2 : 1; // 32-bit words per slot of 8 codes
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    int warp = ctx.warpId();
    int cpb = scaleBytes(mode, wps);
    // Staged rows: E2M1 padded by 8 words, E4M3 unpadded with swizzled chunks (the pad would not
    // fit sm_80's shared memory at 8 slots per lane); either way the 8 rows a half-warp reads fall
    // in distinct banks.
    int swz = e8 ? 1 : 0;
    int rs = rowWords(mode, wps);
    int batches = (n + 15) / 16;
    int wpr = k / 8 * wpw;
    int groups = nv ? k / 16 : k / 32;
    int lw = warp * 4 * wpw * wps; // the warp's first word of a row
    int gw = warp * cpb; // the warp's first group of a row
    int slab = ks * rt * 128;
    int[] wsh = ctx.allocateIntLocalArray(stages * ks * 16 * rs); // [stages, ks, 16, rs] words
    byte[] ssh = ctx.allocateByteLocalArray(stages * ks * 16 * cpb); // [stages, ks, 16, cpb]
    float[] red = ctx.allocateFloatLocalArray(2 * slab); // [2, ks, rt, 128] reduction slab
    int step = ctx.groupCountX;
    // The copies see a row slice as 4 * ww words, ww words per lane.
    int ww = wpw * wps;
    Int4 so = QmmMmaAsyncCopies.srcOffsets(lane, ww, wpr, lw);
    Int4 dso = QmmMmaAsyncCopies.dstOffsets(lane, ww, rs, swz);
    int sso = (lane & 15) * groups + gw; // the lane's scale row's first group

    // x first (as the affine kernel: a few KiB that should not queue behind the stages), raw.
    int mBase = ctx.groupIdy * 8 * rt;
    int xr = mBase + g < rows ? (mBase + g) * k : -1;
    int lanew = warp * 4 * wps + t; // the lane's first slot (8 codes) of a row; slot j adds 4j
    Int4 xf0 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 0, 1, wps, 4);
    Int4 xf1 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 1, 1, wps, 4);
    Int4 xf2 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 2, 1, wps, 4);
    Int4 xf3 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 3, 1, wps, 4);
    Int4 xf4 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 4, 1, wps, 4);
    Int4 xf5 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 5, 1, wps, 4);
    Int4 xf6 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 6, 1, wps, 4);
    Int4 xf7 = QmmMmaAsyncLayout.loadXWord(x, xr, lanew, 7, 1, wps, 4);
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
      yf0 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 0, 1, wps, 4);
      yf1 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 1, 1, wps, 4);
      yf2 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 2, 1, wps, 4);
      yf3 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 3, 1, wps, 4);
      yf4 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 4, 1, wps, 4);
      yf5 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 5, 1, wps, 4);
      yf6 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 6, 1, wps, 4);
      yf7 = QmmMmaAsyncLayout.loadXWord(x, yr, lanew, 7, 1, wps, 4);
    }

    // The first stages - 1 batches.
    int bt = ctx.groupIdx;
    for (int s = 0; s < stages - 1; s++) {
      QmmMmaAsyncCopies.refillFp(
          wq,
          scales,
          wsh,
          ssh,
          bt + s * step,
          s,
          batches,
          n,
          ks,
          ww,
          cpb,
          rs,
          lane,
          warp,
          lw,
          gw,
          wpr,
          groups,
          sso,
          swz,
          so,
          dso);
    }

    // x as B fragments, for the whole kernel.
    xf0 = xFragments(xf0, e8);
    xf1 = xFragments(xf1, e8);
    xf2 = xFragments(xf2, e8);
    xf3 = xFragments(xf3, e8);
    xf4 = xFragments(xf4, e8);
    xf5 = xFragments(xf5, e8);
    xf6 = xFragments(xf6, e8);
    xf7 = xFragments(xf7, e8);
    if (rt > 1) {
      yf0 = xFragments(yf0, e8);
      yf1 = xFragments(yf1, e8);
      yf2 = xFragments(yf2, e8);
      yf3 = xFragments(yf3, e8);
      yf4 = xFragments(yf4, e8);
      yf5 = xFragments(yf5, e8);
      yf6 = xFragments(yf6, e8);
      yf7 = xFragments(yf7, e8);
    }
    // mxfp4's multiplier is a constant (the scale comes after the mma); nvfp4 multiplies the
    // batch's sums by the global scale over 448·6 and undoes fp4Unscale.
    int mx = QmmMmaFragments.fp4Multiplier(1f, mode, dtype);
    float gfac =
        nv ? Vec.ldg(globalScale, 0) / (448f * 6f) * QmmMmaFragments.fp4Unscale(mode, dtype) : 1f;
    Float4 zf = new Float4(0f, 0f, 0f, 0f);

    int tid = ctx.localIdx;
    // With a thread per entry of the batch tile, the thread's entry once (QmmMmaReduce).
    boolean own = QmmMmaReduce.ownsEntries(ks, rt);
    int eSlot = QmmMmaReduce.ownSlot(tid, rt, mBase, rows);
    int eOut = QmmMmaReduce.ownOut(tid, rt, mBase, n);
    int buf = 0;
    int slot = 0; // the stage holding batch bt
    while (bt < batches) {
      // Refill the stage read last batch (its readers passed that batch's block barrier) with the
      // batch stages - 1 ahead; lanes read words other lanes copied: a warp barrier after the
      // wait.
      QmmMmaAsyncCopies.refillFp(
          wq,
          scales,
          wsh,
          ssh,
          bt + (stages - 1) * step,
          slot == 0 ? stages - 1 : slot - 1,
          batches,
          n,
          ks,
          ww,
          cpb,
          rs,
          lane,
          warp,
          lw,
          gw,
          wpr,
          groups,
          sso,
          swz,
          so,
          dso);
      Vec.waitAsync(stages - 1);
      ctx.warpBarrier();

      int rowA = ((slot * ks + warp) * 16 + g) * rs + (e8 ? 0 : t); // the lane's words of row g
      int rowB = rowA + 8 * rs; // and of row g + 8
      int sa = ((slot * ks + warp) * 16 + g) * cpb; // scale codes of row g
      int sb = sa + 8 * cpb; // of row g + 8
      Float4 acc = zf;
      Float4 accY = zf; // row tile 1 (rt = 2)
      int nanA = 0; // mxfp8: e4m3NanBytes of rows g, g + 8's words, or-ed
      int nanB = 0;
      for (int j = 0; j < wps; j++) {
        Int4 xf = QmmMmaSplitKKernel.pick(xf0, xf1, xf2, xf3, xf4, xf5, xf6, xf7, j);
        Int4 yf = QmmMmaSplitKKernel.pick(yf0, yf1, yf2, yf3, yf4, yf5, yf6, yf7, j);
        if (e8) {
          // Slot j of lane t: words 8j + 2t and 8j + 2t + 1 (one k step each), in chunk 2j + t/2
          // xor 2·(g & 3) (the same for row g + 8) of the swizzled row.
          int at = 4 * ((2 * j + (t >> 1)) ^ (2 * (g & 3))) + 2 * (t & 1);
          int wa0 = wsh[rowA + at];
          int wa1 = wsh[rowA + at + 1];
          int wb0 = wsh[rowB + at];
          int wb1 = wsh[rowB + at + 1];
          nanA |= QmmMmaFragments.e4m3NanBytes(wa0) | QmmMmaFragments.e4m3NanBytes(wa1);
          nanB |= QmmMmaFragments.e4m3NanBytes(wb0) | QmmMmaFragments.e4m3NanBytes(wb1);
          Int4 a0 = QmmMmaFragments.fragA8(wa0, wb0, dtype);
          Int4 a1 = QmmMmaFragments.fragA8(wa1, wb1, dtype);
          float a = QuantMath.e8m0Decode(ssh[sa + j]);
          float b = QuantMath.e8m0Decode(ssh[sb + j]);
          Float4 d = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, xf, zf, dtype);
          acc = QmmMmaAsyncFold.scaled(a, b, d, acc);
          if (rt > 1) {
            Float4 e = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, yf, zf, dtype);
            accY = QmmMmaAsyncFold.scaled(a, b, e, accY);
          }
          continue;
        }
        int wa = wsh[rowA + 4 * j];
        int wb = wsh[rowB + 4 * j];
        if (nv) {
          // Word 4j + t of the slice is in its group 2j + t/2.
          int gi = 2 * j + (t >> 1);
          int ma = QmmMmaFragments.nvMultiplier(ssh[sa + gi], dtype);
          int mb = QmmMmaFragments.nvMultiplier(ssh[sb + gi], dtype);
          Int4 a0 = QmmMmaFragments.fragA(wa, wb, 0, 0, mode, 4, dtype, ma, mb);
          Int4 a1 = QmmMmaFragments.fragA(wa, wb, 1, 0, mode, 4, dtype, ma, mb);
          acc = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, xf, acc, dtype);
          if (rt > 1) {
            accY = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, yf, accY, dtype);
          }
        } else {
          Int4 a0 = QmmMmaFragments.fragA(wa, wb, 0, 0, mode, 4, dtype, mx, mx);
          Int4 a1 = QmmMmaFragments.fragA(wa, wb, 1, 0, mode, 4, dtype, mx, mx);
          float a = QuantMath.e8m0Decode(ssh[sa + j]);
          float b = QuantMath.e8m0Decode(ssh[sb + j]);
          Float4 d = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, xf, zf, dtype);
          acc = QmmMmaAsyncFold.scaled(a, b, d, acc);
          if (rt > 1) {
            Float4 e = QmmMmaSplitKKernel.mmaPair(ctx, a0, a1, yf, zf, dtype);
            accY = QmmMmaAsyncFold.scaled(a, b, e, accY);
          }
        }
      }
      if (nv) {
        acc = times(acc, gfac);
        accY = times(accY, gfac);
      }
      if (e8) {
        // A NaN code makes its feature's outputs NaN, as decoding it would; the unpacking made
        // it 480, and a feature's codes are spread over the four lanes t of its row g.
        nanA = nanA | ctx.shuffleXor(nanA, 1);
        nanA = nanA | ctx.shuffleXor(nanA, 2);
        nanB = nanB | ctx.shuffleXor(nanB, 1);
        nanB = nanB | ctx.shuffleXor(nanB, 2);
        acc = nanRows(acc, nanA, nanB);
        accY = nanRows(accY, nanA, nanB);
      }

      // Warp w's row tile v at (w·rt + v)·128: QmmMmaReduce's layout (mt = 1).
      Vec.store4(red, buf + warp * rt * 128 + lane * 4, acc);
      if (rt > 1) {
        Vec.store4(red, buf + warp * rt * 128 + 128 + lane * 4, accY);
      }
      slot = slot == stages - 1 ? 0 : slot + 1;
      bt += step;
      ctx.localBarrier();
      if (own) {
        QmmMmaReduce.sumOwn(red, out, eSlot, eOut, tid, buf, bt - step, n, ks, rt, dtype);
      } else {
        QmmMmaReduce.batch(
            red, out, buf, tid, 32 * ks, bt - step, 16, mBase, rows, n, ks, 1, rt, dtype);
      }
      // The other half of the slab is next; its last readers finished before this barrier.
      buf = slab - buf;
    }
    Vec.waitAsync(0); // nothing may be in flight into shared memory when the block exits
  }

  /** A raw x slot as the B fragments of its two k steps: 4-bit order, or 8-bit ({@code e8}). */
  static Int4 xFragments(Int4 p, boolean e8) {
    return e8 ? QmmMmaFragments.fragB8Pair(p) : QmmMmaFragments.fragBPair(p);
  }

  /**
   * {@code v} with feature g's values (x, y) NaN where {@code na} flags a NaN code, and feature g +
   * 8's (z, w) where {@code nb} does ({@link QmmMmaFragments#e4m3NanBytes}).
   */
  static Float4 nanRows(Float4 v, int na, int nb) {
    boolean a = (na & 0x80808080) != 0;
    boolean b = (nb & 0x80808080) != 0;
    return new Float4(
        a ? Float.NaN : v.x(), a ? Float.NaN : v.y(), b ? Float.NaN : v.z(), b ? Float.NaN : v.w());
  }

  static Float4 times(Float4 v, float f) {
    return new Float4(v.x() * f, v.y() * f, v.z() * f, v.w() * f);
  }

  // ---- dispatch helpers ----

  /** Default stages: {@link QmmMmaAsyncKernel#STAGES}, the affine kernel's measured best. */
  public static final int STAGES = QmmMmaAsyncKernel.STAGES;

  /**
   * Shared memory a block of this kernel may use: sm_80's 163 KiB (its plans compile for sm_80 as
   * for sm_90). mxfp8 with two row tiles at 8 slots per lane (164 KiB) is therefore planned with
   * one.
   */
  static final int SHARED_LIMIT = 163 * 1024;

  /** U8 scale codes per staged row: one per word of a lane (mxfp4), two (nvfp4). */
  static int scaleBytes(int mode, int wps) {
    return mode == Quant.NVFP4 ? 2 * wps : wps;
  }

  /**
   * The affine 4-bit g32 shape of {@code s}'s size and dtype: its words hold codes in the same
   * order, one word per lane and group, so it plans the k split, the grid and the registers.
   */
  static QmmShape layoutTwin(QmmShape s) {
    return QmmShape.affine(4, 32, s.dtype(), s.rows(), s.n(), s.k());
  }

  /** Shared bytes of a block: the stages (words and scale codes) and the reduction slab. */
  static int sharedBytes(int mode, int ks, int wps, int cpb, int stages, int rt) {
    return stages * ks * 16 * (rowWords(mode, wps) * 4 + cpb) + 2 * ks * rt * 128 * 4;
  }

  /** Words of a staged row: E2M1 4 per slot plus a pad of 8, E4M3 8 per slot (swizzled). */
  static int rowWords(int mode, int wps) {
    return mode == Quant.MXFP8 ? 8 * wps : 4 * wps + 8;
  }

  /** Float64 reference: see {@link QmmReference#fp}. */
  public static QmmReference.Result reference(
      int[] wq, byte[] scales, float globalScale, float[] x, QmmShape s) {
    return QmmReference.fp(wq, scales, globalScale, x, s);
  }

  /** Why this kernel cannot compute {@code s}, or null. */
  public static String supports(QmmShape s) {
    if (s == null) {
      throw new IllegalArgumentException("s must be a QmmShape, got null");
    }
    String bad = s.basicRejection();
    if (bad != null) {
      return bad;
    }
    if (s.mode() == Quant.AFFINE) {
      return "fp modes only (mxfp4, nvfp4, mxfp8); affine weights use the affine tensor-core rungs";
    }
    if (!s.transpose()) {
      return "transposed weights only (w [n, k])";
    }
    if (s.dtype() == Quant.F32) {
      return "bf16/f16 activations only (tensor cores); f32 uses the vector path";
    }
    String twin = QmmMmaSplitKKernel.supports(layoutTwin(s));
    if (twin != null) {
      return "k splits as affine 4-bit g32 does, which cannot: " + twin;
    }
    int ks = QmmMmaSplitKKernel.defaultKs(layoutTwin(s));
    int wps = s.k() / 32 / ks;
    int cpb = scaleBytes(s.mode(), wps);
    if (cpb != 4 && cpb != 8 && cpb != 16) {
      return "4, 8 or 16 scale codes per staged row (one copy), got " + cpb + " at ks=" + ks;
    }
    if (sharedBytes(s.mode(), ks, wps, cpb, 2, 1) > SHARED_LIMIT) {
      return "two stages need " + sharedBytes(s.mode(), ks, wps, cpb, 2, 1) + " B of shared memory";
    }
    return null;
  }

  /** The default plan: the twin's k split, {@link #STAGES} stages, {@link #rowTiles} row tiles. */
  public static LaunchPlan plan(QmmShape s, int smCount) {
    String why = supports(s); // names a null s; the twin below needs a shape this kernel takes
    if (why != null) {
      throw new IllegalArgumentException("s cannot be computed by this kernel: " + why);
    }
    return plan(s, smCount, QmmMmaSplitKKernel.defaultKs(layoutTwin(s)), STAGES, rowTiles(s));
  }

  /**
   * Row tiles per warp in the default plan: 2 above 8 rows where at most 16 warps split k (512
   * threads of at most 128 registers) and two stages of two tiles fit; else 1.
   */
  public static int rowTiles(QmmShape s) {
    if (supports(s) != null || s.rows() <= 8) {
      return 1;
    }
    int ks = QmmMmaSplitKKernel.defaultKs(layoutTwin(s));
    int wps = s.k() / 32 / ks;
    return ks <= 16
            && sharedBytes(s.mode(), ks, wps, scaleBytes(s.mode(), wps), 2, 2) <= SHARED_LIMIT
        ? 2
        : 1;
  }

  /**
   * An explicit plan: {@code ks} warps splitting k (as the layout twin's {@link
   * QmmMmaSplitKKernel#plan(QmmShape, int, int, int, int, int)}), {@code stages} ≥ 2, {@code rt}
   * (1, 2) row tiles of 8 rows per warp, one persistent block per SM. Every plan carries the
   * one-block hint ({@code .minnctapersm 1}): 512 threads launch only at 128 registers or fewer,
   * and ptxas left alone may take more.
   */
  public static LaunchPlan plan(QmmShape s, int smCount, int ks, int stages, int rt) {
    String why = supports(s);
    if (why != null) {
      throw new IllegalArgumentException("s cannot be computed by this kernel: " + why);
    }
    // Validates ks, rt and smCount as the affine kernels do, and sizes the grid.
    LaunchPlan base = QmmMmaSplitKKernel.plan(layoutTwin(s), smCount, ks, 1, 1, rt);
    int wps = base.get("wps");
    int cpb = scaleBytes(s.mode(), wps);
    if (cpb != 4 && cpb != 8 && cpb != 16) {
      throw new IllegalArgumentException(
          "ks must leave 4, 8 or 16 scale codes per staged row, got " + cpb + " at ks=" + ks);
    }
    int shared = sharedBytes(s.mode(), ks, wps, cpb, stages, rt);
    if (stages < 2 || shared > SHARED_LIMIT) {
      throw new IllegalArgumentException(
          "stages must be >= 2 with the block's shared memory within "
              + SHARED_LIMIT
              + " B, got stages="
              + stages
              + " ("
              + shared
              + " B)");
    }
    return LaunchPlan.of(
            "QmmMmaAsyncFpKernel.qmm",
            base.grid(),
            base.block(),
            shared,
            "mode",
            s.mode(),
            "dtype",
            s.dtype(),
            "ks",
            ks,
            "wps",
            wps,
            "stages",
            stages,
            "rt",
            rt)
        .withMinBlocksPerSm(1);
  }
}
