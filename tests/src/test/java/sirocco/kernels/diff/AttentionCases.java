package sirocco.kernels.diff;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaSplitK;
import sirocco.kernels.attention.SdpaStrides;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.attention.SdpaVectorStaged;
import sirocco.kernels.diff.Prepared.Kind;
import sirocco.kernels.diff.Prepared.Out;
import sirocco.kernels.diff.Prepared.Spec;
import sirocco.kernels.diff.Prepared.Tolerance;
import sirocco.runtime.Dim3;

/**
 * Case builders for the attention kernels. Geometry and argument lists come from the kernels' own
 * host helpers, the ones {@code SdpaOp} launches with: {@link SdpaUnfused#plan} and its {@code
 * *Args}, {@link SdpaVector#planFor} with the device's SM count and compute capability and {@link
 * SdpaVector#decodeArgs}, {@link SdpaSplitK#combinePlan} and {@link SdpaSplitK#combineArgs}. Arrays
 * a launch does not read get a one-element array, as {@code SdpaOp} passes its dummies. Tensors are
 * views with offsets and non-dense strides (transposed heads, a KV cache longer than the keys
 * used), so the kernels' index arithmetic is exercised.
 */
final class AttentionCases {
  private AttentionCases() {}

  /**
   * {@code Intrinsics.exp2} is {@code ex2.approx.f32} on the GPU (relative error up to 2^-22) and
   * correctly rounded on the Java backend; everything else is exact and in the same order, but once
   * a p = exp2(..) differs, every later rounding of a running sum may land one ulp apart. Float32
   * results are sums of a few dozen such terms: allowed 2^-14 relative plus 2^-16 of the array's
   * largest magnitude (sums that cancel towards zero, results that underflow into subnormals),
   * about ten times the worst chain estimated for these sizes and far below any indexing error.
   */
  static final Tolerance EXP2_F32 =
      new Tolerance(0x1p-14, 0x1p-16, "ex2.approx on the GPU vs correctly rounded exp2");

  /**
   * A 16-bit output computed in float32 from approximate exp2 values: the float results differ by
   * ~1e-6 of the values' scale, which can move one rounding to the other side: one ulp of the
   * output dtype, plus 2^-12 of the array's largest value for outputs near zero where the weighted
   * values cancel.
   */
  static Tolerance exp2Half(int dtype) {
    return new Tolerance(
        dtype == Sdpa.F16 ? 0x1p-10 : 0x1p-7,
        0x1p-12,
        "ex2.approx in float32, then one rounding to " + Sdpa.dtypeName(dtype));
  }

  static Kind kind(int dtype) {
    return switch (dtype) {
      case Sdpa.BF16 -> Kind.BF16;
      case Sdpa.F16 -> Kind.F16;
      default -> Kind.F32;
    };
  }

  /** A tensor's values in {@code dtype}'s storage: {@code short[]} bits or {@code float[]}. */
  private static Object store(int dtype, float[] v) {
    return Gen.floats(dtype, v);
  }

  // ---- unfused fallback ----

  /** B=2, Hq=4, Hkv=2, Lq=5, Lkv=37 (not a multiple of the unroll by 4), D=42, Dv=24. */
  private static final SdpaShape UNFUSED = new SdpaShape(2, 4, 2, 5, 37, 42, 24);

  /** q stored [B, Lq, Hq, D] from element 3: heads and queries transposed. */
  private static SdpaStrides qTransposed(SdpaShape s, int offset) {
    int d = s.headDim();
    return new SdpaStrides(offset, s.qLen() * s.qHeads() * d, d, s.qHeads() * d, 1);
  }

