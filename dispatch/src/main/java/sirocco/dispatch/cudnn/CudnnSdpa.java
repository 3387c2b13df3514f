package sirocco.dispatch.cudnn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Tensor;
import sirocco.dispatch.Internal;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.DeviceInfo;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaBuffer;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.CudaStream;

/**
 * Fused scaled-dot-product attention through cuDNN's flash-attention engines: the first rung of the
 * SDPA ladder for prefill-shaped attention.
 *
 * <pre>{@code
 * String why = CudnnSdpa.supports(CudnnSdpa.Problem.of(q, k, v, mask, out), deviceInfo);
 * if (why == null) {
 *   CudnnSdpa.Attempt a = CudnnSdpa.run(q, k, v, scale, mask, out);   // queued on q's stream
 *   if (a.ran()) return out;
 *   why = a.reason();                                                  // e.g. no plan for the shape
 * }
 * // fall back, recording `why` for explain output
 * }</pre>
 *
 * <p>Rules (MLX's predicate for cuDNN SDPA, plus what Sirocco's graph needs): cuDNN present and not
 * disabled ({@code -Dsirocco.cudnn.disable=true}), compute capability ≥ 8.0, F16 or BF16, head dims
 * multiples of 8 and at most 128 (256 on sm_90 only with {@code -Dsirocco.cudnn.maxHeadDim=256},
 * pending the probe), not causal with {@code Lq > Lkv}, never {@code 1 < Lq < 16} (a per-shape
 * graph would be rebuilt at every step of a speculative-decode loop), last strides 1 and other
 * strides multiples of 16 bytes, pointers 16-byte aligned. Any refusal is a one-line reason;
 * nothing is queued when the answer is a refusal.
 */
public final class CudnnSdpa {
  public static final String DISABLE_PROPERTY = "sirocco.cudnn.disable";
  public static final String MAX_HEAD_DIM_PROPERTY = "sirocco.cudnn.maxHeadDim";

  /**
   * {@code -Dsirocco.cudnn.autotune=N} (N ≥ 2, or {@code true} for {@link
   * CudnnSdpaTuning#DEFAULT_CANDIDATES}): when a shape's plan is first built, finalize up to N of
   * the plans cuDNN's heuristics offer, time each on that call's own buffers (CUDA events, {@link
   * #AUTOTUNE_WARMUP} + {@link #AUTOTUNE_TIMED} executions) and keep the fastest, as PyTorch's
   * {@code cudnn.benchmark} does for convolutions. Off by default: the first call of each shape
   * then blocks its thread until the timing is done (about 2 ms per candidate: each is timed behind
   * a short busy-wait kernel that holds the stream while its executions are queued) and runs the
   * attention N·8 extra times.
   */
  public static final String AUTOTUNE_PROPERTY = "sirocco.cudnn.autotune";

  /** MLX's bound on sm_80/sm_90 for cuDNN SDPA head dims. */
  static final int DEFAULT_MAX_HEAD_DIM = 128;

  private CudnnSdpa() {}

  // ---- the problem ----

