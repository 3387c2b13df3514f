package sirocco.dispatch.attention;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.DType;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.KernelContext;
import sirocco.dispatch.BooleanProperty;
import sirocco.dispatch.Internal;
import sirocco.dispatch.OccupancyHints;
import sirocco.dispatch.attention.SdpaOp.Call;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaSplitK;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.attention.SdpaVectorStaged;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * The launches of {@link SdpaOp}'s non-cuDNN rungs on an instance's stream: the vector kernel (one
 * pass, or split-K pass 1 plus the combine), the unfused fallback (in chunks of its score buffer),
 * the {@link Launcher} that owns a call's temporaries, the inputs as the kernels read them (dense
 * copies, widened masks and sinks, dummies for unread parameters) and the kernel methods. How the
 * inputs reach the kernels is described in {@link SdpaOp}.
 */
final class SdpaLaunches {
  private SdpaLaunches() {}

  static Tensor runVector(Launcher l, Call c) {
    SdpaShape shape = c.shape();
    Inputs in = l.inputs(c);
    DeviceBuffer qb = in.q;
    SdpaStrides qs = c.qs();
    if (c.q().strides()[3] != 1 && c.headDim() > 1) {
      qb = l.dense(c.q());
      qs = SdpaStrides.contiguous(c.qHeads(), c.qLen(), c.headDim());
    }
    var info = l.device.info();
    SdpaVectorPlans.Plan p =
        vectorPlan(
            shape,
            info.multiprocessors(),
            10 * info.computeMajor() + info.computeMinor(),
            c.kernelDtype(),
            c.maskKind());
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
    Object[] args =
        SdpaVectorPlans.decodeArgs(
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
            p);
    boolean early = earlyStart(shape, p, l.stream.capturing());
    l.launch(decodeLaunch(p, args).withEarlyStart(early));
    if (cp != null) {
      l.launch(
          KernelLaunch.of(
                  COMBINE,
                  cp.grid(),
                  cp.block(),
                  SdpaSplitK.combineArgs(
                      partO, partML, in.sinks, ob, shape, p.splits(), c.kernelDtype(), hasSinks))
              .withEarlyStart(early));
    }
    return l.done(out);
  }

  /**
   * The vector kernel's plan on a device with {@code sms} SMs of compute capability {@code arch}
   * ({@code 10 * major + minor}; the Java backend's 0 gets no occupancy hint): {@link
   * SdpaVector#planFor}, or {@link SdpaVector#plan(SdpaShape, int)} when {@link
   * OccupancyHints#enabled()} is false; {@link SdpaVectorMma#plan} for the calls it takes when
   * {@link #tensorCoreDecode}.
   */
  static SdpaVectorPlans.Plan vectorPlan(
      SdpaShape shape, int sms, int arch, int dtype, int maskKind) {
    int n = Math.max(1, sms);
    int forced = forcedSplits();
    if (runsTensorCores(shape, maskKind, n)) {
      return SdpaVectorMma.plan(shape, n, forced, OccupancyHints.enabled() ? arch : 0);
    }
    if (stagedDecode(shape, n)) {
      return SdpaVectorStaged.plan(shape, n, forced);
    }
    if (forced > 0) {
      SdpaVectorPlans.Plan base = SdpaVectorPlans.plan(shape, n);
      return SdpaVectorPlans.plan(shape, n, base.rows(), base.blocksPerSm(), forced);
    }
    return OccupancyHints.enabled()
        ? SdpaVectorPlans.planFor(shape, n, arch, dtype, maskKind)
        : SdpaVectorPlans.plan(shape, n);
  }

  /**
   * For experiments with the split count (e.g. fewer, longer splits at short contexts, where the
   * plan's one-wave rule gives 16–32-key splits): {@code -Dsirocco.sdpa.splits=N} makes the vector
   * rung use N key splits (1 = one pass; at most one per key), with the default rows per block and
   * no occupancy hint. Read at every call; the op never sets it.
   */
  static final String SPLITS_PROPERTY = "sirocco.sdpa.splits";

  /**
   * Whether the vector rung runs {@link SdpaVectorMma} (tensor cores) for the calls it takes (head
   * dims 64–512, no mask or causal): {@code -Dsirocco.attention.vectorMma=true|false} forces it on
   * or off for all of them (read at every call); unset, {@link #tensorCoreDecodePolicy}.
   */
  static final String TENSOR_CORE_DECODE_PROPERTY = "sirocco.attention.vectorMma";

