package sirocco.dispatch.cudnn;

import java.util.Arrays;
import sirocco.DType;
import sirocco.kernels.attention.MaskToBias;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.CudaStream;

/**
 * The attention mask as cuDNN's bias input. cuDNN's SDPA graph takes an additive bias in the I/O
 * data type with dimensions {@code [B or 1, Hq or 1, Lq, Lkv]}, no boolean masks. An additive mask
 * that already has that form is passed through as it is; anything else (a boolean mask, a mask of
 * another dtype, one broadcast along Lq or Lkv, odd strides) is written by the Java kernels of
 * {@link MaskToBias} into a contiguous temporary from the device pool, on the op's stream: 0 where
 * a boolean mask keeps, −∞ where it masks.
 */
final class MaskBias {
  private MaskBias() {}

  /**
   * How a mask reaches cuDNN.
   *
   * @param direct true when the mask tensor itself is the bias
   * @param dims the bias's dimensions as cuDNN sees them, [mb, mh, Lq, Lkv]
   * @param strides the bias's element strides as cuDNN sees them
   * @param srcStrides element strides for reading the mask as [mb, mh, Lq, Lkv] (0 broadcasts)
   * @param srcKind the kernel's source kind (0 u8 bool, 1 f32, 2 f16, 3 bf16); -1 when direct
   */
  record Layout(boolean direct, long[] dims, long[] strides, long[] srcStrides, int srcKind) {}

  /**
   * Decides how the mask of shape {@code maskShape} (rank ≤ 4, broadcastable to [B, Hq, Lq, Lkv])
   * with element strides {@code maskStrides} and dtype {@code maskDtype} becomes the bias for I/O
   * dtype {@code io}. Returns null when the shape is not broadcastable.
   */
  static Layout layout(
      boolean bool,
      DType maskDtype,
      long[] maskShape,
      long[] maskStrides,
      DType io,
      long b,
      long hq,
      long lq,
      long lkv) {
    if (maskShape.length > 4 || maskShape.length != maskStrides.length) {
      return null;
    }
    long[] target = {b, hq, lq, lkv};
    long[] dims = new long[4];
    long[] src = new long[4];
    int pad = 4 - maskShape.length;
    for (int i = 0; i < 4; i++) {
      long dim = i < pad ? 1 : maskShape[i - pad];
      long stride = i < pad ? 0 : maskStrides[i - pad];
      if (dim != target[i] && dim != 1) {
        return null;
      }
      dims[i] = dim;
      src[i] = dim == 1 ? 0 : stride;
    }
    long[] biasDims = {dims[0], dims[1], lq, lkv};
    boolean direct =
        !bool
            && maskDtype == io
            && dims[2] == lq
            && dims[3] == lkv
            && src[3] == 1
            && (lq == 1 || (src[2] >= lkv && src[2] % 8 == 0))
            && (dims[1] == 1 || (src[1] > 0 && src[1] % 8 == 0))
            && (dims[0] == 1 || (src[0] > 0 && src[0] % 8 == 0));
    if (direct) {
      long[] strides = new long[4];
      strides[3] = 1;
      strides[2] = lq == 1 ? lkv : src[2];
      strides[1] = dims[1] == 1 ? strides[2] * lq : src[1];
      strides[0] = dims[0] == 1 ? strides[1] * dims[1] : src[0];
      return new Layout(true, biasDims, strides, src, -1);
    }
    int kind =
        bool
            ? 0
            : switch (maskDtype) {
              case F32 -> 1;
              case F16 -> 2;
              case BF16 -> 3;
              default -> -1;
            };
    if (kind < 0) {
      return null;
    }
    return new Layout(false, biasDims, CudnnSdpaGraph.packed(biasDims), src, kind);
  }

  /**
   * Writes the bias for {@code layout} into a new contiguous buffer of {@code io}'s 16-bit type,
   * ordered on {@code stream}, with the Java kernels of {@link MaskToBias} (compiled by Sirocco's
   * JIT like every kernel). The caller closes the buffer after queueing the work that reads it.
   */
  static DeviceBuffer materialize(
      CudaDevice device,
      CudaStream stream,
      DeviceBuffer mask,
      long maskOffset,
      Layout layout,
      DType io) {
    long[] d = layout.dims();
    long rows = d[0] * d[1] * d[2];
    long n = rows * d[3];
    long[] s = layout.srcStrides();
    long span =
        maskOffset
            + Math.abs(s[0]) * d[0]
            + Math.abs(s[1]) * d[1]
            + Math.abs(s[2]) * d[2]
            + Math.abs(s[3]) * d[3];
    if (n > Integer.MAX_VALUE || span > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "mask of " + n + " bias elements is too large to convert (at most 2^31 - 1 elements)");
    }
    DeviceBuffer out = device.allocate(ElementType.I16, n, stream);
    try {
      Dim3 grid = MaskToBias.grid(rows, d[3]);
      Dim3 block = Dim3.of(MaskToBias.BLOCK);
      Object[] common = {
        (int) maskOffset,
        (int) rows,
        (int) d[1],
        (int) d[2],
        (int) d[3],
        (int) s[0],
        (int) s[1],
        (int) s[2],
        (int) s[3]
      };
      boolean dstBf16 = io == DType.BF16;
      KernelLaunch launch =
          switch (layout.srcKind()) {
            case 0 ->
                KernelLaunch.of(method("fromBool"), grid, block, args(mask, out, common, dstBf16));
            case 1 ->
                KernelLaunch.of(method("fromF32"), grid, block, args(mask, out, common, dstBf16));
            case 2, 3 ->
                KernelLaunch.of(
                    method("fromHalf"),
                    grid,
                    block,
                    args(mask, out, common, layout.srcKind() == 3, dstBf16));
            default ->
                throw new IllegalArgumentException(
                    "mask kind " + layout.srcKind() + " has no conversion");
          };
      device.launch(launch, stream);
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
    return out;
  }

  private static Object[] args(
      DeviceBuffer mask, DeviceBuffer out, Object[] common, Object... flags) {
    Object[] a = new Object[2 + common.length + flags.length];
    a[0] = mask;
    a[1] = out;
    System.arraycopy(common, 0, a, 2, common.length);
    System.arraycopy(flags, 0, a, 2 + common.length, flags.length);
    return a;
  }

  private static java.lang.reflect.Method method(String name) {
    for (java.lang.reflect.Method m : MaskToBias.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalStateException("MaskToBias." + name + " missing");
  }

  static String describe(Layout l) {
    return (l.direct() ? "direct " : "materialized (kind " + l.srcKind() + ") ")
        + Arrays.toString(l.dims())
        + "/"
        + Arrays.toString(l.strides());
  }
}
