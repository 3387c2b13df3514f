package sirocco.dispatch.cudnn;

import static sirocco.dispatch.cudnn.CudnnConstants.*;

import java.util.ArrayList;
import java.util.List;
import sirocco.dispatch.cudnn.CudnnApi.Descriptor;

/**
 * Builds the SDPA forward operation graph that cuDNN's fused flash-attention engines accept, then
 * asks the heuristics for engine configs and finalizes the first execution plan that works.
 *
 * <p>The node pattern is cudnn-frontend's composite SDPA node (the path the frontend lowers to for
 * cuDNN below 9.21, which includes 9.14), inference flavour, written directly against the backend
 * API:
 *
 * <pre>
 *  S  = matmul(Q [B,Hq,Lq,D], Kᵀ [B,Hkv,D,Lkv])          float, virtual     (GQA: Hkv divides Hq)
 *  S1 = S · scale                                       scale: FLOAT by-value scalar
 *  S2 = S1 + bias                                       only for BIAS (bias [B|1, Hq|1, Lq, Lkv])
 *  causal (only for CAUSAL):
 *     row = gen_index(S1, axis 2), col = gen_index(S1, axis 3)        INT32
 *     row' = row + Lkv − Lq   (ADD by-value INT32 Lkv, SUB by-value INT32 Lq; only when Lq ≠ Lkv)
 *     keep = row' ≥ col                                               BOOLEAN
 *     S2 = select(keep ? S1 : −inf)                                    −inf: FLOAT by-value
 *  M = max over axis 3 of S2 [B,Hq,Lq,1];  E = exp(S2 − M);  Z = sum over axis 3 of E
 *  stats = M + log Z   (virtual: inference keeps it only because the engine's pattern has it)
 *  P = E / Z            virtual, in the I/O data type (what bmm2 takes)
 *  O = matmul(P, V [B,Hkv,Lkv,Dv])                       [B,Hq,Lq,Dv], I/O data type
 * </pre>
 *
 * Every intermediate is virtual and FLOAT unless noted; compute types are FLOAT except the index
 * arithmetic (INT32) and the comparison (BOOLEAN), as the frontend sets them. Tensor UIDs are fixed
 * for the non-virtual tensors ({@link #UID_Q} …) and numbered from 100 for virtual ones.
 */
final class CudnnSdpaGraph {
  static final long UID_Q = 1;
  static final long UID_K = 2;
  static final long UID_V = 3;
  static final long UID_O = 4;
  static final long UID_SCALE = 5;
  static final long UID_BIAS = 6;
  static final long UID_NEG_INF = 7;
  static final long UID_SEQ_Q = 8;
  static final long UID_SEQ_KV = 9;
  static final long FIRST_VIRTUAL_UID = 100;

  /** Heuristic modes tried in order (the frontend's usual choice: A, then FALLBACK). */
  static final int[] HEURISTIC_MODES = {HEUR_MODE_A, HEUR_MODE_FALLBACK};

  /** At most this many engine configs are tried per heuristic mode. */
  static final int MAX_CONFIGS_PER_MODE = 16;

  private final CudnnApi api;
  private final long handle;
  private final CudnnSdpaKey key;
  private final List<Descriptor> owned = new ArrayList<>();
  private final List<Descriptor> ops = new ArrayList<>();
  private final List<String> opNames = new ArrayList<>();
  private long nextVirtualUid = FIRST_VIRTUAL_UID;

  private CudnnSdpaGraph(CudnnApi api, long handle, CudnnSdpaKey key) {
    this.api = api;
    this.handle = handle;
    this.key = key;
  }

  /** The finalized operation graph and every descriptor made for it. */
  record Built(
      Descriptor graph, List<Descriptor> owned, List<String> opNames, long[] byValueUids) {}

  /**
   * Builds and finalizes the operation graph. On failure every descriptor made so far is destroyed
   * and the {@link CudnnException} propagates.
   */
  static Built build(CudnnApi api, long handle, CudnnSdpaKey key) {
    CudnnSdpaGraph g = new CudnnSdpaGraph(api, handle, key);
    try {
      return g.build();
    } catch (RuntimeException | Error e) {
      g.destroyAll();
      throw e;
    }
  }

