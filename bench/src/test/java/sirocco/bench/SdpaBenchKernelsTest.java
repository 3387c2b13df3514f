package sirocco.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code bench sdpa} times per cell for each {@code --kernel} (no device needed). */
class SdpaBenchKernelsTest {
  @Test
  void prefillTimesCudnnAndTheFallbackByDefaultAndDecodeTheLaddersChoice() {
    assertEquals(List.of("cudnn", "fallback"), SdpaBench.kernels(null, true));
    assertEquals(List.of("auto"), SdpaBench.kernels(null, false));
  }

  @Test
  void anExplicitKernelIsKept() {
    assertEquals(List.of("auto"), SdpaBench.kernels("auto", true));
    assertEquals(List.of("fallback"), SdpaBench.kernels("fallback", true));
    assertEquals(List.of("vector"), SdpaBench.kernels("vector", false));
    assertEquals(List.of("cudnn", "fallback"), SdpaBench.kernels("all", true));
    assertEquals(List.of("auto", "vector", "cudnn"), SdpaBench.kernels("all", false));
  }

  @Test
  void anUnknownKernelIsRejectedNamingTheChoices() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SdpaBench.kernels("flash", true));
    assertEquals(
        "--kernel must be auto, all or one of cudnn, vector, fallback, got 'flash'",
        e.getMessage());
  }
}
