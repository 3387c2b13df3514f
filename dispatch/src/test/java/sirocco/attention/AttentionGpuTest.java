package sirocco.attention;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.Mask;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.runtime.testing.GpuTest;

/**
 * The same attention cases on a CUDA device, against the same float64 reference. Skipped (with the
 * reason) where no GPU is present. The contract's cases pin the vector and fallback rungs, so cuDNN
 * is disabled for them; the cuDNN rung has its own cases below (and its own suite in {@code
 * sirocco.dispatch.cudnn}).
 */
@GpuTest
class AttentionGpuTest extends AttentionContract {
  @Override
  Backend backend() {
    return Backend.CUDA;
  }

  @BeforeAll
  void disableCudnnForTheContract() {
    System.setProperty(CudnnSdpa.DISABLE_PROPERTY, "true");
  }

  @AfterAll
  void enableCudnnAgain() {
    System.clearProperty(CudnnSdpa.DISABLE_PROPERTY);
  }

  @Test
  void cudnnTakesDecodeAndPrefillThroughThePublicOp() {
    System.clearProperty(CudnnSdpa.DISABLE_PROPERTY);
    try {
      AttnSpec decode = spec("cudnn decode Lq1", "cudnn");
      decode.hq = 8;
      decode.hkv = 2;
      decode.lkv = 300;
      decode.headDim = 128;
      check(decode);
      AttnSpec prefill = spec("cudnn prefill causal", "cudnn");
      prefill.hq = 8;
      prefill.hkv = 2;
      prefill.lq = 96;
      prefill.lkv = 128;
      prefill.headDim = 64;
      prefill.maskKind = Mask.Kind.CAUSAL;
      check(prefill);
    } finally {
      System.setProperty(CudnnSdpa.DISABLE_PROPERTY, "true");
    }
  }
}
