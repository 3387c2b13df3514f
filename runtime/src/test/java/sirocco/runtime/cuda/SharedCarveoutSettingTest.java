package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Parsing of {@code -Dsirocco.sharedCarveout}: a percentage, or unset for the driver's choice. */
class SharedCarveoutSettingTest {
  @Test
  void unsetOrBlankLeavesTheDriversChoice() {
    assertEquals(-1, CudaKernels.sharedCarveout(null));
    assertEquals(-1, CudaKernels.sharedCarveout("  "));
  }

  @Test
  void acceptsPercentagesIncludingTheEnds() {
    assertEquals(0, CudaKernels.sharedCarveout("0"));
    assertEquals(100, CudaKernels.sharedCarveout(" 100 "));
    assertEquals(50, CudaKernels.sharedCarveout("50"));
  }

  @Test
  void refusesAnythingElseNamingTheProperty() {
    for (String bad : new String[] {"101", "-1", "max", "12.5"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CudaKernels.sharedCarveout(bad));
      assertTrue(
          e.getMessage().startsWith("-Dsirocco.sharedCarveout must be a percentage in [0, 100]"),
          e.getMessage());
      assertTrue(e.getMessage().endsWith("got '" + bad + "'"), e.getMessage());
    }
  }
}
