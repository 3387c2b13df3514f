package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.api.Bf16;
import sirocco.runtime.Dim3;
import sirocco.runtime.host.HostGridRunner;

/**
 * The unfused fallback ({@link SdpaUnfused}: scores, softmax, P·V) on the Java backend against the
 * float64 oracle: every dtype including float32 (where MLX's own float32 tolerances apply
 * unchanged), any query length, v's head dim differing from q/k's, and a non-unit last stride.
 */
class SdpaUnfusedTest {

  static AttnCase make(int hq, int hkv, int lq, int lkv, int d, int dtype, long seed) {
    return SdpaVectorTest.gqaCase(hq, hkv, lq, lkv, d, dtype, seed);
  }

  // ---- MLX test_sdpa_vector in float32 with MLX's tolerance ----

  static Stream<Arguments> mlxVectorMasksF32() {
    List<Arguments> all = new ArrayList<>();
    for (int l : new int[] {43, 4096}) {
      for (Arguments m : SdpaVectorTest.vectorMasks(l)) {
        all.add(Arguments.of(l, m.get()[0], m.get()[1]));
      }
    }
    return all.stream();
  }

  /**
   * MLX's {@code test_sdpa_vector} exactly as MLX runs it: float32, D = 64, L ∈ {43, 4096}, 4 q
   * heads over 1 kv head, scale 1, 0.5·N(0, 1) inputs, every mask, atol = rtol = 1e-4.
   */
  @ParameterizedTest(name = "L={0} {1}")
  @MethodSource
  void mlxVectorMasksF32(int l, String name, Consumer<AttnCase> mask) {
    AttnCase c = make(4, 1, 1, l, 64, Sdpa.F32, l);
    c.scale = 1.0;
    c.qDist = AttnCase.Dist.normal(0.5);
    c.kDist = AttnCase.Dist.normal(0.5);
    c.vDist = AttnCase.Dist.normal(0.5);
    mask.accept(c);
    c.generate();
    c.check(name, c.runUnfused(), 1e-4, 1e-4);
  }

  /**
   * MLX's {@code test_sdpa_few_query} (Lq = 8 > 3: only the fallback takes it): D = 64, 8 q heads
   * over 1 kv head, L ∈ {43, 4096}, q in seq-major storage, scale 1, float32, MLX's 1e-4, the masks
   * of MLX's list (none, scalar, key vector, per-head normal and transposed, causal).
   */
  @ParameterizedTest(name = "L={0}")
  @ValueSource(ints = {43, 4096})
  void mlxFewQuery(int l) {
    for (Arguments m : SdpaVectorTest.vectorMasks(l)) {
      String name = (String) m.get()[0];
      if (name.startsWith("additive")) {
        continue; // not in MLX's few-query list
      }
      AttnCase c = make(8, 1, 8, l, 64, Sdpa.F32, l + 1);
      c.scale = 1.0;
      c.qSeqMajor = true;
      c.qDist = AttnCase.Dist.normal(0.5);
      c.kDist = AttnCase.Dist.normal(0.5);
      c.vDist = AttnCase.Dist.normal(0.5);
      @SuppressWarnings("unchecked")
      Consumer<AttnCase> mask = (Consumer<AttnCase>) m.get()[1];
      mask.accept(c);
      c.generate();
      c.check(name, c.runUnfused(), 1e-4, 1e-4);
    }
  }

  /**
   * MLX's {@code test_sdpa_vector_gqa_long} for one head configuration in float32 with MLX's 1e-4:
   * 32 q heads over 4 kv heads, D = 128, L = 8201 of an L+32 cache. (The vector kernel runs the
   * other configurations in f16.)
   */
  @Test
  void mlxGqaLongF32() {
    AttnCase c = make(32, 4, 1, 8201, 128, Sdpa.F32, 8201);
    c.scale = 1.0;
    c.cacheLen = 8201 + 32;
    c.qDist = AttnCase.Dist.normal(0.5);
    c.kDist = AttnCase.Dist.normal(0.5);
    c.vDist = AttnCase.Dist.normal(0.5);
    c.generate();
    c.check("gqa long f32", c.runUnfused(), 1e-4, 1e-4);
  }

  // ---- MLX test_sdpa shapes with Lq > 3 (shrunk) ----

  static Stream<Arguments> mlxPrefillShapes() {
    List<Arguments> all = new ArrayList<>();
    int[][] shapes = {{65, 127, 64}, {127, 65, 128}, {20, 20, 64}};
    for (int[] s : shapes) {
      for (int mask :
          new int[] {Sdpa.MASK_NONE, Sdpa.MASK_ADDITIVE, Sdpa.MASK_BOOL, Sdpa.MASK_CAUSAL}) {
        for (int dtype : new int[] {Sdpa.F16, Sdpa.F32}) {
          all.add(Arguments.of(s[0], s[1], s[2], mask, dtype));
        }
      }
    }
    return all.stream();
  }