  private void destroyAll() {
    // Unwinding after a failed build: the build's CudnnException is what the caller needs, and a
    // second one from a destroy would hide it.
    for (int i = owned.size() - 1; i >= 0; i--) {
      api.destroyQuietly(owned.get(i));
    }
    owned.clear();
  }

  private Descriptor make(int type) {
    Descriptor d = api.create(type);
    owned.add(d);
    return d;
  }

  // ---- tensors ----

  private Descriptor tensor(
      long uid, long[] dims, long[] strides, int dataType, boolean isVirtual, boolean byValue) {
    Descriptor t = make(TENSOR_DESCRIPTOR);
    api.setDataType(t, ATTR_TENSOR_DATA_TYPE, dataType);
    api.setInt64(t, ATTR_TENSOR_DIMENSIONS, dims);
    api.setInt64(t, ATTR_TENSOR_STRIDES, strides);
    api.setInt64(t, ATTR_TENSOR_UNIQUE_ID, uid);
    api.setInt64(t, ATTR_TENSOR_BYTE_ALIGNMENT, 16);
    api.setBoolean(t, ATTR_TENSOR_IS_VIRTUAL, isVirtual);
    if (byValue) {
      api.setBoolean(t, ATTR_TENSOR_IS_BY_VALUE, true);
    }
    api.finalizeDescriptor(t);
    return t;
  }

  private Descriptor virtual(long[] dims, int dataType) {
    return tensor(nextVirtualUid++, dims, packed(dims), dataType, true, false);
  }

  private Descriptor scalar(long uid, int dataType) {
    long[] one = {1, 1, 1, 1};
    return tensor(uid, one, one, dataType, false, true);
  }

  static long[] packed(long[] dims) {
    long[] s = new long[dims.length];
    long acc = 1;
    for (int i = dims.length - 1; i >= 0; i--) {
      s[i] = acc;
      acc *= dims[i];
    }
    return s;
  }

  // ---- operations ----

  private void matmul(String name, Descriptor a, Descriptor b, Descriptor c) {
    Descriptor mm = make(MATMUL_DESCRIPTOR);
    api.setDataType(mm, ATTR_MATMUL_COMP_TYPE, DATA_FLOAT);
    api.finalizeDescriptor(mm);
    Descriptor op = make(OPERATION_MATMUL_DESCRIPTOR);
    api.setDescriptors(op, ATTR_OPERATION_MATMUL_ADESC, a);
    api.setDescriptors(op, ATTR_OPERATION_MATMUL_BDESC, b);
    api.setDescriptors(op, ATTR_OPERATION_MATMUL_CDESC, c);
    api.setDescriptors(op, ATTR_OPERATION_MATMUL_DESC, mm);
    api.finalizeDescriptor(op);
    addOp(op, name);
  }

