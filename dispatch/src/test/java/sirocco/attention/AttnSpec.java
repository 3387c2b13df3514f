package sirocco.attention;

import java.util.Arrays;
import java.util.SplittableRandom;
import sirocco.DType;
import sirocco.Mask;
import sirocco.SdpaOptions;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.Bf16;

/**
 * One attention call for the op-level tests: logical tensors (values exactly representable in their
 * dtype), how they are laid out in storage and viewed (cache slices, transposed storage, strided q,
 * broadcast and transposed masks), and an independent float64 reference written from the math on
 * the logical values. Storage elements outside a view hold NaN, so a kernel that reads them shows.
 */
final class AttnSpec {
  /** Logical mask value at (b, h, i, j): additive value, or nonzero = keep for boolean masks. */
  interface MaskFn {
    double at(int b, int h, int i, int j);
  }

  /** A distribution of logical q, k or v values (drawn in the dtype's precision, then rounded). */
  interface Dist {
    double draw(SplittableRandom r);

    static Dist normal(double std) {
      return r -> std * r.nextGaussian();
    }

    static Dist uniform(double lo, double hi) {
      return r -> lo + (hi - lo) * r.nextDouble();
    }
  }

  final String name;
  int batch = 1;
  int hq = 1;
  int hkv = 1;
  int lq = 1;
  int lkv = 8;
  int headDim = 64;
  int valueDim = -1; // -1: headDim
  DType dtype = DType.BF16;
  float scale = Float.NaN; // NaN: 1/sqrt(D)
  long seed = 1;

  Mask.Kind maskKind = Mask.Kind.NONE;

  /** Stored mask shape (rank 0–4, broadcast per MLX rules); null: the full [B, Hq, Lq, Lkv]. */
  long[] maskShape;

  DType maskDtype = DType.F32; // additive masks; boolean masks are U8
  MaskFn maskFn;

  /** Mask stored with its last two axes swapped and passed as a transposed view. */
  boolean maskTransposed;

  /**
   * Mask stored with all its axes reversed and viewed back through transposes (MLX's {@code
   * mask.T}: strides ascending instead of descending).
   */
  boolean maskReversed;

  /** Mask stored behind an offset (a slice of a larger buffer). */
  int maskOffset;

  boolean sinks;
  DType sinksDtype = DType.F32;

  /** Standard deviation of the normal sink logits. */
  double sinkStd = 2;

  /** Distributions of q, k and v (null: N(0, 1)). */
  Dist qDist;

  Dist kDist;
  Dist vDist;

  /** Changes the logical values after they are drawn (e.g. a key row of −inf), before any use. */
  java.util.function.Consumer<AttnSpec> edit;

  /** k/v: rows [cacheStart, cacheStart + lkv) of a cache with cacheLen rows (-1: lkv). */
  int cacheLen = -1;

  int cacheStart;

  /** k/v stored [B, L, Hkv, D] and viewed through a transpose. */
  boolean kvSeqMajor;

  /** k/v stored with rows of D + kvDimPad elements, the view starting at kvDimStart. */
  int kvDimPad;

  int kvDimStart;

  /** q stored [B, Hq, D, Lq] and viewed through a transpose (last stride Lq, not 1). */
  boolean qDimMajor;

  /** q stored [B, Lq, Hq, D] and viewed through a transpose. */
  boolean qSeqMajor;

  /** The rung the call should take ("vector", "fallback"). */
  String expectRung;

  // logical values
  float[] q;
  float[] k;
  float[] v;
  float[] sinkValues;

  AttnSpec(String name) {
    this.name = name;
  }

  int dv() {
    return valueDim < 0 ? headDim : valueDim;
  }

  float effectiveScale() {
    return Float.isNaN(scale) ? (float) (1.0 / Math.sqrt(headDim)) : scale;
  }

  long[] outShape() {
    return new long[] {batch, hq, lq, dv()};
  }

  @Override
  public String toString() {
    return name
        + " [B"
        + batch
        + " Hq"
        + hq
        + " Hkv"
        + hkv
        + " Lq"
        + lq
        + " Lkv"
        + lkv
        + " D"
        + headDim
        + (dv() != headDim ? " Dv" + dv() : "")
        + " "
        + dtype
        + " mask "
        + maskKind
        + (maskShape != null ? Arrays.toString(maskShape) : "")
        + (sinks ? " sinks" : "")
        + "]";
  }