  static Prepared scores(Method m, Spec sp) {
    boolean f32 = m.getName().equals("scores32");
    int dtype = f32 ? Sdpa.F32 : sp.i("dtype");
    int maskKind = sp.i("maskKind");
    SdpaShape s = UNFUSED;
    Random r = sp.rnd();
    int d = s.headDim();
    SdpaStrides qs = qTransposed(s, 3);
    int qLen = 3 + s.batch() * s.qLen() * s.qHeads() * d;
    // k stored [B, Hkv, D, cap]: the last axis has stride cap (the unfused kernels take any).
    int cap = s.kvLen() + 3;
    SdpaStrides ks = new SdpaStrides(0, s.kvHeads() * d * cap, d * cap, 1, cap);
    int kLen = s.batch() * s.kvHeads() * d * cap;
    Object maskAdd = new float[1];
    Object maskBool = new byte[1];
    SdpaStrides ms = null;
    int lq = s.qLen();
    int lkv = s.kvLen();
    if (maskKind == Sdpa.MASK_ADDITIVE) {
      // [1, Hq, Lq, Lkv] broadcast over the batch, from element 2; some keys -inf, one row fully.
      float[] a =
          Gen.sprinkle(
              r, Gen.normal(r, 2 + s.qHeads() * lq * lkv, 2.0), 0.1, Float.NEGATIVE_INFINITY);
      for (int j = 0; j < lkv; j++) {
        a[2 + (1 * lq + 0) * lkv + j] = Float.NEGATIVE_INFINITY;
      }
      a[2 + 7] = -Float.MAX_VALUE;
      maskAdd = a;
      ms = new SdpaStrides(2, 0, lq * lkv, lkv, 1);
    } else if (maskKind == Sdpa.MASK_BOOL) {
      // [B, 1, Lq, Lkv] broadcast over heads; non-zero values other than 1 keep too.
      byte[] a = new byte[s.batch() * lq * lkv];
      byte[] keep = {1, 2, 7, (byte) 0xF0, -1};
      for (int i = 0; i < a.length; i++) {
        a[i] = r.nextDouble() < 0.3 ? 0 : keep[r.nextInt(keep.length)];
      }
      java.util.Arrays.fill(a, 0, lkv, (byte) 0); // batch 0, query 0: every key masked
      maskBool = a;
      ms = new SdpaStrides(0, lq * lkv, 0, lkv, 1);
    }
    SdpaUnfused.Plan p = SdpaUnfused.plan(s);
    Object[] args =
        SdpaUnfused.scoresArgs(
            store(dtype, Gen.normal(r, qLen, 1.0)),
            store(dtype, Gen.normal(r, kLen, 1.0)),
            maskAdd,
            maskBool,
            Gen.poisonF32(p.scoreFloats()),
            s,
            qs,
            ks,
            ms,
            (float) (1 / Math.sqrt(d)),
            dtype,
            maskKind);
    return new Prepared(
        m,
        p.scoresGrid(),
        p.scoresBlock(),
        args,
        List.of(Out.of(4, Kind.F32, Tolerance.EXACT)),
        "dispatch",
        s + " " + Sdpa.maskName(maskKind));
  }

  static Prepared softmax(Method m, Spec sp) {
    boolean hasSinks = sp.b("hasSinks");
    SdpaShape s = new SdpaShape(2, 4, 2, 5, 70, 42, 24); // Lkv 70: each lane walks 2–3 keys
    Random r = sp.rnd();
    int rows = s.outputRows();
    int lkv = s.kvLen();
    // Scores of magnitude 1.5..10: never inside [0, 1], so a score left unwritten by the in-place
    // softmax cannot pass for a probability. Some keys are masked (-inf), one row entirely.
    float[] scores =
        Gen.sprinkle(r, Gen.signedMagnitudes(r, rows * lkv, 1.5, 10), 0.1, Float.NEGATIVE_INFINITY);
    java.util.Arrays.fill(scores, 3 * lkv, 4 * lkv, Float.NEGATIVE_INFINITY);
    float[] input = scores.clone();
    float[] sinks = hasSinks ? Gen.normal(r, s.qHeads(), 2.0) : new float[1];
    SdpaUnfused.Plan p = SdpaUnfused.plan(s);
    Prepared.ResultCheck probabilities =
        a -> {
          float[] o = (float[]) a;
          for (int row = 0; row < rows; row++) {
            double sum = 0;
            boolean allMasked = true;
            for (int j = 0; j < lkv; j++) {
              float v = o[row * lkv + j];
              if (!(v >= 0f && v <= 1f)) {
                return "element "
                    + (row * lkv + j)
                    + " = "
                    + v
                    + " is not a probability (unwritten?)";
              }
              sum += v;
              allMasked &= input[row * lkv + j] == Float.NEGATIVE_INFINITY;
            }
            if (allMasked ? sum != 0 : hasSinks ? sum > 1 + 1e-4 : Math.abs(sum - 1) > 1e-4) {
              return "row " + row + " sums to " + sum;
            }
          }
          return null;
        };
    return new Prepared(
        m,
        p.softmaxGrid(),
        p.softmaxBlock(),
        SdpaUnfused.softmaxArgs(scores, sinks, s, hasSinks),
        List.of(new Out(0, Kind.F32, EXP2_F32, false, null, probabilities)),
        "dispatch",
        s + (hasSinks ? " sinks" : ""));
  }

