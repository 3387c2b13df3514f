package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;

/**
 * MLX's attention tests ({@code python/tests/test_fast_sdpa.py}) ported to the public op {@link
 * Sirocco#scaledDotProductAttention}, against {@link AttnSpec#reference()} (float64, written from
 * the math, sharing no code with the kernels): the decode shapes of {@code test_sdpa} (every kL,
 * heads 32/32 and 32/8, every mask kind, both storage orders), the vector-mask cases, GQA-long, the
 * sink cases, fully masked rows and a −inf key, and MLX's "fused sdpa at head dims 256 and 512"
 * case widened to every supported head dim (64, 96, 128, 256, 512), Lq 1, 2, 3 and 16, and key
 * lengths up to 8201.
 *
 * <p>The op chooses its rung freely (on CUDA cuDNN is enabled); each case prints its decision
 * ({@link Decision#explain()}) as a line {@code MLX-SDPA <backend> <case> -> <rung> (rejected: …)},
 * and each test ends with a count per rung, so a GPU log shows which cases ran on cuDNN, the vector
 * kernel or the fallback. The rung is asserted too: the vector kernel where it can run (bf16/f16, D
 * in the list, Lq ≤ 3), else the fallback; on CUDA cuDNN may take a call first, but never one with
 * 1 < Lq < 16 (the op's policy).
 *
 * <p>Bounds, per output element {@code |out − ref| ≤ atol + rtol·|ref|}: the rung's bound from
 * {@link AttnSpec#tolerance(String)} — inputs are exact in their dtype, so the error is the output
 * rounding (half an ulp: 2^-9 relative for bf16, 2^-12 for f16, with margin: rtol 5e-3 / 1e-3) plus
 * float32 accumulation near zero (atol 1e-4); float32 outputs 1e-5 / 2e-6; on cuDNN larger, since
 * it rounds the softmax probabilities to the input dtype before P·V. Where MLX ran the same dtype,
 * MLX's own bound is checked as well (stated per case).
 *
 * <p>Sizes come from {@link #sizes()}: MLX's on the GPU; the Java-backend subclass, which runs
 * every GPU thread on the host, returns a smaller cut (shorter key lengths, crossings taken in
 * turn) to stay within a minute.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AttentionMlxContract {
  /** The backend the cases run on. */
  abstract Backend backend();

  /**
   * How large the ports run.
   *
   * @param decodeKeys {@code test_sdpa}'s decode kL list
   * @param decodeHeads q heads of the decode cases (kv heads: the same, and a quarter)
   * @param decodeEveryCrossing every mask × storage order per (kL, heads); else one order in turn
   * @param sweepKeys key lengths of the head-dim sweep
   * @param sweepQueries query lengths of the head-dim sweep
   * @param sweepEveryCrossing every dtype × causal per (D, Lq, Lkv); else one of each in turn
   * @param vectorMaskKeys {@code test_sdpa_vector}'s key lengths
   * @param gqaLong {@code test_sdpa_vector_gqa_long}'s {Hq, Hkv, D, B, L} configurations
   * @param sinkKeys {@code test_sdpa_attention_sinks}' key lengths
   * @param sinkLongQuery its long query length (MLX: 128)
   */
  record Sizes(
      int[] decodeKeys,
      int decodeHeads,
      boolean decodeEveryCrossing,
      int[] sweepKeys,
      int[] sweepQueries,
      boolean sweepEveryCrossing,
      int[] vectorMaskKeys,
      int[][] gqaLong,
      int[] sinkKeys,
      int sinkLongQuery) {}

  /** MLX's sizes (and the widened head-dim sweep at full length). */
  static final Sizes MLX =
      new Sizes(
          new int[] {7, 9, 32, 63, 67, 129, 400, 2000},
          32,
          true,
          new int[] {37, 1500, 8201},
          new int[] {1, 2, 3, 16},
          true,
          new int[] {43, 4096},
          new int[][] {
            {32, 4, 128, 1, 8192}, {32, 4, 128, 1, 8201}, {32, 4, 128, 2, 8192},
            {64, 8, 64, 1, 8192}, {64, 8, 64, 1, 8201}, {64, 8, 64, 2, 8192},
            {48, 4, 128, 1, 8192}, {48, 4, 128, 1, 8201}, {48, 4, 128, 2, 8192},
            {64, 4, 128, 1, 8192}, {64, 4, 128, 1, 8201}, {64, 4, 128, 2, 8192}
          },
          new int[] {128, 4096},
          128);

  /** The sizes this backend runs (override to shrink). */
  Sizes sizes() {
    return MLX;
  }

  private Sirocco rt;
  private final List<Decision> decisions = new ArrayList<>();
  private final Map<String, Integer> rungCounts = new TreeMap<>();
  private AutoCloseable listener;
  private String test;

  @BeforeAll
  void open() {
    rt = Sirocco.open(backend());
  }

  @AfterAll
  void close() {
    if (rt != null) {
      rt.close();
    }
  }

  @BeforeEach
  void listen(TestInfo info) {
    test = info.getTestMethod().map(java.lang.reflect.Method::getName).orElse("?");
    decisions.clear();
    rungCounts.clear();
    listener = AttentionContract.recordDecisions(decisions);
  }

  @AfterEach
  void unlisten() throws Exception {
    listener.close();
    System.out.println("MLX-SDPA " + backend() + " " + test + ": rungs " + rungCounts);
  }

  // ---- running one case ----

  static final List<Integer> VECTOR_DIMS = List.of(64, 96, 128, 256, 512);

  /** The rung the ladder takes without cuDNN: what the vector kernel accepts, else the fallback. */
  static String expectedRung(AttnSpec s) {
    boolean vector =
        s.dtype != DType.F32
            && VECTOR_DIMS.contains(s.headDim)
            && s.dv() == s.headDim
            && s.lq <= 3
            && s.lkv >= 1;
    return vector ? "vector" : "fallback";
  }

  /** What one case produced: the decision and the output as floats. */
  record Result(Decision decision, float[] out) {}

  /**
   * Runs {@code s} through the op; checks shape, dtype, every element against the reference with
   * the chosen rung's bound (and MLX's {@code mlxAtol + mlxRtol·|ref|} when {@code mlxAtol >= 0}),
   * and the rung; prints the decision.
   */
  Result run(AttnSpec s, double mlxAtol, double mlxRtol) {
    AttnSpec.Call c = s.build(rt);
    int before = decisions.size();
    Tensor out =
        rt.scaledDotProductAttention(c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options());
    float[] got = rt.toFloats(out);
    assertEquals(before + 1, decisions.size(), "one decision reported for " + s);
    Decision d = decisions.get(decisions.size() - 1);
    System.out.println("MLX-SDPA " + backend() + " " + s + " -> " + d.explain());
    rungCounts.merge(d.chosen(), 1, Integer::sum);
    assertArrayEquals(s.outShape(), out.shape(), "output shape of " + s);
    assertEquals(s.dtype, out.dtype(), "output dtype of " + s);
    String want = expectedRung(s);
    if (backend() == Backend.CUDA && "cudnn".equals(d.chosen())) {
      if (s.lq > 1 && s.lq < 16) {
        throw new AssertionError("cuDNN took 1 < Lq < 16 against the op's policy: " + s);
      }
    } else {
      assertEquals(want, d.chosen(), s + ": " + d.explain());
    }
    double[] ref = s.reference();
    double[] tol = s.tolerance(d.chosen());
    compare(s + " on " + d.chosen(), got, ref, tol[0], tol[1]);
    if (mlxAtol >= 0) {
      compare(s + " on " + d.chosen() + " (MLX's bound)", got, ref, mlxAtol, mlxRtol);
    }
    for (Tensor t : List.of(out, c.q(), c.k(), c.v())) {
      t.close();
    }
    if (c.mask() instanceof Mask.WithTensor m) {
      m.tensor().close();
    }
    if (c.options().sinks() != null) {
      c.options().sinks().close();
    }
    return new Result(d, got);
  }

  /** Every element a number within {@code atol + rtol·|ref|}; reports the count and the worst. */
  static void compare(String what, float[] got, double[] ref, double atol, double rtol) {
    assertEquals(ref.length, got.length, what + ": element count");
    int bad = 0;
    int worst = -1;
    double worstRatio = 0;
    for (int i = 0; i < ref.length; i++) {
      double err = Math.abs(got[i] - ref[i]);
      double ratio = Float.isFinite(got[i]) ? err / (atol + rtol * Math.abs(ref[i])) : 1e300;
      if (ratio > 1) {
        bad++;
      }
      if (ratio > worstRatio) {
        worstRatio = ratio;
        worst = i;
      }
    }
    if (bad > 0) {
      throw new AssertionError(
          String.format(
              "%s: %d of %d elements out of bounds (atol %.1e, rtol %.1e); worst at %d: got %s,"
                  + " want %.6g",
              what, bad, ref.length, atol, rtol, worst, got[worst], ref[worst]));
    }
  }

  /** Runs every case of a sweep, collecting failures so that one GPU run reports them all. */
  static void sweep(List<Runnable> cases) {
    List<String> failures = new ArrayList<>();
    for (Runnable r : cases) {
      try {
        r.run();
      } catch (AssertionError | RuntimeException e) {
        failures.add(e.toString());
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size()
              + " of "
              + cases.size()
              + " case(s) failed:\n  "
              + String.join("\n  ", failures));
    }
  }

  static AttnSpec spec(String name, DType dtype, int hq, int hkv, int lq, int lkv, int d) {
    AttnSpec s = new AttnSpec(name);
    s.dtype = dtype;
    s.hq = hq;
    s.hkv = hkv;
    s.lq = lq;
    s.lkv = lkv;
    s.headDim = d;
    return s;
  }

  /** A uniform [0, 1) value of (seed, b, h, i, j): masks independent of draw order. */
  static double hash(long seed, int b, int h, int i, int j) {
    return AttentionContract.hash(seed, b, h, i, j);
  }

  // ---- test_sdpa: the decode shapes ----

  /**
   * MLX's {@code test_sdpa} with qL = 1: B = 1, kL ∈ {7, 9, 32, 63, 67, 129, 400, 2000}, D = 128,
   * 32 q heads over 32 or 8 kv heads, masks none / additive / boolean / causal, q, k, v stored
   * {@code [B, H, L, D]} or {@code [B, L, H, D]} (MLX's transposed inputs, viewed through a
   * transpose), float16 (what MLX runs on the GPU), MLX's {@code prepare_inputs}: q, k ~ U(0, 0.5),
   * v ~ U(0, 1/√D), additive mask 0.5·U(0, 1) and boolean mask keep-probability 0.5, both full
   * {@code [B, Hq, qL, kL]}. MLX's bound {@code 3e-4 + 3e-4·|ref|}.
   */
  @Test
  void mlxDecodeShapes() {
    Sizes z = sizes();
    List<Runnable> cases = new ArrayList<>();
    int turn = 0;
    for (int kl : z.decodeKeys()) {
      for (int kvHeads : new int[] {z.decodeHeads(), z.decodeHeads() / 4}) {
        for (Mask.Kind mask : Mask.Kind.values()) {
          boolean[] orders =
              z.decodeEveryCrossing()
                  ? new boolean[] {false, true}
                  : new boolean[] {turn++ % 2 == 1};
          for (boolean transpose : orders) {
            long seed = kl * 31L + kvHeads + mask.ordinal() * 7L + (transpose ? 1 : 0);
            cases.add(
                () -> {
                  AttnSpec s =
                      spec(
                          "test_sdpa decode" + (transpose ? " transposed" : ""),
                          DType.F16,
                          z.decodeHeads(),
                          kvHeads,
                          1,
                          kl,
                          128);
                  s.seed = seed;
                  s.qDist = AttnSpec.Dist.uniform(0, 0.5);
                  s.kDist = AttnSpec.Dist.uniform(0, 0.5);
                  s.vDist = AttnSpec.Dist.uniform(0, 1 / Math.sqrt(128));
                  s.maskKind = mask;
                  if (mask == Mask.Kind.ADDITIVE) {
                    s.maskFn = (b, h, i, j) -> 0.5 * hash(seed, b, h, i, j);
                  } else if (mask == Mask.Kind.BOOL) {
                    s.maskFn = (b, h, i, j) -> hash(seed, b, h, i, j) < 0.5 ? 1 : 0;
                  }
                  s.qSeqMajor = transpose;
                  s.kvSeqMajor = transpose;
                  run(s, 3e-4, 3e-4);
                });
          }
        }
      }
    }
    sweep(cases);
  }

  // ---- fused sdpa at head dims 256 and 512, widened ----

  /**
   * MLX's "fused sdpa at head dims 256 and 512" case (q {@code [1, 8, Lq, D]}, k/v the first Lkv
   * rows of {@code [1, 2, Lkv + 16, D]}: GQA 4, the 16 rows behind the view NaN; scale 1/√D; N(0,
   * 1) inputs; causal on and off), widened from D ∈ {256, 512}, Lq ∈ {1, 3}, Lkv ∈ {37, 1500}, bf16
   * to every supported head dim (64, 96, 128, 256, 512), Lq 1, 2, 3 and 16, Lkv up to 8201 (a long
   * context that is not a multiple of any block), bf16 and f16. MLX's bound (bf16): atol = rtol =
   * 2e-2.
   */
  @Test
  void headDimsLongContexts() {
    Sizes z = sizes();
    List<Runnable> cases = new ArrayList<>();
    int turn = 0;
    for (int d : VECTOR_DIMS) {
      for (int lq : z.sweepQueries()) {
        for (int lkv : z.sweepKeys()) {
          List<Object[]> crossings = new ArrayList<>();
          for (DType t : new DType[] {DType.BF16, DType.F16}) {
            for (boolean causal : new boolean[] {false, true}) {
              crossings.add(new Object[] {t, causal});
            }
          }
          if (!z.sweepEveryCrossing()) {
            Object[] one = crossings.get(turn++ % crossings.size());
            crossings = new ArrayList<>();
            crossings.add(one);
          }
          for (Object[] x : crossings) {
            DType t = (DType) x[0];
            boolean causal = (boolean) x[1];
            cases.add(
                () -> {
                  AttnSpec s = spec("head dims", t, 8, 2, lq, lkv, d);
                  s.seed = d * 7919L + lq * 131L + lkv + (causal ? 1 : 0) + t.ordinal();
                  s.cacheLen = lkv + 16;
                  s.maskKind = causal ? Mask.Kind.CAUSAL : Mask.Kind.NONE;
                  run(s, t == DType.BF16 ? 2e-2 : -1, 2e-2);
                });
          }
        }
      }
    }
    sweep(cases);
  }

  // ---- test_sdpa_vector: vector masks ----

  /** One mask of MLX's {@code test_sdpa_vector} list. */
  record VectorMask(String name, Consumer<AttnSpec> apply) {}

  /**
   * MLX's masks for q {@code [1, Nq, 1, D]}: none; boolean scalar True; boolean {@code [L]} with
   * the last 10 keys False; {@code (Nq, 1, L) > 0.2} boolean, additive U(0, 1) and additive {@code
   * log(U > 0.2)} (0 or −inf), each stored as {@code (Nq, 1, L)} and as MLX's {@code (L, 1, Nq).T}
   * (axes reversed: strides ascending); causal.
   */
  static List<VectorMask> vectorMasks(int l) {
    List<VectorMask> all = new ArrayList<>();
    all.add(new VectorMask("none", s -> {}));
    all.add(
        new VectorMask(
            "bool scalar True",
            s -> {
              s.maskKind = Mask.Kind.BOOL;
              s.maskShape = new long[0];
              s.maskFn = (b, h, i, j) -> 1;
            }));
    all.add(
        new VectorMask(
            "bool [L], last 10 False",
            s -> {
              s.maskKind = Mask.Kind.BOOL;
              s.maskShape = new long[] {l};
              s.maskFn = (b, h, i, j) -> j < l - 10 ? 1 : 0;
            }));
    for (boolean reversed : new boolean[] {false, true}) {
      String shape = reversed ? "(L,1,Nq).T" : "(Nq,1,L)";
      Consumer<AttnSpec> perHead =
          s -> {
            s.maskShape = new long[] {s.hq, 1, l};
            s.maskReversed = reversed;
          };
      all.add(
          new VectorMask(
              "bool " + shape + " > 0.2",
              s -> {
                perHead.accept(s);
                s.maskKind = Mask.Kind.BOOL;
                s.maskFn = (b, h, i, j) -> hash(7, b, h, i, j) > 0.2 ? 1 : 0;
              }));
      all.add(
          new VectorMask(
              "additive " + shape + " U(0,1)",
              s -> {
                perHead.accept(s);
                s.maskKind = Mask.Kind.ADDITIVE;
                s.maskFn = (b, h, i, j) -> hash(8, b, h, i, j);
              }));
      all.add(
          new VectorMask(
              "additive log(" + shape + " > 0.2)",
              s -> {
                perHead.accept(s);
                s.maskKind = Mask.Kind.ADDITIVE;
                s.maskFn = (b, h, i, j) -> hash(9, b, h, i, j) > 0.2 ? 0 : Double.NEGATIVE_INFINITY;
              }));
    }
    all.add(new VectorMask("causal", s -> s.maskKind = Mask.Kind.CAUSAL));
    return all;
  }

  /**
   * MLX's {@code test_sdpa_vector}: D = 64, L ∈ {43, 4096}, 4 q heads over 1 kv head, scale 1, q,
   * k, v ~ 0.5·N(0, 1), every mask of {@link #vectorMasks}. MLX runs float32 with atol = rtol =
   * 1e-4; here float32 (the fallback) with MLX's bound, and bf16 and f16 (the vector kernel or
   * cuDNN) with the dtype's.
   */
  @Test
  void mlxVectorMasks() {
    List<Runnable> cases = new ArrayList<>();
    for (int l : sizes().vectorMaskKeys()) {
      for (DType t : new DType[] {DType.F32, DType.BF16, DType.F16}) {
        for (VectorMask m : vectorMasks(l)) {
          cases.add(
              () -> {
                AttnSpec s = spec("test_sdpa_vector " + m.name(), t, 4, 1, 1, l, 64);
                s.seed = l * 3L + t.ordinal();
                s.scale = 1f;
                s.qDist = AttnSpec.Dist.normal(0.5);
                s.kDist = AttnSpec.Dist.normal(0.5);
                s.vDist = AttnSpec.Dist.normal(0.5);
                m.apply().accept(s);
                run(s, t == DType.F32 ? 1e-4 : -1, 1e-4);
              });
        }
      }
    }
    sweep(cases);
  }

  // ---- test_sdpa_vector_gqa_long ----

  /**
   * MLX's {@code test_sdpa_vector_gqa_long}: (Hq, Hkv, D) ∈ {(32, 4, 128), (64, 8, 64), (48, 4,
   * 128), (64, 4, 128)}, (B, L) ∈ {(1, 8192), (1, 8201), (2, 8192)}, k/v the first L rows of an L +
   * 32 cache (NaN behind the view), scale 1, 0.5·N(0, 1) inputs, Lq = 1. MLX runs float32 with
   * 1e-4: here float32 (the fallback) with MLX's bound, and f16 with the dtype's.
   */
  @Test
  void mlxGqaLong() {
    List<Runnable> cases = new ArrayList<>();
    for (int[] g : sizes().gqaLong()) {
      for (DType t : new DType[] {DType.F16, DType.F32}) {
        cases.add(
            () -> {
              AttnSpec s = spec("test_sdpa_vector_gqa_long", t, g[0], g[1], 1, g[4], g[2]);
              s.batch = g[3];
              s.seed = g[0] * 131L + g[1] + g[2] + g[3] + g[4];
              s.scale = 1f;
              s.cacheLen = g[4] + 32;
              s.qDist = AttnSpec.Dist.normal(0.5);
              s.kDist = AttnSpec.Dist.normal(0.5);
              s.vDist = AttnSpec.Dist.normal(0.5);
              run(s, t == DType.F32 ? 1e-4 : -1, 1e-4);
            });
      }
    }
    sweep(cases);
  }

  // ---- test_sdpa_attention_sinks ----

  /**
   * MLX's {@code test_sdpa_attention_sinks}: B = 2, 8 q heads over 2 or 8 kv heads, D = 64, T_q ∈
   * {1, 128}, T_kv ∈ {128, 4096}, sinks 10·N(0, 1) (one logit per q head), N(0, 1) inputs; float16
   * with MLX's atol 1e-2, float32 with MLX's 1e-5 (relative 0: MLX's {@code allclose} with its own
   * rtol would be looser).
   */
  @Test
  void mlxSinks() {
    Sizes z = sizes();
    List<Runnable> cases = new ArrayList<>();
    for (int tkv : z.sinkKeys()) {
      for (int tq : new int[] {1, z.sinkLongQuery()}) {
        for (int nkv : new int[] {2, 8}) {
          for (DType t : new DType[] {DType.F16, DType.F32}) {
            cases.add(
                () -> {
                  AttnSpec s = spec("test_sdpa_attention_sinks", t, 8, nkv, tq, tkv, 64);
                  s.batch = 2;
                  s.seed = tkv * 17L + tq + nkv + t.ordinal();
                  s.sinks = true;
                  s.sinkStd = 10;
                  run(s, t == DType.F32 ? 1e-5 : 1e-2, 0);
                });
          }
        }
      }
    }
    sweep(cases);
  }

  // ---- robustness ----

  /**
   * MLX's {@code test_sdpa_fully_masked}: D = 128, 4 heads, Lkv = 8, Lq ∈ {1, 8, 32}, the scalar
   * boolean mask False: every output exactly 0, never NaN; also with sinks (all weight on the sink:
   * 0 too), with an additive all −inf mask, and causal rows that see no key (Lq = 3 over Lkv = 2:
   * MLX's bottom-right alignment hides every key from query 0), in bf16, f16 and f32.
   */
  @Test
  void mlxFullyMasked() {
    List<Runnable> cases = new ArrayList<>();
    for (DType t : new DType[] {DType.BF16, DType.F16, DType.F32}) {
      for (int lq : new int[] {1, 8, 32}) {
        for (String variant : new String[] {"bool False", "bool False + sinks", "additive -inf"}) {
          cases.add(
              () -> {
                AttnSpec s = spec("test_sdpa_fully_masked " + variant, t, 4, 4, lq, 8, 128);
                s.seed = lq + t.ordinal() * 10L;
                s.sinks = variant.contains("sinks");
                s.maskShape = new long[0];
                if (variant.startsWith("bool")) {
                  s.maskKind = Mask.Kind.BOOL;
                  s.maskFn = (b, h, i, j) -> 0;
                } else {
                  s.maskKind = Mask.Kind.ADDITIVE;
                  s.maskFn = (b, h, i, j) -> Double.NEGATIVE_INFINITY;
                }
                assertAllZero(s);
              });
        }
      }
      cases.add(
          () -> {
            AttnSpec s = spec("causal, query 0 sees no key", t, 4, 2, 3, 2, 128);
            s.maskKind = Mask.Kind.CAUSAL;
            float[] out = run(s, -1, 0).out();
            for (int h = 0; h < 4; h++) {
              for (int e = 0; e < 128; e++) {
                assertEquals(
                    0f, out[h * 3 * 128 + e], s + ": query 0 of head " + h + " sees no key");
              }
            }
          });
    }
    sweep(cases);
  }

  /** Runs a case whose every row is fully masked: each output element must be exactly ±0. */
  private void assertAllZero(AttnSpec s) {
    // The reference is 0 everywhere (no key and no sink weight reaches v): a check of the spec.
    assertEquals(0.0, Arrays.stream(s.reference()).map(Math::abs).max().orElse(0), "reference");
    Result r = run(s, -1, 0);
    for (int i = 0; i < r.out().length; i++) {
      if (r.out()[i] != 0f) {
        throw new AssertionError(
            s
                + " on "
                + r.decision().chosen()
                + ": element "
                + i
                + " is "
                + r.out()[i]
                + ", not 0");
      }
    }
  }

  /**
   * MLX's {@code test_sdpa_inf_score}: q = k = 1 with key 0 at −inf (score −inf: weight 0, never
   * NaN), v ~ N(0, 1), D ∈ {4, 128}, Lq ∈ {1, 8}, 4 heads, Lkv = 8, scale 1. MLX's 1e-4 on float32;
   * f16 and bf16 with their own bound.
   */
  @Test
  void mlxInfScore() {
    List<Runnable> cases = new ArrayList<>();
    for (int d : new int[] {4, 128}) {
      for (int lq : new int[] {1, 8}) {
        for (DType t : new DType[] {DType.F32, DType.F16, DType.BF16}) {
          cases.add(
              () -> {
                AttnSpec s = spec("test_sdpa_inf_score", t, 4, 4, lq, 8, d);
                s.seed = d + lq + t.ordinal();
                s.scale = 1f;
                s.edit =
                    x -> {
                      Arrays.fill(x.q, 1f);
                      Arrays.fill(x.k, 1f);
                      for (int h = 0; h < x.hkv; h++) {
                        Arrays.fill(x.k, h * x.lkv * d, h * x.lkv * d + d, Float.NEGATIVE_INFINITY);
                      }
                    };
                run(s, t == DType.F32 ? 1e-4 : -1, 1e-4);
              });
        }
      }
    }
    sweep(cases);
  }
}
