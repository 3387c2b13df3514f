package sirocco.dispatch.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.dispatch.Internal;
import sirocco.dispatch.Ladder;
import sirocco.dispatch.attention.SdpaLaunches.Launcher;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaSplitK;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.DeviceInfo;

/**
 * The attention op behind {@link Sirocco#scaledDotProductAttention}: validation, the dispatch
 * ladder, and the launches of the chosen kernels on the instance's stream. This class holds the
 * ladder, its rungs' predicates and the entry point; the validation is in {@code SdpaValidation}
 * and the launches in {@code SdpaLaunches}.
 *
 * <h2>Ladder</h2>
 *
 * <ol>
 *   <li>{@value #CUDNN}: {@link CudnnSdpa} (cuDNN's fused flash attention through FFM) after the
 *       op's policy {@link #cudnnPolicyRejects} (never for {@code 1 < Lq < 16}, whose graphs would
 *       be rebuilt at every decode step), no sinks, and not for a single query row over at most
 *       {@link #DEFAULT_VECTOR_DECODE_MAX_KEYS} keys that the vector rung accepts (measured faster
 *       there, {@link #vectorPreferred}); when cuDNN cannot build or plan a graph at run time the
 *       reason is recorded and the next rung runs.
 *   <li>{@value #VECTOR}: {@link SdpaVector} (one pass, or split-K pass 1 plus {@link
 *       SdpaSplitK#combine}); {@link SdpaVector#supports} decides (bf16/f16, D = Dv ∈ {64, 96, 128,
 *       256, 512}, Lq ≤ 3, Lkv ≥ 1, k/v rows contiguous and 8-element aligned), plus the CUDA grid
 *       limit on {@code B·Hkv}.
 *   <li>{@value #FALLBACK}: {@link SdpaUnfused} (scores, softmax, P·v over a float32 score buffer);
 *       takes every validated call.
 * </ol>
 *
 * {@code forceFused} restricts the choice to the fused rungs ({@value #CUDNN}, {@value #VECTOR})
 * and throws {@link UnsupportedOperationException} with every rung's reason when neither accepts.
 * Each decision goes to {@link Explain#report}.
 *
 * <h2>Inputs as the kernels see them</h2>
 *
 * q, k and v are passed as their buffers with element offset and strides: a slice of a longer KV
 * cache, a transposed ({@code [B, L, H, D]}-stored) view or an offset view runs without a copy. The
 * only copy is of q when the vector kernel runs and q's last axis is not contiguous (a strided
 * gather with {@link StridedCopy}, {@code B·Hq·Lq·D} elements). Masks broadcast by stride 0 (MLX
 * rules: shapes align at the trailing axis, each axis equal to {@code [B, Hq, Lq, Lkv]}'s or 1);
 * boolean masks are read as bytes in place; float32 additive masks in place; bf16/f16 additive
 * masks are widened to a float32 copy of their own (unbroadcast) shape with {@link
 * SdpaUnfused#widen} (after a dense gather when they are strided). Sinks become a dense float32
 * {@code [Hq]} array the same way. Temporaries are device buffers released in stream order after
 * the launches that read them.
 */
public final class SdpaOp {
  private SdpaOp() {}

  /** The op's name in decisions. */
  public static final String OP = "scaledDotProductAttention";

  public static final String CUDNN = "cudnn";
  public static final String VECTOR = "vector";
  public static final String FALLBACK = "fallback";

  /** System property naming the only rung the ladder may choose (for benchmarks and diagnosis). */
  public static final String RUNG_PROPERTY = "sirocco.attention.rung";

  /**
   * System property (an int, read at every call): the longest K/V length at which a single-query
   * call ({@code Lq = 1}) the vector kernel accepts skips cuDNN; default {@link
   * #DEFAULT_VECTOR_DECODE_MAX_KEYS}, 0 sends every such call to cuDNN first.
   */
  public static final String VECTOR_DECODE_MAX_KEYS_PROPERTY =
      "sirocco.attention.vectorDecodeMaxKeys";

