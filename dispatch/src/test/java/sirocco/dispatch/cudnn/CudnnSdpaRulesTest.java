package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sirocco.DType;
import sirocco.Mask;
import sirocco.runtime.DeviceInfo;

/** The ladder rules for cuDNN SDPA, one row per rule (MLX's predicate plus Sirocco's own). */
class CudnnSdpaRulesTest {
  static CudnnSdpa.Problem bf16(long lq, long lkv, long d, Mask.Kind mask) {
    return CudnnSdpa.Problem.contiguous(DType.BF16, 1, 32, 8, lq, lkv, d, mask);
  }

  static final CudnnSdpa.Problem BASE = bf16(512, 512, 128, Mask.Kind.NONE);

  /** BSHD storage seen through a transpose: [B, H, L, D] with strides (L·H·D, D, H·D, 1). */
  static CudnnSdpa.Problem bshd(long l, long h, long d) {
    long[] s = {l * h * d, d, h * d, 1};
    return CudnnSdpa.Problem.contiguous(DType.F16, 1, h, h, l, l, d, Mask.Kind.NONE)
        .withStrides(s, s, s);
  }

  /**
   * (name, problem, cc major, cc minor, disabled, library reason, version, bound, expected prefix
   * or null).
   */
  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of("prefill bf16 D128 GQA", BASE, 9, 0, false, null, 91400, 128, null),
        Arguments.of(
            "f16 D64",
            CudnnSdpa.Problem.contiguous(DType.F16, 2, 24, 24, 63, 63, 64, Mask.Kind.NONE),
            8,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "disabled",
            BASE,
            9,
            0,
            true,
            null,
            91400,
            128,
            "cuDNN disabled by -Dsirocco.cudnn.disable=true"),
        Arguments.of(
            "library absent",
            BASE,
            9,
            0,
            false,
            "no libcudnn",
            0,
            128,
            "cuDNN unavailable: no libcudnn"),
        Arguments.of(
            "cuDNN 9.10.0",
            BASE,
            9,
            0,
            false,
            null,
            91000,
            128,
            "cuDNN 9.10.0 has known SDPA bugs"),
        Arguments.of(
            "sm_75",
            BASE,
            7,
            5,
            false,
            null,
            91400,
            128,
            "compute capability 7.5: cuDNN SDPA needs sm_80"),
        Arguments.of(
            "f32",
            CudnnSdpa.Problem.contiguous(DType.F32, 1, 8, 8, 64, 64, 64, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            "dtype F32: cuDNN SDPA takes F16 or BF16"),
        Arguments.of(
            "D not a multiple of 8",
            bf16(64, 64, 72 + 4, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            "head dim D=76 is not a multiple of 8"),
        Arguments.of(
            "D 256 over MLX's bound",
            bf16(512, 512, 256, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            "head dim 256 exceeds 128, the bound on sm_90 (MLX's; -Dsirocco.cudnn.maxHeadDim=256"),
        Arguments.of(
            "D 256 allowed on sm_90",
            bf16(512, 512, 256, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            256,
            null),
        Arguments.of(
            "D 256 on sm_80",
            bf16(512, 512, 256, Mask.Kind.NONE),
            8,
            0,
            false,
            null,
            91400,
            128,
            "head dim 256 exceeds 128, the bound on sm_80"),
        Arguments.of(
            "causal Lq > Lkv",
            bf16(127, 65, 64, Mask.Kind.CAUSAL),
            9,
            0,
            false,
            null,
            91400,
            128,
            "causal with Lq=127 > Lkv=65"),
        Arguments.of(
            "causal Lq < Lkv",
            bf16(65, 127, 64, Mask.Kind.CAUSAL),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "non-causal Lq > Lkv",
            bf16(127, 65, 64, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "Lq 2 (speculative decode)",
            bf16(2, 512, 64, Mask.Kind.CAUSAL),
            9,
            0,
            false,
            null,
            91400,
            128,
            "Lq=2: 1 < Lq < 16 stays off cuDNN"),
        Arguments.of(
            "Lq 15",
            bf16(15, 512, 64, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            "Lq=15: 1 < Lq < 16"),
        Arguments.of(
            "Lq 16", bf16(16, 512, 64, Mask.Kind.NONE), 9, 0, false, null, 91400, 128, null),
        Arguments.of("Lq 1", bf16(1, 512, 64, Mask.Kind.NONE), 9, 0, false, null, 91400, 128, null),
        Arguments.of(
            "Hq not a multiple of Hkv",
            CudnnSdpa.Problem.contiguous(DType.BF16, 1, 24, 5, 64, 64, 64, Mask.Kind.NONE),
            9,
            0,
            false,
            null,
            91400,
            128,
            "Hq=24 is not a multiple of Hkv=5"),
        Arguments.of("BSHD views", bshd(128, 8, 64), 9, 0, false, null, 91400, 128, null),
        Arguments.of(
            "head dim not contiguous",
            bf16(64, 64, 64, Mask.Kind.NONE)
                .withStrides(
                    new long[] {32 * 64 * 64, 64 * 64, 1, 64}, BASE.kStrides(), BASE.kStrides()),
            9,
            0,
            false,
            null,
            91400,
            128,
            "Q's last stride is 64"),
        Arguments.of(
            "padded rows (stride 72 elements)",
            bf16(64, 64, 64, Mask.Kind.NONE)
                .withStrides(
                    new long[] {32 * 64 * 72, 64 * 72, 72, 1},
                    new long[] {8 * 64 * 64, 64 * 64, 64, 1},
                    new long[] {8 * 64 * 64, 64 * 64, 64, 1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "row stride 12 elements",
            CudnnSdpa.Problem.contiguous(DType.F16, 1, 4, 4, 64, 64, 8, Mask.Kind.NONE)
                .withStrides(
                    new long[] {4 * 64 * 12, 64 * 12, 12, 1},
                    new long[] {4 * 64 * 8, 64 * 8, 8, 1},
                    new long[] {4 * 64 * 8, 64 * 8, 8, 1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            "Q's strides [3072, 768, 12, 1]: cuDNN needs strides that are positive multiples of 16 bytes"),
        Arguments.of(
            "additive mask [1,1,Lq,Lkv]",
            bf16(64, 128, 64, Mask.Kind.NONE)
                .withMask(
                    Mask.Kind.ADDITIVE,
                    DType.BF16,
                    new long[] {1, 1, 64, 128},
                    new long[] {8192, 8192, 128, 1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "additive mask f32 [Lkv]",
            bf16(64, 128, 64, Mask.Kind.NONE)
                .withMask(Mask.Kind.ADDITIVE, DType.F32, new long[] {128}, new long[] {1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "bool mask [Lq,Lkv]",
            bf16(64, 128, 64, Mask.Kind.NONE)
                .withMask(Mask.Kind.BOOL, DType.U8, new long[] {64, 128}, new long[] {128, 1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            null),
        Arguments.of(
            "mask that does not broadcast",
            bf16(64, 128, 64, Mask.Kind.NONE)
                .withMask(
                    Mask.Kind.ADDITIVE,
                    DType.BF16,
                    new long[] {2, 1, 64, 128},
                    new long[] {8192, 8192, 128, 1}),
            9,
            0,
            false,
            null,
            91400,
            128,
            "mask BF16[2, 1, 64, 128] does not broadcast to [B, Hq, Lq, Lkv] = [1, 32, 64, 128]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void rule(
      String name,
      CudnnSdpa.Problem p,
      int ccMajor,
      int ccMinor,
      boolean disabled,
      String lib,
      long version,
      int bound,
      String expected) {
    String why = CudnnSdpa.check(p, ccMajor, ccMinor, disabled, lib, version, bound);
    if (expected == null) {
      assertNull(why, name);
    } else {
      assertTrue(why != null && why.startsWith(expected), name + ": got " + why);
    }
  }

  @Test
  void onlyCudaDevicesQualify() {
    DeviceInfo java = new DeviceInfo("java", "Java backend (2 cores)", 0, 0, 2, 1L << 30, 0, 0, 0);
    assertEquals("cuDNN runs only on CUDA devices", CudnnSdpa.supports(BASE, java));
  }

  @Test
  void theDisablePropertyWinsOverEverything() {
    DeviceInfo h200 = new DeviceInfo("cuda", "NVIDIA H200", 9, 0, 132, 140L << 30, 0, 0, 13000);
    String old = System.getProperty(CudnnSdpa.DISABLE_PROPERTY);
    try {
      System.setProperty(CudnnSdpa.DISABLE_PROPERTY, "true");
      assertEquals(
          "cuDNN disabled by -Dsirocco.cudnn.disable=true", CudnnSdpa.supports(BASE, h200));
    } finally {
      if (old == null) {
        System.clearProperty(CudnnSdpa.DISABLE_PROPERTY);
      } else {
        System.setProperty(CudnnSdpa.DISABLE_PROPERTY, old);
      }
    }
    if (!Cudnn.available()) {
      assertTrue(CudnnSdpa.supports(BASE, h200).startsWith("cuDNN unavailable: "));
    }
  }

  @Test
  void theHeadDimBoundIs128Unless256IsAskedForOnSm90() {
    String old = System.getProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY);
    try {
      System.clearProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY);
      assertEquals(128, CudnnSdpa.configuredMaxHeadDim(9));
      System.setProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY, "256");
      assertEquals(256, CudnnSdpa.configuredMaxHeadDim(9));
      assertEquals(128, CudnnSdpa.configuredMaxHeadDim(8));
      assertEquals(128, CudnnSdpa.configuredMaxHeadDim(10));
      System.setProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY, "192");
      var e = assertThrows(IllegalArgumentException.class, () -> CudnnSdpa.configuredMaxHeadDim(9));
      assertEquals(
          "system property sirocco.cudnn.maxHeadDim must be 128 or 256, got 192", e.getMessage());
    } finally {
      if (old == null) {
        System.clearProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY);
      } else {
        System.setProperty(CudnnSdpa.MAX_HEAD_DIM_PROPERTY, old);
      }
    }
  }
}
