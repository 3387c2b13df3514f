package sirocco.quant;

import java.util.Arrays;

/**
 * Float64 references for the quantization ops, written from the formats' definitions and sharing no
 * code with the kernels or their host-side format helpers: codes are read bit by bit from MLX's
 * little-endian stream, fp values from the E2M1 table and the E4M3/E8M0 formulas, and the product
 * is summed in double. With each value comes {@code Σ|x·w|}, the scale of any float32
 * accumulation's rounding error, from which the tests state their tolerances.
 */
public final class QRef {
  private QRef() {}

  /** Code {@code k} of the bit stream starting at word {@code base}: bits [k·b, k·b + b). */
  static int code(int[] wq, long base, long k, int bits) {
    int q = 0;
    for (int i = 0; i < bits; i++) {
      long bit = k * bits + i;
      int word = wq[(int) (base + (bit >>> 5))];
      q |= ((word >>> (int) (bit & 31)) & 1) << i;
    }
    return q;
  }

  /** E2M1: sign in bit 3, magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6. */
  static double e2m1(int c) {
    double[] mag = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    double v = mag[c & 7];
    return (c & 8) != 0 ? -v : v;
  }

  /** OCP E4M3 (bias 7, no infinities, S.1111.111 = NaN). */
  static double e4m3(int c) {
    int e = (c >> 3) & 15;
    int m = c & 7;
    if (e == 15 && m == 7) {
      return Double.NaN;
    }
    double v = e == 0 ? Math.scalb(m / 8.0, -6) : Math.scalb(1 + m / 8.0, e - 7);
    return (c & 0x80) != 0 ? -v : v;
  }

  /** E8M0: 2^(s − 127), 255 = NaN. */
  static double e8m0(int s) {
    return s == 255 ? Double.NaN : Math.scalb(1.0, s - 127);
  }

  /**
   * Dequantized weights {@code [matrices, rows, cols]} in double: affine {@code q·scale + bias}, fp
   * modes {@code scale · value(q)} (nvfp4: {@code E4M3(s) · globalScale / 2688}; 2688 means no
   * global scale).
   */
  public static double[] dequantize(
      String mode,
      int bits,
      int group,
      int[] wq,
      float[] scales,
      float[] biases,
      byte[] fpScales,
      double globalScale,
      long matrices,
      long rows,
      long cols) {
    long packed = cols * bits / 32;
    long groups = cols / group;
    double[] w = new double[(int) (matrices * rows * cols)];
    for (long mr = 0; mr < matrices * rows; mr++) {
      for (long c = 0; c < cols; c++) {
        int q = code(wq, mr * packed, c, bits);
        int gi = (int) (mr * groups + c / group);
        double v;
        switch (mode) {
          case "AFFINE" -> v = (double) q * scales[gi] + biases[gi];
          case "NVFP4" -> v = e4m3(fpScales[gi] & 0xFF) * (globalScale / 2688.0) * e2m1(q);
          case "MXFP4" -> v = e8m0(fpScales[gi] & 0xFF) * e2m1(q);
          case "MXFP8" -> v = e8m0(fpScales[gi] & 0xFF) * e4m3(q);
          default -> throw new IllegalArgumentException(mode);
        }
        w[(int) (mr * cols + c)] = v;
      }
    }
    return w;
  }

  /** A reference product: values, {@code Σ|x·w|} per output, and the output shape. */
  public record Product(double[] value, double[] magnitude, long[] shape) {}

  /**
   * {@code x · w̃ᵀ} ({@code transpose}) or {@code x · w̃} with numpy/MLX broadcasting: x {@code
   * [..xb, M, K]} (a 1-D x is one row, its axis dropped from the output), w̃ {@code [..wb, R, C]}
   * in double ({@code transpose}: R = N, C = K; else R = K, C = N). Output {@code [..broadcast(xb,
   * wb), M, N]}.
   */
  public static Product matmul(
      float[] x, long[] xShape, double[] w, long[] wShape, boolean transpose) {
    boolean vector = xShape.length == 1;
    long[] xb = vector ? new long[0] : Arrays.copyOfRange(xShape, 0, xShape.length - 2);
    long m = vector ? 1 : xShape[xShape.length - 2];
    long k = xShape[xShape.length - 1];
    long[] wb = Arrays.copyOfRange(wShape, 0, wShape.length - 2);
    long wr = wShape[wShape.length - 2];
    long wc = wShape[wShape.length - 1];
    long n = transpose ? wr : wc;
    if ((transpose ? wc : wr) != k) {
      throw new IllegalArgumentException("inner dimensions differ");
    }
    int r = Math.max(xb.length, wb.length);
    long[] batch = new long[r];
    for (int i = 0; i < r; i++) {
      int xi = i - (r - xb.length);
      int wi = i - (r - wb.length);
      long xd = xi >= 0 ? xb[xi] : 1;
      long wd = wi >= 0 ? wb[wi] : 1;
      batch[i] = xd == 1 ? wd : xd;
    }
    long[] shape = Arrays.copyOf(batch, r + (vector ? 1 : 2));
    if (!vector) {
      shape[r] = m;
    }
    shape[shape.length - 1] = n;
    long batches = 1;
    for (long d : batch) {
      batches *= d;
    }
    double[] value = new double[(int) (batches * m * n)];
    double[] mag = new double[value.length];
    long[] idx = new long[r];
    for (long b = 0; b < batches; b++) {
      long xm = 0;
      long wm = 0;
      long xacc = 1;
      long wacc = 1;
      for (int i = r - 1; i >= 0; i--) {
        int xi = i - (r - xb.length);
        int wi = i - (r - wb.length);
        long xd = xi >= 0 ? xb[xi] : 1;
        long wd = wi >= 0 ? wb[wi] : 1;
        xm += (xd == 1 ? 0 : idx[i]) * xacc;
        wm += (wd == 1 ? 0 : idx[i]) * wacc;
        xacc *= xd;
        wacc *= wd;
      }
      for (long i = 0; i < m; i++) {
        for (long j = 0; j < n; j++) {
          double acc = 0;
          double abs = 0;
          for (long kk = 0; kk < k; kk++) {
            double xv = x[(int) ((xm * m + i) * k + kk)];
            long wAt = wm * wr * wc + (transpose ? j * wc + kk : kk * wc + j);
            double p = xv * w[(int) wAt];
            acc += p;
            abs += Math.abs(p);
          }
          int o = (int) ((b * m + i) * n + j);
          value[o] = acc;
          mag[o] = abs;
        }
      }
      for (int i = r - 1; i >= 0; i--) {
        if (++idx[i] < batch[i]) {
          break;
        }
        idx[i] = 0;
      }
    }
    return new Product(value, mag, shape);
  }
}