  /**
   * The shapes, strides and dtypes an SDPA call would hand to cuDNN (element strides; {@code
   * oStrides} null means a contiguous output).
   */
  public record Problem(
      DType dtype,
      DType kDtype,
      DType vDtype,
      long[] qShape,
      long[] kShape,
      long[] vShape,
      long[] qStrides,
      long[] kStrides,
      long[] vStrides,
      long[] oStrides,
      Mask.Kind mask,
      DType maskDtype,
      long[] maskShape,
      long[] maskStrides) {

    /** From the tensors of a call; {@code out} may be null (contiguous output assumed). */
    public static Problem of(Tensor q, Tensor k, Tensor v, Mask mask, Tensor out) {
      Mask m = mask == null ? Mask.none() : mask;
      Tensor mt = m.tensor();
      return new Problem(
          q.dtype(),
          k.dtype(),
          v.dtype(),
          q.shape(),
          k.shape(),
          v.shape(),
          q.strides(),
          k.strides(),
          v.strides(),
          out == null ? null : out.strides(),
          m.kind(),
          mt == null ? null : mt.dtype(),
          mt == null ? null : mt.shape(),
          mt == null ? null : mt.strides());
    }

    /** Contiguous [B, H, L, D] tensors; a mask kind without a tensor (NONE or CAUSAL). */
    public static Problem contiguous(
        DType dtype, long b, long hq, long hkv, long lq, long lkv, long d, Mask.Kind mask) {
      long[] q = {b, hq, lq, d};
      long[] k = {b, hkv, lkv, d};
      return new Problem(
          dtype,
          dtype,
          dtype,
          q,
          k,
          k.clone(),
          CudnnSdpaGraph.packed(q),
          CudnnSdpaGraph.packed(k),
          CudnnSdpaGraph.packed(k),
          null,
          mask,
          null,
          null,
          null);
    }

    /** The same problem with a mask tensor of this dtype, shape and strides. */
    public Problem withMask(Mask.Kind kind, DType dtype, long[] shape, long[] strides) {
      return new Problem(
          this.dtype,
          kDtype,
          vDtype,
          qShape,
          kShape,
          vShape,
          qStrides,
          kStrides,
          vStrides,
          oStrides,
          kind,
          dtype,
          shape,
          strides);
    }

    /** The same problem with other strides for Q, K and V. */
    public Problem withStrides(long[] q, long[] k, long[] v) {
      return new Problem(
          dtype,
          kDtype,
          vDtype,
          qShape,
          kShape,
          vShape,
          q,
          k,
          v,
          oStrides,
          mask,
          maskDtype,
          maskShape,
          maskStrides);
    }

    long[] outShape() {
      return new long[] {qShape[0], qShape[1], qShape[2], vShape[3]};
    }

    long[] outStrides() {
      return oStrides != null ? oStrides : CudnnSdpaGraph.packed(outShape());
    }

    @Override
    public String toString() {
      return "Problem["
          + dtype
          + " q"
          + Arrays.toString(qShape)
          + " k"
          + Arrays.toString(kShape)
          + " v"
          + Arrays.toString(vShape)
          + " mask "
          + mask
          + (maskShape == null ? "" : " " + maskDtype + Arrays.toString(maskShape))
          + "]";
    }
  }

  // ---- rules ----

  /** Null when cuDNN should take this problem on this device, else the reason it should not. */
  public static String supports(Problem p, DeviceInfo device) {
    if (device == null || !"cuda".equals(device.backend())) {
      return "cuDNN runs only on CUDA devices";
    }
    boolean disabled = Boolean.getBoolean(DISABLE_PROPERTY);
    String lib = disabled ? null : Cudnn.unavailableReason();
    long version = disabled || lib != null ? 0 : Cudnn.version();
    return check(
        p,
        device.computeMajor(),
        device.computeMinor(),
        disabled,
        lib,
        version,
        configuredMaxHeadDim(device.computeMajor()));
  }

