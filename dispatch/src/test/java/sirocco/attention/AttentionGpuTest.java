package sirocco.attention;

import sirocco.Backend;
import sirocco.runtime.testing.GpuTest;

/**
 * The same attention cases on a CUDA device, against the same float64 reference. Skipped (with the
 * reason) where no GPU is present.
 */
@GpuTest
class AttentionGpuTest extends AttentionContract {
  @Override
  Backend backend() {
    return Backend.CUDA;
  }
}