  /**
   * Where the vector kernel stops beating cuDNN's decode graph (bench/RESULTS.md run 28: B=1, Hq
   * 32, Hkv 8, bf16, Lq 1, both timed by CUDA-graph replay on the H200). D=128: vector faster from
   * 256 to 6144 keys (4.76 vs 6.26 µs at 256, 12.74 vs 13.04 at 6144), cuDNN faster at 8192 (14.70
   * vs 15.80, run 26). D=64: vector faster at 512 and 2048–6144, cuDNN at 256 and 1024 by 0.29 and
   * 0.15 µs and at 8192 by 0.91. One bound for both: the gains below it outweigh those two small
   * losses.
   */
  public static final int DEFAULT_VECTOR_DECODE_MAX_KEYS = 6144;

  /**
   * The same bound where the vector rung runs the tensor-core kernel ({@link SdpaVectorMma}, with
   * its occupancy hint) at D = 64 (bench/RESULTS.md run 40, graph replay, µs tensor-core vs cuDNN:
   * 9.61 vs 9.92 at 8192 keys, 11.53 vs 11.74 at 12288; cuDNN faster at 16384, 13.68 vs 14.04, and
   * beyond).
   */
  public static final int TENSOR_CORE_DECODE_MAX_KEYS_D64 = 12288;

  /**
   * The bound for the tensor-core kernel at D = 128 (run 40: 13.59 vs 14.93 µs at 8192 keys, 17.95
   * vs 18.90 at 12288, 21.96 vs 22.71 at 16384, 29.65 vs 29.95 at 24576; run 38/39: cuDNN faster at
   * 32768, 36.84 vs 38.38).
   */
  public static final int TENSOR_CORE_DECODE_MAX_KEYS_D128 = 24576;

  /** The fused rungs {@code forceFused} allows. */
  public static final Set<String> FUSED = Set.of(CUDNN, VECTOR);

  private static final Ladder<Call> LADDER =
      new Ladder<>(
          OP,
          List.of(
              new Ladder.Rung<>(CUDNN, SdpaOp::cudnnRejects),
              new Ladder.Rung<>(VECTOR, SdpaOp::vectorRejects),
              new Ladder.Rung<>(FALLBACK, SdpaOp::fallbackRejects)));

  /**
   * The ladder for {@value #RUNG_PROPERTY}: the same rungs without the speed preference of {@link
   * #vectorPreferred}, so that a benchmark can time cuDNN where the op would not choose it.
   */
  private static final Ladder<Call> ONE_RUNG_LADDER =
      new Ladder<>(
          OP,
          List.of(
              new Ladder.Rung<>(CUDNN, SdpaOp::cudnnCapabilityRejects),
              new Ladder.Rung<>(VECTOR, SdpaOp::vectorRejects),
              new Ladder.Rung<>(FALLBACK, SdpaOp::fallbackRejects)));

  /** The rung names in order of preference. */
  public static List<String> rungs() {
    return LADDER.names();
  }

  // ---- validated arguments ----

  /**
   * A validated call: the tensors, the logical sizes, the kernels' dtype and mask codes, and the
   * element offsets/strides of q, k, v (size-1 axes have stride 0) and of the mask broadcast to
   * {@code [B, Hq, Lq, Lkv]}.
   */
  record Call(
      Tensor q,
      Tensor k,
      Tensor v,
      Tensor mask,
      Tensor sinks,
      float scale,
      DType dtype,
      int kernelDtype,
      int maskKind,
      int batch,
      int qHeads,
      int kvHeads,
      int qLen,
      int kvLen,
      int headDim,
      int valueDim,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms) {

    /** No output element: nothing to launch. */
    boolean empty() {
      return batch == 0 || qHeads == 0 || qLen == 0 || valueDim == 0;
    }

    SdpaShape shape() {
      return new SdpaShape(batch, qHeads, kvHeads, qLen, kvLen, headDim, valueDim);
    }

    long[] outShape() {
      return new long[] {batch, qHeads, qLen, valueDim};
    }
  }

  // ---- the rungs' predicates ----

  /**
   * The cuDNN rung: {@link #cudnnCapabilityRejects}, then short single-query calls the vector
   * kernel takes ({@link #vectorPreferred}).
   */
  static String cudnnRejects(Call c) {
    String cannot = cudnnCapabilityRejects(c);
    return cannot != null ? cannot : vectorPreferred(c);
  }

  /**
   * Why the vector kernel, not cuDNN, should run {@code c}: a single query row over at most {@link
   * #vectorDecodeMaxKeys()} keys that the vector rung accepts; null otherwise.
   */
  static String vectorPreferred(Call c) {
    int max = vectorDecodeMaxKeys(defaultVectorDecodeMaxKeys(c));
    if (c.qLen() != 1 || c.kvLen() > max || vectorRejects(c) != null) {
      return null;
    }
    return "the vector kernel is faster for Lq = 1 over at most "
        + max
        + " keys (Lkv = "
        + c.kvLen()
        + "; -D"
        + VECTOR_DECODE_MAX_KEYS_PROPERTY
        + ")";
  }