  static Prepared pv(Method m, Spec sp) {
    boolean f32 = m.getName().equals("pv32");
    int dtype = f32 ? Sdpa.F32 : sp.i("dtype");
    SdpaShape s = UNFUSED;
    Random r = sp.rnd();
    int rows = s.outputRows();
    int lkv = s.kvLen();
    int dv = s.valueDim();
    // Probabilities with exact zeros (masked keys); key 5 is masked in every row and its v rows are
    // +inf, which the kernel must skip rather than multiply by 0.
    float[] probs = Gen.sprinkle(r, Gen.uniform(r, rows * lkv, 0, 0.2), 0.2, 0f);
    for (int row = 0; row < rows; row++) {
      probs[row * lkv + 5] = 0f;
    }
    // v stored [B, Lkv, Hkv, Dv] from element 8.
    SdpaStrides vs = new SdpaStrides(8, lkv * s.kvHeads() * dv, dv, s.kvHeads() * dv, 1);
    float[] vv = Gen.normal(r, 8 + s.batch() * lkv * s.kvHeads() * dv, 1.0);
    for (int b = 0; b < s.batch(); b++) {
      for (int h = 0; h < s.kvHeads(); h++) {
        for (int e = 0; e < dv; e++) {
          vv[(int) vs.index(b, h, 5, e)] = Float.POSITIVE_INFINITY;
        }
      }
    }
    SdpaUnfused.Plan p = SdpaUnfused.plan(s);
    int outLen = rows * dv;
    Object out = f32 ? Gen.poisonF32(outLen) : Gen.poison16(outLen);
    return new Prepared(
        m,
        p.pvGrid(),
        p.pvBlock(),
        SdpaUnfused.pvArgs(probs, store(dtype, vv), out, s, vs, dtype),
        List.of(Out.of(2, kind(dtype), Tolerance.EXACT)),
        "dispatch",
        s.toString());
  }

  static Prepared widen(Method m, Spec sp) {
    int dtype = sp.i("dtype");
    int n = 1000;
    // The grid OpLauncher.widenInto and SdpaLaunches' denseFloat launch (both package-private).
    Dim3 grid = Dim3.of(Math.max(1, (n + SdpaUnfused.THREADS - 1) / SdpaUnfused.THREADS));
    return new Prepared(
        m,
        grid,
        Dim3.of(SdpaUnfused.THREADS),
        new Object[] {Gen.anyHalfBits(sp.rnd(), dtype, n), Gen.poisonF32(n), n, dtype},
        List.of(Out.of(1, Kind.F32, Tolerance.EXACT)),
        "dispatch",
        "n=" + n + " (every finite/inf bit pattern)");
  }

  // ---- vector decode and split-K combine ----

  static Prepared decode(Method m, Spec sp) {
    return decode(m, sp, SdpaVector.class);
  }