  static float round(double x, DType dt) {
    return switch (dt) {
      case BF16 -> Bf16.toFloat(Bf16.fromFloat((float) x));
      case F16 -> Float.float16ToFloat(Float.floatToFloat16((float) x));
      default -> (float) x;
    };
  }

  private AttnSpec generate() {
    if (q != null) {
      return this;
    }
    SplittableRandom r = new SplittableRandom(seed * 7919 + 17);
    q = new float[batch * hq * lq * headDim];
    k = new float[batch * hkv * lkv * headDim];
    v = new float[batch * hkv * lkv * dv()];
    Dist[] dists = {qDist, kDist, vDist};
    float[][] arrays = {q, k, v};
    for (int a = 0; a < 3; a++) {
      Dist dist = dists[a];
      float[] x = arrays[a];
      for (int i = 0; i < x.length; i++) {
        x[i] = round(dist == null ? r.nextGaussian() : dist.draw(r), dtype);
      }
    }
    if (sinks) {
      sinkValues = new float[hq];
      for (int h = 0; h < hq; h++) {
        sinkValues[h] = round(sinkStd * r.nextGaussian(), sinksDtype);
      }
    }
    if (edit != null) {
      edit.accept(this);
    }
    return this;
  }

  /** The mask's logical value with its own dtype's rounding (boolean: 1 keep, 0 masked). */
  double maskValue(int b, int h, int i, int j) {
    double x = maskFn.at(b, h, i, j);
    if (maskKind == Mask.Kind.BOOL) {
      return x != 0 ? 1 : 0;
    }
    return round(x, maskDtype);
  }

  /** The stored mask shape aligned to [B, Hq, Lq, Lkv]. */
  long[] storedMaskShape() {
    return maskShape != null ? maskShape : new long[] {batch, hq, lq, lkv};
  }

  // ---- tensors ----

  /** Builds q, k, v (as views), the mask and the options on {@code rt}. */
  Call build(Sirocco rt) {
    generate();
    Tensor qt = buildQ(rt);
    Tensor kt = buildKv(rt, k, headDim);
    Tensor vt = buildKv(rt, v, dv());
    Mask mask =
        switch (maskKind) {
          case NONE -> Mask.none();
          case CAUSAL -> Mask.causal();
          case ADDITIVE -> Mask.additive(buildMask(rt));
          case BOOL -> Mask.bool(buildMask(rt));
        };
    SdpaOptions options = SdpaOptions.defaults();
    if (sinks) {
      options = options.withSinks(upload(rt, sinkValues, sinksDtype, hq));
    }
    return new Call(qt, kt, vt, effectiveScale(), mask, options);
  }

  record Call(Tensor q, Tensor k, Tensor v, float scale, Mask mask, SdpaOptions options) {}

  private Tensor buildQ(Sirocco rt) {
    int d = headDim;
    if (qDimMajor) {
      float[] s = new float[q.length];
      for (int b = 0; b < batch; b++) {
        for (int h = 0; h < hq; h++) {
          for (int i = 0; i < lq; i++) {
            for (int e = 0; e < d; e++) {
              s[((b * hq + h) * d + e) * lq + i] = q[((b * hq + h) * lq + i) * d + e];
            }
          }
        }
      }
      return upload(rt, s, dtype, batch, hq, d, lq).transpose(2, 3);
    }
    if (qSeqMajor) {
      float[] s = new float[q.length];
      for (int b = 0; b < batch; b++) {
        for (int h = 0; h < hq; h++) {
          for (int i = 0; i < lq; i++) {
            for (int e = 0; e < d; e++) {
              s[((b * lq + i) * hq + h) * d + e] = q[((b * hq + h) * lq + i) * d + e];
            }
          }
        }
      }
      return upload(rt, s, dtype, batch, lq, hq, d).transpose(1, 2);
    }
    return upload(rt, q, dtype, batch, hq, lq, d);
  }

