package sirocco.dispatch.attention;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.KernelContext;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.dispatch.Internal;
import sirocco.dispatch.Ladder;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaSplitK;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.DeviceInfo;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * The attention op behind {@link Sirocco#scaledDotProductAttention}: validation, the dispatch
 * ladder, and the launches of the chosen kernels on the instance's stream.
 *
 * <h2>Ladder</h2>
 *
 * <ol>
 *   <li>{@value #CUDNN}: {@link CudnnSdpa} (cuDNN's fused flash attention through FFM) after the
 *       op's policy {@link #cudnnPolicyRejects} (never for {@code 1 < Lq < 16}, whose graphs would
 *       be rebuilt at every decode step) and no sinks; when cuDNN cannot build or plan a graph at
 *       run time the reason is recorded and the next rung runs.
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

  /** The fused rungs {@code forceFused} allows. */
  public static final Set<String> FUSED = Set.of(CUDNN, VECTOR);

  private static final Ladder<Call> LADDER =
      new Ladder<>(
          OP,
          List.of(
              new Ladder.Rung<>(CUDNN, SdpaOp::cudnnRejects),
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
   * The cuDNN rung: the op's policy (never 1 < Lq < 16), no sinks (cuDNN's graph has no sink
   * logit), then the cuDNN path's own rules (library present and enabled, cc ≥ 8, f16/bf16, head
   * dims, masks, strides).
   */
  static String cudnnRejects(Call c) {
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
    String why = SdpaVector.supports(c.shape(), c.kernelDtype(), c.ks(), c.vs(), c.maskKind());
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
    Call c = validate(q, k, v, scale, mask, sinks);
    Internal.Bridge bridge = Internal.bridge();
    if (c.empty()) {
      return bridge.empty(rt, c.dtype(), c.outShape());
    }
    // -Dsirocco.attention.rung=NAME restricts the ladder to one rung (benchmarks, diagnosis); it
    // throws
    // with the reasons when that rung cannot run the call.
    String only = System.getProperty(RUNG_PROPERTY);
    Decision d =
        only != null && !only.isBlank()
            ? LADDER.chooseAmong(c, Set.of(only.trim()))
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
        case VECTOR -> runVector(l, c);
        case FALLBACK -> runFallback(l, c);
        default -> throw new IllegalStateException("no launcher for rung " + d.chosen());
      };
    }
  }

  // ---- validation ----

  static Call validate(Tensor q, Tensor k, Tensor v, float scale, Mask mask, Tensor sinks) {
    rank4(q, "q", "[B, Hq, Lq, D]");
    rank4(k, "k", "[B, Hkv, Lkv, D]");
    rank4(v, "v", "[B, Hkv, Lkv, Dv]");
    DType dt = q.dtype();
    if (!dt.isFloating()) {
      throw new IllegalArgumentException("q must be F32, F16 or BF16, got " + dt);
    }
    if (k.dtype() != dt) {
      throw new IllegalArgumentException("k must have q's dtype " + dt + ", got " + k.dtype());
    }
    if (v.dtype() != dt) {
      throw new IllegalArgumentException("v must have q's dtype " + dt + ", got " + v.dtype());
    }
    long[] qs = q.shape();
    long[] ks = k.shape();
    long[] vs = v.shape();
    if (ks[0] != qs[0]) {
      throw new IllegalArgumentException(
          "k's batch size must equal q's: q " + str(qs) + ", k " + str(ks));
    }
    if (vs[0] != qs[0]) {
      throw new IllegalArgumentException(
          "v's batch size must equal q's: q " + str(qs) + ", v " + str(vs));
    }
    if (ks[3] != qs[3]) {
      throw new IllegalArgumentException(
          "k's head dim must equal q's: q "
              + str(qs)
              + " has D = "
              + qs[3]
              + ", k "
              + str(ks)
              + " has "
              + ks[3]);
    }
    if (vs[1] != ks[1] || vs[2] != ks[2]) {
      throw new IllegalArgumentException(
          "v must have k's heads and length [B, Hkv, Lkv, Dv] = [_, "
              + ks[1]
              + ", "
              + ks[2]
              + ", _], got "
              + str(vs));
    }
    if (ks[1] == 0 ? qs[1] != 0 : qs[1] % ks[1] != 0) {
      throw new IllegalArgumentException(
          "q's head count Hq = "
              + qs[1]
              + " must be a multiple of k and v's head count Hkv = "
              + ks[1]
              + " (grouped-query attention: q head h reads kv head h / (Hq / Hkv))");
    }
    if (qs[3] == 0) {
      throw new IllegalArgumentException("q's head dim D must be >= 1, got shape " + str(qs));
    }
    if (!Float.isFinite(scale)) {
      throw new IllegalArgumentException("scale must be finite, got " + scale);
    }
    long[] target = {qs[0], qs[1], qs[2], ks[2]};

    Mask.Kind kind = mask == null ? Mask.Kind.NONE : mask.kind();
    Tensor mt = kind == Mask.Kind.ADDITIVE || kind == Mask.Kind.BOOL ? mask.tensor() : null;
    int maskKind =
        switch (kind) {
          case NONE -> Sdpa.MASK_NONE;
          case CAUSAL -> Sdpa.MASK_CAUSAL;
          case ADDITIVE -> Sdpa.MASK_ADDITIVE;
          case BOOL -> Sdpa.MASK_BOOL;
        };
    long[] maskStrides = null;
    if (mt == null && maskKind >= Sdpa.MASK_ADDITIVE) {
      throw new IllegalArgumentException("mask tensor must not be null for a " + kind + " mask");
    }
    if (mt != null) {
      if (kind == Mask.Kind.ADDITIVE && !mt.dtype().isFloating()) {
        throw new IllegalArgumentException(
            "mask must be F32, F16 or BF16 for an additive mask, got " + mt.dtype());
      }
      if (kind == Mask.Kind.BOOL && mt.dtype() != DType.U8) {
        throw new IllegalArgumentException(
            "mask must be U8 (nonzero = keep) for a boolean mask, got " + mt.dtype());
      }
      maskStrides = broadcastStrides(mt.shape(), mt.strides(), target);
      checkIndexRange(mt, "mask");
    }

    if (sinks != null) {
      if (sinks.rank() != 1 || sinks.shape(0) != qs[1]) {
        throw new IllegalArgumentException(
            "sinks must have shape [Hq] = [" + qs[1] + "], got " + str(sinks.shape()));
      }
      if (!sinks.dtype().isFloating()) {
        throw new IllegalArgumentException("sinks must be F32, F16 or BF16, got " + sinks.dtype());
      }
      checkIndexRange(sinks, "sinks");
    }

    checkIndexRange(q, "q");
    checkIndexRange(k, "k");
    checkIndexRange(v, "v");
    long outElements = qs[0] * qs[1] * qs[2] * vs[3];
    if (outElements > Integer.MAX_VALUE - SdpaUnfused.THREADS) {
      throw new IllegalArgumentException(
          "q "
              + str(qs)
              + " and v "
              + str(vs)
              + " give an output of "
              + outElements
              + " elements; at most 2^31 - 257 are supported");
    }

    int kernelDtype =
        switch (dt) {
          case BF16 -> Sdpa.BF16;
          case F16 -> Sdpa.F16;
          default -> Sdpa.F32;
        };
    SdpaStrides ms =
        maskStrides == null
            ? null
            : new SdpaStrides(
                (int) mt.offset(),
                (int) maskStrides[0],
                (int) maskStrides[1],
                (int) maskStrides[2],
                (int) maskStrides[3]);
    return new Call(
        q,
        k,
        v,
        mt,
        sinks,
        scale,
        dt,
        kernelDtype,
        maskKind,
        (int) qs[0],
        (int) qs[1],
        (int) ks[1],
        (int) qs[2],
        (int) ks[2],
        (int) qs[3],
        (int) vs[3],
        strides(q),
        strides(k),
        strides(v),
        ms);
  }

  private static void rank4(Tensor t, String name, String form) {
    if (t.rank() != 4) {
      throw new IllegalArgumentException(
          name + " must have rank 4 " + form + ", got shape " + str(t.shape()));
    }
    for (long d : t.shape()) {
      if (d > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            name + " " + form + " must have dimensions below 2^31, got " + str(t.shape()));
      }
    }
  }

  /**
   * Element strides on the four axes of {@code target} of a mask of {@code shape} with {@code
   * strides} (MLX broadcasting: trailing axes aligned, a missing or size-1 axis broadcasts with
   * stride 0).
   *
   * @throws IllegalArgumentException naming the mask when it does not broadcast
   */
  static long[] broadcastStrides(long[] shape, long[] strides, long[] target) {
    if (shape.length > 4) {
      throw notBroadcastable(shape, target);
    }
    long[] out = new long[4];
    int pad = 4 - shape.length;
    for (int a = 0; a < shape.length; a++) {
      if (shape[a] != target[pad + a] && shape[a] != 1) {
        throw notBroadcastable(shape, target);
      }
      out[pad + a] = shape[a] == 1 ? 0 : strides[a];
    }
    return out;
  }

  private static IllegalArgumentException notBroadcastable(long[] shape, long[] target) {
    return new IllegalArgumentException(
        "mask of shape "
            + str(shape)
            + " is not broadcastable to [B, Hq, Lq, Lkv] = "
            + str(target)
            + " (MLX rules: at most 4 axes, aligned at the last, each equal to the target's or 1)");
  }

  /** Offset and strides of a rank-4 tensor, with stride 0 on size-1 axes (1 on a size-1 last). */
  static SdpaStrides strides(Tensor t) {
    long[] s = t.shape();
    long[] st = t.strides();
    return new SdpaStrides(
        (int) t.offset(),
        s[0] == 1 ? 0 : (int) st[0],
        s[1] == 1 ? 0 : (int) st[1],
        s[2] == 1 ? 0 : (int) st[2],
        s[3] == 1 ? 1 : (int) st[3]);
  }

  /** The kernels index with 32-bit ints: every element a view reaches must be below 2³¹. */
  private static void checkIndexRange(Tensor t, String name) {
    long[] s = t.shape();
    long[] st = t.strides();
    long at = t.offset();
    for (int a = 0; a < s.length; a++) {
      if (s[a] == 0) {
        return;
      }
      at += (s[a] - 1) * st[a];
    }
    if (at > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          name
              + " "
              + str(s)
              + " reaches element "
              + at
              + " of its buffer; the attention kernels index with 32-bit ints (at most 2^31 - 1)");
    }
  }

  private static String str(long[] shape) {
    return Arrays.toString(shape);
  }

  // ---- launches ----

  private static Tensor runVector(Launcher l, Call c) {
    SdpaShape shape = c.shape();
    Inputs in = l.inputs(c);
    DeviceBuffer qb = in.q;
    SdpaStrides qs = c.qs();
    if (c.q().strides()[3] != 1 && c.headDim() > 1) {
      qb = l.dense(c.q());
      qs = SdpaStrides.contiguous(c.qHeads(), c.qLen(), c.headDim());
    }
    SdpaVector.Plan p = SdpaVector.plan(shape, Math.max(1, l.device.info().multiprocessors()));
    Tensor out = l.output(c.dtype(), c.outShape());
    DeviceBuffer ob = l.bridge.buffer(out);
    DeviceBuffer partO = l.dummy(ElementType.F32);
    DeviceBuffer partML = partO;
    SdpaSplitK.CombinePlan cp = null;
    if (p.partial()) {
      cp = SdpaSplitK.combinePlan(shape, p.splits());
      partO = l.temp(ElementType.F32, cp.partialOFloats());
      partML = l.temp(ElementType.F32, cp.partialMLFloats());
    }
    boolean hasSinks = c.sinks() != null;
    l.launch(
        DECODE,
        p.grid(),
        p.block(),
        SdpaVector.decodeArgs(
            qb,
            in.k,
            in.v,
            in.maskAdd,
            in.maskBool,
            in.sinks,
            ob,
            partO,
            partML,
            shape,
            qs,
            c.ks(),
            c.vs(),
            in.ms,
            c.scale(),
            c.kernelDtype(),
            c.maskKind(),
            hasSinks,
            p));
    if (cp != null) {
      l.launch(
          COMBINE,
          cp.grid(),
          cp.block(),
          SdpaSplitK.combineArgs(
              partO, partML, in.sinks, ob, shape, p.splits(), c.kernelDtype(), hasSinks));
    }
    return l.done(out);
  }

  /**
   * The unfused kernels, in chunks when the score buffer would exceed {@link #scoreBudget()} floats
   * ({@link FallbackChunks}): each chunk reuses one score buffer and writes a contiguous range of
   * the output (through a staging buffer and a device copy unless it is the whole call).
   */
  private static Tensor runFallback(Launcher l, Call c) {
    Inputs in = l.inputs(c);
    FallbackChunks plan = chunks(c);
    boolean hasSinks = c.sinks() != null;
    Tensor out = l.output(c.dtype(), c.outShape());
    DeviceBuffer ob = l.bridge.buffer(out);
    DeviceBuffer scores = l.temp(ElementType.F32, Math.max(1, plan.maxScores()));
    if (plan.single()) {
      launchUnfused(l, c, in, c.shape(), c.qs(), c.ks(), c.vs(), in.ms, in.sinks, scores, ob);
      return l.done(out);
    }
    DeviceBuffer staged = l.temp(ob.type(), Math.max(1, plan.maxOut()));
    DeviceBuffer sinks = hasSinks ? l.temp(ElementType.F32, plan.maxQHeads()) : in.sinks;
    for (FallbackChunks.Chunk ch : plan.chunks()) {
      SdpaShape shape =
          new SdpaShape(
              ch.batches(),
              ch.qHeads(),
              ch.kvHeads(),
              ch.qLen(),
              ch.kvLen(),
              c.headDim(),
              c.valueDim());
      SdpaStrides qs = shift(c.qs(), ch.b0(), ch.qHead0(), ch.i0());
      SdpaStrides ks = shift(c.ks(), ch.b0(), ch.kvHead0(), 0);
      SdpaStrides vs = shift(c.vs(), ch.b0(), ch.kvHead0(), 0);
      SdpaStrides ms = in.ms == null ? null : shift(in.ms, ch.b0(), ch.qHead0(), ch.i0());
      if (hasSinks) {
        l.device.copy(in.sinks, ch.qHead0(), sinks, 0, ch.qHeads(), l.stream);
      }
      launchUnfused(l, c, in, shape, qs, ks, vs, ms, sinks, scores, staged);
      l.device.copy(staged, 0, ob, ch.outOffset(), ch.outCount(), l.stream);
    }
    return l.done(out);
  }

  private static void launchUnfused(
      Launcher l,
      Call c,
      Inputs in,
      SdpaShape shape,
      SdpaStrides qs,
      SdpaStrides ks,
      SdpaStrides vs,
      SdpaStrides ms,
      DeviceBuffer sinks,
      DeviceBuffer scores,
      DeviceBuffer out) {
    boolean f32 = c.kernelDtype() == Sdpa.F32;
    SdpaUnfused.Plan p = SdpaUnfused.plan(shape);
    l.launch(
        f32 ? SCORES32 : SCORES16,
        p.scoresGrid(),
        p.scoresBlock(),
        SdpaUnfused.scoresArgs(
            in.q,
            in.k,
            in.maskAdd,
            in.maskBool,
            scores,
            shape,
            qs,
            ks,
            ms,
            c.scale(),
            c.kernelDtype(),
            c.maskKind()));
    l.launch(
        SOFTMAX,
        p.softmaxGrid(),
        p.softmaxBlock(),
        SdpaUnfused.softmaxArgs(scores, sinks, shape, c.sinks() != null));
    l.launch(
        f32 ? PV32 : PV16,
        p.pvGrid(),
        p.pvBlock(),
        SdpaUnfused.pvArgs(scores, in.v, out, shape, vs, c.kernelDtype()));
  }

  /** {@code s} moved to batch {@code b}, head {@code h}, row {@code i} (same strides). */
  private static SdpaStrides shift(SdpaStrides s, int b, int h, int i) {
    long off = s.offset() + (long) b * s.batch() + (long) h * s.head() + (long) i * s.seq();
    return new SdpaStrides((int) off, s.batch(), s.head(), s.seq(), s.dim());
  }

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

  /** The buffers the kernels read, with the mask's strides as the kernels see them. */
  private record Inputs(
      DeviceBuffer q,
      DeviceBuffer k,
      DeviceBuffer v,
      DeviceBuffer maskAdd,
      DeviceBuffer maskBool,
      SdpaStrides ms,
      DeviceBuffer sinks) {}

  /**
   * Launches on one instance's stream and owns the temporaries of one call: they are closed (freed
   * in stream order, after the launches queued before) when the call ends, and the output is closed
   * too when the call fails before {@link #done}.
   */
  private static final class Launcher implements AutoCloseable {
    final Internal.Bridge bridge;
    final Sirocco rt;
    final Device device;
    final Stream stream;
    final List<DeviceBuffer> temps = new ArrayList<>();
    Tensor pendingOut;

    Launcher(Sirocco rt, Internal.Bridge bridge) {
      this.rt = rt;
      this.bridge = bridge;
      this.device = bridge.device(rt);
      this.stream = bridge.stream(rt);
    }

    DeviceBuffer temp(ElementType type, long length) {
      DeviceBuffer b = device.allocate(type, length, stream);
      temps.add(b);
      return b;
    }

    DeviceBuffer dummy(ElementType type) {
      return dummyOf(device, type);
    }

    Tensor output(DType dtype, long[] shape) {
      pendingOut = bridge.empty(rt, dtype, shape);
      return pendingOut;
    }

    Tensor done(Tensor out) {
      pendingOut = null;
      return out;
    }

    void launch(Method kernel, Dim3 grid, Dim3 block, Object[] args) {
      device.launch(KernelLaunch.of(kernel, grid, block, args), stream);
    }

    /** A dense copy of a tensor's view (its own shape, row-major) in a temporary buffer. */
    DeviceBuffer dense(Tensor t) {
      ElementType et = bridge.buffer(t).type();
      DeviceBuffer dst = temp(et, t.size());
      launch(
          copyKernel(et),
          StridedCopy.grid(t.size()),
          StridedCopy.block(),
          StridedCopy.args(bridge.buffer(t), dst, t.shape(), t.strides(), t.offset(), 0));
      return dst;
    }

    /** A tensor of any floating dtype as a dense float32 buffer (in place when it already is). */
    DeviceBuffer denseFloat(Tensor t) {
      boolean dense = t.isContiguous() && t.offset() == 0;
      if (t.dtype() == DType.F32) {
        return dense ? bridge.buffer(t) : dense(t);
      }
      DeviceBuffer bits = dense ? bridge.buffer(t) : dense(t);
      long n = t.size();
      DeviceBuffer f = temp(ElementType.F32, Math.max(1, n));
      launch(
          WIDEN,
          Dim3.of((int) Math.max(1, (n + SdpaUnfused.THREADS - 1) / SdpaUnfused.THREADS)),
          Dim3.of(SdpaUnfused.THREADS),
          new Object[] {bits, f, (int) n, t.dtype() == DType.F16 ? Sdpa.F16 : Sdpa.BF16});
      return f;
    }

    Inputs inputs(Call c) {
      DeviceBuffer maskAdd = dummy(ElementType.F32);
      DeviceBuffer maskBool = dummy(ElementType.I8);
      SdpaStrides ms = c.ms();
      if (c.maskKind() == Sdpa.MASK_BOOL) {
        maskBool = bridge.buffer(c.mask());
      } else if (c.maskKind() == Sdpa.MASK_ADDITIVE) {
        Tensor m = c.mask();
        if (m.dtype() == DType.F32) {
          maskAdd = bridge.buffer(m);
        } else {
          // Widened densely in the mask's own shape: the broadcast strides follow that layout.
          maskAdd = denseFloat(m);
          long[] dense = denseStrides(m.shape());
          long[] target = {c.batch(), c.qHeads(), c.qLen(), c.kvLen()};
          long[] b = broadcastStrides(m.shape(), dense, target);
          ms = new SdpaStrides(0, (int) b[0], (int) b[1], (int) b[2], (int) b[3]);
        }
      }
      DeviceBuffer sinks = c.sinks() == null ? dummy(ElementType.F32) : denseFloat(c.sinks());
      return new Inputs(
          bridge.buffer(c.q()),
          bridge.buffer(c.k()),
          bridge.buffer(c.v()),
          maskAdd,
          maskBool,
          ms,
          sinks);
    }

    @Override
    public void close() {
      if (pendingOut != null) {
        pendingOut.close();
      }
      for (DeviceBuffer b : temps) {
        b.close();
      }
    }
  }

  private static long[] denseStrides(long[] shape) {
    long[] s = new long[shape.length];
    long acc = 1;
    for (int i = shape.length - 1; i >= 0; i--) {
      s[i] = acc;
      acc *= Math.max(1, shape[i]);
    }
    return s;
  }

  // ---- kernels ----

  private static final Map<Device, Map<ElementType, DeviceBuffer>> DUMMIES =
      new ConcurrentHashMap<>();

  /**
   * A one-element buffer per device and element type, passed for array parameters a launch does not
   * read (the other mask kind, absent sinks, unused partials). Lives as long as the process.
   */
  private static DeviceBuffer dummyOf(Device device, ElementType type) {
    return DUMMIES
        .computeIfAbsent(device, d -> new ConcurrentHashMap<>())
        .computeIfAbsent(type, t -> device.allocate(t, 1));
  }

  private static Method copyKernel(ElementType et) {
    return switch (et) {
      case I8 -> COPY8;
      case I16 -> COPY16;
      case I32 -> COPY32;
      case F32 -> COPYF32;
      case I64, F64, U16, BOOL ->
          throw new IllegalArgumentException("no strided copy for " + et + " elements");
    };
  }

  static Method kernel(Class<?> owner, String name) {
    Method found = null;
    for (Method m : owner.getMethods()) {
      if (m.getName().equals(name)
          && m.getParameterCount() > 0
          && m.getParameterTypes()[0] == KernelContext.class) {
        if (found != null) {
          throw new IllegalStateException("two kernels named " + owner.getName() + "." + name);
        }
        found = m;
      }
    }
    if (found == null) {
      throw new IllegalStateException("no kernel " + owner.getName() + "." + name);
    }
    return found;
  }

  private static final Method DECODE = kernel(SdpaVector.class, "decode");
  private static final Method COMBINE = kernel(SdpaSplitK.class, "combine");
  private static final Method SCORES16 = kernel(SdpaUnfused.class, "scores16");
  private static final Method SCORES32 = kernel(SdpaUnfused.class, "scores32");
  private static final Method SOFTMAX = kernel(SdpaUnfused.class, "softmax");
  private static final Method PV16 = kernel(SdpaUnfused.class, "pv16");
  private static final Method PV32 = kernel(SdpaUnfused.class, "pv32");
  private static final Method WIDEN = kernel(SdpaUnfused.class, "widen");
  private static final Method COPY8 = kernel(StridedCopy.class, "copy8");
  private static final Method COPY16 = kernel(StridedCopy.class, "copy16");
  private static final Method COPY32 = kernel(StridedCopy.class, "copy32");
  private static final Method COPYF32 = kernel(StridedCopy.class, "copyF32");
}