  /** {@link SdpaVectorMma#decode}: the vector case's inputs under the tensor-core kernel's plan. */
  static Prepared decodeMma(Method m, Spec sp) {
    return decode(m, sp, SdpaVectorMma.class);
  }

  /** {@link SdpaVectorStaged#decode}: the vector case's inputs under the staged kernel's plan. */
  static Prepared decodeStaged(Method m, Spec sp) {
    return decode(m, sp, SdpaVectorStaged.class);
  }

  static Prepared decode(Method m, Spec sp, Class<?> kernel) {
    boolean mma = kernel == SdpaVectorMma.class;
    int d = sp.i("headDim");
    int dtype = sp.i("dtype");
    int rows = sp.i("rows");
    int maskKind = sp.i("maskKind");
    boolean hasSinks = sp.b("hasSinks");
    boolean partial = sp.b("partial");
    boolean causal = maskKind == Sdpa.MASK_CAUSAL;
    // The default plan puts a GQA group's gqa*Lq rows in one block when there are at most 4 (8 for
    // the tensor-core kernel), so gqa*Lq = rows selects the variant; causal cases take Lq > 1 so
    // the mask differs per query.
    int lq = causal ? (rows % 3 == 0 ? 3 : rows % 2 == 0 ? 2 : 1) : (rows == 4 ? 2 : 1);
    int gqa = rows / lq;
    // One key split needs Lkv <= the keys of one block iteration; 2.5 iterations give 3 splits.
    int iter = mma ? SdpaVectorMma.iterationKeys(d) : SdpaVectorPlans.keysPerIteration(d);
    int lkv = partial ? iter * 5 / 2 + 1 : iter - 3;
    int batch = partial ? 1 : 2;
    int hkv = 2;
    SdpaShape s = new SdpaShape(batch, gqa * hkv, hkv, lq, lkv, d, d);
    Random r = sp.rnd();
    int hq = s.qHeads();
    SdpaStrides qs = qTransposed(s, 3);
    int cap = lkv + 5;
    SdpaStrides ks = SdpaStrides.cacheView(hkv, cap, d);
    ks = new SdpaStrides(8, ks.batch(), ks.head(), ks.seq(), 1);
    // v stored [B, cap, Hkv, D] from element 16.
    SdpaStrides vs = new SdpaStrides(16, cap * hkv * d, d, hkv * d, 1);
    int kvLen = 16 + batch * cap * hkv * d;
    Prepared.supported(SdpaVectorPlans.supports(s, dtype, ks, vs, maskKind));
    if (mma) {
      Prepared.supported(SdpaVectorMma.supports(s, maskKind));
    }
    SdpaVectorPlans.Plan plan =
        mma
            ? SdpaVectorMma.plan(s, sp.smCount())
            : kernel == SdpaVectorStaged.class
                ? SdpaVectorStaged.plan(s, sp.smCount(), 0)
                : SdpaVectorPlans.planFor(s, sp.smCount(), sp.arch(), dtype, maskKind);
    if (plan.rows() != rows) {
      throw new IllegalStateException("plan has rows=" + plan.rows() + ", spec " + rows);
    }
    Object maskAdd = new float[1];
    Object maskBool = new byte[1];
    SdpaStrides ms = null;
    if (maskKind == Sdpa.MASK_ADDITIVE) {
      // [B, Hq, Lq, Lkv] broadcast over the batch, from element 1; -inf keys and one finite
      // -MAX_VALUE (clamped, not -inf, by the kernel's base-2 conversion).
      float[] a =
          Gen.sprinkle(r, Gen.normal(r, 1 + hq * lq * lkv, 2.0), 0.15, Float.NEGATIVE_INFINITY);
      a[1 + 4] = -Float.MAX_VALUE;
      maskAdd = a;
      ms = new SdpaStrides(1, 0, lq * lkv, lkv, 1);
    } else if (maskKind == Sdpa.MASK_BOOL) {
      // [B, Hq, 1, Lkv] broadcast over queries; q head 1 of batch 0 sees no key at all.
      byte[] a = new byte[batch * hq * lkv];
      for (int i = 0; i < a.length; i++) {
        a[i] = (byte) (r.nextDouble() < 0.25 ? 0 : 1 + r.nextInt(100));
      }
      java.util.Arrays.fill(a, lkv, 2 * lkv, (byte) 0);
      maskBool = a;
      ms = new SdpaStrides(0, hq * lkv, lkv, 0, 1);
    }
    int rowsOut = s.outputRows();
    Object out = partial ? new short[1] : Gen.poison16(rowsOut * d);
    float[] partO = partial ? Gen.poisonF32(rowsOut * plan.splits() * d) : new float[1];
    float[] partML = partial ? Gen.poisonF32(rowsOut * plan.splits() * 2) : new float[1];
    float[] sinks = hasSinks ? Gen.normal(r, hq, 2.0) : new float[1];
    Object[] args =
        SdpaVectorPlans.decodeArgs(
            store(dtype, Gen.normal(r, 3 + batch * lq * hq * d, 1.0)),
            store(dtype, Gen.normal(r, kvLen, 1.0)),
            store(dtype, Gen.normal(r, kvLen, 1.0)),
            maskAdd,
            maskBool,
            sinks,
            out,
            partO,
            partML,
            s,
            qs,
            ks,
            vs,
            ms,
            1 / Math.sqrt(d),
            dtype,
            maskKind,
            hasSinks,
            plan);
    List<Out> outs = new ArrayList<>();
    if (partial) {
      outs.add(Out.of(7, Kind.F32, EXP2_F32));
      outs.add(Out.of(8, Kind.F32, EXP2_F32));
    } else {
      outs.add(Out.of(6, kind(dtype), exp2Half(dtype)));
    }
    return new Prepared(
        m,
        plan.grid(),
        plan.block(),
        args,
        outs,
        "dispatch",
        s + " " + Sdpa.maskName(maskKind) + " splits=" + plan.splits(),
        plan.minBlocksPerSm());
  }