  /**
   * Whether the vector rung runs {@code shape} with {@code maskKind} on {@link SdpaVectorMma}, on a
   * device with {@code sms} SMs.
   */
  static boolean runsTensorCores(SdpaShape shape, int maskKind, int sms) {
    return tensorCoreDecode(shape, sms) && SdpaVectorMma.supports(shape, maskKind) == null;
  }

  /** {@link #TENSOR_CORE_DECODE_PROPERTY}, else the policy; anything but true/false is refused. */
  static boolean tensorCoreDecode(SdpaShape shape, int sms) {
    return BooleanProperty.get(TENSOR_CORE_DECODE_PROPERTY, tensorCoreDecodePolicy(shape, sms));
  }

  /**
   * The measured choice (B=1, Hq 32, Hkv 8, bf16, graph replay, bench/RESULTS.md): the tensor-core
   * kernel for every call it takes, except at D = 256 where {@link #stagedDecodePolicy} takes the
   * call (one row group over at least 16 block iterations a split, Lq = 1 from 8192 keys).
   *
   * <ul>
   *   <li>D = 64/128, run 38: 21–45% faster than {@link SdpaVector} for 2 and 3 queries per head at
   *       S ≥ 8192, 2–11% for one query at D = 64; run 39, with the 4-block hint at D = 128, one
   *       query 6.17 vs 6.24 µs at S = 1024, 13.50 vs 15.99 at 8192, 38.38 vs 44.45 at 32768.
   *   <li>D = 512 (the sliced form), runs 81 and 83 against the default of the time (staged from
   *       2048 keys at Lq = 1): equal or faster in all 18 cells of S 1024–32768 × Lq 1–3; Lq = 1
   *       8192 keys 39.0 vs 39.6, 4096 keys 23.82 vs 23.70 (the one cell within noise), Lq = 3 at
   *       8192 49.4 vs 88.0.
   *   <li>D = 256 (sliced, no hint: 5 blocks per SM), same runs: faster for Lq = 2–3 at every
   *       length (8192 keys, Lq = 2: 28.8 vs 36.5) and for Lq = 1 up to 4096 keys (14.57 vs 14.81),
   *       slower for Lq = 1 from 8192 keys (24.74 vs 23.38 staged; 16384: 40.64 vs 38.82; 32768:
   *       74.16 vs 69.13), where one row group leaves the mma's 16 columns three quarters empty and
   *       the staged kernel's deeper ring wins.
   * </ul>
   */
  static boolean tensorCoreDecodePolicy(SdpaShape shape, int sms) {
    return shape.headDim() != 256 || !stagedDecodePolicy(shape, sms);
  }

  /**
   * Whether the vector rung runs {@link SdpaVectorStaged} (K and V through a {@code cp.async} ring
   * in shared memory) for the calls {@link SdpaVectorMma} does not take: {@code
   * -Dsirocco.attention.vectorStaged=true|false} forces it on or off (read at every call); unset,
   * {@link #stagedDecodePolicy}.
   */
  static final String STAGED_DECODE_PROPERTY = "sirocco.attention.vectorStaged";

  /**
   * Whether the vector rung's launches start early ({@link KernelLaunch#withEarlyStart}; sm_90+):
   * pass 1 while the previous kernel in the stream finishes, the combine while pass 1 finishes.
   * Every pass-1 kernel and the combine wait for their predecessor before their first read; {@link
   * SdpaVectorMma} also releases the combine as each of its blocks starts. {@code
   * -Dsirocco.attention.earlyStart=true|false} forces the choice; unset, {@link #earlyStartPolicy}.
   */
  static final String EARLY_START_PROPERTY = "sirocco.attention.earlyStart";

  static boolean earlyStart(SdpaShape shape, SdpaVectorPlans.Plan p, boolean capturing) {
    return BooleanProperty.get(EARLY_START_PROPERTY, earlyStartPolicy(shape, p, capturing));
  }

  /**
   * The measured choice, by how the launches will run: {@code capturing} (recorded into a graph by
   * {@code CudaGraph.capture}, then replayed) or queued on the stream. Run 49 (B=1, Hq 32, Hkv 8,
   * bf16, S 1024/8192/32768, Lq 1–3, three alternating runs each): stream launches gain 0.5–3.5 µs
   * in every cell; in graph replay the tensor-core kernel gains 0.2–0.5 µs at D = 64 (8192 keys, Lq
   * = 1: 9.09 -> 8.81) and at D = 128 with Lq 1 or 3, and loses 0.7–0.8 µs at D = 128, Lq = 2 from
   * 8192 keys (14.56 -> 15.29; the cause was not measured). Runs 53 and 55 (the vector and staged
   * kernels at D = 256/512, Lq 1–3, pass 1 waiting but not releasing the combine, two alternating
   * runs): stream launches 3.3–4.1 µs faster in all 18 cells (D = 256, 1024 keys, Lq = 1: 11.52 ->
   * 8.16), graph replay 0–0.5 µs slower (7.90 -> 8.05). So: early start on a stream; in a graph
   * only for the tensor-core kernel, outside that one cell.
   */
  static boolean earlyStartPolicy(SdpaShape shape, SdpaVectorPlans.Plan p, boolean capturing) {
    if (!capturing) {
      return true;
    }
    return p.mma() && !(shape.headDim() == 128 && shape.qLen() == 2 && shape.kvLen() >= 8192);
  }

