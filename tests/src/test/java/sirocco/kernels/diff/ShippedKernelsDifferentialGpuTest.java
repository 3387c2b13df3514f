package sirocco.kernels.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import sirocco.runtime.Device;
import sirocco.runtime.Devices;
import sirocco.runtime.testing.GpuTest;

/**
 * The shipped kernels' differential suite on the GPU: every {@code @Kernel} method of {@code
 * sirocco.kernels}, under each of its {@code validateWith} specialization sets, runs through
 * Sirocco's CUDA launch path (device 0) and through the Java backend on the same fresh random
 * inputs, with the same poisoned output arrays, and the launch geometry the dispatch layer uses
 * ({@link ShippedKernelCases}). Integer and packed outputs must match bit for bit; float outputs
 * within the tolerance each case states (most are bit-exact: see {@link Prepared.Tolerance}); no
 * must-write element may still hold the poison on either side, nothing may be written outside the
 * must-write range, and inputs must come back unchanged.
 *
 * <p>Prints one line per case (kernel and set, how the geometry was obtained, largest absolute and
 * relative difference, elements compared, PASS/FAIL) and a final {@code shipped kernels: X of Y
 * cases matched}. The seed is printed; {@code -Dsirocco.diff.seed=N} repeats a run (in the GPU
 * bundle: {@code JAVA_TOOL_OPTIONS=-Dsirocco.diff.seed=N .gpu/bin/test-gpu --select-class ...}).
 */
@GpuTest
class ShippedKernelsDifferentialGpuTest {
  private static final long SEED = Long.getLong("sirocco.diff.seed", System.nanoTime());

  @Test
  void everyShippedKernelHasADifferentialCase() {
    assertEquals(List.of(), ShippedKernelCases.missing(ShippedKernels.all()));
  }

  @TestFactory
  Stream<DynamicTest> everyShippedKernelMatchesTheJavaBackend() {
    Device gpu = Devices.cuda(0);
    Device cpu = Devices.java();
    int sm = gpu.info().multiprocessors();
    int arch = 10 * gpu.info().computeMajor() + gpu.info().computeMinor();
    List<ShippedKernelCases.Case> cases = ShippedKernelCases.cases(ShippedKernels.all());
    System.out.println(
        "shipped-kernel differential: "
            + cases.size()
            + " cases, seed "
            + SEED
            + " (rerun with -Dsirocco.diff.seed="
            + SEED
            + "), "
            + sm
            + " SMs, sm_"
            + arch);
    AtomicInteger matched = new AtomicInteger();
    long[] started = {System.nanoTime()};
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      ShippedKernelCases.Case c = cases.get(i);
      long seed = SEED + i;
      tests.add(
          dynamicTest(
              c.label(),
              () -> {
                List<String> problems = check(c, seed, sm, arch, gpu, cpu);
                if (problems.isEmpty()) {
                  matched.incrementAndGet();
                }
                assertTrue(problems.isEmpty(), c.label() + ":\n  " + String.join("\n  ", problems));
              }));
    }
    tests.add(
        dynamicTest(
            "summary",
            () ->
                System.out.printf(
                    "shipped kernels: %d of %d cases matched (%.1f s)%n",
                    matched.get(), cases.size(), (System.nanoTime() - started[0]) / 1e9)));
    return tests.stream();
  }

  private static List<String> check(
      ShippedKernelCases.Case c, long seed, int sm, int arch, Device gpu, Device cpu) {
    Prepared p = c.prepare(seed, sm, arch);
    List<String> problems = new ArrayList<>();
    Object[] onCpu = Differ.run(cpu, p);
    Object[] onGpu;
    try {
      onGpu = Differ.run(gpu, p);
    } catch (RuntimeException e) {
      System.out.printf("%-90s GPU launch failed: %s%n", c.label(), e);
      throw e;
    }
    problems.addAll(Differ.checkAlone(p, onCpu, "Java backend"));
    problems.addAll(Differ.checkAlone(p, onGpu, "GPU"));
    Differ.Result r = Differ.compare(p, onCpu, onGpu);
    problems.addAll(r.problems());
    StringBuilder tol = new StringBuilder();
    for (Prepared.Out o : p.outs()) {
      if (!o.tolerance().exact() && o.kind() != Prepared.Kind.BITS) {
        tol.append(
            String.format(
                " %s: rel %.2g + %.2g*max (%s)",
                Differ.paramName(p, o.arg()),
                o.tolerance().rel(),
                o.tolerance().absOfScale(),
                o.tolerance().why()));
      }
    }
    System.out.printf(
        "%-90s %-36s %-44s maxAbs %.3g maxRel %.3g n=%d %s%s%n",
        c.label(),
        p.plan() + (p.minBlocksPerSm() > 0 ? ", minBlocksPerSm " + p.minBlocksPerSm() : ""),
        p.shape(),
        r.maxAbs(),
        r.maxRel(),
        r.compared(),
        problems.isEmpty() ? "PASS" : "FAIL",
        tol.length() == 0 ? " exact" : tol);
    return problems;
  }
}
