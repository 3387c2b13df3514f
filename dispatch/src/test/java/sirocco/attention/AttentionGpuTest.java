package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.Mask;
import sirocco.dispatch.Decision;
import sirocco.dispatch.attention.SdpaOp;
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
      // A short decode goes to the vector kernel (measured faster there), unless the bound is 0.
      AttnSpec shortDecode = spec("short decode Lq1", "vector");
      shortDecode.hq = 8;
      shortDecode.hkv = 2;
      shortDecode.lkv = 300;
      shortDecode.headDim = 128;
      Decision d = check(shortDecode);
      assertEquals("vector", d.chosen(), d.explain());
      assertTrue(
          d.rejected().get(0).reason().startsWith("the vector kernel is faster for Lq = 1"),
          d.explain());
      System.setProperty(SdpaOp.VECTOR_DECODE_MAX_KEYS_PROPERTY, "0");
      AttnSpec decode = spec("cudnn decode Lq1", "cudnn");
      decode.hq = 8;
      decode.hkv = 2;
      decode.lkv = 300;
      decode.headDim = 128;
      assertEquals("cudnn", check(decode).chosen());
      System.clearProperty(SdpaOp.VECTOR_DECODE_MAX_KEYS_PROPERTY);
      AttnSpec longDecode = spec("cudnn decode Lq1 beyond the vector bound", "cudnn");
      longDecode.hq = 4;
      longDecode.hkv = 1;
      longDecode.lkv = SdpaOp.TENSOR_CORE_DECODE_MAX_KEYS_D64 + 1;
      longDecode.headDim = 64;
      assertEquals("cudnn", check(longDecode).chosen());
      AttnSpec prefill = spec("cudnn prefill causal", "cudnn");
      prefill.hq = 8;
      prefill.hkv = 2;
      prefill.lq = 96;
      prefill.lkv = 128;
      prefill.headDim = 64;
      prefill.maskKind = Mask.Kind.CAUSAL;
      check(prefill);
    } finally {
      System.clearProperty(SdpaOp.VECTOR_DECODE_MAX_KEYS_PROPERTY);
      System.setProperty(CudnnSdpa.DISABLE_PROPERTY, "true");
    }
  }
}
