package sirocco.dispatch.cudnn;

import java.util.SplittableRandom;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.Bf16;
import sirocco.dispatch.Internal;
import sirocco.runtime.cuda.CudaDevice;

/**
 * Inputs and the float64 reference for SDPA tests: softmax(q·kᵀ·scale + mask)·v computed in double
 * from the 16-bit inputs as rounded, GQA by head groups, causal aligned bottom-right (query i sees
 * keys j ≤ i + Lkv − Lq).
 */
final class SdpaTestData {
  final DType dtype;
  final int b;
  final int hq;
  final int hkv;
  final int lq;
  final int lkv;
  final int d;
  final double[] q; // [B, Hq, Lq, D]
  final double[] k; // [B, Hkv, Lkv, D]
  final double[] v; // [B, Hkv, Lkv, D]
  final float scale;

  SdpaTestData(DType dtype, int b, int hq, int hkv, int lq, int lkv, int d, long seed) {
    this.dtype = dtype;
    this.b = b;
    this.hq = hq;
    this.hkv = hkv;
    this.lq = lq;
    this.lkv = lkv;
    this.d = d;
    SplittableRandom r = new SplittableRandom(seed);
    this.q = random(r, b * hq * lq * d);
    this.k = random(r, b * hkv * lkv * d);
    this.v = random(r, b * hkv * lkv * d);
    this.scale = (float) (1 / Math.sqrt(d));
  }

  private double[] random(SplittableRandom r, int n) {
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = round(dtype, gaussian(r));
    }
    return a;
  }

  static double gaussian(SplittableRandom r) {
    double u = r.nextDouble(1e-12, 1);
    double w = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w);
  }

  static short bits(DType t, double x) {
    return t == DType.BF16 ? Bf16.fromFloat((float) x) : Float.floatToFloat16((float) x);
  }

  static float value(DType t, short bits) {
    return t == DType.BF16 ? Bf16.toFloat(bits) : Float.float16ToFloat(bits);
  }

  static double round(DType t, double x) {
    return value(t, bits(t, x));
  }

  /**
   * Uploads [B, H, L, D] data; with {@code bshd} the storage is [B, L, H, D] and the tensor a
   * transposed view (strides L·H·D, D, H·D, 1), as attention inputs often arrive.
   */
  static Tensor upload(Sirocco rt, DType t, double[] x, int b, int h, int l, int d, boolean bshd) {
    short[] s = new short[x.length];
    for (int bi = 0; bi < b; bi++) {
      for (int hi = 0; hi < h; hi++) {
        for (int li = 0; li < l; li++) {
          for (int di = 0; di < d; di++) {
            int src = ((bi * h + hi) * l + li) * d + di;
            int dst = bshd ? ((bi * l + li) * h + hi) * d + di : src;
            s[dst] = bits(t, x[src]);
          }
        }
      }
    }
    if (!bshd) {
      return t == DType.BF16 ? rt.fromBf16(s, b, h, l, d) : rt.fromF16(s, b, h, l, d);
    }
    Tensor stored = t == DType.BF16 ? rt.fromBf16(s, b, l, h, d) : rt.fromF16(s, b, l, h, d);
    Tensor view = stored.transpose(1, 2);
    stored.close(); // the view keeps the buffer
    return view;
  }

  /** An uninitialised [B, Hq, Lq, D] output filled with NaN, so unwritten elements show. */
  Tensor poisonedOutput(Sirocco rt) {
    Tensor o = Internal.bridge().empty(rt, dtype, new long[] {b, hq, lq, d});
    CudaDevice dev = (CudaDevice) Internal.bridge().device(rt);
    int nan = dtype == DType.BF16 ? 0x7FC0 : 0x7E00;
    long n = (long) b * hq * lq * d;
    dev.fill32(
        Internal.bridge().buffer(o), 0, n / 2, (nan << 16) | nan, Internal.bridge().stream(rt));
    return o;
  }

  /** The float64 reference, [B, Hq, Lq, D]. {@code bias} is [B?, Hq?, Lq, Lkv] or null. */
  double[] reference(Mask.Kind mask, double[] bias, int biasB, int biasH) {
    double[] out = new double[b * hq * lq * d];
    int group = hq / hkv;
    double[] s = new double[lkv];
    for (int bi = 0; bi < b; bi++) {
      for (int h = 0; h < hq; h++) {
        int kh = h / group;
        for (int i = 0; i < lq; i++) {
          int qo = ((bi * hq + h) * lq + i) * d;
          double max = Double.NEGATIVE_INFINITY;
          for (int j = 0; j < lkv; j++) {
            int ko = ((bi * hkv + kh) * lkv + j) * d;
            double acc = 0;
            for (int e = 0; e < d; e++) {
              acc += q[qo + e] * k[ko + e];
            }
            acc *= scale;
            if (bias != null) {
              int bb = biasB == 1 ? 0 : bi;
              int bh = biasH == 1 ? 0 : h;
              acc += bias[((bb * biasH + bh) * lq + i) * lkv + j];
            }
            if (mask == Mask.Kind.CAUSAL && j > i + lkv - lq) {
              acc = Double.NEGATIVE_INFINITY;
            }
            s[j] = acc;
            max = Math.max(max, acc);
          }
          double sum = 0;
          for (int j = 0; j < lkv; j++) {
            s[j] = Math.exp(s[j] - max);
            sum += s[j];
          }
          for (int e = 0; e < d; e++) {
            double acc = 0;
            for (int j = 0; j < lkv; j++) {
              acc += s[j] * v[((bi * hkv + kh) * lkv + j) * d + e];
            }
            out[qo + e] = acc / sum;
          }
        }
      }
    }
    return out;
  }

  /** Largest |got − want|, or NaN when an element is not finite; fails on tolerance. */
  static final class Comparison {
    double maxAbs;
    double maxRel;
    int bad = 0;
    int nonFinite = 0;
    String firstBad;

    static Comparison of(float[] got, double[] want, double atol, double rtol) {
      Comparison c = new Comparison();
      for (int i = 0; i < want.length; i++) {
        double g = got[i];
        if (!Double.isFinite(g)) {
          c.nonFinite++;
          if (c.firstBad == null) {
            c.firstBad = "element " + i + ": got " + g + ", want " + want[i];
          }
          continue;
        }
        double err = Math.abs(g - want[i]);
        c.maxAbs = Math.max(c.maxAbs, err);
        c.maxRel = Math.max(c.maxRel, err / Math.max(1e-6, Math.abs(want[i])));
        if (err > atol + rtol * Math.abs(want[i])) {
          c.bad++;
          if (c.firstBad == null) {
            c.firstBad = "element " + i + ": got " + g + ", want " + want[i];
          }
        }
      }
      return c;
    }

    boolean ok() {
      return bad == 0 && nonFinite == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "max abs err %.3e, max rel err %.3e, %d out of tolerance, %d not finite%s",
          maxAbs, maxRel, bad, nonFinite, firstBad == null ? "" : " (first: " + firstBad + ")");
    }
  }

  /** Tolerances: bf16 keeps 8 bits of mantissa, f16 11; P is rounded to the I/O type by cuDNN. */
  double atol() {
    return dtype == DType.BF16 ? 1.5e-2 : 3e-3;
  }

  double rtol() {
    return dtype == DType.BF16 ? 1.5e-2 : 3e-3;
  }
}
