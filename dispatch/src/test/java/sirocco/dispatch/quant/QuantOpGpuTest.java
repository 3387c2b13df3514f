package sirocco.dispatch.quant;

import sirocco.Backend;
import sirocco.quant.QuantContract;
import sirocco.runtime.testing.GpuTest;

/**
 * The quantized-matmul cases on a CUDA device, at the larger sizes ({@link QuantContract#big()}),
 * against the same float64 reference. Skipped (with the reason) where no GPU is present.
 */
@GpuTest
class QuantOpGpuTest extends QuantContract {
  @Override
  protected Backend backend() {
    return Backend.CUDA;
  }
}
