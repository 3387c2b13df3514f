package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The vector decode kernel ({@link SdpaVector#decode}, one pass and split-K with {@link
 * SdpaSplitK#combine}) on the Java backend against the float64 oracle of {@link AttnCase}.
 *
 * <p>Launch plans: the Java backend pays about 1–2 ms per block, so most cases plan for a 16-SM
 * device ({@link #CI_SMS}), which still splits almost every case into several key blocks; the long
 * and head-dim-256/512 cases use the H200's real 132 SMs, as dispatch would.
 *
 * <p>Inputs are rounded to the kernel's dtype before the oracle sees them, so the only error
 * sources are the output rounding and float32 arithmetic; {@link AttnCase#tolerance} derives the
 * bounds from that. MLX cases keep MLX's own tolerance as well where MLX ran the same dtype.
 */
class SdpaVectorTest {
  static final int CI_SMS = 16;
  static final int H200_SMS = 132;

  static AttnCase gqaCase(int hq, int hkv, int lq, int lkv, int d, int dtype, long seed) {
    AttnCase c = new AttnCase();
    c.hq = hq;
    c.hkv = hkv;
    c.lq = lq;
    c.lkv = lkv;
    c.headDim = d;
    c.dtype = dtype;
    c.seed = seed;
    return c;
  }

  // ---- MLX: "fused sdpa at head dims 256 and 512" ----

  static Stream<Arguments> mlxHeadDims256And512() {
    List<Arguments> all = new ArrayList<>();
    for (int d : new int[] {256, 512}) {
      for (int lq : new int[] {1, 3}) {
        for (int lkv : new int[] {37, 1500}) {
          for (boolean causal : new boolean[] {false, true}) {
            all.add(Arguments.of(d, lq, lkv, causal));
          }
        }
      }
    }
    return all.stream();
  }

  /**
   * MLX's case at full size: q {@code [1, 8, Lq, D]} bf16, k/v the first Lkv rows of {@code [1, 2,
   * Lkv+16, D]} (GQA 4; the 16 rows behind the view hold NaN here, so any read of them shows),
   * scale 1/√D, rtol = atol = 2e-2 (MLX's bound, against float64 here rather than float32), and the
   * tighter bf16 bound of {@link AttnCase#tolerance}. Each case runs under the H200 plan (split-K
   * for all of them) and forced to one pass.
   */
  @ParameterizedTest(name = "D={0} Lq={1} Lkv={2} causal={3}")
  @MethodSource
  void mlxHeadDims256And512(int d, int lq, int lkv, boolean causal) {
    AttnCase c = gqaCase(8, 2, lq, lkv, d, Sdpa.BF16, d + lq + lkv);
    c.cacheLen = lkv + 16;
    c.maskKind = causal ? Sdpa.MASK_CAUSAL : Sdpa.MASK_NONE;
    c.generate();
    float[] split = c.runVector(H200_SMS);
    c.check("H200 plan (MLX tolerance)", split, 2e-2, 2e-2);
    c.check("H200 plan", split);
    c.check("one pass", c.runVector(H200_SMS, SdpaVectorPlans.defaultRows(c.shape()), 1));
  }

  // ---- MLX test_sdpa: the qL = 1 decode shapes ----

  static Stream<Arguments> mlxDecodeShapes() {
    List<Arguments> all = new ArrayList<>();
    for (int kl : new int[] {7, 9, 32, 63, 67, 129, 400, 2000}) {
      for (int kvHeads : new int[] {32, 8}) {
        for (int mask :
            new int[] {Sdpa.MASK_NONE, Sdpa.MASK_ADDITIVE, Sdpa.MASK_BOOL, Sdpa.MASK_CAUSAL}) {
          for (boolean transpose : new boolean[] {false, true}) {
            all.add(Arguments.of(kl, kvHeads, mask, transpose));
          }
        }
      }
    }
    return all.stream();
  }

  /**
   * MLX's {@code test_sdpa} decode shapes at full size: B = 1, qL = 1, kL ∈ {7, …, 2000}, D = 128,
   * 32 q heads over 32 or 8 kv heads, masks none / additive / boolean / causal, inputs in {@code
   * [B, H, L, D]} or transposed {@code [B, L, H, D]} storage, float16 (the dtype MLX runs on CUDA),
   * MLX's {@code prepare_inputs} distributions (q, k ~ U(0, 0.5), v ~ U(0, 1/√D), additive mask ~
   * U(0, 0.5) and boolean mask keep-probability 0.5, both full {@code [B, Hq, qL, kL]}). MLX's
   * bound {@code |out - ref| <= 3e-4 (1 + |ref|)} and the f16 bound of {@link AttnCase#tolerance}.
   */
  @ParameterizedTest(name = "kL={0} Hkv={1} mask={2} transpose={3}")
  @MethodSource
  void mlxDecodeShapes(int kl, int kvHeads, int mask, boolean transpose) {
    AttnCase c = gqaCase(32, kvHeads, 1, kl, 128, Sdpa.F16, kl * 31L + kvHeads + mask);
    double scale = 1 / Math.sqrt(128);
    c.qDist = AttnCase.Dist.uniform(0, 0.5);
    c.kDist = AttnCase.Dist.uniform(0, 0.5);
    c.vDist = AttnCase.Dist.uniform(0, scale);
    c.maskKind = mask;
    if (mask == Sdpa.MASK_ADDITIVE) {
      long s = c.seed;
      c.maskValues = (b, h, i, j) -> 0.5 * AttnCase.hashUniform(s, b, h, i, j);
    }
    c.qSeqMajor = transpose;
    c.kvSeqMajor = transpose;
    c.generate();
    float[] out = c.runVector(CI_SMS);
    c.check("MLX tolerance", out, 3e-4, 3e-4);
    c.check("f16 tolerance", out);
  }

  // ---- MLX test_sdpa_vector: vector masks ----

  /** MLX's masks of {@code test_sdpa_vector} (Nq = 4, Nkv = 1, Lq = 1), as fixture settings. */
  static List<Arguments> vectorMasks(int l) {
    List<Arguments> all = new ArrayList<>();
    all.add(Arguments.of("none", (Consumer<AttnCase>) c -> {}));
    all.add(
        Arguments.of(
            "bool scalar True",
            (Consumer<AttnCase>)
                c -> {
                  bool(c, false, false);
                  c.maskK = false;
                  c.maskValues = (b, h, i, j) -> 1;
                }));
    all.add(
        Arguments.of(
            "bool [L], last 10 False",
            (Consumer<AttnCase>)
                c -> {
                  bool(c, false, false);
                  c.maskValues = (b, h, i, j) -> j < l - 10 ? 1 : 0;
                }));
    for (boolean reversed : new boolean[] {false, true}) {
      String shape = reversed ? "(L,1,Nq).T" : "(Nq,1,L)";
      all.add(
          Arguments.of(
              "bool " + shape + " > 0.2",
              (Consumer<AttnCase>)
                  c -> {
                    bool(c, true, reversed);
                    c.maskValues =
                        (b, h, i, j) -> AttnCase.hashUniform(7, b, h, i, j) > 0.2 ? 1 : 0;
                  }));
      all.add(
          Arguments.of(
              "additive " + shape + " U(0,1)",
              (Consumer<AttnCase>)
                  c -> {
                    bool(c, true, reversed);
                    c.maskKind = Sdpa.MASK_ADDITIVE;
                    c.maskValues = (b, h, i, j) -> AttnCase.hashUniform(8, b, h, i, j);
                  }));
      all.add(
          Arguments.of(
              "additive log(" + shape + " > 0.2)",
              (Consumer<AttnCase>)
                  c -> {
                    bool(c, true, reversed);
                    c.maskKind = Sdpa.MASK_ADDITIVE;
                    c.maskValues =
                        (b, h, i, j) ->
                            AttnCase.hashUniform(9, b, h, i, j) > 0.2
                                ? 0
                                : Double.NEGATIVE_INFINITY;
                  }));
    }
    all.add(Arguments.of("causal", (Consumer<AttnCase>) c -> c.maskKind = Sdpa.MASK_CAUSAL));
    return all;
  }

  private static void bool(AttnCase c, boolean perHead, boolean reversed) {
    c.maskKind = Sdpa.MASK_BOOL;
    c.maskB = false;
    c.maskH = perHead;
    c.maskQ = false;
    c.maskK = true;
    c.maskReversed = reversed;
  }

  static Stream<Arguments> mlxVectorMasks() {
    List<Arguments> all = new ArrayList<>();
    for (int l : new int[] {43, 4096}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (Arguments m : vectorMasks(l)) {
          all.add(Arguments.of(l, Sdpa.dtypeName(dtype), dtype, m.get()[0], m.get()[1]));
        }
      }
    }
    return all.stream();
  }

  /**
   * MLX's {@code test_sdpa_vector} at full size: D = 64, L ∈ {43, 4096}, 4 q heads over 1 kv head,
   * scale 1, q, k, v ~ 0.5·N(0, 1), every mask of the MLX list (broadcast scalar, key vector,
   * per-head masks stored normally and transposed, additive, additive with −inf). MLX runs float32
   * with 1e-4; the vector kernel takes bf16/f16, so the bound is the dtype's ({@link
   * AttnCase#tolerance}); the float32 port with MLX's 1e-4 runs on the unfused kernels.
   */
  @ParameterizedTest(name = "L={0} {1} {3}")
  @MethodSource
  void mlxVectorMasks(int l, String dtypeName, int dtype, String name, Consumer<AttnCase> mask) {
    AttnCase c = gqaCase(4, 1, 1, l, 64, dtype, l);
    c.scale = 1.0;
    c.qDist = AttnCase.Dist.normal(0.5);
    c.kDist = AttnCase.Dist.normal(0.5);
    c.vDist = AttnCase.Dist.normal(0.5);
    mask.accept(c);
    c.generate();
    c.check(name, c.runVector(CI_SMS));
  }

  // ---- MLX test_sdpa_vector_gqa_long ----

  static Stream<Arguments> mlxGqaLong() {
    List<Arguments> all = new ArrayList<>();
    int[][] heads = {{32, 4, 128}, {64, 8, 64}, {48, 4, 128}, {64, 4, 128}};
    for (int[] h : heads) {
      all.add(Arguments.of(h[0], h[1], h[2], 1, 8201));
    }
    all.add(Arguments.of(32, 4, 128, 1, 8192));
    all.add(Arguments.of(32, 4, 128, 2, 8192));
    all.add(Arguments.of(64, 8, 64, 2, 8192));
    return all.stream();
  }

  /**
   * MLX's {@code test_sdpa_vector_gqa_long}: k/v the first L rows of an L+32 cache (NaN behind the
   * view), scale 1, 0.5·N(0, 1) inputs, under the H200 plan (split-K). Shrunk for the Java
   * backend's speed: every head configuration runs at (B, L) = (1, 8201), the non-multiple length;
   * (1, 8192) and (2, 8192) run for (32, 4, 128) and (2, 8192) for (64, 8, 64), not for all four.
   * float16 with the f16 bound (MLX: float32, 1e-4; the float32 version is in the unfused tests).
   */
  @ParameterizedTest(name = "Hq={0} Hkv={1} D={2} B={3} L={4}")
  @MethodSource
  void mlxGqaLong(int hq, int hkv, int d, int batch, int l) {
    AttnCase c = gqaCase(hq, hkv, 1, l, d, Sdpa.F16, l + hq);
    c.batch = batch;
    c.scale = 1.0;
    c.cacheLen = l + 32;
    c.qDist = AttnCase.Dist.normal(0.5);
    c.kDist = AttnCase.Dist.normal(0.5);
    c.vDist = AttnCase.Dist.normal(0.5);
    c.generate();
    c.check("H200 plan", c.runVector(H200_SMS));
  }

  // ---- MLX test_sdpa_attention_sinks (the T_q = 1 half; T_q = 128 runs unfused) ----

  static Stream<Arguments> mlxSinks() {
    List<Arguments> all = new ArrayList<>();
    for (int tkv : new int[] {128, 4096}) {
      for (int nkv : new int[] {2, 8}) {
        all.add(Arguments.of(tkv, nkv));
      }
    }
    return all.stream();
  }

  /**
   * MLX's sink case with T_q = 1: B = 2, 8 q heads, 2 or 8 kv heads, D = 64, T_kv ∈ {128, 4096},
   * sinks 10·N(0, 1), inputs N(0, 1), float16: MLX's bound atol 1e-2 and the f16 bound.
   */
  @ParameterizedTest(name = "Tkv={0} Nkv={1}")
  @MethodSource
  void mlxSinks(int tkv, int nkv) {
    AttnCase c = gqaCase(8, nkv, 1, tkv, 64, Sdpa.F16, tkv + nkv);
    c.batch = 2;
    c.sinks = true;
    c.generate();
    float[] out = c.runVector(CI_SMS);
    c.check("MLX tolerance", out, 1e-2, 0);
    c.check("f16 tolerance", out);
    c.check("one pass", c.runVector(CI_SMS, SdpaVectorPlans.defaultRows(c.shape()), 1));
  }

  // ---- robustness: fully masked rows and −inf keys ----

  /**
   * MLX's {@code test_sdpa_fully_masked} (the Lq = 1 case: D = 128, 4 heads, Lkv = 8, mask = scalar
   * False) and variations: additive all −inf, causal rows with no visible key (Lq = 3 over Lkv = 1
   * or 2), with and without sinks, one pass and split-K. Every such row must be exactly 0.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "bool False",
        "bool False + sinks",
        "additive -inf",
        "causal Lq=3 Lkv=1",
        "causal Lq=3 Lkv=2 + sinks"
      })
  void fullyMaskedRowsAreZero(String variant) {
    for (int splits : new int[] {1, 3}) {
      AttnCase c = gqaCase(4, 4, 1, 8, 128, Sdpa.BF16, 5);
      c.sinks = variant.contains("sinks");
      if (variant.startsWith("bool")) {
        bool(c, false, false);
        c.maskK = false;
        c.maskValues = (b, h, i, j) -> 0;
      } else if (variant.startsWith("additive")) {
        bool(c, true, false);
        c.maskKind = Sdpa.MASK_ADDITIVE;
        c.maskValues = (b, h, i, j) -> Double.NEGATIVE_INFINITY;
      } else {
        c.maskKind = Sdpa.MASK_CAUSAL;
        c.lq = 3;
        c.lkv = variant.contains("Lkv=1") ? 1 : 2;
      }
      c.generate();
      float[] out = c.runVector(CI_SMS, SdpaVectorPlans.defaultRows(c.shape()), splits);
      c.check(variant + " splits=" + splits, out);
      double[] ref = c.oracle();
      int zeros = 0;
      for (int i = 0; i < out.length; i++) {
        if (ref[i] == 0) {
          assertEquals(0f, out[i], variant + ": fully masked output element " + i);
          zeros++;
        }
      }
      if (zeros == 0) {
        throw new AssertionError(variant + ": expected some fully masked rows");
      }
    }
  }

  /**
   * MLX's {@code test_sdpa_inf_score} (the Lq = 1, D = 128 case): q = k = 1 with key 0 at −inf, v ~
   * N(0, 1), 4 heads, Lkv = 8, scale 1: key 0 gets weight 0 and nothing is NaN.
   */
  @Test
  void negativeInfinityKey() {
    for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
      for (int splits : new int[] {1, 2}) {
        AttnCase c = gqaCase(4, 4, 1, 8, 128, dtype, 6);
        c.scale = 1.0;
        c.generate().fillQ(1f);
        java.util.Arrays.fill(c.k, 1f);
        c.setKeyRow(0, Float.NEGATIVE_INFINITY);
        c.check("-inf key, splits " + splits, c.runVector(CI_SMS, 1, splits));
      }
    }
  }

  /**
   * An additive mask of {@code finfo(float32).min} (MLX's way to write a boolean mask additively)
   * behaves as the boolean mask where a row keeps some key, and a row entirely at that value
   * averages v uniformly, as float64 does: the kernel's base-2 conversion must not overflow it to
   * −inf.
   */
  @Test
  void additiveFloatMinMask() {
    AttnCase c = gqaCase(4, 2, 2, 50, 64, Sdpa.BF16, 8);
    c.maskKind = Sdpa.MASK_ADDITIVE;
    c.maskValues =
        (b, h, i, j) -> h == 3 || AttnCase.hashUniform(3, b, h, i, j) < 0.3 ? -Float.MAX_VALUE : 0;
    c.generate();
    c.check("finfo.min mask", c.runVector(CI_SMS));
  }

  // ---- Lq 2 and 3, layouts, rows per block, splits ----

  /**
   * Lq = 2 and 3 with the causal mask aligned bottom-right, every head dim, GQA groups whose rows
   * do not fill the last block (gqa·Lq = 5·3 with 4 rows per block), and split counts whose key
   * slices lie wholly beyond every row's horizon (those splits write (−inf, 0) partials).
   */
  @ParameterizedTest(name = "D={0}")
  @ValueSource(ints = {64, 96, 128, 256, 512})
  void smallQueryBlocksCausal(int d) {
    for (int lq : new int[] {2, 3}) {
      AttnCase c = gqaCase(10, 2, lq, 45, d, Sdpa.BF16, d + lq);
      c.maskKind = Sdpa.MASK_CAUSAL;
      c.generate();
      // Splits of 4 keys with one row per block: rows of query 0 see nothing of the last split.
      for (int rows = 1; rows <= 4; rows++) {
        c.check("rows=" + rows, c.runVector(CI_SMS, rows, rows == 1 ? 12 : 4));
      }
      int rows = SdpaVectorPlans.defaultRows(c.shape());
      c.check("one pass", c.runVector(CI_SMS, rows, 1));
      if (d == 96 || d == 512) { // hundreds of blocks: the Java backend's cost, so two dims only
        c.check("one key per split", c.runVector(CI_SMS, rows, 45));
      }
    }
  }

  /**
   * Strided inputs read in place: k/v views into a longer cache with an element offset, in
   * head-major and seq-major storage, q at an odd offset in seq-major storage, batch 2, per-batch
   * additive masks broadcast over heads.
   */
  @ParameterizedTest(name = "D={0}")
  @ValueSource(ints = {64, 96, 128, 256, 512})
  void stridedViewsAndBatchMasks(int d) {
    for (boolean seqMajor : new boolean[] {false, true}) {
      AttnCase c = gqaCase(6, 3, 2, 77, d, Sdpa.F16, d * 3L + (seqMajor ? 1 : 0));
      c.batch = 2;
      c.cacheLen = 90;
      c.kvOffset = 24;
      c.qOffset = 3;
      c.qSeqMajor = seqMajor;
      c.kvSeqMajor = seqMajor;
      c.maskKind = Sdpa.MASK_ADDITIVE;
      c.maskH = false;
      c.generate();
      c.check("seqMajor=" + seqMajor, c.runVector(CI_SMS));
    }
  }

  /**
   * Random configurations over fixed seeds: head dim, dtype, Lq, GQA factor, mask kind and mask
   * broadcast, sinks, cache views, offsets, batch, rows per block and split count all drawn.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void randomConfigurations(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] dims = {64, 96, 128, 256, 512};
    int[] groups = {1, 2, 3, 4, 5, 8};
    AttnCase c = new AttnCase();
    c.seed = seed;
    c.headDim = dims[r.nextInt(dims.length)];
    c.dtype = r.nextBoolean() ? Sdpa.BF16 : Sdpa.F16;
    c.hkv = 1 + r.nextInt(3);
    c.hq = c.hkv * groups[r.nextInt(groups.length)];
    c.lq = 1 + r.nextInt(3);
    c.lkv = 1 + r.nextInt(c.headDim > 256 ? 150 : 400);
    c.batch = 1 + r.nextInt(2);
    c.maskKind = r.nextInt(4);
    c.maskB = r.nextBoolean();
    c.maskH = r.nextBoolean();
    c.maskQ = r.nextBoolean();
    c.maskReversed = r.nextBoolean();
    c.sinks = r.nextInt(3) == 0;
    if (r.nextBoolean()) {
      c.cacheLen = c.lkv + r.nextInt(40);
      c.kvOffset = 8 * r.nextInt(4);
    }
    c.kvSeqMajor = r.nextBoolean();
    c.qSeqMajor = r.nextBoolean();
    c.qOffset = r.nextInt(5);
    c.scale = r.nextBoolean() ? Double.NaN : 0.05 + r.nextDouble();
    c.generate();
    int rows = 1 + r.nextInt(SdpaVector.MAX_ROWS);
    int splits = r.nextInt(6); // 0: the plan's choice
    c.check("rows=" + rows + " splits=" + splits, c.runVector(CI_SMS, rows, splits));
  }

  /**
   * The lane layout beyond the supported list: any multiple of 8 up to 256 (idle lanes in the last
   * key group) and widths between 256 and 512 (idle second chunks). {@link SdpaVector#supports}
   * still admits only 64, 96, 128, 256 and 512; this keeps the README's claim honest.
   */
  @ParameterizedTest(name = "D={0}")
  @ValueSource(ints = {8, 40, 72, 200, 384})
  void layoutGeneralisesToOtherWidths(int d) {
    AttnCase c = gqaCase(4, 2, 2, 70, d, Sdpa.BF16, d);
    c.maskKind = Sdpa.MASK_CAUSAL;
    c.cacheLen = 80;
    c.generate();
    c.check("one pass", c.runVector(CI_SMS, 4, 1));
    c.check("split-K", c.runVector(CI_SMS, 3, 5));
  }

  /** The scalar reference beside the kernel agrees with the test's independent oracle. */
  @Test
  void kernelReferenceMatchesOracle() {
    AttnCase c = gqaCase(6, 2, 3, 33, 96, Sdpa.BF16, 4);
    c.maskKind = Sdpa.MASK_BOOL;
    c.sinks = true;
    c.cacheLen = 40;
    c.kvSeqMajor = true;
    c.generate();
    double[] oracle = c.oracle();
    SdpaShape s = c.shape();
    for (int h = 0; h < s.qHeads(); h++) {
      for (int i = 0; i < s.qLen(); i++) {
        double[] ref =
            SdpaVectorReference.reference(
                c.q16,
                c.k16,
                c.v16,
                c.maskAdd,
                c.maskBool,
                c.sinkArray,
                s,
                c.qs,
                c.ks,
                c.vs,
                c.ms,
                c.effectiveScale(),
                c.dtype,
                c.maskKind,
                true,
                0,
                h,
                i);
        for (int e = 0; e < s.headDim(); e++) {
          assertEquals(oracle[(h * s.qLen() + i) * s.headDim() + e], ref[e], 1e-9);
        }
      }
    }
  }
}
