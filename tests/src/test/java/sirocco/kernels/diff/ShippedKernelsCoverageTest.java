package sirocco.kernels.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs in every build (no GPU needed): every shipped kernel has a differential case, and every case
 * builds its launch with the specialization set it claims. The GPU run itself is {@link
 * ShippedKernelsDifferentialGpuTest}.
 */
class ShippedKernelsCoverageTest {
  @Test
  void theScanFindsTheShippedKernels() {
    List<Method> shipped = ShippedKernels.all();
    // 33 when this test was written; far fewer means the scan lost a package.
    assertTrue(
        shipped.size() >= 30, "found only " + shipped.size() + " @Kernel methods: " + shipped);
  }

  @Test
  void everyShippedKernelHasADifferentialCase() {
    List<String> missing = ShippedKernelCases.missing(ShippedKernels.all());
    assertEquals(
        List.of(),
        missing,
        "shipped kernels without a differential case: add a builder to ShippedKernelCases.TABLE"
            + " (inputs valid for the kernel's contract, geometry from the plan dispatch uses)");
  }

  @Test
  void theCaseTableNamesOnlyShippedKernels() {
    assertEquals(
        List.of(),
        ShippedKernelCases.stale(ShippedKernels.all()),
        "ShippedKernelCases.TABLE entries whose kernel no longer exists");
  }

  @Test
  void everyCaseBuildsTheVariantItClaims() {
    List<ShippedKernelCases.Case> cases = ShippedKernelCases.cases(ShippedKernels.all());
    List<String> problems = new ArrayList<>();
    for (ShippedKernelCases.Case c : cases) {
      try {
        Prepared p = c.prepare(42, 132, 90);
        if (p.outs().isEmpty()) {
          problems.add(c.label() + ": no output to compare");
        }
      } catch (RuntimeException e) {
        problems.add(c.label() + ": " + e);
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
    // Every kernel has at least one case, and each of its validateWith sets is one.
    assertTrue(cases.size() >= ShippedKernels.all().size(), "only " + cases.size() + " cases");
  }
}