  /**
   * The measured bound for {@code c} without the property: {@link #TENSOR_CORE_DECODE_MAX_KEYS_D64}
   * or {@link #TENSOR_CORE_DECODE_MAX_KEYS_D128} where the vector rung would run the tensor-core
   * kernel, else {@link #DEFAULT_VECTOR_DECODE_MAX_KEYS}.
   */
  static int defaultVectorDecodeMaxKeys(Call c) {
    // Bounds measured against cuDNN for head dims 64 and 128 only; the tensor-core policy does not
    // look at the SM count there.
    if (c.headDim() <= 128 && SdpaLaunches.runsTensorCores(c.shape(), c.maskKind(), 1)) {
      return c.headDim() <= 64 ? TENSOR_CORE_DECODE_MAX_KEYS_D64 : TENSOR_CORE_DECODE_MAX_KEYS_D128;
    }
    return DEFAULT_VECTOR_DECODE_MAX_KEYS;
  }

  /**
   * {@value #VECTOR_DECODE_MAX_KEYS_PROPERTY} (negative: 0), else {@code unset}.
   *
   * @throws IllegalArgumentException naming the property when it is not an integer
   */
  static int vectorDecodeMaxKeys(int unset) {
    String v = System.getProperty(VECTOR_DECODE_MAX_KEYS_PROPERTY);
    if (v == null || v.isBlank()) {
      return unset;
    }
    try {
      return Math.max(0, Integer.parseInt(v.trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "-D"
              + VECTOR_DECODE_MAX_KEYS_PROPERTY
              + " must be an integer number of keys (0: cuDNN first for every Lq = 1 call), got '"
              + v
              + "'");
    }
  }

  /**
   * Whether cuDNN may and can run {@code c}: the op's policy (never 1 < Lq < 16), no sinks (cuDNN's
   * graph has no sink logit), then the cuDNN path's own rules (library present and enabled, cc ≥ 8,
   * f16/bf16, head dims, masks, strides).
   */
  static String cudnnCapabilityRejects(Call c) {
    String policy = cudnnPolicyRejects(c.qLen());
    if (policy != null) {
      return policy;
    }
    if (c.sinks() != null) {
      return "attention sinks are not part of cuDNN's SDPA graph";
    }
    DeviceInfo device = Internal.bridge().device(c.q().owner()).info();
    return CudnnSdpa.supports(CudnnSdpa.Problem.of(c.q(), c.k(), c.v(), mask(c), null), device);
  }

  /** The public mask the call was made with, rebuilt from its validated form. */
  static Mask mask(Call c) {
    return switch (c.maskKind()) {
      case Sdpa.MASK_CAUSAL -> Mask.causal();
      case Sdpa.MASK_ADDITIVE -> Mask.additive(c.mask());
      case Sdpa.MASK_BOOL -> Mask.bool(c.mask());
      default -> Mask.none();
    };
  }

  /**
   * The op's policy for any cuDNN path, kept apart so that it survives the predicate's replacement:
   * never {@code 1 < Lq < 16}, where a graph per query length would be rebuilt every decode step.
   */
  static String cudnnPolicyRejects(int qLen) {
    if (qLen > 1 && qLen < 16) {
      return "cuDNN is not used for 1 < Lq < 16 (Lq = "
          + qLen
          + "): its graphs would be rebuilt at every decode step";
    }
    return null;
  }

  static String vectorRejects(Call c) {
    String why = SdpaVectorPlans.supports(c.shape(), c.kernelDtype(), c.ks(), c.vs(), c.maskKind());
    if (why != null) {
      return why;
    }
    if ((long) c.batch() * c.kvHeads() > 65535) {
      return "vector SDPA's grid has one z block per (batch, kv head): B·Hkv = "
          + (long) c.batch() * c.kvHeads()
          + " exceeds 65535";
    }
    return null;
  }

  /**
   * The fallback takes every validated call: its score buffer is chunked to {@link #scoreBudget()}
   * floats, so only a single query row over more keys than a buffer can index could be refused.
   */
  static String fallbackRejects(Call c) {
    FallbackChunks plan = chunks(c);
    if (plan.maxScores() > Integer.MAX_VALUE - SdpaUnfused.THREADS) {
      return "the unfused fallback needs "
          + plan.maxScores()
          + " float32 scores for one query row, more than one buffer can index";
    }
    return null;
  }

  // ---- entry ----

  /**
   * Validates, chooses, reports and launches; returns the output {@code [B, Hq, Lq, Dv]} in q's
   * dtype (the work is queued on {@code rt}'s stream). The tensors are {@code rt}'s and open (the
   * caller checks); {@code mask} null means none.
   *
   * @throws IllegalArgumentException naming the argument, before anything is allocated or launched
   * @throws UnsupportedOperationException with {@code forceFused} when no fused kernel can run the
   *     call, listing every rung's reason
   */
  public static Tensor run(
      Sirocco rt,
      Tensor q,
      Tensor k,
      Tensor v,
      float scale,
      Mask mask,
      Tensor sinks,
      boolean forceFused) {
    Call c = SdpaValidation.validate(q, k, v, scale, mask, sinks);
    Internal.Bridge bridge = Internal.bridge();
    if (c.empty()) {
      return bridge.empty(rt, c.dtype(), c.outShape());
    }
    // -Dsirocco.attention.rung=NAME restricts the ladder to one rung (benchmarks, diagnosis),
    // without the op's speed preferences; it throws with the reasons when that rung cannot run the
    // call.
    String only = System.getProperty(RUNG_PROPERTY);
    Decision d =
        only != null && !only.isBlank()
            ? ONE_RUNG_LADDER.chooseAmong(c, Set.of(only.trim()))
            : forceFused ? LADDER.chooseAmong(c, FUSED) : LADDER.choose(c);
    if (!d.chosen().equals(CUDNN)) {
      Explain.report(d); // a cuDNN decision is reported once the graph has run (or was refused)
    }
    try (Launcher l = new Launcher(rt, bridge)) {
      if (d.chosen().equals(CUDNN)) {
        Tensor out = l.output(c.dtype(), c.outShape());
        CudnnSdpa.Attempt a = CudnnSdpa.run(c.q(), c.k(), c.v(), c.scale(), mask(c), out);
        if (a.ran()) {
          Explain.report(d);
          return l.done(out);
        }
        // The graph could not be built or planned for this shape: record why and take the next
        // rung.
        out.close();
        l.pendingOut = null;
        List<Decision.Rejection> rejected = new ArrayList<>(d.rejected());
        rejected.add(new Decision.Rejection(CUDNN, a.reason()));
        Decision next =
            LADDER.chooseAmong(c, forceFused ? Set.of(VECTOR) : Set.of(VECTOR, FALLBACK));
        d = new Decision(OP, next.chosen(), rejected);
        Explain.report(d);
      }
      return switch (d.chosen()) {
        case VECTOR -> SdpaLaunches.runVector(l, c);
        case FALLBACK -> SdpaLaunches.runFallback(l, c);
        default -> throw new IllegalStateException("no launcher for rung " + d.chosen());
      };
    }
  }

  // ---- the fallback's score budget ----

  /** Default of {@link #scoreBudget()}: 2^26 floats (256 MiB) of scores per fallback chunk. */
  public static final long DEFAULT_SCORE_BUDGET = 1L << 26;

  /** The property that overrides {@link #DEFAULT_SCORE_BUDGET}. */
  public static final String SCORE_BUDGET_PROPERTY = "sirocco.attention.maxScoreFloats";

  /**
   * Float32 scores the fallback materialises at once: {@code -Dsirocco.attention.maxScoreFloats=N}
   * (read per call), else {@link #DEFAULT_SCORE_BUDGET}; never more than one buffer can index.
   */
  static long scoreBudget() {
    long b = Long.getLong(SCORE_BUDGET_PROPERTY, DEFAULT_SCORE_BUDGET);
    return Math.max(1, Math.min(b, Integer.MAX_VALUE - SdpaUnfused.THREADS));
  }

  static FallbackChunks chunks(Call c) {
    return FallbackChunks.of(
        c.batch(),
        c.qHeads(),
        c.kvHeads(),
        c.qLen(),
        c.kvLen(),
        c.valueDim(),
        c.maskKind() == Sdpa.MASK_CAUSAL,
        scoreBudget());
  }
}
