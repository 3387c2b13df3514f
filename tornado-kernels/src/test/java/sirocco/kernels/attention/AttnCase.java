package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import sirocco.api.Bf16;
import sirocco.api.KernelContext;
import sirocco.runtime.host.HostGridRunner;

/**
 * One attention problem for the tests: logical tensors (values exactly representable in the dtype),
 * their placement in strided storage (cache views, seq-major layouts, offsets) with NaN in every
 * element a kernel must not read, an independent float64 oracle written from the math, and runners
 * for the kernels on the Java backend that poison every output with NaN first.
 *
 * <p>The oracle deliberately shares no code with the kernels or their {@code reference} methods: it
 * works on the logical arrays, never on strides.
 */
final class AttnCase {
  /** Value of mask element (b, h, i, j): additive value, or non-zero = keep for boolean masks. */
  interface MaskValues {
    double at(int b, int h, int i, int j);
  }

  /** A distribution of logical values. */
  interface Dist {
    double draw(SplittableRandom rnd);

    static Dist normal(double std) {
      return r -> std * r.nextGaussian();
    }

    static Dist uniform(double lo, double hi) {
      return r -> lo + (hi - lo) * r.nextDouble();
    }
  }

  /** A uniform [0, 1) value fixed by (seed, b, h, i, j): masks that do not depend on draw order. */
  static double hashUniform(long seed, int b, int h, int i, int j) {
    long x = seed * 0x9E3779B97F4A7C15L;
    x = (x ^ b) * 0xBF58476D1CE4E5B9L;
    x = (x ^ h) * 0x94D049BB133111EBL;
    x = (x ^ i) * 0xBF58476D1CE4E5B9L;
    x = (x ^ j) * 0x94D049BB133111EBL;
    x ^= x >>> 31;
    x *= 0xBF58476D1CE4E5B9L;
    x ^= x >>> 29;
    return (x >>> 11) * 0x1.0p-53;
  }

  // ---- configuration ----
  int batch = 1;
  int hq = 1;
  int hkv = 1;
  int lq = 1;
  int lkv = 1;
  int headDim = 64;
  int valueDim = -1; // -1: same as headDim
  int dtype = Sdpa.BF16;
  int maskKind = Sdpa.MASK_NONE;
  double scale = Double.NaN; // NaN: 1/sqrt(D)
  long seed = 0;
  Dist qDist = Dist.normal(1);
  Dist kDist = Dist.normal(1);
  Dist vDist = Dist.normal(1);

  /** Which mask axes are present (else broadcast, stride 0): batch, head, query, key. */
  boolean maskB = true;

  boolean maskH = true;
  boolean maskQ = true;
  boolean maskK = true;

  /** Mask storage with the axis order reversed (MLX's {@code (L, 1, Nq).T} masks). */
  boolean maskReversed;

  /** Additive mask values (default N(0, 1)) or boolean keep flags (default keep with p = 0.5). */
  MaskValues maskValues;

  boolean sinks;
  Dist sinkDist = Dist.normal(10);

  /** k/v are views of the first lkv rows of a cache with this many rows (-1: exactly lkv). */
  int cacheLen = -1;

  /** Storage [B, L, H, D] instead of [B, H, L, D] (MLX's "transposed" inputs). */
  boolean qSeqMajor;

  boolean kvSeqMajor;

  /** k/v stored {@code [B, H, D, L]}: the last logical axis has stride L (unfused kernels only). */
  boolean kvDimMajor;

  /** Element offsets of the views (k/v: multiples of 8 for the vector kernel). */
  int qOffset;

  int kvOffset;

  // ---- generated ----
  float[] q; // logical [B, Hq, Lq, D]
  float[] k; // logical [B, Hkv, Lkv, D]
  float[] v; // logical [B, Hkv, Lkv, Dv]
  double[] mask; // logical [B, Hq, Lq, Lkv] (expanded), null without a mask array
  float[] sinkValues; // [Hq]
  SdpaStrides qs;
  SdpaStrides ks;
  SdpaStrides vs;
  SdpaStrides ms;
  short[] q16;
  short[] k16;
  short[] v16;
  float[] q32;
  float[] k32;
  float[] v32;
  float[] maskAdd = new float[1];
  byte[] maskBool = new byte[1];
  float[] sinkArray = new float[1];

  int dv() {
    return valueDim < 0 ? headDim : valueDim;
  }

