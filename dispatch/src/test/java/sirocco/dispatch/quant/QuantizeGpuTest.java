package sirocco.dispatch.quant;

import sirocco.Backend;
import sirocco.quant.QuantizeContract;
import sirocco.runtime.testing.GpuTest;

/**
 * quantize/dequantize on a CUDA device: the same words and scales as the format's host definition,
 * bit for bit, and the same round-trip bounds. Skipped (with the reason) where no GPU is present.
 */
@GpuTest
class QuantizeGpuTest extends QuantizeContract {
  @Override
  protected Backend backend() {
    return Backend.CUDA;
  }
}