  /** {@link #STAGED_DECODE_PROPERTY}, else the policy; anything but true/false is refused. */
  static boolean stagedDecode(SdpaShape shape, int sms) {
    return BooleanProperty.get(STAGED_DECODE_PROPERTY, stagedDecodePolicy(shape, sms));
  }

  /**
   * The measured choice (bench/RESULTS.md runs 39–40, B=1, Hq 32, Hkv 8, bf16, graph replay, µs
   * staged vs {@link SdpaVector}): D = 512 when its plan gives every split at least 8 block
   * iterations (Lq = 1: 16.74 vs 17.55 at S = 2048, 39.97 vs 50.33 at 8192, 128.08 vs 170.23 at
   * 32768; slower at 1024, 12.73 vs 11.94, 4 iterations; Lq = 2–3 10–16% faster from 2048); D = 256
   * with one row group (Lq = 1 at GQA 4) and at least 16 iterations (24.29 vs 24.74 at 8192, 72.64
   * vs 75.72 at 32768; slower at 4096 and below, and for Lq = 2–3 at every length: two row groups
   * double the arithmetic per byte, and the vector kernel keeps 4 blocks per SM there against 2).
   * Masked calls follow the same rule (not timed separately: both kernels read the mask the same
   * way); other head dims stay on {@link SdpaVector} (staged D = 128 was faster at 32768 keys
   * without a mask, 38.91 vs 44.45 µs, but the tensor-core kernel takes those calls).
   */
  static boolean stagedDecodePolicy(SdpaShape shape, int sms) {
    int d = shape.headDim();
    if (d != 256 && d != 512) {
      return false;
    }
    SdpaVectorPlans.Plan p = SdpaVectorStaged.plan(shape, sms, 0);
    int iterations = p.splitKeys() / SdpaVectorPlans.keysPerIteration(d);
    return d == 512 ? iterations >= 8 : p.rowGroups() == 1 && iterations >= 16;
  }

  /** A true/false system property, {@code unset} when absent or blank; anything else refused. */
  /** {@link #SPLITS_PROPERTY}'s value, 0 when unset. */
  static int forcedSplits() {
    String v = System.getProperty(SPLITS_PROPERTY);
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      int k = Integer.parseInt(v.strip());
      if (k >= 1) {
        return k;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "-D" + SPLITS_PROPERTY + " must be a positive integer (key splits), got '" + v + "'");
  }

  /** The launch of {@link SdpaVector#decode} a plan describes, with the plan's occupancy hint. */
  static KernelLaunch decodeLaunch(SdpaVectorPlans.Plan p, Object[] args) {
    Method m =
        p.mma() ? DECODE_MMA : p.kernelClass() == SdpaVectorStaged.class ? DECODE_STAGED : DECODE;
    return KernelLaunch.of(m, p.grid(), p.block(), args).withMinBlocksPerSm(p.minBlocksPerSm());
  }

  /**
   * The unfused kernels, in chunks when the score buffer would exceed {@link SdpaOp#scoreBudget()}
   * floats ({@link FallbackChunks}): each chunk reuses one score buffer and writes a contiguous
   * range of the output (through a staging buffer and a device copy unless it is the whole call).
   */
  static Tensor runFallback(Launcher l, Call c) {
    Inputs in = l.inputs(c);
    FallbackChunks plan = SdpaOp.chunks(c);
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
  static final class Launcher implements AutoCloseable {
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
      launch(KernelLaunch.of(kernel, grid, block, args));
    }

    void launch(KernelLaunch launch) {
      device.launch(launch, stream);
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
          long[] b = SdpaValidation.broadcastStrides(m.shape(), dense, target);
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
  private static final Method DECODE_MMA = kernel(SdpaVectorMma.class, "decode");
  private static final Method DECODE_STAGED = kernel(SdpaVectorStaged.class, "decode");
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