  static Prepared combine(Method m, Spec sp) {
    int d = sp.i("headDim");
    int dtype = sp.i("dtype");
    boolean hasSinks = sp.b("hasSinks");
    SdpaShape s = new SdpaShape(1, 4, 2, 2, 100, d, d);
    // More splits than a combine block reads at once (16), and than its 128 threads read maxima.
    int splits = SdpaSplitK.THREADS + 19;
    Random r = sp.rnd();
    int rowsOut = s.outputRows();
    float[] partO = new float[rowsOut * splits * d];
    float[] partML = new float[rowsOut * splits * 2];
    for (int row = 0; row < rowsOut; row++) {
      for (int sp2 = 0; sp2 < splits; sp2++) {
        int at = row * splits + sp2;
        // A split that saw no unmasked key has max -inf and sum 0; row 3 has no key at all.
        boolean empty = row == 3 || r.nextDouble() < 0.1;
        float l = empty ? 0f : (float) (1 + r.nextDouble() * 40);
        partML[at * 2] = empty ? Float.NEGATIVE_INFINITY : (float) (-5 + r.nextDouble() * 25);
        partML[at * 2 + 1] = l;
        for (int e = 0; e < d; e++) {
          partO[at * d + e] = empty ? 0f : (float) (r.nextGaussian() * 0.5 * l);
        }
      }
    }
    float[] sinks = hasSinks ? Gen.normal(r, s.qHeads(), 2.0) : new float[1];
    SdpaSplitK.CombinePlan p = SdpaSplitK.combinePlan(s, splits);
    return new Prepared(
        m,
        p.grid(),
        p.block(),
        SdpaSplitK.combineArgs(
            partO, partML, sinks, Gen.poison16(rowsOut * d), s, splits, dtype, hasSinks),
        List.of(Out.of(3, kind(dtype), exp2Half(dtype))),
        "dispatch",
        "rows=" + rowsOut + " splits=" + splits + " D=" + d + (hasSinks ? " sinks" : ""));
  }
}
