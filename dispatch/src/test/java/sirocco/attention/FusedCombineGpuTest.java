package sirocco.attention;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import sirocco.Backend;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.runtime.testing.GpuTest;

/**
 * The fused-combine cases on a CUDA device: the one-launch split-K kernel (fence, atomic counter,
 * last block combines with coherent loads) against the float64 reference and against the two-launch
 * path on the same device, and twice on one stream. Skipped where no GPU is present. cuDNN is
 * disabled so that the cases reach the vector rung.
 */
@GpuTest
class FusedCombineGpuTest extends FusedCombineContract {
  @Override
  Backend backend() {
    return Backend.CUDA;
  }

  @BeforeAll
  void disableCudnn() {
    System.setProperty(CudnnSdpa.DISABLE_PROPERTY, "true");
  }

  @AfterAll
  void enableCudnnAgain() {
    System.clearProperty(CudnnSdpa.DISABLE_PROPERTY);
  }
}