  /**
   * Shapes of MLX's {@code test_sdpa} with qL > 3 (the fallback's territory): (qL, kL, D) ∈ {(65,
   * 127, 64), (127, 65, 128), (20, 20, 64)}, every mask, MLX's input distributions, transposed
   * storage, f16 and f32 with MLX's bounds (3e-4 and 2e-5). Shrunk from 32 q / 8 kv heads to 8 / 2
   * for the Java backend (one warp per softmax row). With the causal mask and qL > kL, MLX leaves
   * the first qL − kL rows undefined; here they are fully masked and must be 0.
   */
  @ParameterizedTest(name = "qL={0} kL={1} D={2} mask={3} dtype={4}")
  @MethodSource
  void mlxPrefillShapes(int ql, int kl, int d, int mask, int dtype) {
    AttnCase c = make(8, 2, ql, kl, d, dtype, ql * 7L + kl + mask);
    double scale = 1 / Math.sqrt(d);
    c.qDist = AttnCase.Dist.uniform(0, 0.5);
    c.kDist = AttnCase.Dist.uniform(0, 0.5);
    c.vDist = AttnCase.Dist.uniform(0, scale);
    c.maskKind = mask;
    if (mask == Sdpa.MASK_ADDITIVE) {
      long s = c.seed;
      c.maskValues = (b, h, i, j) -> 0.5 * AttnCase.hashUniform(s, b, h, i, j);
    }
    c.qSeqMajor = true;
    c.kvSeqMajor = true;
    c.generate();
    double atol = dtype == Sdpa.F32 ? 2e-5 : 3e-4;
    c.check("MLX tolerance", c.runUnfused(), atol, atol);
  }

  // ---- sinks, robustness ----

  /**
   * MLX's {@code test_sdpa_attention_sinks} with T_q = 128: B = 2, 8 q heads over 2 or 8 kv heads,
   * D = 64, sinks 10·N(0, 1), f16 (MLX atol 1e-2) and f32 (MLX atol 1e-5). T_kv = 128 as in MLX;
   * MLX's T_kv = 4096 is shrunk to 512 here (the Java backend runs one thread per score).
   */
  @ParameterizedTest(name = "Tkv={0}")
  @ValueSource(ints = {128, 512})
  void mlxSinksLongQuery(int tkv) {
    for (int nkv : new int[] {2, 8}) {
      for (int dtype : new int[] {Sdpa.F16, Sdpa.F32}) {
        AttnCase c = make(8, nkv, 128, tkv, 64, dtype, tkv + nkv);
        c.batch = 2;
        c.sinks = true;
        c.generate();
        float[] out = c.runUnfused();
        c.check("MLX tolerance", out, dtype == Sdpa.F32 ? 1e-5 : 1e-2, 0);
        c.check("dtype tolerance", out);
      }
    }
  }