  private Tensor buildKv(Sirocco rt, float[] logical, int width) {
    int cap = cacheLen < 0 ? lkv : cacheLen;
    if (cap < cacheStart + lkv) {
      throw new IllegalStateException("cacheLen too small in " + this);
    }
    int rowW = width + kvDimPad;
    float[] s = new float[batch * hkv * cap * rowW];
    Arrays.fill(s, Float.NaN);
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hkv; h++) {
        for (int j = 0; j < lkv; j++) {
          for (int e = 0; e < width; e++) {
            int row = cacheStart + j;
            int at =
                kvSeqMajor
                    ? ((b * cap + row) * hkv + h) * rowW + kvDimStart + e
                    : ((b * hkv + h) * cap + row) * rowW + kvDimStart + e;
            s[at] = logical[((b * hkv + h) * lkv + j) * width + e];
          }
        }
      }
    }
    Tensor t =
        kvSeqMajor
            ? upload(rt, s, dtype, batch, cap, hkv, rowW).transpose(1, 2)
            : upload(rt, s, dtype, batch, hkv, cap, rowW);
    if (cacheStart != 0 || lkv != cap) {
      t = t.slice(2, cacheStart, cacheStart + lkv);
    }
    if (kvDimPad != 0) {
      t = t.slice(3, kvDimStart, kvDimStart + width);
    }
    return t;
  }

  private Tensor buildMask(Sirocco rt) {
    long[] shape = storedMaskShape();
    int rank = shape.length;
    int pad = 4 - rank;
    long[] full = {1, 1, 1, 1};
    for (int a = 0; a < rank; a++) {
      full[pad + a] = shape[a];
    }
    int n = (int) (full[0] * full[1] * full[2] * full[3]);
    float[] values = new float[n];
    int at = 0;
    for (int b = 0; b < full[0]; b++) {
      for (int h = 0; h < full[1]; h++) {
        for (int i = 0; i < full[2]; i++) {
          for (int j = 0; j < full[3]; j++) {
            values[at++] = (float) maskValue(b, h, i, j);
          }
        }
      }
    }
    DType dt = maskKind == Mask.Kind.BOOL ? DType.U8 : maskDtype;
    if (maskReversed && rank >= 2) {
      // Stored [s_{r-1}, ..., s_0] row-major: logical element (i_0, ..., i_{r-1}) lives at
      // Σ i_a · Π_{b<a} s_b; reversing the axes with transposes gives the logical view.
      long[] reversed = new long[rank];
      for (int a = 0; a < rank; a++) {
        reversed[a] = shape[rank - 1 - a];
      }
      float[] s = new float[n];
      long[] idx = new long[rank];
      for (int el = 0; el < n; el++) {
        long rev = 0;
        long mul = 1;
        for (int a = 0; a < rank; a++) {
          rev += idx[a] * mul;
          mul *= shape[a];
        }
        s[(int) rev] = values[el];
        for (int a = rank - 1; a >= 0; a--) {
          if (++idx[a] < shape[a]) {
            break;
          }
          idx[a] = 0;
        }
      }
      Tensor t = uploadOffset(rt, s, dt, reversed);
      for (int a = 0; a < rank / 2; a++) {
        t = t.transpose(a, rank - 1 - a);
      }
      return t;
    }
    if (maskTransposed && rank >= 2) {
      // Store with the last two axes swapped, then view it back through a transpose.
      long[] swapped = shape.clone();
      swapped[rank - 1] = shape[rank - 2];
      swapped[rank - 2] = shape[rank - 1];
      int rows = (int) shape[rank - 2];
      int cols = (int) shape[rank - 1];
      float[] s = new float[n];
      for (int blk = 0; blk < n / Math.max(1, rows * cols); blk++) {
        for (int i = 0; i < rows; i++) {
          for (int j = 0; j < cols; j++) {
            s[blk * rows * cols + j * rows + i] = values[blk * rows * cols + i * cols + j];
          }
        }
      }
      return uploadOffset(rt, s, dt, swapped).transpose(rank - 2, rank - 1);
    }
    return uploadOffset(rt, values, dt, shape);
  }

  /** Uploads {@code values} behind {@link #maskOffset} garbage elements and slices them off. */
  private Tensor uploadOffset(Sirocco rt, float[] values, DType dt, long[] shape) {
    if (maskOffset == 0) {
      return upload(rt, values, dt, shape);
    }
    float[] padded = new float[maskOffset + values.length];
    Arrays.fill(padded, 0, maskOffset, Float.NaN);
    System.arraycopy(values, 0, padded, maskOffset, values.length);
    Tensor flat = upload(rt, padded, dt, padded.length);
    return flat.slice(0, maskOffset, padded.length).reshape(shape);
  }

  static Tensor upload(Sirocco rt, float[] values, DType dt, long... shape) {
    return switch (dt) {
      case F32 -> rt.fromFloats(values, shape);
      case BF16 -> {
        short[] s = new short[values.length];
        for (int i = 0; i < s.length; i++) {
          s[i] = Bf16.fromFloat(values[i]);
        }
        yield rt.fromBf16(s, shape);
      }
      case F16 -> {
        short[] s = new short[values.length];
        for (int i = 0; i < s.length; i++) {
          s[i] = Float.floatToFloat16(values[i]);
        }
        yield rt.fromF16(s, shape);
      }
      case U8 -> {
        byte[] s = new byte[values.length];
        for (int i = 0; i < s.length; i++) {
          s[i] = Float.isNaN(values[i]) ? (byte) 0x5A : (byte) (values[i] != 0 ? 1 : 0);
        }
        yield rt.fromU8(s, shape);
      }
      default -> throw new IllegalArgumentException("no upload for " + dt);
    };
  }

  // ---- the float64 reference ----

  /**
   * {@code out[b, h, i, :] = Σ_j p_j v[b, h/g, j, :]} with {@code p = softmax_j(scale·q·k_j +
   * mask)}, masked keys (causal {@code j > i + Lkv − Lq}, boolean zero, additive −inf) excluded, a
   * sink logit per head in the denominator, and 0 for a row with no unmasked key and no sink.
   */
  double[] reference() {
    generate();
    int d = headDim;
    int dvv = dv();
    int g = hq / hkv;
    double sc = effectiveScale();
    long[] ms = storedMaskShape();
    int pad = 4 - ms.length;
    long[] full = {1, 1, 1, 1};
    for (int a = 0; a < ms.length; a++) {
      full[pad + a] = ms[a];
    }
    double[] out = new double[batch * hq * lq * dvv];
    double[] logits = new double[lkv];
    for (int b = 0; b < batch; b++) {
      for (int h = 0; h < hq; h++) {
        for (int i = 0; i < lq; i++) {
          double max = sinks ? sinkValues[h] : Double.NEGATIVE_INFINITY;
          for (int j = 0; j < lkv; j++) {
            double s = 0;
            for (int e = 0; e < d; e++) {
              s +=
                  (double) q[((b * hq + h) * lq + i) * d + e]
                      * k[((b * hkv + h / g) * lkv + j) * d + e];
            }
            s *= sc;
            boolean keep = true;
            if (maskKind == Mask.Kind.CAUSAL) {
              keep = j <= i + lkv - lq;
            } else if (maskKind != Mask.Kind.NONE) {
              double m =
                  maskValue(
                      full[0] == 1 ? 0 : b,
                      full[1] == 1 ? 0 : h,
                      full[2] == 1 ? 0 : i,
                      full[3] == 1 ? 0 : j);
              if (maskKind == Mask.Kind.BOOL) {
                keep = m != 0;
              } else {
                s += m;
              }
            }
            logits[j] = keep ? s : Double.NEGATIVE_INFINITY;
            max = Math.max(max, logits[j]);
          }
          if (max == Double.NEGATIVE_INFINITY) {
            continue; // every key masked and no sink: the row is 0
          }
          double denom = sinks ? Math.exp(sinkValues[h] - max) : 0;
          int o = ((b * hq + h) * lq + i) * dvv;
          for (int j = 0; j < lkv; j++) {
            double p = Math.exp(logits[j] - max);
            denom += p;
            if (p != 0) {
              for (int e = 0; e < dvv; e++) {
                out[o + e] += p * v[((b * hkv + h / g) * lkv + j) * dvv + e];
              }
            }
          }
          for (int e = 0; e < dvv; e++) {
            out[o + e] /= denom;
          }
        }
      }
    }
    return out;
  }

  /** Absolute and relative bound for the output dtype (inputs are exact in it). */
  double[] tolerance() {
    return tolerance(expectRung);
  }

  /** {@link #tolerance()} for the output of {@code rung}. */
  double[] tolerance(String rung) {
    if ("cudnn".equals(rung)) {
      // cuDNN's fused kernel rounds the softmax probabilities to the input dtype before P·V (the
      // cudnn-frontend pattern), so each output carries up to half an ulp of that dtype times Σ
      // p·|v|
      // (≤ max |v|, about 4 for these Gaussian inputs) beyond our kernels' error: 2^-9·4 ≈ 8e-3 for
      // bf16, 2^-12·4 ≈ 1e-3 for f16.
      return switch (dtype) {
        case BF16 -> new double[] {8e-3, 5e-3};
        case F16 -> new double[] {1e-3, 1e-3};
        default -> new double[] {2e-6, 1e-5};
      };
    }
    return switch (dtype) {
      case BF16 -> new double[] {1e-4, 5e-3};
      case F16 -> new double[] {1e-4, 1e-3};
      default -> new double[] {2e-6, 1e-5};
    };
  }
}
