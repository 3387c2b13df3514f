package sirocco.kernels.diff;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import sirocco.runtime.Device;
import sirocco.runtime.Devices;

/**
 * The differential cases' inputs are valid: each case runs on the Java backend alone (which checks
 * every array index) and must leave no must-write element holding the poison, write nothing outside
 * its range, leave its inputs unchanged and pass its output checks. Without this, a case whose
 * inputs break a kernel's contract would only show up as a confusing GPU mismatch (or an
 * out-of-bounds access the GPU does not report). Runs in every build with a fixed seed ({@code
 * -Dsirocco.diff.seed} overrides it) and the H200's 132 SMs for the SM-dependent plans.
 */
class ShippedKernelsJavaBackendTest {
  private static final long SEED = Long.getLong("sirocco.diff.seed", 42L);

  @TestFactory
  Stream<DynamicTest> everyCaseRunsCleanlyOnTheJavaBackend() {
    Device cpu = Devices.java();
    List<ShippedKernelCases.Case> cases = ShippedKernelCases.cases(ShippedKernels.all());
    System.out.println(
        "Java-backend check of " + cases.size() + " differential cases, seed " + SEED);
    return cases.stream()
        .map(
            c ->
                dynamicTest(
                    c.label(),
                    () -> {
                      Prepared p = c.prepare(SEED, 132, 90);
                      long t0 = System.nanoTime();
                      Object[] got = Differ.run(cpu, p);
                      long ms = (System.nanoTime() - t0) / 1_000_000;
                      List<String> problems = Differ.checkAlone(p, got, "Java backend");
                      System.out.printf(
                          "%-90s %-40s %5d ms %s%n",
                          c.label(), p.shape(), ms, problems.isEmpty() ? "ok" : "FAIL");
                      assertTrue(
                          problems.isEmpty(), c.label() + ":\n  " + String.join("\n  ", problems));
                    }));
  }
}
