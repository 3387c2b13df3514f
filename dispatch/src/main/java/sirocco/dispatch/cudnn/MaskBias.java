package sirocco.dispatch.cudnn;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.DType;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.cuda.CudaFunction;
import sirocco.runtime.cuda.CudaStream;

/**
 * The attention mask as cuDNN's bias input. cuDNN's SDPA graph takes an additive bias in the I/O
 * data type with dimensions {@code [B or 1, Hq or 1, Lq, Lkv]}, no boolean masks. An additive mask
 * that already has that form is passed through as it is; anything else (a boolean mask, a mask of
 * another dtype, one broadcast along Lq or Lkv, odd strides) is written by a small hand-written PTX
 * kernel ({@code mask_to_bias.ptx}) into a contiguous temporary from the device pool, on the op's
 * stream: 0 where a boolean mask keeps, −∞ where it masks.
 */
final class MaskBias {
  static final String PTX_RESOURCE = "/sirocco/dispatch/cudnn/mask_to_bias.ptx";
  static final String ENTRY = "sirocco_mask_to_bias";

  private static final Map<CudaDevice, CudaFunction> KERNELS = new ConcurrentHashMap<>();
  private static volatile String ptx;

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

  private static String ptx() {
    String p = ptx;
    if (p == null) {
      try (InputStream in = MaskBias.class.getResourceAsStream(PTX_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("resource " + PTX_RESOURCE + " is missing");
        }
        ptx = p = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return p;
  }

  /** The PTX text (for the CI test that compiles it). */
  static String ptxSource() {
    return ptx();
  }

  /**
   * Writes the bias for {@code layout} into a new contiguous buffer of {@code io}'s 16-bit type,
   * ordered on {@code stream}. The caller closes the buffer after queueing the work that reads it.
   */
  static DeviceBuffer materialize(
      CudaDevice device, CudaStream stream, long srcPointer, Layout layout, DType io) {
    CudaFunction f = KERNELS.computeIfAbsent(device, d -> d.loadPtx(ptx(), ENTRY));
    long[] d = layout.dims();
    long rows = d[0] * d[1] * d[2];
    long n = rows * d[3];
    DeviceBuffer out = device.allocate(ElementType.I16, n, stream);
    try {
      int block = 256;
      int gx = (int) Math.max(1, Math.min((d[3] + block - 1) / block, 64));
      int gy = (int) Math.max(1, Math.min(rows, 65535));
      long[] s = layout.srcStrides();
      device.launchFunction(
          f,
          new Dim3(gx, gy, 1),
          Dim3.of(block),
          0,
          stream,
          srcPointer,
          out,
          rows,
          d[1],
          d[2],
          d[3],
          s[0],
          s[1],
          s[2],
          s[3],
          layout.srcKind(),
          io == DType.BF16 ? 1 : 0);
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
    return out;
  }

  static String describe(Layout l) {
    return (l.direct() ? "direct " : "materialized (kind " + l.srcKind() + ") ")
        + Arrays.toString(l.dims())
        + "/"
        + Arrays.toString(l.strides());
  }
}
