package sirocco.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sirocco.Launch;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.cli.demo.DemoKernels;

/**
 * {@code tornado demo}: Sirocco's main job on the best backend here, each step checked against a
 * float64 reference computed on the CPU and timed. Exit status 0 only when every check passed.
 */
@Command(
    name = "demo",
    description = "Run the main job on the best available backend, check it and time it.")
final class DemoCommand implements Callable<Integer> {
  @Option(
      names = "--size",
      description =
          "Elements for the vector steps (default 2^20 on CUDA, 2^16 on the Java backend).")
  Integer size;

  @Option(
      names = "--repeats",
      description = "Timed repetitions per step (default 20 on CUDA, 3 on the Java backend).")
  Integer repeats;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the results as JSON (- for stdout).")
  String json;

  @Spec CommandSpec spec;

  /** One checked, timed step. */
  record Step(
      String name,
      String detail,
      double maxError,
      double tolerance,
      boolean passed,
      double medianMicros) {}

  @Override
  public Integer call() {
    if ((size != null && size < 1) || (repeats != null && repeats < 1)) {
      throw new IllegalArgumentException("--size and --repeats must be positive");
    }
    var out = spec.commandLine().getOut();
    List<Step> steps = new ArrayList<>();
    try (Sirocco rt = Backends.open()) {
      // The Java backend simulates every GPU thread; keep its default run to seconds.
      boolean gpu = rt.backend() == sirocco.Backend.CUDA;
      if (size == null) {
        size = gpu ? 1 << 20 : 1 << 16;
      }
      if (repeats == null) {
        repeats = gpu ? 20 : 3;
      }
      out.println("backend: " + rt.describe());
      out.println("why:     " + rt.backendReason());
      steps.add(vectorAdd(rt));
      steps.add(blockSum(rt));
      steps.add(quantizedMatmul(rt, gpu));
      steps.add(attention(rt, gpu));
      out.println();
      out.printf(
          "%-12s %-34s %12s %10s %6s %12s%n",
          "STEP", "DETAIL", "MAX ERROR", "TOLERANCE", "OK", "MEDIAN us");
      for (Step s : steps) {
        out.printf(
            "%-12s %-34s %12.3e %10.1e %6s %12.1f%n",
            s.name(),
            s.detail(),
            s.maxError(),
            s.tolerance(),
            s.passed() ? "yes" : "NO",
            s.medianMicros());
      }
      boolean ok = steps.stream().allMatch(Step::passed);
      out.println(ok ? "demo passed" : "demo FAILED");
      if (json != null) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("backend", rt.backend().name());
        doc.put("device", rt.deviceName());
        doc.put("steps", steps);
        doc.put("passed", ok);
        Json.write(json, doc, out);
      }
      return ok ? 0 : 1;
    }
  }

  private double time(Sirocco rt, Runnable body) {
    body.run(); // warm-up: compilation and first-touch stay out of the numbers
    rt.synchronize();
    double[] t = new double[repeats];
    for (int r = 0; r < repeats; r++) {
      long t0 = System.nanoTime();
      body.run();
      rt.synchronize();
      t[r] = (System.nanoTime() - t0) / 1e3;
    }
    Arrays.sort(t);
    return t[repeats / 2];
  }

  private Step vectorAdd(Sirocco rt) {
    SplittableRandom rnd = new SplittableRandom(42);
    float[] a = new float[size];
    float[] b = new float[size];
    for (int i = 0; i < size; i++) {
      a[i] = (float) rnd.nextDouble(-1, 1);
      b[i] = (float) rnd.nextDouble(-1, 1);
    }
    float[] poison = new float[size];
    Arrays.fill(poison, Float.NaN);
    Tensor ta = rt.fromFloats(a);
    Tensor tb = rt.fromFloats(b);
    Tensor tc = rt.fromFloats(poison);
    Launch launch =
        Launch.of(DemoKernels::vectorAdd)
            .grid((size + 255) / 256)
            .block(256)
            .args(ta, tb, tc, size);
    double micros = time(rt, () -> rt.run(launch));
    float[] c = rt.toFloats(tc);
    double maxErr = 0;
    for (int i = 0; i < size; i++) {
      double ref = (double) a[i] + b[i];
      maxErr =
          Math.max(
              maxErr,
              Double.isNaN(c[i])
                  ? Double.POSITIVE_INFINITY
                  : Math.abs(c[i] - ref) / Math.max(1e-30, Math.abs(ref)));
    }
    double tol = 1.0 / (1 << 23); // one rounding of a float sum
    return new Step("vector-add", size + " floats", maxErr, tol, maxErr <= tol, micros);
  }

  /**
   * x [rows, K] bf16 times w [N, K] quantized to 4 bits (group 64), against float64 arithmetic on
   * the dequantized weights: the error bound is float32 accumulation plus the bf16 rounding of the
   * output and of the dequantized weights (the tensor-core path multiplies those).
   */
  private Step quantizedMatmul(Sirocco rt, boolean gpu) {
    int n = gpu ? 4096 : 256;
    int k = gpu ? 4096 : 512;
    int rows = 2;
    SplittableRandom rnd = new SplittableRandom(44);
    short[] w = new short[n * k];
    short[] x = new short[rows * k];
    for (int i = 0; i < w.length; i++) {
      w[i] = sirocco.api.Bf16.fromFloat((float) (rnd.nextGaussian() / Math.sqrt(k)));
    }
    for (int i = 0; i < x.length; i++) {
      x[i] = sirocco.api.Bf16.fromFloat((float) rnd.nextGaussian());
    }
    Tensor tw = rt.fromBf16(w, n, k);
    Tensor tx = rt.fromBf16(x, rows, k);
    sirocco.Quantized q = rt.quantize(tw, 64, 4, sirocco.QuantMode.AFFINE);
    float[] wHat = rt.toFloats(rt.dequantize(q));
    double micros = time(rt, () -> rt.quantizedMatmul(tx, q, true).close());
    float[] y = rt.toFloats(rt.quantizedMatmul(tx, q, true));
    double maxErr = 0;
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < n; j++) {
        double ref = 0;
        double mag = 0;
        for (int c = 0; c < k; c++) {
          double xv = sirocco.api.Bf16.toFloat(x[r * k + c]);
          ref += xv * wHat[j * k + c];
          mag += Math.abs(xv * wHat[j * k + c]);
        }
        double err = Math.abs(y[r * n + j] - ref) / (mag + 1e-30);
        maxErr = Math.max(maxErr, Double.isNaN(y[r * n + j]) ? Double.POSITIVE_INFINITY : err);
      }
    }
    double tol =
        2e-5 + 0x1p-8 + 0x1p-8; // accumulation + bf16 weights + bf16 output, relative to Σ|x·w|
    return new Step(
        "qmatmul", rows + "x" + k + " · 4-bit " + n + "x" + k, maxErr, tol, maxErr <= tol, micros);
  }

  /** Decode attention: q [1, 8, 1, 128], k/v [1, 2, S, 128] bf16, scale 1/√128, against float64. */
  private Step attention(Sirocco rt, boolean gpu) {
    int hq = 8;
    int hkv = 2;
    int s = gpu ? 8192 : 512;
    int d = 128;
    SplittableRandom rnd = new SplittableRandom(45);
    short[][] data = new short[3][];
    int[] lengths = {hq * d, hkv * s * d, hkv * s * d};
    for (int t = 0; t < 3; t++) {
      data[t] = new short[lengths[t]];
      for (int i = 0; i < lengths[t]; i++) {
        data[t][i] = sirocco.api.Bf16.fromFloat((float) rnd.nextGaussian());
      }
    }
    Tensor q = rt.fromBf16(data[0], 1, hq, 1, d);
    Tensor k = rt.fromBf16(data[1], 1, hkv, s, d);
    Tensor v = rt.fromBf16(data[2], 1, hkv, s, d);
    float scale = (float) (1 / Math.sqrt(d));
    double micros =
        time(rt, () -> rt.scaledDotProductAttention(q, k, v, scale, sirocco.Mask.none()).close());
    float[] o = rt.toFloats(rt.scaledDotProductAttention(q, k, v, scale, sirocco.Mask.none()));
    double maxErr = 0;
    for (int h = 0; h < hq; h++) {
      int kv = h / (hq / hkv);
      double[] p = new double[s];
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < s; j++) {
        double dot = 0;
        for (int c = 0; c < d; c++) {
          dot +=
              (double) sirocco.api.Bf16.toFloat(data[0][h * d + c])
                  * sirocco.api.Bf16.toFloat(data[1][(kv * s + j) * d + c]);
        }
        p[j] = dot * scale;
        max = Math.max(max, p[j]);
      }
      double sum = 0;
      for (int j = 0; j < s; j++) {
        p[j] = Math.exp(p[j] - max);
        sum += p[j];
      }
      for (int c = 0; c < d; c++) {
        double ref = 0;
        for (int j = 0; j < s; j++) {
          ref += p[j] / sum * sirocco.api.Bf16.toFloat(data[2][(kv * s + j) * d + c]);
        }
        double got = o[h * d + c];
        maxErr =
            Math.max(maxErr, Double.isNaN(got) ? Double.POSITIVE_INFINITY : Math.abs(got - ref));
      }
    }
    double tol =
        2e-2; // bf16 output and (on cuDNN) bf16 probabilities, as MLX's bf16 SDPA tests allow
    return new Step(
        "attention", "decode S=" + s + " D=" + d + " GQA 8/2", maxErr, tol, maxErr <= tol, micros);
  }

  private Step blockSum(Sirocco rt) {
    SplittableRandom rnd = new SplittableRandom(43);
    float[] in = new float[size];
    for (int i = 0; i < size; i++) {
      in[i] = (float) rnd.nextDouble(-1, 1);
    }
    int blocks = (size + 255) / 256;
    float[] poison = new float[blocks];
    Arrays.fill(poison, Float.NaN);
    Tensor tin = rt.fromFloats(in);
    Tensor sums = rt.fromFloats(poison);
    Launch launch = Launch.of(DemoKernels::blockSum).grid(blocks).block(256).args(tin, sums, size);
    double micros = time(rt, () -> rt.run(launch));
    float[] got = rt.toFloats(sums);
    double maxErr = 0;
    for (int b = 0; b < blocks; b++) {
      double ref = 0;
      double mag = 0;
      for (int i = b * 256; i < Math.min(size, b * 256 + 256); i++) {
        ref += in[i];
        mag += Math.abs(in[i]);
      }
      double err =
          Double.isNaN(got[b])
              ? Double.POSITIVE_INFINITY
              : Math.abs(got[b] - ref) / Math.max(1e-30, mag);
      maxErr = Math.max(maxErr, err);
    }
    double tol = 256.0 / (1 << 23); // float summation error bound relative to the sum of magnitudes
    return new Step("block-sum", blocks + " blocks of 256", maxErr, tol, maxErr <= tol, micros);
  }
}
