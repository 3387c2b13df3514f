package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Bad arguments are rejected before the driver is touched (runs without a GPU). */
class CudaGraphArgumentsTest {
  @Test
  void captureRejectsANullStreamOrBody() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CudaGraph.capture(null, () -> {}));
    assertTrue(e.getMessage().contains("stream"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CudaGraph.capture(null, null));
  }
}
