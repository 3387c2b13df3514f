package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sirocco.Backend;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Explain;
import sirocco.dispatch.Internal;
import sirocco.dispatch.attention.SdpaOp;
import sirocco.runtime.testing.GpuTest;

/**
 * cuDNN SDPA on the GPU against a float64 reference: MLX's test_fast_sdpa.py prefill cases (B = 1)
 * × masks {none, additive, bool, causal} × {f16, bf16}. Each case also runs through the op's
 * unfused fallback rung on the same GPU (as MLX compares its fused kernel with the unfused path):
 * the fallback is checked against float64 too, and cuDNN against the fallback. Prints, per case,
 * the engine cuDNN chose, whether the plan came from the cache and the errors of both paths, so one
 * run says what to fix (and whether a failure is cuDNN's or the reference's).
 */
@GpuTest
class CudnnSdpaGpuTest {
  private static Sirocco rt;
  private static final List<String> SUMMARY = new ArrayList<>();

  @BeforeAll
  static void open() {
    rt = Sirocco.open(Backend.CUDA);
    System.out.println("device: " + rt.describe());
    System.out.println(Cudnn.describe());
    assertTrue(
        Cudnn.available(), "cuDNN must load on the GPU machine: " + Cudnn.unavailableReason());
  }

  @AfterAll
  static void close() {
    System.out.println("==== cuDNN SDPA GPU summary ====");
    SUMMARY.forEach(System.out::println);
    CudnnSdpa.explain().forEach(System.out::println);
    if (rt != null) {
      rt.close();
    }
  }

