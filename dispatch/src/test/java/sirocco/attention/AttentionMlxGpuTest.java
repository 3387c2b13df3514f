package sirocco.attention;

import org.junit.jupiter.api.BeforeAll;
import sirocco.Backend;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.runtime.testing.GpuTest;

/**
 * The MLX attention ports on a CUDA device at MLX's full sizes ({@link AttentionMlxContract#MLX}),
 * with cuDNN enabled: the op picks cuDNN, the vector kernel or the fallback per case and each case
 * prints its decision (lines {@code MLX-SDPA CUDA …}; a per-test rung count follows). Skipped (with
 * the reason) where no GPU is present.
 */
@GpuTest
class AttentionMlxGpuTest extends AttentionMlxContract {
  @Override
  Backend backend() {
    return Backend.CUDA;
  }

  /**
   * {@link AttentionGpuTest} disables cuDNN for its own cases; these take the ladder as shipped.
   */
  @BeforeAll
  void enableCudnn() {
    System.clearProperty(CudnnSdpa.DISABLE_PROPERTY);
  }
}
