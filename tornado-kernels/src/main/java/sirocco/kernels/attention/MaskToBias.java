package sirocco.kernels.attention;

import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.runtime.Dim3;

/**
 * Turns an attention mask into the additive bias cuDNN's SDPA graph takes: a contiguous {@code
 * [rows = mb·mh·Lq, Lkv]} array of f16 or bf16. Element (b, h, q, k) of the mask is read at {@code
 * offset + b·s0 + h·s1 + q·s2 + k·s3} (a stride of 0 broadcasts). Boolean masks give 0 where they
 * keep and −∞ where they mask; float masks are rounded to the output type. Grid: x strides over
 * columns, y over rows; any block size.
 */
public final class MaskToBias {
  private MaskToBias() {}

  /** Threads per block of every conversion launch. */
  public static final int BLOCK = 256;

  /**
   * The grid for a bias of {@code rows x lkv}: x over columns, y over rows, each capped (64 column
   * blocks, 65535 row blocks) because the kernels stride over what one launch does not cover.
   */
  public static Dim3 grid(long rows, long lkv) {
    return new Dim3(
        (int) Math.max(1, Math.min((lkv + BLOCK - 1) / BLOCK, 64)),
        (int) Math.max(1, Math.min(rows, 65535)),
        1);
  }

  private static short round(float value, boolean bf16) {
    return bf16 ? Bf16.fromFloat(value) : F16.fromFloat(value);
  }

  /** U8 boolean mask (nonzero keeps). */
  @Kernel(validateWith = {"dstBf16=true", "dstBf16=false"})
  public static void fromBool(
      KernelContext ctx,
      byte[] src, // [mask elements] u8
      short[] dst, // [rows, lkv] f16/bf16
      int offset,
      int rows,
      int mh,
      int lq,
      int lkv,
      int s0,
      int s1,
      int s2,
      int s3,
      @Specialize boolean dstBf16) {
    for (int row = ctx.groupIdy; row < rows; row += ctx.groupCountY) {
      int q = row % lq;
      int h = (row / lq) % mh;
      int b = row / (lq * mh);
      int base = offset + b * s0 + h * s1 + q * s2;
      for (int k = ctx.globalIdx; k < lkv; k += ctx.globalGroupSizeX) {
        float v = src[base + k * s3] != 0 ? 0f : Float.NEGATIVE_INFINITY;
        dst[row * lkv + k] = round(v, dstBf16);
      }
    }
  }

  /** F32 additive mask. */
  @Kernel(validateWith = {"dstBf16=true", "dstBf16=false"})
  public static void fromF32(
      KernelContext ctx,
      float[] src, // [mask elements] f32
      short[] dst, // [rows, lkv] f16/bf16
      int offset,
      int rows,
      int mh,
      int lq,
      int lkv,
      int s0,
      int s1,
      int s2,
      int s3,
      @Specialize boolean dstBf16) {
    for (int row = ctx.groupIdy; row < rows; row += ctx.groupCountY) {
      int q = row % lq;
      int h = (row / lq) % mh;
      int b = row / (lq * mh);
      int base = offset + b * s0 + h * s1 + q * s2;
      for (int k = ctx.globalIdx; k < lkv; k += ctx.globalGroupSizeX) {
        dst[row * lkv + k] = round(src[base + k * s3], dstBf16);
      }
    }
  }

  /** F16 or BF16 additive mask. */
  @Kernel(
      validateWith = {
        "srcBf16=true,dstBf16=true",
        "srcBf16=false,dstBf16=true",
        "srcBf16=true,dstBf16=false",
        "srcBf16=false,dstBf16=false"
      })
  public static void fromHalf(
      KernelContext ctx,
      short[] src, // [mask elements] f16/bf16
      short[] dst, // [rows, lkv] f16/bf16
      int offset,
      int rows,
      int mh,
      int lq,
      int lkv,
      int s0,
      int s1,
      int s2,
      int s3,
      @Specialize boolean srcBf16,
      @Specialize boolean dstBf16) {
    for (int row = ctx.groupIdy; row < rows; row += ctx.groupCountY) {
      int q = row % lq;
      int h = (row / lq) % mh;
      int b = row / (lq * mh);
      int base = offset + b * s0 + h * s1 + q * s2;
      for (int k = ctx.globalIdx; k < lkv; k += ctx.globalGroupSizeX) {
        short bits = src[base + k * s3];
        float v = srcBf16 ? Bf16.toFloat(bits) : F16.toFloat(bits);
        dst[row * lkv + k] = round(v, dstBf16);
      }
    }
  }

  /**
   * Scalar reference: the bias value for mask element (b, h, q, k) given its raw value as a double
   * (booleans as 0/1), before rounding to the output type.
   */
  public static double reference(boolean boolMask, double maskValue) {
    return boolMask ? (maskValue != 0 ? 0.0 : Double.NEGATIVE_INFINITY) : maskValue;
  }
}