  /** The head-dim bound for a compute capability major: 128, or 256 on sm_90 when configured. */
  static int configuredMaxHeadDim(int ccMajor) {
    String v = System.getProperty(MAX_HEAD_DIM_PROPERTY);
    if (v == null || v.isBlank()) {
      return DEFAULT_MAX_HEAD_DIM;
    }
    int n;
    try {
      n = Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "system property " + MAX_HEAD_DIM_PROPERTY + " must be 128 or 256, got '" + v + "'");
    }
    if (n != 128 && n != 256) {
      throw new IllegalArgumentException(
          "system property " + MAX_HEAD_DIM_PROPERTY + " must be 128 or 256, got " + n);
    }
    // cudnn-frontend allows head dims up to 256 on Hopper only; elsewhere keep MLX's 128.
    return n == 256 && ccMajor == 9 ? 256 : DEFAULT_MAX_HEAD_DIM;
  }

  /** The rules, with every environmental input explicit (table-driven tests call this). */
  static String check(
      Problem p,
      int ccMajor,
      int ccMinor,
      boolean disabled,
      String libraryReason,
      long version,
      int maxHeadDim) {
    if (disabled) {
      return "cuDNN disabled by -D" + DISABLE_PROPERTY + "=true";
    }
    if (libraryReason != null) {
      return "cuDNN unavailable: " + libraryReason;
    }
    if (version == 91000 || version == 91001) {
      return "cuDNN "
          + CudnnConstants.versionString(version)
          + " has known SDPA bugs (cudnn-frontend refuses 9.10.0 and 9.10.1)";
    }
    String sm = "sm_" + ccMajor + ccMinor;
    if (ccMajor < 8) {
      return "compute capability " + ccMajor + "." + ccMinor + ": cuDNN SDPA needs sm_80 or newer";
    }
    if (p.dtype() != DType.F16 && p.dtype() != DType.BF16) {
      return "dtype " + p.dtype() + ": cuDNN SDPA takes F16 or BF16";
    }
    if (p.kDtype() != p.dtype() || p.vDtype() != p.dtype()) {
      return "K and V dtypes (" + p.kDtype() + ", " + p.vDtype() + ") differ from Q's " + p.dtype();
    }
    if (p.qShape().length != 4 || p.kShape().length != 4 || p.vShape().length != 4) {
      return "Q, K and V must be rank 4 [B, H, L, D]";
    }
    long b = p.qShape()[0];
    long hq = p.qShape()[1];
    long lq = p.qShape()[2];
    long d = p.qShape()[3];
    long hkv = p.kShape()[1];
    long lkv = p.kShape()[2];
    long dv = p.vShape()[3];
    if (p.kShape()[0] != b
        || p.vShape()[0] != b
        || p.kShape()[3] != d
        || p.vShape()[1] != hkv
        || p.vShape()[2] != lkv) {
      return "shapes do not line up: q"
          + Arrays.toString(p.qShape())
          + " k"
          + Arrays.toString(p.kShape())
          + " v"
          + Arrays.toString(p.vShape());
    }
    if (b < 1 || hq < 1 || hkv < 1 || lq < 1 || lkv < 1 || d < 1 || dv < 1) {
      return "empty attention (an extent is 0)";
    }
    if (hq % hkv != 0) {
      return "Hq=" + hq + " is not a multiple of Hkv=" + hkv;
    }
    if (lq > Integer.MAX_VALUE || lkv > Integer.MAX_VALUE) {
      return "sequence lengths beyond 2^31 - 1";
    }
    if (d % 8 != 0 || dv % 8 != 0) {
      return "head dim " + (d % 8 != 0 ? "D=" + d : "Dv=" + dv) + " is not a multiple of 8";
    }
    if (d > maxHeadDim || dv > maxHeadDim) {
      return "head dim "
          + Math.max(d, dv)
          + " exceeds "
          + maxHeadDim
          + ", the bound on "
          + sm
          + (ccMajor == 9 && maxHeadDim < 256
              ? " (MLX's; -D" + MAX_HEAD_DIM_PROPERTY + "=256 allows 256 on sm_90)"
              : "");
    }
    if (p.mask() == Mask.Kind.CAUSAL && lq > lkv) {
      return "causal with Lq="
          + lq
          + " > Lkv="
          + lkv
          + ": cuDNN's bottom-right causal mask needs Lq <= Lkv";
    }
    if (lq > 1 && lq < 16) {
      return "Lq="
          + lq
          + ": 1 < Lq < 16 stays off cuDNN (a per-shape graph would be rebuilt at every step"
          + " of a speculative-decode loop)";
    }
    String layout = checkLayout("Q", p.qShape(), p.qStrides());
    if (layout == null) {
      layout = checkLayout("K", p.kShape(), p.kStrides());
    }
    if (layout == null) {
      layout = checkLayout("V", p.vShape(), p.vStrides());
    }
    if (layout == null) {
      layout = checkLayout("O", p.outShape(), p.outStrides());
    }
    if (layout != null) {
      return layout;
    }
    if (p.mask() == Mask.Kind.ADDITIVE || p.mask() == Mask.Kind.BOOL) {
      if (p.maskShape() == null) {
        return "mask kind " + p.mask() + " without a mask tensor";
      }
      MaskBias.Layout l =
          MaskBias.layout(
              p.mask() == Mask.Kind.BOOL,
              p.maskDtype(),
              p.maskShape(),
              p.maskStrides(),
              p.dtype(),
              b,
              hq,
              lq,
              lkv);
      if (l == null) {
        return "mask "
            + p.maskDtype()
            + Arrays.toString(p.maskShape())
            + " does not broadcast to [B, Hq, Lq, Lkv] = "
            + Arrays.toString(new long[] {b, hq, lq, lkv});
      }
    }
    return null;
  }

  private static String checkLayout(String name, long[] shape, long[] strides) {
    if (strides == null || strides.length != 4) {
      return name + " must have 4 strides";
    }
    if (strides[3] != 1 && shape[3] != 1) {
      return name
          + "'s last stride is "
          + strides[3]
          + ": cuDNN needs the head dim contiguous (stride 1)";
    }
    for (int i = 0; i < 3; i++) {
      if (shape[i] != 1 && (strides[i] <= 0 || strides[i] % 8 != 0)) {
        return name
            + "'s strides "
            + Arrays.toString(strides)
            + ": cuDNN needs strides that are positive multiples of 16 bytes (8 elements)";
      }
    }
    return null;
  }

  /** Strides with size-1 dimensions given canonical values (they never move a pointer). */
  static long[] canonicalStrides(long[] shape, long[] strides) {
    long[] s = strides.clone();
    for (int i = s.length - 1; i >= 0; i--) {
      if (shape[i] == 1) {
        s[i] = i == s.length - 1 ? 1 : s[i + 1] * shape[i + 1];
      }
    }
    return s;
  }

  // ---- running ----

  /**
   * What happened: {@code ran} with the engine that ran, or not with the reason (nothing queued).
   *
   * @param cacheHit the plan came from the graph cache
   */
  public record Attempt(boolean ran, String reason, String engine, boolean cacheHit) {
    static Attempt refused(String reason) {
      return new Attempt(false, reason, null, false);
    }
  }

  private static final Map<CudaDevice, CudnnDeviceState> STATES = new ConcurrentHashMap<>();
  private static final LongAdder RAN = new LongAdder();
  private static final Map<String, LongAdder> REFUSALS = new ConcurrentHashMap<>();
  private static final int MAX_REFUSAL_KINDS = 64;

  private static final class CacheHolder {
    static final CudnnSdpaCache CACHE = CudnnSdpaCache.configured();
  }

  static CudnnSdpaCache cache() {
    return CacheHolder.CACHE;
  }

  static CudnnDeviceState state(CudaDevice device) {
    return STATES.computeIfAbsent(device, CudnnDeviceState::new);
  }

  /** A prepared call: everything but the plan lookup and the execution. */
  static final class Call {
    CudaDevice device;
    CudaStream stream;
    CudnnSdpaKey key;
    long q;
    long k;
    long v;
    long o;
    long maskPointer;
    DeviceBuffer maskBuffer;
    long maskOffset;
    MaskBias.Layout bias;
  }

  private static long pointer(Tensor t, Device device) {
    DeviceBuffer buf = Internal.bridge().buffer(t);
    if (!(buf instanceof CudaBuffer cb) || cb.device() != device) {
      return -1;
    }
    return cb.pointer() + t.offset() * t.dtype().bytes();
  }

  /**
   * Checks a call and works out its key and pointers; returns a {@link Call} or the refusal reason
   * (a String). {@code enforceRules} false skips {@link #supports} (the head-dim probe uses it).
   */
  static Object prepare(Tensor q, Tensor k, Tensor v, Mask mask, Tensor out, boolean enforceRules) {
    Mask m = mask == null ? Mask.none() : mask;
    Device dev = Internal.bridge().device(q.owner());
    if (!(dev instanceof CudaDevice device)) {
      return "cuDNN runs only on CUDA devices (this is " + dev.info().backend() + ")";
    }
    Stream s = Internal.bridge().stream(q.owner());
    if (!(s instanceof CudaStream stream)) {
      return "the op's stream is not a CUDA stream";
    }
    Problem p = Problem.of(q, k, v, m, out);
    String why =
        enforceRules
            ? supports(p, device.info())
            : Cudnn.available() ? null : "cuDNN unavailable: " + Cudnn.unavailableReason();
    if (why != null) {
      return why;
    }
    long[] os = out.shape();
    if (out.dtype() != q.dtype() || os.length != 4 || !Arrays.equals(os, p.outShape())) {
      return "output must be "
          + q.dtype()
          + Arrays.toString(p.outShape())
          + ", got "
          + out.dtype()
          + Arrays.toString(os);
    }
    Call c = new Call();
    c.device = device;
    c.stream = stream;
    c.q = pointer(q, device);
    c.k = pointer(k, device);
    c.v = pointer(v, device);
    c.o = pointer(out, device);
    long[] ptrs = {c.q, c.k, c.v, c.o};
    String[] names = {"Q", "K", "V", "O"};
    for (int i = 0; i < 4; i++) {
      if (ptrs[i] < 0) {
        return names[i] + " is not on this CUDA device";
      }
      if (ptrs[i] % 16 != 0) {
        return names[i] + "'s data pointer is not 16-byte aligned (view offset)";
      }
    }
    long b = p.qShape()[0];
    long hq = p.qShape()[1];
    long lq = p.qShape()[2];
    long lkv = p.kShape()[2];
    CudnnSdpaKey.MaskKind kind = CudnnSdpaKey.MaskKind.NONE;
    long[] biasDims = null;
    long[] biasStrides = null;
    if (m.kind() == Mask.Kind.CAUSAL) {
      kind = CudnnSdpaKey.MaskKind.CAUSAL;
    } else if (m.kind() == Mask.Kind.ADDITIVE || m.kind() == Mask.Kind.BOOL) {
      Tensor mt = m.tensor();
      MaskBias.Layout l =
          MaskBias.layout(
              m.kind() == Mask.Kind.BOOL,
              mt.dtype(),
              mt.shape(),
              mt.strides(),
              q.dtype(),
              b,
              hq,
              lq,
              lkv);
      if (l == null) {
        return "mask " + mt.dtype() + Arrays.toString(mt.shape()) + " cannot become a cuDNN bias";
      }
      c.maskPointer = pointer(mt, device);
      c.maskBuffer = Internal.bridge().buffer(mt);
      c.maskOffset = mt.offset();
      if (c.maskPointer < 0) {
        return "the mask is not on this CUDA device";
      }
      if (l.direct() && c.maskPointer % 16 != 0) {
        // Copy it into an aligned temporary instead.
        l =
            new MaskBias.Layout(
                false,
                l.dims(),
                CudnnSdpaGraph.packed(l.dims()),
                l.srcStrides(),
                mt.dtype() == DType.F16 ? 2 : mt.dtype() == DType.BF16 ? 3 : 1);
      }
      c.bias = l;
      kind = CudnnSdpaKey.MaskKind.BIAS;
      biasDims = l.dims();
      biasStrides = l.strides();
    }
    c.key =
        new CudnnSdpaKey(
            device.ordinal(),
            q.dtype() == DType.BF16 ? CudnnConstants.DATA_BFLOAT16 : CudnnConstants.DATA_HALF,
            b,
            hq,
            p.kShape()[1],
            lq,
            lkv,
            p.qShape()[3],
            p.vShape()[3],
            canonicalStrides(p.qShape(), p.qStrides()),
            canonicalStrides(p.kShape(), p.kStrides()),
            canonicalStrides(p.vShape(), p.vStrides()),
            canonicalStrides(p.outShape(), p.outStrides()),
            kind,
            biasDims,
            biasStrides);
    return c;
  }

  /**
   * Runs softmax(q·kᵀ·scale + mask)·v into {@code out} ([B, Hq, Lq, Dv], q's dtype) on q's stream,
   * if cuDNN takes the call. q, k, v as [B, H, L, D] views (any strides cuDNN accepts; GQA when k
   * and v have fewer heads). Returns at once; the work is queued.
   */
  public static Attempt run(Tensor q, Tensor k, Tensor v, float scale, Mask mask, Tensor out) {
    return run(q, k, v, scale, mask, out, true);
  }

  static Attempt run(
      Tensor q, Tensor k, Tensor v, float scale, Mask mask, Tensor out, boolean enforceRules) {
    Object prepared = prepare(q, k, v, mask, out, enforceRules);
    if (prepared instanceof String why) {
      return refuse(why);
    }
    Call c = (Call) prepared;
    c.device.makeCurrent();
    CudnnDeviceState state = state(c.device);
    if (state.failure != null) {
      return refuse(state.failure);
    }
    long misses = cache().misses();
    CudnnSdpaPlan plan = cache().acquire(c.key, key -> buildPlan(state, c, q.dtype(), scale, key));
    boolean hit = cache().misses() == misses;
    try {
      if (!plan.ok()) {
        return refuse("cuDNN has no plan for this shape: " + plan.failure);
      }
      DeviceBuffer biasBuffer = null;
      try {
        biasBuffer = materializedBias(c, q.dtype());
        long biasPointer = biasPointer(c, biasBuffer);
        state.lock.lock();
        try {
          long ws = plan.workspaceBytes > 0 ? state.workspace(c.stream, plan.workspaceBytes) : 0;
          state.bind(c.stream);
          plan.execute(state.handle, c.q, c.k, c.v, c.o, biasPointer, scale, ws);
        } finally {
          state.lock.unlock();
        }
      } catch (CudnnException e) {
        return refuse("cuDNN execution failed: " + e.getMessage());
      } finally {
        // Stream-ordered free: the memory returns to the pool after the queued work.
        if (biasBuffer != null) {
          biasBuffer.close();
        }
      }
      RAN.increment();
      return new Attempt(true, null, plan.engine, hit);
    } finally {
      plan.release();
    }
  }

  /**
   * A plan for a key the cache does not hold: tuned on this call when {@link #AUTOTUNE_PROPERTY}
   * asks for it (read here, on a miss, not on every call), else the heuristics' first choice.
   */
  private static CudnnSdpaPlan buildPlan(
      CudnnDeviceState state, Call c, DType dtype, float scale, CudnnSdpaKey key) {
    int tune = CudnnSdpaTuning.candidates();
    return tune > 0
        ? CudnnSdpaTuning.plan(state, c, dtype, scale, key, tune)
        : CudnnSdpaPlan.build(Cudnn.api(), state.handle, key);
  }

  /** The bias copied into an aligned temporary when the mask cannot be read in place, or null. */
  static DeviceBuffer materializedBias(Call c, DType dtype) {
    if (c.bias == null || c.bias.direct()) {
      return null;
    }
    return MaskBias.materialize(c.device, c.stream, c.maskBuffer, c.maskOffset, c.bias, dtype);
  }

  static long biasPointer(Call c, DeviceBuffer materialized) {
    if (c.bias == null) {
      return 0;
    }
    return materialized != null ? ((CudaBuffer) materialized).pointer() : c.maskPointer;
  }

  /**
   * The cached plan this call would run (engine, knobs and workspace, or why there is none), or why
   * the call is refused before a plan is looked up; "no plan cached yet" before the first call of
   * its shape. Looks nothing up in cuDNN and queues nothing (for benchmarks and diagnostics).
   */
  public static String describePlan(Tensor q, Tensor k, Tensor v, Mask mask, Tensor out) {
    if (q == null || k == null || v == null || out == null) {
      throw new IllegalArgumentException(
          "q, k, v and out must not be null (mask may be null for none), got q="
              + q
              + ", k="
              + k
              + ", v="
              + v
              + ", out="
              + out);
    }
    Object prepared = prepare(q, k, v, mask, out, true);
    if (prepared instanceof String why) {
      return "refused: " + why;
    }
    CudnnSdpaPlan p = cache().peek(((Call) prepared).key);
    return p == null ? "no plan cached yet" : p.toString();
  }

  private static Attempt refuse(String why) {
    LongAdder n = REFUSALS.get(why);
    if (n == null && REFUSALS.size() < MAX_REFUSAL_KINDS) {
      n = REFUSALS.computeIfAbsent(why, w -> new LongAdder());
    }
    if (n != null) {
      n.increment();
    }
    return Attempt.refused(why);
  }

  /**
   * Lines for explain/--threadInfo output: library, settings, cache, kept workspaces, refusals and
   * teardown failures so far. Looks the library up if nothing has yet (see {@link
   * Cudnn#lookedUp()}).
   */
  public static List<String> explain() {
    List<String> lines = new ArrayList<>();
    lines.add(Cudnn.describe());
    lines.add(
        "cuDNN SDPA: "
            + (Boolean.getBoolean(DISABLE_PROPERTY)
                ? "disabled by -D" + DISABLE_PROPERTY + "=true"
                : "enabled")
            + ", head dims <= "
            + DEFAULT_MAX_HEAD_DIM
            + " (256 on sm_90 with -D"
            + MAX_HEAD_DIM_PROPERTY
            + "=256), "
            + (CudnnSdpaTuning.candidates() > 0
                ? "plans tuned over " + CudnnSdpaTuning.candidates() + " candidates"
                : "plans from the heuristics' first choice (-D" + AUTOTUNE_PROPERTY + "=N tunes)"));
    lines.add("cuDNN SDPA " + cache().describe() + ", " + RAN.sum() + " calls ran");
    STATES.forEach(
        (device, st) -> {
          long[] ws = st.workspaceStats();
          if (ws[1] > 0) {
            lines.add(
                String.format(
                    "cuDNN workspaces kept on %s: %.1f MiB on %d stream(s) (freed by clearCache)",
                    device.info().name(), ws[0] / 1048576.0, ws[1]));
          }
        });
    REFUSALS.forEach((why, n) -> lines.add("cuDNN SDPA refused " + n.sum() + "x: " + why));
    long teardown = Cudnn.teardownFailures();
    if (teardown > 0) {
      lines.add(
          "cuDNN teardown failures: "
              + teardown
              + " destroy(s) failed (descriptors leaked); last: "
              + Cudnn.lastTeardownFailure());
    }
    return lines;
  }
}
