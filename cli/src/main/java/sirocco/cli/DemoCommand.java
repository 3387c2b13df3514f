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