  /** (qL, kL, D, Hq, Hkv): MLX's prefill cases. */
  static final int[][] SHAPES = {
    {20, 20, 64, 3, 3},
    {63, 63, 64, 24, 24},
    {129, 129, 64, 24, 24},
    {400, 400, 64, 24, 24},
    {128, 128, 64, 32, 32},
    {64, 128, 64, 32, 32},
    {65, 128, 64, 32, 8},
    {64, 127, 64, 32, 8},
    {65, 127, 64, 32, 8},
    {127, 65, 64, 32, 8},
    {128, 128, 128, 32, 8},
    {64, 128, 128, 32, 8},
    {65, 127, 128, 32, 8},
    {127, 65, 128, 32, 8},
  };

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    int n = 0;
    for (DType dt : new DType[] {DType.F16, DType.BF16}) {
      for (int[] s : SHAPES) {
        for (Mask.Kind m : Mask.Kind.values()) {
          all.add(Arguments.of(dt, s[0], s[1], s[2], s[3], s[4], m, (n++ % 2) == 1));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} qL={1} kL={2} D={3} Hq={4} Hkv={5} {6} bshd={7}")
  @MethodSource("cases")
  void matchesTheFloat64Reference(
      DType dt, int lq, int lkv, int d, int hq, int hkv, Mask.Kind kind, boolean bshd) {
    String name =
        String.format(
            "%s qL=%d kL=%d D=%d Hq=%d Hkv=%d %s %s",
            dt, lq, lkv, d, hq, hkv, kind, bshd ? "BSHD" : "BHSD");
    SdpaTestData data =
        new SdpaTestData(dt, 1, hq, hkv, lq, lkv, d, 31L * lq + 7L * lkv + d + kind.ordinal());
    try (Tensor q = SdpaTestData.upload(rt, dt, data.q, 1, hq, lq, d, bshd);
        Tensor k = SdpaTestData.upload(rt, dt, data.k, 1, hkv, lkv, d, bshd);
        Tensor v = SdpaTestData.upload(rt, dt, data.v, 1, hkv, lkv, d, bshd);
        Tensor out = data.poisonedOutput(rt)) {
      double[] bias = null;
      int biasB = 1;
      int biasH = 1;
      Tensor maskTensor = null;
      Mask mask;
      SplittableRandom r = new SplittableRandom(lq * 1000L + lkv);
      switch (kind) {
        case NONE -> mask = Mask.none();
        case CAUSAL -> mask = Mask.causal();
        case ADDITIVE -> {
          // Per-head additive mask [1, Hq, Lq, Lkv] in the I/O dtype: passed to cuDNN as it is.
          biasH = hq;
          bias = new double[hq * lq * lkv];
          short[] bits = new short[bias.length];
          for (int i = 0; i < bias.length; i++) {
            bias[i] = SdpaTestData.round(dt, r.nextDouble(-2, 1));
            bits[i] = SdpaTestData.bits(dt, bias[i]);
          }
          maskTensor =
              dt == DType.BF16
                  ? rt.fromBf16(bits, 1, hq, lq, lkv)
                  : rt.fromF16(bits, 1, hq, lq, lkv);
          mask = Mask.additive(maskTensor);
        }
        case BOOL -> {
          // [Lq, Lkv] keep-mask, broadcast over batch and heads; every row keeps at least one key.
          bias = new double[lq * lkv];
          byte[] keep = new byte[bias.length];
          for (int i = 0; i < lq; i++) {
            for (int j = 0; j < lkv; j++) {
              boolean on = r.nextDouble() < 0.7 || j == i % lkv;
              keep[i * lkv + j] = (byte) (on ? 1 : 0);
              bias[i * lkv + j] = on ? 0 : Double.NEGATIVE_INFINITY;
            }
          }
          maskTensor = rt.fromU8(keep, lq, lkv);
          mask = Mask.bool(maskTensor);
        }
        default -> throw new AssertionError(kind);
      }
      try {
        String rule =
            CudnnSdpa.supports(
                CudnnSdpa.Problem.of(q, k, v, mask, out), Internal.bridge().device(rt).info());
        CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, data.scale, mask, out);
        if (kind == Mask.Kind.CAUSAL && lq > lkv) {
          // The one refusal the rules predict for these cases.
          assertTrue(rule != null && rule.startsWith("causal with Lq="), name + ": " + rule);
          assertTrue(!a.ran(), name);
          SUMMARY.add(String.format("REFUSED (expected) %-55s %s", name, a.reason()));
          return;
        }
        assertNull(rule, name);
        if (!a.ran()) {
          SUMMARY.add(String.format("NOT RUN %-55s %s", name, a.reason()));
        }
        assertTrue(a.ran(), name + ": cuDNN did not run: " + a.reason());
        float[] got = rt.toFloats(out);
        double[] want =
            data.reference(
                kind,
                kind == Mask.Kind.BOOL || kind == Mask.Kind.ADDITIVE ? bias : null,
                biasB,
                biasH);
        SdpaTestData.Comparison c = SdpaTestData.Comparison.of(got, want, data.atol(), data.rtol());
        float[] fb = fallback(q, k, v, data.scale, mask);
        SdpaTestData.Comparison f = SdpaTestData.Comparison.of(fb, want, data.atol(), data.rtol());
        double[] cross = crossTolerance(dt, data.v);
        SdpaTestData.Comparison x =
            SdpaTestData.Comparison.of(got, toDoubles(fb), cross[0], cross[1]);
        boolean ok = c.ok() && f.ok() && x.ok();
        String line =
            String.format(
                "%s %-55s cuDNN vs f64: %s | fallback vs f64: %s | cuDNN vs fallback (atol %.1e,"
                    + " rtol %.1e): %s | %s%s",
                ok ? "OK  " : "FAIL",
                name,
                c,
                f,
                cross[0],
                cross[1],
                x,
                a.engine(),
                a.cacheHit() ? " (cached)" : "");
        System.out.println(line);
        SUMMARY.add(line);
        assertTrue(c.ok(), name + ": cuDNN vs float64: " + c);
        assertTrue(f.ok(), name + ": fallback vs float64: " + f);
        assertTrue(x.ok(), name + ": cuDNN vs fallback: " + x);
      } finally {
        if (maskTensor != null) {
          maskTensor.close();
        }
      }
    }
  }

  /**
   * The same attention through the op's unfused fallback rung: {@link SdpaOp#RUNG_PROPERTY} is the
   * op's switch for forcing a rung; it is process-wide, so it is set for this one call and the
   * previous value restored in {@code finally}. The decision the op reports must be the fallback.
   */
  private static float[] fallback(Tensor q, Tensor k, Tensor v, float scale, Mask mask) {
    String previous = System.getProperty(SdpaOp.RUNG_PROPERTY);
    List<String> chosen = new ArrayList<>();
    try (AutoCloseable listening =
        Explain.listen(
            d -> {
              if (SdpaOp.OP.equals(d.op())) {
                chosen.add(d.chosen());
              }
            })) {
      System.setProperty(SdpaOp.RUNG_PROPERTY, SdpaOp.FALLBACK);
      try (Tensor out = rt.scaledDotProductAttention(q, k, v, scale, mask)) {
        float[] got = rt.toFloats(out);
        assertEquals(List.of(SdpaOp.FALLBACK), chosen, "the op must have run the fallback rung");
        return got;
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      if (previous == null) {
        System.clearProperty(SdpaOp.RUNG_PROPERTY);
      } else {
        System.setProperty(SdpaOp.RUNG_PROPERTY, previous);
      }
    }
  }

  /**
   * {atol, rtol} for cuDNN against the fallback, from the dtype's unit roundoff u (2^-8 for bf16's
   * 8 significant bits, 2^-11 for f16's 11). Both paths compute q·kᵀ, softmax and the sums in
   * float32, whose differences are far below u; what separates them is rounding to the I/O dtype.
   * cuDNN rounds the probabilities to it before P·V (the fallback keeps them in float32): per
   * output at most u·Σ p·|v| ≤ u·max|v|, which the atol covers (u·max|v| + u). Each output is then
   * rounded to the dtype once per path (u·|out| each, 2u together); the rtol of 4u leaves as much
   * again for accumulation-order differences. This is tighter than the sum of the two float64
   * tolerances, so it can catch the paths disagreeing (masks, strides, GQA) where both still pass
   * against float64.
   */
  static double[] crossTolerance(DType dt, double[] v) {
    double u = dt == DType.BF16 ? 0x1p-8 : 0x1p-11;
    double maxV = 0;
    for (double x : v) {
      maxV = Math.max(maxV, Math.abs(x));
    }
    return new double[] {u * maxV + u, 4 * u};
  }

  private static double[] toDoubles(float[] a) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i];
    }
    return d;
  }

  @Test
  void aTunedPlanIsTimedOnTheCallAndStillMatchesTheReference() {
    // A shape no other case uses, so its plan is built (and tuned) by this call.
    DType dt = DType.BF16;
    SdpaTestData data = new SdpaTestData(dt, 1, 16, 4, 96, 96, 64, 1234);
    String previous = System.getProperty(CudnnSdpa.AUTOTUNE_PROPERTY);
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "4");
    try (Tensor q = SdpaTestData.upload(rt, dt, data.q, 1, 16, 96, 64, false);
        Tensor k = SdpaTestData.upload(rt, dt, data.k, 1, 4, 96, 64, false);
        Tensor v = SdpaTestData.upload(rt, dt, data.v, 1, 4, 96, 64, false);
        Tensor out = data.poisonedOutput(rt)) {
      CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, data.scale, Mask.none(), out);
      assertTrue(a.ran(), "cuDNN did not run: " + a.reason());
      assertTrue(a.engine().contains("(tuned"), a.engine());
      System.out.println("tuned plan: " + a.engine());
      SdpaTestData.Comparison c =
          SdpaTestData.Comparison.of(
              rt.toFloats(out),
              data.reference(Mask.Kind.NONE, null, 1, 1),
              data.atol(),
              data.rtol());
      assertTrue(c.ok(), "tuned cuDNN vs float64: " + c);
    } finally {
      if (previous == null) {
        System.clearProperty(CudnnSdpa.AUTOTUNE_PROPERTY);
      } else {
        System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, previous);
      }
    }
  }

  @Test
  void aRepeatedShapeHitsTheGraphCacheAndAFloat32MaskIsConverted() {
    DType dt = DType.BF16;
    SdpaTestData data = new SdpaTestData(dt, 1, 32, 8, 128, 128, 64, 99);
    try (Tensor q = SdpaTestData.upload(rt, dt, data.q, 1, 32, 128, 64, false);
        Tensor k = SdpaTestData.upload(rt, dt, data.k, 1, 8, 128, 64, false);
        Tensor v = SdpaTestData.upload(rt, dt, data.v, 1, 8, 128, 64, false)) {
      // A float32 additive mask broadcast along Lq ([Lkv]) goes through the conversion kernel.
      SplittableRandom r = new SplittableRandom(5);
      float[] row = new float[128];
      double[] bias = new double[128 * 128];
      for (int j = 0; j < 128; j++) {
        row[j] = (float) r.nextDouble(-3, 0);
      }
      for (int i = 0; i < 128; i++) {
        for (int j = 0; j < 128; j++) {
          bias[i * 128 + j] = SdpaTestData.round(dt, row[j]); // cuDNN sees it in bf16
        }
      }
      try (Tensor m = rt.fromFloats(row, 128)) {
        double[] want = data.reference(Mask.Kind.ADDITIVE, bias, 1, 1);
        for (int round = 0; round < 2; round++) {
          try (Tensor out = data.poisonedOutput(rt)) {
            CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, data.scale, Mask.additive(m), out);
            assertTrue(a.ran(), a.reason());
            if (round == 1) {
              assertTrue(a.cacheHit(), "the second call with the same shape must hit the cache");
            }
            SdpaTestData.Comparison c =
                SdpaTestData.Comparison.of(rt.toFloats(out), want, data.atol(), data.rtol());
            System.out.println("f32 [Lkv] mask, round " + round + ": " + c + " | " + a.engine());
            assertTrue(c.ok(), c.toString());
          }
        }
      }
    }
  }

  @Test
  void theWorkspaceIsKeptPerStreamAcrossCallsAndClearCacheFreesIt() {
    DType dt = DType.BF16;
    // Long enough that cuDNN asks for a workspace with these engines.
    SdpaTestData data = new SdpaTestData(dt, 1, 32, 8, 512, 512, 128, 17);
    try (Tensor q = SdpaTestData.upload(rt, dt, data.q, 1, 32, 512, 128, false);
        Tensor k = SdpaTestData.upload(rt, dt, data.k, 1, 8, 512, 128, false);
        Tensor v = SdpaTestData.upload(rt, dt, data.v, 1, 8, 512, 128, false)) {
      double[] want = data.reference(Mask.Kind.NONE, null, 1, 1);
      Object prepared = CudnnSdpa.prepare(q, k, v, Mask.none(), q, true);
      assertTrue(prepared instanceof CudnnSdpa.Call, String.valueOf(prepared));
      CudnnDeviceState st = CudnnSdpa.state(((CudnnSdpa.Call) prepared).device);
      for (int round = 0; round < 3; round++) {
        try (Tensor out = data.poisonedOutput(rt)) {
          CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, data.scale, Mask.none(), out);
          assertTrue(a.ran(), a.reason());
          CudnnSdpaPlan p = CudnnSdpa.cache().peek(((CudnnSdpa.Call) prepared).key);
          long[] ws = st.workspaceStats();
          System.out.println(
              "round " + round + ": plan wants " + p.workspaceBytes + " B, kept " + ws[0] + " B");
          assertTrue(ws[0] >= p.workspaceBytes, "the kept workspace covers the plan's");
          SdpaTestData.Comparison c =
              SdpaTestData.Comparison.of(rt.toFloats(out), want, data.atol(), data.rtol());
          assertTrue(c.ok(), "round " + round + ": " + c);
          if (round == 1) {
            rt.clearCache();
            assertEquals(0, st.workspaceStats()[1], "clearCache frees every kept workspace");
          }
        }
      }
    }
  }

  @Test
  void printsThePlanOfEachMaskKind() {
    DType dt = DType.BF16;
    SdpaTestData data = new SdpaTestData(dt, 1, 32, 8, 64, 128, 128, 3);
    try (Tensor q = SdpaTestData.upload(rt, dt, data.q, 1, 32, 64, 128, false);
        Tensor k = SdpaTestData.upload(rt, dt, data.k, 1, 8, 128, 128, false);
        Tensor v = SdpaTestData.upload(rt, dt, data.v, 1, 8, 128, 128, false);
        Tensor out = data.poisonedOutput(rt)) {
      for (Mask m : new Mask[] {Mask.none(), Mask.causal()}) {
        CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, data.scale, m, out);
        rt.synchronize();
        Object prepared = CudnnSdpa.prepare(q, k, v, m, out, true);
        assertTrue(prepared instanceof CudnnSdpa.Call, String.valueOf(prepared));
        CudnnSdpaPlan p = CudnnSdpa.cache().peek(((CudnnSdpa.Call) prepared).key);
        System.out.println("plan for " + m.kind() + ": " + (p == null ? "(none)" : p));
        if (p != null) {
          System.out.println(
              "  built in "
                  + p.buildNanos / 1_000_000
                  + " ms; configs rejected first: "
                  + p.rejected);
          String json = p.json();
          System.out.println(
              "  JSON: " + (json.length() > 600 ? json.substring(0, 600) + "…" : json));
        }
        assertTrue(a.ran(), a.reason());
      }
      assertEquals(DType.BF16, out.dtype());
    }
  }
}