  /**
   * A pointwise operation: x → y (unary), (x, b) → y (binary) or (x, b, t) → y (BINARY_SELECT: y =
   * t ? x : b). {@code axis} ≥ 0 is set only for GEN_INDEX.
   */
  private void pointwise(
      String name,
      int mode,
      int computeType,
      int axis,
      Descriptor x,
      Descriptor b,
      Descriptor t,
      Descriptor y) {
    Descriptor pw = make(POINTWISE_DESCRIPTOR);
    api.set(pw, ATTR_POINTWISE_MODE, TYPE_POINTWISE_MODE, mode);
    api.setDataType(pw, ATTR_POINTWISE_MATH_PREC, computeType);
    if (mode == PW_GEN_INDEX) {
      api.setInt64(pw, ATTR_POINTWISE_AXIS, axis);
    }
    api.finalizeDescriptor(pw);
    Descriptor op = make(OPERATION_POINTWISE_DESCRIPTOR);
    api.setDescriptors(op, ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
    api.setDescriptors(op, ATTR_OPERATION_POINTWISE_XDESC, x);
    api.setDescriptors(op, ATTR_OPERATION_POINTWISE_YDESC, y);
    api.setFloat(op, ATTR_OPERATION_POINTWISE_ALPHA1, 1f);
    api.setFloat(op, ATTR_OPERATION_POINTWISE_ALPHA2, 1f);
    if (b != null) {
      api.setDescriptors(op, ATTR_OPERATION_POINTWISE_BDESC, b);
    }
    if (t != null) {
      api.setDescriptors(op, ATTR_OPERATION_POINTWISE_TDESC, t);
    }
    api.finalizeDescriptor(op);
    addOp(op, name);
  }

  private void reduction(String name, int operator, Descriptor x, Descriptor y) {
    Descriptor r = make(REDUCTION_DESCRIPTOR);
    api.set(r, ATTR_REDUCTION_OPERATOR, TYPE_REDUCTION_OPERATOR_TYPE, operator);
    api.setDataType(r, ATTR_REDUCTION_COMP_TYPE, DATA_FLOAT);
    api.finalizeDescriptor(r);
    Descriptor op = make(OPERATION_REDUCTION_DESCRIPTOR);
    api.setDescriptors(op, ATTR_OPERATION_REDUCTION_XDESC, x);
    api.setDescriptors(op, ATTR_OPERATION_REDUCTION_YDESC, y);
    api.setDescriptors(op, ATTR_OPERATION_REDUCTION_DESC, r);
    api.finalizeDescriptor(op);
    addOp(op, name);
  }

  private void addOp(Descriptor op, String name) {
    ops.add(op);
    opNames.add(name);
  }

  // ---- the graph ----

  private Built build() {
    CudnnSdpaKey k = key;
    int io = k.dataType;
    long[] scoreDims = {k.b, k.hq, k.lq, k.lkv};
    long[] rowDims = {k.b, k.hq, k.lq, 1};

    Descriptor q = tensor(UID_Q, new long[] {k.b, k.hq, k.lq, k.d}, k.qStrides, io, false, false);
    // cuDNN's first matmul takes Kᵀ: K's [B, Hkv, Lkv, D] with the last two dims and strides
    // swapped.
    Descriptor kt =
        tensor(
            UID_K,
            new long[] {k.b, k.hkv, k.d, k.lkv},
            new long[] {k.kStrides[0], k.kStrides[1], k.kStrides[3], k.kStrides[2]},
            io,
            false,
            false);
    Descriptor v =
        tensor(UID_V, new long[] {k.b, k.hkv, k.lkv, k.dv}, k.vStrides, io, false, false);
    Descriptor o = tensor(UID_O, new long[] {k.b, k.hq, k.lq, k.dv}, k.oStrides, io, false, false);
    Descriptor scale = scalar(UID_SCALE, DATA_FLOAT);
    List<Long> byValue = new ArrayList<>(List.of(UID_SCALE));

    Descriptor s = virtual(scoreDims, DATA_FLOAT);
    matmul("bmm1 Q·Kᵀ", q, kt, s);
    Descriptor scaled = virtual(scoreDims, DATA_FLOAT);
    pointwise("attn_scale MUL", PW_MUL, DATA_FLOAT, -1, s, scale, null, scaled);
    Descriptor last = scaled;

    if (k.mask == CudnnSdpaKey.MaskKind.BIAS) {
      Descriptor bias = tensor(UID_BIAS, k.biasDims, k.biasStrides, io, false, false);
      Descriptor biased = virtual(scoreDims, DATA_FLOAT);
      pointwise("bias ADD", PW_ADD, DATA_FLOAT, -1, last, bias, null, biased);
      last = biased;
    } else if (k.mask == CudnnSdpaKey.MaskKind.CAUSAL) {
      Descriptor row = virtual(scoreDims, DATA_INT32);
      pointwise("gen_row_index", PW_GEN_INDEX, DATA_FLOAT, 2, last, null, null, row);
      Descriptor col = virtual(scoreDims, DATA_INT32);
      pointwise("gen_col_index", PW_GEN_INDEX, DATA_FLOAT, 3, last, null, null, col);
      if (k.causalNeedsShift()) {
        // Bottom-right alignment: query i sees keys j ≤ i + Lkv − Lq.
        Descriptor seqKv = scalar(UID_SEQ_KV, DATA_INT32);
        Descriptor seqQ = scalar(UID_SEQ_Q, DATA_INT32);
        byValue.add(UID_SEQ_KV);
        byValue.add(UID_SEQ_Q);
        Descriptor plusKv = virtual(scoreDims, DATA_INT32);
        pointwise("row+skv ADD", PW_ADD, DATA_INT32, -1, row, seqKv, null, plusKv);
        Descriptor shifted = virtual(scoreDims, DATA_INT32);
        pointwise("row+skv-sq SUB", PW_SUB, DATA_INT32, -1, plusKv, seqQ, null, shifted);
        row = shifted;
      }
      Descriptor keep = virtual(scoreDims, DATA_BOOLEAN);
      pointwise("row>=col CMP_GE", PW_CMP_GE, DATA_BOOLEAN, -1, row, col, null, keep);
      Descriptor negInf = scalar(UID_NEG_INF, DATA_FLOAT);
      byValue.add(UID_NEG_INF);
      Descriptor masked = virtual(scoreDims, DATA_FLOAT);
      pointwise(
          "causal BINARY_SELECT", PW_BINARY_SELECT, DATA_FLOAT, -1, last, negInf, keep, masked);
      last = masked;
    }

    // Softmax, composite form.
    Descriptor max = virtual(rowDims, DATA_FLOAT);
    reduction("softmax max", REDUCE_MAX, last, max);
    Descriptor sub = virtual(scoreDims, DATA_FLOAT);
    pointwise("softmax SUB", PW_SUB, DATA_FLOAT, -1, last, max, null, sub);
    Descriptor exp = virtual(scoreDims, DATA_FLOAT);
    pointwise("softmax EXP", PW_EXP, DATA_FLOAT, -1, sub, null, null, exp);
    Descriptor sum = virtual(rowDims, DATA_FLOAT);
    reduction("softmax sum", REDUCE_ADD, exp, sum);
    Descriptor log = virtual(rowDims, DATA_FLOAT);
    pointwise("softmax LOG", PW_LOG, DATA_FLOAT, -1, sum, null, null, log);
    Descriptor stats = virtual(rowDims, DATA_FLOAT);
    pointwise("softmax stats ADD", PW_ADD, DATA_FLOAT, -1, max, log, null, stats);
    Descriptor p = virtual(scoreDims, io);
    pointwise("softmax DIV", PW_DIV, DATA_FLOAT, -1, exp, sum, null, p);

    matmul("bmm2 P·V", p, v, o);

    Descriptor graph = make(OPERATIONGRAPH_DESCRIPTOR);
    api.set(graph, ATTR_OPERATIONGRAPH_HANDLE, TYPE_HANDLE, handle);
    api.setDescriptors(graph, ATTR_OPERATIONGRAPH_OPS, ops.toArray(new Descriptor[0]));
    api.finalizeDescriptor(graph);

    long[] bv = byValue.stream().mapToLong(Long::longValue).toArray();
    return new Built(graph, List.copyOf(owned), List.copyOf(opNames), bv);
  }

  // ---- heuristics and plans ----

  /** A finalized execution plan, or why none could be made. */
  record Planned(
      Descriptor plan,
      long workspaceBytes,
      String engine,
      List<String> rejected,
      List<Descriptor> owned,
      long[] byValueUids,
      String failure) {
    boolean ok() {
      return plan != null;
    }
  }

  /** A finalized execution plan cuDNN offered for a graph, not yet chosen. */
  record Candidate(Descriptor config, Descriptor plan, long workspaceBytes, String engine) {}

  /**
   * The finalized plans for one graph, in the order the heuristics ranked them, or why there are
   * none ({@code failure}; then nothing is left alive). Until {@link #choose} the caller owns every
   * descriptor here.
   */
  record Candidates(Built built, List<Candidate> list, List<String> rejected, String failure) {
    boolean ok() {
      return failure == null;
    }
  }

  /**
   * Builds the graph and finds a plan: for each heuristic mode, the configs in the order cuDNN
   * ranks them, until one finalizes. Every config that fails is recorded with cuDNN's reason. Never
   * leaves descriptors behind on failure; on success the returned {@code owned} list holds every
   * descriptor the plan needs (destroy it when the plan is evicted).
   */
  static Planned plan(CudnnApi api, long handle, CudnnSdpaKey key) {
    Candidates c = candidates(api, handle, key, 1);
    return c.ok() ? choose(api, c, 0, "") : failed(c);
  }

  /** A plan that records why {@code c} has no candidate. */
  static Planned failed(Candidates c) {
    return new Planned(null, 0, null, c.rejected(), List.of(), new long[0], c.failure());
  }

  /**
   * Builds the graph and finalizes up to {@code max} plans: heuristics mode A's configs in its
   * order, and FALLBACK's only when A gave none. Configs cuDNN refuses are recorded with its
   * reason.
   */
  static Candidates candidates(CudnnApi api, long handle, CudnnSdpaKey key, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max candidates must be >= 1, got " + max);
    }
    Built built;
    try {
      built = build(api, handle, key);
    } catch (CudnnException e) {
      return new Candidates(null, List.of(), List.of(), "graph not built: " + e.getMessage());
    }
    List<String> rejected = new ArrayList<>();
    List<Candidate> found = new ArrayList<>();
    for (int mode : HEURISTIC_MODES) {
      if (!found.isEmpty()) {
        break;
      }
      String modeName =
          mode == HEUR_MODE_A ? "A" : mode == HEUR_MODE_FALLBACK ? "FALLBACK" : "" + mode;
      Descriptor heur = null;
      List<Descriptor> configs = new ArrayList<>();
      try {
        heur = api.create(ENGINEHEUR_DESCRIPTOR);
        api.setDescriptors(heur, ATTR_ENGINEHEUR_OPERATION_GRAPH, built.graph());
        api.set(heur, ATTR_ENGINEHEUR_MODE, TYPE_HEUR_MODE, mode);
        api.finalizeDescriptor(heur);
        long n = api.get(heur, ATTR_ENGINEHEUR_RESULTS, TYPE_BACKEND_DESCRIPTOR, new long[0]);
        n = Math.min(n, MAX_CONFIGS_PER_MODE);
        if (n <= 0) {
          rejected.add("heuristics " + modeName + ": no engine configs");
          continue;
        }
        long[] addresses = new long[(int) n];
        for (int i = 0; i < n; i++) {
          Descriptor c = api.create(ENGINECFG_DESCRIPTOR);
          configs.add(c);
          addresses[i] = c.address();
        }
        long got = api.get(heur, ATTR_ENGINEHEUR_RESULTS, TYPE_BACKEND_DESCRIPTOR, addresses);
        for (int i = 0; i < Math.min(got, n) && found.size() < max; i++) {
          Descriptor cfg = configs.get(i);
          String tag = describeConfig(api, cfg);
          Descriptor plan = api.create(EXECUTION_PLAN_DESCRIPTOR);
          try {
            api.set(plan, ATTR_EXECUTION_PLAN_HANDLE, TYPE_HANDLE, handle);
            api.setDescriptors(plan, ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg);
            api.finalizeDescriptor(plan);
            long ws = api.getInt64(plan, ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
            found.add(
                new Candidate(cfg, plan, ws, "heuristics " + modeName + " #" + i + " " + tag));
            configs.set(i, null); // kept: no longer scratch
          } catch (CudnnException e) {
            rejected.add("heuristics " + modeName + " #" + i + " " + tag + ": " + e.shortReason());
            // Unwinding a candidate cuDNN rejected: candidates() reports, it does not throw.
            api.destroyQuietly(plan);
          }
        }
      } catch (CudnnException e) {
        rejected.add("heuristics " + modeName + ": " + e.getMessage());
      } finally {
        // Scratch descriptors, also on the success path: a throw from here would drop plans
        // already made (leaking their descriptors) for a leak the caller cannot act on.
        for (Descriptor c : configs) {
          if (c != null) {
            api.destroyQuietly(c);
          }
        }
        if (heur != null) {
          api.destroyQuietly(heur);
        }
      }
    }
    if (found.isEmpty()) {
      // Unwinding: no mode gave a plan, and the reason returned is the rejections, not a destroy.
      for (int i = built.owned().size() - 1; i >= 0; i--) {
        api.destroyQuietly(built.owned().get(i));
      }
      String why =
          rejected.isEmpty()
              ? "no execution plan: cuDNN offered no engine config"
              : "no execution plan finalized: " + String.join("; ", rejected);
      return new Candidates(null, List.of(), List.copyOf(rejected), why);
    }
    return new Candidates(built, List.copyOf(found), List.copyOf(rejected), null);
  }

  /**
   * Keeps candidate {@code index} (its engine tag followed by {@code note}) and destroys the other
   * candidates' plans and configs; the returned plan owns the graph's descriptors and its own.
   */
  static Planned choose(CudnnApi api, Candidates c, int index, String note) {
    if (!c.ok() || index < 0 || index >= c.list().size()) {
      throw new IllegalArgumentException(
          "index must name one of " + c.list().size() + " candidates, got " + index);
    }
    List<Descriptor> owned = new ArrayList<>(c.built().owned());
    for (int i = 0; i < c.list().size(); i++) {
      Candidate k = c.list().get(i);
      if (i == index) {
        owned.add(k.config());
        owned.add(k.plan());
      } else {
        // Losers of the choice: nothing the caller could do about a failed destroy.
        api.destroyQuietly(k.plan());
        api.destroyQuietly(k.config());
      }
    }
    Candidate k = c.list().get(index);
    return new Planned(
        k.plan(),
        k.workspaceBytes(),
        k.engine() + note,
        c.rejected(),
        List.copyOf(owned),
        c.built().byValueUids(),
        null);
  }

  /**
   * "eng12 k2=3 k17=1 [runtime-compiled]": the engine's global index and knob choices, as the
   * frontend tags plans. Best effort: a failing query leaves its part out.
   */
  static String describeConfig(CudnnApi api, Descriptor cfg) {
    StringBuilder b = new StringBuilder();
    Descriptor engine = null;
    try {
      engine = api.create(ENGINE_DESCRIPTOR);
      api.get(cfg, ATTR_ENGINECFG_ENGINE, TYPE_BACKEND_DESCRIPTOR, new long[] {engine.address()});
      b.append("eng").append(api.getInt64(engine, ATTR_ENGINE_GLOBAL_INDEX));
      long[] notes = new long[8];
      long n = api.get(engine, ATTR_ENGINE_BEHAVIOR_NOTE, TYPE_BEHAVIOR_NOTE, notes);
      for (int i = 0; i < Math.min(n, notes.length); i++) {
        if (notes[i] == BEHAVIOR_NOTE_RUNTIME_COMPILATION) {
          b.append(" [runtime-compiled]");
        }
      }
    } catch (CudnnException e) {
      if (b.isEmpty()) {
        b.append("eng?");
      }
    } finally {
      // Scratch for a best-effort description: nothing the caller could do about a failure.
      if (engine != null) {
        api.destroyQuietly(engine);
      }
    }
    List<Descriptor> knobs = new ArrayList<>();
    try {
      long n = api.get(cfg, ATTR_ENGINECFG_KNOB_CHOICES, TYPE_BACKEND_DESCRIPTOR, new long[0]);
      n = Math.min(n, 32);
      long[] a = new long[(int) n];
      for (int i = 0; i < n; i++) {
        Descriptor kc = api.create(KNOB_CHOICE_DESCRIPTOR);
        knobs.add(kc);
        a[i] = kc.address();
      }
      long got = n == 0 ? 0 : api.get(cfg, ATTR_ENGINECFG_KNOB_CHOICES, TYPE_BACKEND_DESCRIPTOR, a);
      for (int i = 0; i < Math.min(got, n); i++) {
        long[] type = new long[1];
        api.get(knobs.get(i), ATTR_KNOB_CHOICE_KNOB_TYPE, TYPE_KNOB_TYPE, type);
        long value = api.getInt64(knobs.get(i), ATTR_KNOB_CHOICE_KNOB_VALUE);
        b.append(" k").append(type[0]).append('=').append(value);
      }
    } catch (CudnnException e) {
      // knobs are decoration
    } finally {
      for (Descriptor kc : knobs) {
        api.destroyQuietly(kc);
      }
    }
    return b.toString();
  }
}
