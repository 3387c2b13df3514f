package sirocco.kernels.quant;

/**
 * Float64 references for every quantized matmul kernel, written from the math: each weight is
 * dequantized from its code (read bit by bit from the MLX stream, independently of the kernels' bit
 * tricks) and its scale/bias values, then multiplied with x and summed in double. Alongside the
 * value the reference returns {@code sum |x * w|}, the scale of the rounding error any float32
 * accumulation may make, which the tests use to state their tolerances.
 */
public final class QmmReference {
  private QmmReference() {}

  /** {@code value[m * n + j]} and {@code magnitude[m * n + j] = sum_k |x w|}. */
  public record Result(double[] value, double[] magnitude) {}

  /** The code of element {@code k} of the stream starting at word {@code base}, bit by bit. */
  static int code(int[] wq, int base, long k, int bits) {
    int q = 0;
    for (int i = 0; i < bits; i++) {
      long bit = k * bits + i;
      int word = wq[base + (int) (bit >>> 5)];
      q |= ((word >>> (int) (bit & 31)) & 1) << i;
    }
    return q;
  }

  /** Dequantized weights as a {@code [n, k]} matrix (transposed layout) in double. */
  static double[] weightsNk(
      QmmShape s, int[] wq, float[] scales, float[] biases, byte[] fpScales, float globalScale) {
    int n = s.n();
    int k = s.k();
    double[] w = new double[n * k];
    int bits = s.bits();
    int g = s.groupSize();
    if (s.transpose()) {
      int wpr = k * bits / 32;
      for (int j = 0; j < n; j++) {
        for (int kk = 0; kk < k; kk++) {
          int q = code(wq, j * wpr, kk, bits);
          int gi = j * (k / g) + kk / g;
          w[j * k + kk] = value(s, q, gi, scales, biases, fpScales, globalScale);
        }
      }
    } else {
      // Stored [k, n], quantized along n.
      int wpr = n * bits / 32;
      for (int kk = 0; kk < k; kk++) {
        for (int j = 0; j < n; j++) {
          int q = code(wq, kk * wpr, j, bits);
          int gi = kk * (n / g) + j / g;
          w[j * k + kk] = value(s, q, gi, scales, biases, fpScales, globalScale);
        }
      }
    }
    return w;
  }

  private static double value(
      QmmShape s, int q, int gi, float[] scales, float[] biases, byte[] fpScales, float gs) {
    if (s.mode() == Quant.AFFINE) {
      return (double) q * scales[gi] + biases[gi];
    }
    int sc = fpScales[gi] & 0xFF;
    double scale =
        s.mode() == Quant.NVFP4
            ? FpDequantizeKernel.e4m3(sc) * ((double) gs / 2688.0)
            : (sc == 0
                ? Math.scalb(1.0, -127)
                : sc == 255 ? Double.NaN : Math.scalb(1.0, sc - 127));
    double v = s.bits() == 4 ? FpDequantizeKernel.e2m1(q) : FpDequantizeKernel.e4m3(q);
    return scale * v;
  }

  static Result matmul(double[] w, float[] x, QmmShape s) {
    int rows = s.rows();
    int n = s.n();
    int k = s.k();
    double[] value = new double[rows * n];
    double[] mag = new double[rows * n];
    for (int m = 0; m < rows; m++) {
      for (int j = 0; j < n; j++) {
        double acc = 0;
        double abs = 0;
        for (int kk = 0; kk < k; kk++) {
          double p = (double) x[m * k + kk] * w[j * k + kk];
          acc += p;
          abs += Math.abs(p);
        }
        value[m * n + j] = acc;
        mag[m * n + j] = abs;
      }
    }
    return new Result(value, mag);
  }

  /** Affine: {@code out = x * dequant(W)^T} (or {@code x * dequant(W)} when not transposed). */
  public static Result affine(int[] wq, float[] scales, float[] biases, float[] x, QmmShape s) {
    return matmul(weightsNk(s, wq, scales, biases, null, 0f), x, s);
  }

  /** fp modes: {@code out = x * dequant(W)^T} (or not transposed). */
  public static Result fp(int[] wq, byte[] scales, float globalScale, float[] x, QmmShape s) {
    return matmul(weightsNk(s, wq, null, null, scales, globalScale), x, s);
  }
}
