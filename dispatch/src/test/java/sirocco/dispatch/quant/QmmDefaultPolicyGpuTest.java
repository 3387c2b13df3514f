package sirocco.dispatch.quant;

import sirocco.Backend;
import sirocco.quant.QmmDefaultPolicyContract;
import sirocco.runtime.testing.GpuTest;

/**
 * The default-policy quantized-matmul cases on a CUDA device at MLX's full sizes ({@link
 * QmmDefaultPolicyContract#big()}), against the same float64 reference; each sweep prints the rungs
 * it ran. Skipped (with the reason) where no GPU is present.
 */
@GpuTest
class QmmDefaultPolicyGpuTest extends QmmDefaultPolicyContract {
  @Override
  protected Backend backend() {
    return Backend.CUDA;
  }
}
