package sirocco.bench;

import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;

/**
 * The float64 check of {@code tornado bench qmm}: the weights of a sample of output columns decoded
 * from the words the device produced, and every row of those columns compared against a double
 * product within a bound for float32 accumulation and the output dtype's rounding.
 */
final class QmmCheck {
  private QmmCheck() {}

  record Check(double maxError, double worstRatio, boolean passed, int unwritten) {}

  /**
   * The dequantized weights of a sample of output columns, in double, decoded from the words the
   * device produced (bit by bit; E2M1 table, E4M3/E8M0 formulas), for a float64 check.
   */
  record Reference(int[] columns, double[][] w, int k) {
    static Reference of(Sirocco rt, Quantized q, QmmBench.Options o, QmmBench.Format f) {
      int n = o.n();
      int k = o.k();
      int count = Math.min(n, o.columns());
      int[] cols = new int[count];
      for (int i = 0; i < count; i++) {
        cols[i] = (int) ((long) i * n / count + (i * 7L) % Math.max(1, n / count));
      }
      int[] words = rt.toInts(q.wq());
      boolean affine = f.mode() == QuantMode.AFFINE;
      float[] scales = affine ? rt.toFloats(q.scales()) : null;
      float[] biases = affine ? rt.toFloats(q.biases()) : null;
      byte[] codes = affine ? null : rt.toBytes(q.scales());
      int wpr = k * f.bits() / 32;
      int groups = k / f.group();
      double[][] w = new double[count][k];
      for (int i = 0; i < count; i++) {
        int j = cols[i];
        for (int kk = 0; kk < k; kk++) {
          int c = 0;
          for (int b = 0; b < f.bits(); b++) {
            long bit = (long) kk * f.bits() + b;
            c |= ((words[j * wpr + (int) (bit >>> 5)] >>> (int) (bit & 31)) & 1) << b;
          }
          int g = j * groups + kk / f.group();
          w[i][kk] =
              switch (f.mode()) {
                case AFFINE -> (double) c * scales[g] + biases[g];
                case MXFP4 -> e8m0(codes[g] & 0xFF) * e2m1(c);
                case NVFP4 -> e4m3(codes[g] & 0xFF) * e2m1(c);
                case MXFP8 -> e8m0(codes[g] & 0xFF) * e4m3(c);
              };
        }
      }
      return new Reference(cols, w, k);
    }

    /**
     * Every row of the sampled columns within {@code 2e-5·Σ|x·w|} (float32 accumulation) plus half
     * an ulp of the dtype (the final rounding) of the float64 value; NaN (poison left) fails.
     */
    Check check(float[] x, int rows, float[] out, DType dtype) {
      return check(x, rows, out, dtype, 2e-5);
    }

    /**
     * As {@link #check(float[], int, float[], DType)} with {@code accRel·Σ|x·w|} instead of {@code
     * 2e-5·Σ|x·w|}: kernels that round each dequantized weight to the activation dtype before the
     * mma (qmm-tiled: 2^-9 for bf16, 2^-11 for f16, plus the float accumulation's 2e-5).
     */
    Check check(float[] x, int rows, float[] out, DType dtype, double accRel) {
      int n = out.length / rows;
      double maxErr = 0;
      double worst = 0;
      int unwritten = 0;
      boolean ok = true;
      for (int m = 0; m < rows; m++) {
        for (int i = 0; i < columns.length; i++) {
          double acc = 0;
          double mag = 0;
          for (int kk = 0; kk < k; kk++) {
            double p = x[m * k + kk] * w[i][kk];
            acc += p;
            mag += Math.abs(p);
          }
          float got = out[m * n + columns[i]];
          if (Float.isNaN(got)) {
            unwritten++;
            ok = false;
            continue;
          }
          double tolAcc = accRel * mag + 1e-30;
          double tol = tolAcc + halfUlp(dtype, Math.abs(acc) + tolAcc);
          double err = Math.abs(got - acc);
          maxErr = Math.max(maxErr, err);
          worst = Math.max(worst, err / tol);
          if (err > tol) {
            ok = false;
          }
        }
      }
      return new Check(maxErr, worst, ok, unwritten);
    }
  }

  static double halfUlp(DType dtype, double v) {
    double a = Math.abs(v);
    return switch (dtype) {
      case BF16 -> Math.max(Math.ulp((float) a), 0x1p-133) * 65536.0 / 2.0;
      case F16 -> Math.max(Math.ulp((float) a) * 8192.0, 0x1p-24) / 2.0;
      default -> Math.ulp((float) a) / 2.0;
    };
  }

  static double e2m1(int c) {
    double[] mag = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return (c & 8) != 0 ? -mag[c & 7] : mag[c & 7];
  }

  static double e4m3(int c) {
    int e = (c >> 3) & 15;
    int m = c & 7;
    if (e == 15 && m == 7) {
      return Double.NaN;
    }
    double v = e == 0 ? Math.scalb(m / 8.0, -6) : Math.scalb(1 + m / 8.0, e - 7);
    return (c & 0x80) != 0 ? -v : v;
  }

  static double e8m0(int s) {
    return s == 255 ? Double.NaN : Math.scalb(1.0, s - 127);
  }
}