  /**
   * MLX's {@code test_sdpa_fully_masked} (D = 128, 4 heads, Lkv = 8, scalar False mask, Lq ∈ {1, 8,
   * 32}) plus sinks: every output exactly 0, never NaN.
   */
  @ParameterizedTest(name = "Lq={0}")
  @ValueSource(ints = {1, 8, 32})
  void mlxFullyMasked(int lq) {
    for (boolean sinks : new boolean[] {false, true}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F32}) {
        AttnCase c = make(4, 4, lq, 8, 128, dtype, lq);
        c.maskKind = Sdpa.MASK_BOOL;
        c.maskB = c.maskH = c.maskQ = c.maskK = false;
        c.maskValues = (b, h, i, j) -> 0;
        c.sinks = sinks;
        c.generate();
        float[] out = c.runUnfused();
        for (int i = 0; i < out.length; i++) {
          assertEquals(0f, out[i], "element " + i + " of " + c);
        }
      }
    }
  }

  /**
   * MLX's {@code test_sdpa_inf_score}: q = k = 1 with key 0 at −inf, v ~ N(0, 1), D ∈ {4, 128}, Lq
   * ∈ {1, 8}, 4 heads, Lkv = 8, scale 1. MLX's 1e-4 applies to float32; f16 outputs get the f16
   * rounding bound.
   */
  @Test
  void mlxInfScore() {
    for (int d : new int[] {4, 128}) {
      for (int lq : new int[] {1, 8}) {
        for (int dtype : new int[] {Sdpa.F16, Sdpa.F32}) {
          AttnCase c = make(4, 4, lq, 8, d, dtype, d + lq);
          c.scale = 1.0;
          c.generate().fillQ(1f);
          Arrays.fill(c.k, 1f);
          c.setKeyRow(0, Float.NEGATIVE_INFINITY);
          float[] out = c.runUnfused();
          if (dtype == Sdpa.F32) {
            c.check("-inf key (MLX's float32 bound)", out, 1e-4, 1e-4);
          }
          c.check("-inf key", out); // f16: its rounding alone reaches 2.4e-4 at 0.5
        }
      }
    }
  }

  // ---- what only the fallback takes ----

  /**
   * v's head dim differing from q/k's (MLX's skipped {@code test_sdpa_vector_value_dims}: D = 192,
   * Dv = 128), k and v stored {@code [B, H, D, L]} (last-axis stride L), odd head dims, bf16.
   */
  @Test
  void valueDimsAndTransposedLastAxis() {
    for (int dtype : new int[] {Sdpa.BF16, Sdpa.F32}) {
      AttnCase c = make(4, 1, 1, 237, 192, dtype, 11);
      c.valueDim = 128;
      c.scale = 1.0;
      c.qDist = AttnCase.Dist.normal(0.5);
      c.kDist = AttnCase.Dist.normal(0.5);
      c.vDist = AttnCase.Dist.normal(0.5);
      c.generate();
      c.check("D=192 Dv=128", c.runUnfused());

      AttnCase t = make(6, 2, 5, 40, 72, dtype, 12);
      t.kvDimMajor = true;
      t.cacheLen = 48;
      t.maskKind = Sdpa.MASK_CAUSAL;
      t.sinks = true;
      t.generate();
      t.check("dim-major k/v, D=72", t.runUnfused());
    }
  }

  /** Random configurations over fixed seeds, every dtype, mask, layout and length. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void randomConfigurations(long seed) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed + 1000);
    AttnCase c = new AttnCase();
    c.seed = seed;
    c.dtype = r.nextInt(3);
    c.headDim = 1 + r.nextInt(160); // any width: the unrolled loops have remainders
    c.valueDim = r.nextBoolean() ? -1 : 1 + r.nextInt(160);
    c.hkv = 1 + r.nextInt(3);
    c.hq = c.hkv * (1 + r.nextInt(4));
    c.lq = 1 + r.nextInt(12);
    c.lkv = r.nextInt(60); // 0 keys included: every row is then empty and 0
    c.batch = 1 + r.nextInt(2);
    c.maskKind = r.nextInt(4);
    c.maskB = r.nextBoolean();
    c.maskH = r.nextBoolean();
    c.maskQ = r.nextBoolean();
    c.maskReversed = r.nextBoolean();
    c.sinks = r.nextBoolean();
    c.cacheLen = c.lkv + r.nextInt(10);
    c.kvOffset = r.nextInt(9);
    c.qOffset = r.nextInt(9);
    int layout = r.nextInt(3);
    c.kvSeqMajor = layout == 1;
    c.kvDimMajor = layout == 2;
    c.qSeqMajor = r.nextBoolean();
    c.generate();
    c.check("random", c.runUnfused());
  }

  /** The fallback's scalar references agree with the oracle on one row. */
  @Test
  void kernelReferencesMatchOracle() {
    AttnCase c = make(2, 1, 2, 9, 16, Sdpa.F32, 3);
    c.maskKind = Sdpa.MASK_ADDITIVE;
    c.sinks = true;
    c.generate();
    double[] oracle = c.oracle();
    int h = 1;
    int i = 1;
    double[] qRow = new double[16];
    for (int e = 0; e < 16; e++) {
      qRow[e] = c.q[(h * 2 + i) * 16 + e];
    }
    double[] logits = new double[9];
    double[][] vRows = new double[9][16];
    for (int j = 0; j < 9; j++) {
      double[] kRow = new double[16];
      for (int e = 0; e < 16; e++) {
        kRow[e] = c.k[j * 16 + e];
        vRows[j][e] = c.v[j * 16 + e];
      }
      logits[j] =
          SdpaUnfused.referenceScore(
              qRow, kRow, c.effectiveScale(), c.mask[(h * 2 + i) * 9 + j], true);
    }
    double[] o =
        SdpaUnfused.referencePv(SdpaUnfused.referenceSoftmax(logits, c.sinkValues[h], true), vRows);
    for (int e = 0; e < 16; e++) {
      assertEquals(oracle[(h * 2 + i) * 16 + e], o[e], 1e-12);
    }
  }

  /** The mask widening kernel is exact for bf16 and f16. */
  @Test
  void widenIsExact() throws Exception {
    Method widen = AttnCase.kernel(SdpaUnfused.class, "widen");
    for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
      short[] src = new short[1000];
      for (int i = 0; i < src.length; i++) {
        src[i] = (short) (i * 65 + 7);
      }
      float[] dst = new float[src.length];
      Arrays.fill(dst, Float.NaN);
      HostGridRunner.run(widen, Dim3.of(4), Dim3.of(256), src, dst, src.length, dtype);
      for (int i = 0; i < src.length; i++) {
        float want = dtype == Sdpa.BF16 ? Bf16.toFloat(src[i]) : Float.float16ToFloat(src[i]);
        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(dst[i]), "at " + i);
      }
    }
  }

  @Test
  void supportsEverythingButHugeScoreBuffers() {
    assertNull(SdpaUnfused.supports(new SdpaShape(1, 8, 2, 100, 0, 72, 40), Sdpa.F32));
    String why = SdpaUnfused.supports(SdpaShape.of(1, 64, 8, 8192, 8192, 128), Sdpa.BF16);
    assertTrue(why != null && why.contains("scores"), why);
  }
}