  double effectiveScale() {
    return Double.isNaN(scale) ? 1.0 / Math.sqrt(headDim) : scale;
  }

  SdpaShape shape() {
    return new SdpaShape(batch, hq, hkv, lq, lkv, headDim, dv());
  }

  @Override
  public String toString() {
    return shape()
        + " "
        + Sdpa.dtypeName(dtype)
        + " mask="
        + Sdpa.maskName(maskKind)
        + (sinks ? " sinks" : "")
        + (cacheLen >= 0 ? " cache" + cacheLen : "")
        + (qSeqMajor || kvSeqMajor ? " seq-major" : "")
        + (kvDimMajor ? " dim-major" : "")
        + " seed"
        + seed;
  }

  float round(double x) {
    return switch (dtype) {
      case Sdpa.BF16 -> Bf16.toFloat(Bf16.fromFloat((float) x));
      case Sdpa.F16 -> Float.float16ToFloat(Float.floatToFloat16((float) x));
      default -> (float) x;
    };
  }

  private short bits(float x) {
    return dtype == Sdpa.F16 ? Float.floatToFloat16(x) : Bf16.fromFloat(x);
  }

  /** Draws the logical tensors and lays them out in storage. */
  AttnCase generate() {
    SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 12345);
    int d = headDim;
    int dv = dv();
    q = new float[batch * hq * lq * d];
    k = new float[batch * hkv * lkv * d];
    v = new float[batch * hkv * lkv * dv];
    for (int i = 0; i < q.length; i++) {
      q[i] = round(qDist.draw(rnd));
    }
    for (int i = 0; i < k.length; i++) {
      k[i] = round(kDist.draw(rnd));
    }
    for (int i = 0; i < v.length; i++) {
      v[i] = round(vDist.draw(rnd));
    }
    if (sinks) {
      sinkValues = new float[hq];
      for (int h = 0; h < hq; h++) {
        sinkValues[h] = (float) sinkDist.draw(rnd);
      }
      sinkArray = sinkValues.clone();
    }
    layout(rnd);
    return this;
  }

  /** Overwrites key row j of every kv head's k with {@code value} (the −inf key case). */
  AttnCase setKeyRow(int j, float value) {
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hkv; h++) {
        for (int e = 0; e < headDim; e++) {
          k[((b * hkv + h) * lkv + j) * headDim + e] = value;
        }
      }
    }
    layout(new SplittableRandom(seed + 99));
    return this;
  }

  /** Sets every q element to {@code value}. */
  AttnCase fillQ(float value) {
    Arrays.fill(q, value);
    layout(new SplittableRandom(seed + 98));
    return this;
  }

  private void layout(SplittableRandom rnd) {
    oracle = null;
    int d = headDim;
    int dv = dv();
    int cache = cacheLen < 0 ? lkv : cacheLen;
    if (cache < lkv) {
      throw new IllegalArgumentException("cacheLen < lkv");
    }
    qs =
        qSeqMajor
            ? new SdpaStrides(qOffset, lq * hq * d, d, hq * d, 1)
            : new SdpaStrides(qOffset, hq * lq * d, lq * d, d, 1);
    ks =
        kvDimMajor
            ? new SdpaStrides(kvOffset, hkv * cache * d, d * cache, 1, cache)
            : kvSeqMajor
                ? new SdpaStrides(kvOffset, cache * hkv * d, d, hkv * d, 1)
                : new SdpaStrides(kvOffset, hkv * cache * d, cache * d, d, 1);
    vs =
        kvDimMajor
            ? new SdpaStrides(kvOffset, hkv * cache * dv, dv * cache, 1, cache)
            : kvSeqMajor
                ? new SdpaStrides(kvOffset, cache * hkv * dv, dv, hkv * dv, 1)
                : new SdpaStrides(kvOffset, hkv * cache * dv, cache * dv, dv, 1);
    int qLen = qOffset + batch * hq * lq * d;
    int kLen = kvOffset + batch * hkv * cache * d;
    int vLen = kvOffset + batch * hkv * cache * dv;
    if (dtype == Sdpa.F32) {
      q32 = nanFloats(qLen);
      k32 = nanFloats(kLen);
      v32 = nanFloats(vLen);
    } else {
      short nan = dtype == Sdpa.F16 ? (short) 0x7E00 : (short) 0x7FC0;
      q16 = filled(qLen, nan);
      k16 = filled(kLen, nan);
      v16 = filled(vLen, nan);
    }
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hq; h++) {
        for (int i = 0; i < lq; i++) {
          for (int e = 0; e < d; e++) {
            store('q', (int) qs.index(b, h, i, e), q[((b * hq + h) * lq + i) * d + e]);
          }
        }
      }
      for (int h = 0; h < hkv; h++) {
        for (int j = 0; j < lkv; j++) {
          for (int e = 0; e < d; e++) {
            store('k', (int) ks.index(b, h, j, e), k[((b * hkv + h) * lkv + j) * d + e]);
          }
          for (int e = 0; e < dv; e++) {
            store('v', (int) vs.index(b, h, j, e), v[((b * hkv + h) * lkv + j) * dv + e]);
          }
        }
      }
    }
    if (maskKind == Sdpa.MASK_ADDITIVE || maskKind == Sdpa.MASK_BOOL) {
      layoutMask(rnd);
    } else {
      mask = null;
      ms = null;
    }
  }

  private void layoutMask(SplittableRandom rnd) {
    int[] sizes = {maskB ? batch : 1, maskH ? hq : 1, maskQ ? lq : 1, maskK ? lkv : 1};
    int[] stride = new int[4];
    int acc = 1;
    if (maskReversed) {
      for (int a = 0; a < 4; a++) {
        stride[a] = sizes[a] == 1 ? 0 : acc;
        acc *= sizes[a];
      }
    } else {
      for (int a = 3; a >= 0; a--) {
        stride[a] = sizes[a] == 1 ? 0 : acc;
        acc *= sizes[a];
      }
    }
    int count = acc;
    ms = new SdpaStrides(0, stride[0], stride[1], stride[2], stride[3]);
    boolean bool = maskKind == Sdpa.MASK_BOOL;
    // Draw the stored elements (broadcast axes share one value), then expand logically.
    double[] stored = new double[count];
    for (int b = 0; b < sizes[0]; b++) {
      for (int h = 0; h < sizes[1]; h++) {
        for (int i = 0; i < sizes[2]; i++) {
          for (int j = 0; j < sizes[3]; j++) {
            int at = (int) ms.index(b, h, i, j);
            double x;
            if (maskValues != null) {
              x = maskValues.at(b, h, i, j);
            } else {
              x = bool ? (rnd.nextDouble() < 0.5 ? 1 : 0) : rnd.nextGaussian();
            }
            stored[at] = bool ? (x != 0 ? 1 : 0) : (float) x;
          }
        }
      }
    }
    if (bool) {
      maskBool = new byte[count];
      for (int i = 0; i < count; i++) {
        maskBool[i] = (byte) stored[i];
      }
    } else {
      maskAdd = new float[count];
      for (int i = 0; i < count; i++) {
        maskAdd[i] = (float) stored[i];
      }
    }
    mask = new double[batch * hq * lq * lkv];
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hq; h++) {
        for (int i = 0; i < lq; i++) {
          for (int j = 0; j < lkv; j++) {
            int at = (int) ms.index(maskB ? b : 0, maskH ? h : 0, maskQ ? i : 0, maskK ? j : 0);
            mask[((b * hq + h) * lq + i) * lkv + j] = stored[at];
          }
        }
      }
    }
  }

  private void store(char which, int at, float value) {
    if (dtype == Sdpa.F32) {
      (which == 'q' ? q32 : which == 'k' ? k32 : v32)[at] = value;
    } else {
      (which == 'q' ? q16 : which == 'k' ? k16 : v16)[at] = bits(value);
    }
  }

  private static float[] nanFloats(int n) {
    float[] a = new float[n];
    Arrays.fill(a, Float.NaN);
    return a;
  }

  private static short[] filled(int n, short value) {
    short[] a = new short[n];
    Arrays.fill(a, value);
    return a;
  }

  // ---- the float64 oracle ----

  private double[] oracle;

  /** Expected output {@code [B, Hq, Lq, Dv]} in float64, from the logical tensors (cached). */
  double[] oracle() {
    if (oracle == null) {
      oracle = computeOracle();
    }
    return oracle;
  }

  private double[] computeOracle() {
    int d = headDim;
    int dv = dv();
    int gqa = hq / hkv;
    double sc = effectiveScale();
    double[] out = new double[batch * hq * lq * dv];
    double[] logits = new double[lkv];
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hq; h++) {
        int hk = h / gqa;
        for (int i = 0; i < lq; i++) {
          double max = sinks ? sinkValues[h] : Double.NEGATIVE_INFINITY;
          for (int j = 0; j < lkv; j++) {
            double s = 0;
            for (int e = 0; e < d; e++) {
              s +=
                  (double) q[((b * hq + h) * lq + i) * d + e]
                      * k[((b * hkv + hk) * lkv + j) * d + e];
            }
            s *= sc;
            boolean keep = true;
            if (maskKind == Sdpa.MASK_CAUSAL) {
              keep = j <= i + lkv - lq;
            } else if (maskKind == Sdpa.MASK_BOOL) {
              keep = mask[((b * hq + h) * lq + i) * lkv + j] != 0;
            } else if (maskKind == Sdpa.MASK_ADDITIVE) {
              s += mask[((b * hq + h) * lq + i) * lkv + j];
            }
            logits[j] = keep ? s : Double.NEGATIVE_INFINITY;
            max = Math.max(max, logits[j]);
          }
          int o = ((b * hq + h) * lq + i) * dv;
          if (max == Double.NEGATIVE_INFINITY) {
            continue; // every key masked, no sink: 0
          }
          double denom = sinks ? Math.exp(sinkValues[h] - max) : 0;
          for (int j = 0; j < lkv; j++) {
            double p = Math.exp(logits[j] - max);
            if (p == 0) {
              continue;
            }
            denom += p;
            for (int e = 0; e < dv; e++) {
              out[o + e] += p * v[((b * hkv + hk) * lkv + j) * dv + e];
            }
          }
          for (int e = 0; e < dv; e++) {
            out[o + e] /= denom;
          }
        }
      }
    }
    return out;
  }

  // ---- runners (Java backend), outputs poisoned with NaN ----

  static Method kernel(Class<?> owner, String name) {
    for (Method m : owner.getMethods()) {
      if (m.getName().equals(name)
          && m.getParameterCount() > 0
          && m.getParameterTypes()[0] == KernelContext.class) {
        return m;
      }
    }
    throw new AssertionError("no kernel " + owner.getSimpleName() + "." + name);
  }

  short[] poisonedOut(int n) {
    short[] out = new short[n];
    Arrays.fill(out, dtype == Sdpa.F16 ? (short) 0x7E00 : (short) 0x7FC0);
    return out;
  }

  /** The vector kernel under its default plan for {@code smCount} SMs. */
  float[] runVector(int smCount) {
    return runVector(SdpaVectorPlans.plan(shape(), smCount));
  }

  /** The vector kernel with explicit rows per block and splits (0 = let the plan choose). */
  float[] runVector(int smCount, int rows, int splits) {
    return runVector(SdpaVectorPlans.plan(shape(), smCount, rows, 4, splits));
  }

  /** The vector kernel (one pass or split-K with its combine) under {@code plan}. */
  float[] runVector(SdpaVectorPlans.Plan plan) {
    SdpaShape shape = shape();
    int n = shape.outputRows() * headDim;
    short[] out = poisonedOut(n);
    float[] partO = new float[1];
    float[] partML = new float[1];
    SdpaSplitK.CombinePlan cp = null;
    if (plan.partial()) {
      cp = SdpaSplitK.combinePlan(shape, plan.splits());
      partO = nanFloats((int) cp.partialOFloats());
      partML = nanFloats((int) cp.partialMLFloats());
    }
    HostGridRunner.run(
        kernel(plan.kernelClass(), "decode"),
        plan.grid(),
        plan.block(),
        SdpaVectorPlans.decodeArgs(
            q16,
            k16,
            v16,
            maskAdd,
            maskBool,
            sinkArray,
            out,
            partO,
            partML,
            shape,
            qs,
            ks,
            vs,
            ms,
            effectiveScale(),
            dtype,
            maskKind,
            sinks,
            plan));
    if (plan.partial()) {
      for (float x : partML) {
        if (Float.isNaN(x)) {
          fail("pass 1 left a (max, sum) partial unwritten (NaN poison): " + this);
        }
      }
      HostGridRunner.run(
          kernel(SdpaSplitK.class, "combine"),
          cp.grid(),
          cp.block(),
          SdpaSplitK.combineArgs(
              partO, partML, sinkArray, out, shape, plan.splits(), dtype, sinks));
    }
    return widen(out);
  }

  /** The unfused fallback's three launches. */
  float[] runUnfused() {
    SdpaShape shape = shape();
    SdpaUnfused.Plan plan = SdpaUnfused.plan(shape);
    float[] scores = nanFloats(Math.max(1, plan.scoreFloats()));
    int n = shape.outputRows() * dv();
    boolean f32 = dtype == Sdpa.F32;
    HostGridRunner.run(
        kernel(SdpaUnfused.class, f32 ? "scores32" : "scores16"),
        plan.scoresGrid(),
        plan.scoresBlock(),
        SdpaUnfused.scoresArgs(
            f32 ? q32 : q16,
            f32 ? k32 : k16,
            maskAdd,
            maskBool,
            scores,
            shape,
            qs,
            ks,
            ms,
            (float) effectiveScale(),
            dtype,
            maskKind));
    HostGridRunner.run(
        kernel(SdpaUnfused.class, "softmax"),
        plan.softmaxGrid(),
        plan.softmaxBlock(),
        SdpaUnfused.softmaxArgs(scores, sinkArray, shape, sinks));
    if (f32) {
      float[] out = nanFloats(n);
      HostGridRunner.run(
          kernel(SdpaUnfused.class, "pv32"),
          plan.pvGrid(),
          plan.pvBlock(),
          SdpaUnfused.pvArgs(scores, v32, out, shape, vs, dtype));
      return out;
    }
    short[] out = poisonedOut(n);
    HostGridRunner.run(
        kernel(SdpaUnfused.class, "pv16"),
        plan.pvGrid(),
        plan.pvBlock(),
        SdpaUnfused.pvArgs(scores, v16, out, shape, vs, dtype));
    return widen(out);
  }

  float[] widen(short[] bits) {
    float[] f = new float[bits.length];
    for (int i = 0; i < bits.length; i++) {
      f[i] = dtype == Sdpa.F16 ? Float.float16ToFloat(bits[i]) : Bf16.toFloat(bits[i]);
    }
    return f;
  }

  // ---- checking ----

  /**
   * Every element must be a number and within {@code atol + rtol*|ref|} of the oracle; reports the
   * count of violations and the worst one.
   */
  static void assertClose(
      String what, float[] got, double[] ref, double atol, double rtol, int dv, int lq, int hq) {
    if (got.length != ref.length) {
      fail(what + ": " + got.length + " outputs, expected " + ref.length);
    }
    int bad = 0;
    int worst = -1;
    double worstExcess = 0;
    for (int i = 0; i < got.length; i++) {
      double err = Math.abs(got[i] - ref[i]);
      double allowed = atol + rtol * Math.abs(ref[i]);
      if (Float.isNaN(got[i]) || Float.isInfinite(got[i]) || err > allowed) {
        bad++;
        double excess = Double.isNaN(err) || Double.isInfinite(err) ? Double.MAX_VALUE : err;
        if (worst < 0 || excess > worstExcess) {
          worst = i;
          worstExcess = excess;
        }
      }
    }
    if (bad > 0) {
      int row = worst / dv;
      fail(
          String.format(
              "%s: %d of %d elements off (atol %.1e, rtol %.1e); worst at row %d (b,h,i = %d,%d,%d)"
                  + " element %d: got %s, expected %.6g",
              what,
              bad,
              got.length,
              atol,
              rtol,
              row,
              row / (lq * hq),
              (row / lq) % hq,
              row % lq,
              worst % dv,
              got[worst],
              ref[worst]));
    }
  }

  /**
   * Tolerances for outputs rounded to {@code dtype} against the float64 oracle on the same (already
   * rounded) inputs: the output rounding (half an ulp: 2^-8 relative for bf16, 2^-11 for f16) with
   * margin, plus 1e-4 absolute for float32 accumulation near zero. float32 outputs: 1e-5 relative,
   * 1e-6 absolute.
   */
  static double[] tolerance(int dtype) {
    return switch (dtype) {
      case Sdpa.BF16 -> new double[] {1e-4, 5e-3};
      case Sdpa.F16 -> new double[] {1e-4, 1e-3};
      default -> new double[] {1e-6, 1e-5};
    };
  }

  /** Checks against the oracle with the dtype's {@link #tolerance}. */
  void check(String what, float[] got) {
    double[] t = tolerance(dtype);
    check(what, got, t[0], t[1]);
  }

  void check(String what, float[] got, double atol, double rtol) {
    assertClose(what + " " + this, got, oracle(), atol, rtol, dv(), lq, hq);
  }
}
