package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The pipelined split-K tensor-core kernel for E2M1 weights ({@link QmmMmaAsyncFpKernel}) on the
 * Java backend (copies done at once, mma simulated in float, lanes as threads) against the float64
 * reference of {@link QmmCase#check}; outputs poisoned with NaN before every run, so an unwritten
 * element fails.
 */
class QmmMmaAsyncFpKernelTest {
  static final int SMS = 132;

  /** Runs the kernel on {@code c}'s operands into {@code out}. */
  static void run(QmmCase c, LaunchPlan p, Object out) {
    TestSupport.run(
        QmmMmaAsyncFpKernel.class,
        p,
        c.wq,
        c.fpScales,
        new float[] {c.globalScale},
        c.xArg(),
        out,
        c.s.rows(),
        c.s.n(),
        c.s.k());
  }

  static void check(QmmCase c, LaunchPlan p) {
    Object out = c.outArg();
    run(c, p, out);
    c.check(c.outValues(out), p.describe());
  }

  static void check(QmmShape s, long seed) {
    assertNull(QmmMmaAsyncFpKernel.supports(s), s.toString());
    check(QmmCase.random(s, seed), QmmMmaAsyncFpKernel.plan(s, SMS));
  }

  /**
   * Both modes and dtypes at rows 1, 3, 8 and 12 (two row tiles, the second partial); k = 512 (two
   * warps of 8 words per lane), n = 40 (2.5 batches). nvfp4 uses a global scale on even seeds.
   */
  @Test
  void defaultPlanModesDtypesRows() {
    long seed = 10;
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8}) {
      for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
        for (int rows : new int[] {1, 3, 8, 12}) {
          check(QmmShape.fp(mode, dtype, rows, 40, 512), seed++);
        }
      }
    }
  }

  /** The benchmarked k: 16 warps of 8 slots per lane, rows 2 and 16. */
  @Test
  void k4096() {
    for (int mode : new int[] {Quant.MXFP4, Quant.NVFP4, Quant.MXFP8}) {
      for (int rows : new int[] {2, 16}) {
        QmmShape s = QmmShape.fp(mode, Quant.BF16, rows, 24, 4096);
        LaunchPlan p = QmmMmaAsyncFpKernel.plan(s, SMS);
        assertEquals(16, p.get("ks"));
        assertEquals(8, p.get("wps"));
        // mxfp8's two-tile stages (164 KiB) exceed sm_80's shared memory: one tile.
        assertEquals(rows > 8 && mode != Quant.MXFP8 ? 2 : 1, p.get("rt"), p.describe());
        assertEquals(1, p.minBlocksPerSm(), "512 threads need the one-block register hint");
        check(QmmCase.random(s, 80 + rows + mode), p);
      }
    }
  }

  /**
   * Explicit plans that walk the stages round more than once (2 SMs, n = 100 is 7 batches) with
   * fewer words per lane (mxfp4 4, nvfp4 2 and 4: 4-byte scale copies) and 3 stages.
   */
  @Test
  void explicitPlans() {
    int[][] plans = { // mode, ks, k, stages, rt
      {Quant.MXFP4, 8, 1024, 3, 1}, {Quant.NVFP4, 8, 512, 2, 1},
      {Quant.NVFP4, 8, 1024, 3, 2}, {Quant.MXFP4, 4, 1024, 2, 2},
      {Quant.MXFP8, 8, 1024, 3, 1}, {Quant.MXFP8, 4, 1024, 2, 2}
    };
    long seed = 200;
    for (int[] pl : plans) {
      QmmShape s = QmmShape.fp(pl[0], Quant.BF16, 13, 100, pl[2]);
      LaunchPlan p = QmmMmaAsyncFpKernel.plan(s, 2, pl[1], pl[3], pl[4]);
      check(QmmCase.random(s, seed++), p);
      check(QmmCase.random(s, seed++), p);
    }
  }

  /**
   * Scales across the formats' range: mxfp4 weights scaled by 2^-100 and 2^100 with bf16, 2^-20 and
   * 2^8 with f16 (E8M0 scales that the halves could not hold, applied in float after the mma),
   * nvfp4 at its smallest and largest group scales (a global scale that maps |w|'s maximum to
   * 448·6).
   */
  @Test
  void extremeScales() {
    long seed = 300;
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      // f16 outputs must stay finite: scales outside f16's normal range there, not bf16's.
      float[] factors =
          dtype == Quant.BF16 ? new float[] {0x1p-100f, 0x1p100f} : new float[] {0x1p-20f, 0x1p8f};
      for (float f : factors) {
        QmmShape s = QmmShape.fp(Quant.MXFP4, dtype, 4, 32, 512);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed++);
        float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, dtype);
        float[] w = TestSupport.normal(rnd, s.n() * s.k(), f, Quant.F32);
        check(new QmmCase(s, x, w, Quant.NO_GLOBAL_SCALE), QmmMmaAsyncFpKernel.plan(s, SMS));
      }
      QmmShape s = QmmShape.fp(Quant.NVFP4, dtype, 4, 32, 512);
      java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed++);
      float[] x = TestSupport.normal(rnd, s.rows() * s.k(), 1.0, dtype);
      float[] w = TestSupport.normal(rnd, s.n() * s.k(), 1.0, Quant.F32);
      // Groups whose maxima span 2^-6 .. 2^6: E4M3 scales from subnormal to large.
      for (int r = 0; r < s.n(); r++) {
        for (int i = 0; i < s.k(); i++) {
          w[r * s.k() + i] *= (float) Math.scalb(1.0, (r + i / 16) % 13 - 6);
        }
      }
      check(new QmmCase(s, x, w, FpQuantizeKernelTest.maxAbs(w)), QmmMmaAsyncFpKernel.plan(s, SMS));
    }
  }

  /**
   * mxfp8's NaN codes (0x7F, 0xFF), which the in-place unpacking turns into ±480: a feature with
   * one anywhere in k gives NaN outputs for every row of x (the float64 reference decodes NaN), the
   * other features stay finite and within the bound. Each code goes into a different lane t and
   * slot, and one feature in the second row tile of the batch (g + 8).
   */
  @Test
  void mxfp8NanCodes() {
    for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
      QmmShape s = QmmShape.fp(Quant.MXFP8, dtype, 5, 40, 1024);
      QmmCase c = QmmCase.random(s, 500 + dtype);
      int wpr = s.k() / 4;
      int[][] at = {{3, 5, 0}, {11, 200, 2}, {20, 31, 3}, {37, 255, 1}}; // feature, word, byte
      for (int[] a : at) {
        int sh = 8 * a[2];
        int code = a[0] % 2 == 0 ? 0x7F : 0xFF;
        int i = a[0] * wpr + a[1];
        c.wq[i] = (c.wq[i] & ~(0xFF << sh)) | (code << sh);
      }
      // A finite poison: NaN is an expected output here.
      short[] out = new short[s.rows() * s.n()];
      java.util.Arrays.fill(out, (short) 0x7BAD);
      LaunchPlan p = QmmMmaAsyncFpKernel.plan(s, SMS);
      run(c, p, out);
      for (int i = 0; i < out.length; i++) {
        assertTrue(out[i] != (short) 0x7BAD, "element " + i + " not written");
      }
      float[] got = QuantFormats.fromHalfBits(dtype, out);
      for (int r = 0; r < s.rows(); r++) {
        for (int[] a : at) {
          assertTrue(Float.isNaN(got[r * s.n() + a[0]]), "row " + r + " feature " + a[0]);
        }
      }
      // The reference decodes the codes to NaN; elsewhere the bound of QmmCase.check.
      QmmReference.Result ref = c.reference();
      for (int i = 0; i < got.length; i++) {
        double want = ref.value()[i];
        if (Double.isNaN(want)) {
          assertTrue(Float.isNaN(got[i]), "element " + i + " where the reference is NaN");
          continue;
        }
        double acc = 2e-5 * ref.magnitude()[i] + 1e-30;
        double tol = acc + TestSupport.halfUlp(dtype, Math.abs(want) + acc);
        assertEquals(want, got[i], tol, p.describe() + " element " + i);
      }
      int nanOutputs = 0;
      for (double v : ref.value()) {
        nanOutputs += Double.isNaN(v) ? 1 : 0;
      }
      assertEquals(at.length * s.rows(), nanOutputs, "the reference's NaN outputs");
    }
  }

  @Test
  void supportsNamesWhatItCannotTake() {
    assertTrue(
        QmmMmaAsyncFpKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.F16, 2, 64, 4096)) == null);
    assertTrue(
        QmmMmaAsyncFpKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.F32, 2, 64, 4096))
            .contains("bf16/f16"));
    assertTrue(
        QmmMmaAsyncFpKernel.supports(QmmShape.affine(4, 64, Quant.BF16, 2, 64, 4096))
            .contains("fp modes only"));
    assertTrue(
        QmmMmaAsyncFpKernel.supports(
                QmmShape.fp(Quant.MXFP4, Quant.BF16, 2, 64, 4096).withTranspose(false))
            .contains("transposed"));
    // mxfp4 at k = 64: one warp of 2 words per lane, 2 scale codes per row (no copy that small).
    String small = QmmMmaAsyncFpKernel.supports(QmmShape.fp(Quant.MXFP4, Quant.BF16, 2, 64, 64));
    assertNotNull(small);
    assertTrue(small.contains("4, 8 or 16 scale codes"), small);
    assertNull(QmmMmaAsyncFpKernel.supports(QmmShape.fp(Quant.NVFP4, Quant.BF16, 2, 64, 64)));
    assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncFpKernel.supports(null));
    assertThrows(IllegalArgumentException.class, () -> QmmMmaAsyncFpKernel.plan(null, SMS));
    assertThrows(
        IllegalArgumentException.class,
        () -> QmmMmaAsyncFpKernel.plan(QmmShape.fp(Quant.MXFP4, Quant.F32, 2, 64, 4096), SMS));
  }

  @Test
  void explicitPlanRefusesBadArguments() {
    QmmShape s = QmmShape.fp(Quant.MXFP4, Quant.BF16, 2, 64, 4096);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncFpKernel.plan(s, SMS, 16, 1, 1));
    assertTrue(e.getMessage().contains("stages must be >= 2"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> QmmMmaAsyncFpKernel.plan(s, SMS, 64, 2, 1));
    assertTrue(e.getMessage().contains("ks"), e.getMessage());
    // mxfp4 ks = 32 leaves 4 words per lane: fine; nvfp4 at ks = 32 too; mxfp4 k=4096 at ks=64
    // would leave 2 (refused above by the split's own bound).
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                QmmMmaAsyncFpKernel.plan(
                    QmmShape.affine(4, 64, Quant.BF16, 2, 64, 4096), SMS, 16, 2, 1));
    assertTrue(e.getMessage().contains("fp modes only"), e.getMessage());
  }
}
