package sirocco.dispatch.quant;

import java.util.List;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.kernels.quant.AffineDequantizeKernel;
import sirocco.kernels.quant.AffineQuantizeKernel;
import sirocco.kernels.quant.FpDequantizeKernel;
import sirocco.kernels.quant.FpQuantizeKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.runtime.DeviceBuffer;

/**
 * {@link Sirocco#quantize} and {@link Sirocco#dequantize}: MLX's {@code quantize} / {@code
 * dequantize} on the kernels of {@code sirocco.kernels.quant}.
 *
 * <ul>
 *   <li>{@code quantize(w [..., K], groupSize, bits, mode)}: w floating (F32, F16, BF16) with at
 *       least 2 dimensions, K a multiple of the group. Returns {@code wq} U32 {@code [...,
 *       K*bits/32]}, {@code scales} {@code [..., K/groupSize]} (affine: w's dtype, with {@code
 *       biases} alike; fp modes: U8 scale codes, no biases) — MLX's layout bit for bit. nvfp4 takes
 *       an optional one-element F32 global scale, carried in the result.
 *   <li>{@code dequantize(q)}: {@code [..., rows, K]} in the scales' dtype (affine) or BF16 (fp
 *       modes; another floating dtype on request).
 * </ul>
 *
 * Leading dimensions are folded into rows (one launch); views are made dense first. Each call
 * reports its kernel through {@link Explain}.
 */
public final class QuantizeOp {
  private QuantizeOp() {}

  public static final String QUANTIZE = "quantize";
  public static final String DEQUANTIZE = "dequantize";

  /** Kernels stop at 2^31 - 1 elements (32-bit indexing). */
  static void checkElements(long n, String what) {
    if (n >= Integer.MAX_VALUE) {
      throw new UnsupportedOperationException(
          what
              + " has "
              + n
              + " elements; the quantization kernels index with 32-bit ints (< 2^31)");
    }
  }

  /**
   * Validates, then quantizes {@code w} on {@code rt}'s stream. The tensors are {@code rt}'s and
   * open (the caller checks).
   *
   * @throws IllegalArgumentException naming the argument, before anything is allocated or launched
   */
  public static Quantized quantize(
      Sirocco rt, Tensor w, int groupSize, int bits, QuantMode mode, Tensor globalScale) {
    if (mode == null) {
      throw new IllegalArgumentException("mode must be AFFINE, MXFP4, NVFP4 or MXFP8, not null");
    }
    QuantArgs.checkFloating(w, "w", " to be quantized");
    if (w.rank() < 2) {
      throw new IllegalArgumentException(
          "w must have at least 2 dimensions [..., rows, K] to be quantized, got shape "
              + QuantArgs.shape(w));
    }
    QuantArgs.checkFormat(mode, bits, groupSize, "");
    long cols = w.shape(-1);
    if (cols % groupSize != 0) {
      throw new IllegalArgumentException(
          "w's last dimension must be a multiple of groupSize "
              + groupSize
              + ", got shape "
              + QuantArgs.shape(w));
    }
    if (globalScale != null) {
      if (mode != QuantMode.NVFP4) {
        throw new IllegalArgumentException(
            "globalScale is only defined for NVFP4, not " + mode + " (pass null)");
      }
      if (globalScale.dtype() != DType.F32 || globalScale.size() != 1) {
        throw new IllegalArgumentException(
            "globalScale must be one F32 element, got "
                + globalScale.dtype()
                + " "
                + QuantArgs.shape(globalScale));
      }
    }
    checkElements(w.size(), "w");

    int m = QuantArgs.mode(mode);
    long[] shape = w.shape();
    long[] wqShape = shape.clone();
    wqShape[wqShape.length - 1] = cols * bits / 32;
    long[] sShape = shape.clone();
    sShape[sShape.length - 1] = cols / groupSize;
    boolean affine = mode == QuantMode.AFFINE;
    DType scaleType = affine ? w.dtype() : DType.U8;
    int rows = (int) (cols == 0 ? 0 : w.size() / cols);
    int dtype = QuantArgs.dtype(w.dtype());
    LaunchPlan plan = null;
    if (w.size() > 0) {
      String why =
          affine
              ? AffineQuantizeKernel.supports(bits, groupSize, dtype, rows, (int) cols)
              : FpQuantizeKernel.supports(m, dtype, rows, (int) cols);
      if (why != null) {
        throw new IllegalStateException("quantize: the kernel rejects a validated call: " + why);
      }
      plan =
          affine
              ? AffineQuantizeKernel.plan(bits, groupSize, dtype, rows, (int) cols)
              : FpQuantizeKernel.plan(m, dtype, rows, (int) cols);
      Explain.report(new Decision(QUANTIZE, kernelName(plan), List.of()));
    }
    try (OpLauncher l = new OpLauncher(rt)) {
      Tensor wq = l.output(DType.U32, wqShape);
      Tensor scales = l.output(scaleType, sShape);
      Tensor biases = affine ? l.output(scaleType, sShape) : null;
      if (plan != null) {
        DeviceBuffer src = l.dense(w);
        int groups = (int) (w.size() / groupSize);
        if (affine) {
          l.launch(
              QuantKernels.launch(
                  plan, src, l.buffer(wq), l.buffer(scales), l.buffer(biases), groups));
        } else {
          DeviceBuffer gs =
              globalScale == null ? QuantKernels.noGlobalScale(l.device) : l.dense(globalScale);
          l.launch(QuantKernels.launch(plan, src, l.buffer(wq), l.buffer(scales), gs, groups));
        }
      }
      return l.done(new Quantized(wq, scales, biases, groupSize, bits, mode, globalScale));
    }
  }

  /**
   * The matrix {@code q} stands for, in {@code dtype} (null: the scales' dtype for affine, BF16 for
   * fp modes). Affine accepts the scales' dtype or F32 (widened); fp modes any floating dtype.
   *
   * @throws IllegalArgumentException naming the argument, before anything is allocated or launched
   */
  public static Tensor dequantize(Sirocco rt, Quantized q, DType dtype) {
    QuantArgs.Weights wt = QuantArgs.weights(q, "q");
    DType natural = wt.affine() ? wt.scales().dtype() : DType.BF16;
    DType out = dtype == null ? natural : dtype;
    if (!out.isFloating()) {
      throw new IllegalArgumentException(
          "dtype must be floating point (F32, F16 or BF16) for dequantize, got " + out);
    }
    if (wt.affine() && out != natural && out != DType.F32) {
      throw new IllegalArgumentException(
          "dtype must be "
              + natural
              + " (q.scales' dtype) or F32 for affine dequantize, got "
              + out);
    }
    long[] shape = wt.wq().shape();
    shape[shape.length - 1] = wt.cols();
    long size = 1;
    for (long d : shape) {
      size *= d;
    }
    checkElements(size, "the dequantized matrix");
    int rows = (int) (wt.cols() == 0 ? 0 : size / wt.cols());
    int cols = (int) wt.cols();
    // An F32 request over 16-bit affine scales widens the scales and biases first, so the product
    // is rounded once, to float32.
    int kd = QuantArgs.dtype(out);
    LaunchPlan plan = null;
    if (size > 0) {
      String why =
          wt.affine()
              ? AffineDequantizeKernel.supports(wt.bits(), wt.groupSize(), kd, rows, cols)
              : FpDequantizeKernel.supports(wt.mode(), kd, rows, cols);
      if (why != null) {
        throw new IllegalStateException("dequantize: the kernel rejects a validated call: " + why);
      }
      plan =
          wt.affine()
              ? AffineDequantizeKernel.plan(wt.bits(), wt.groupSize(), kd, rows, cols)
              : FpDequantizeKernel.plan(wt.mode(), kd, rows, cols);
      Explain.report(new Decision(DEQUANTIZE, kernelName(plan), List.of()));
    }
    try (OpLauncher l = new OpLauncher(rt)) {
      Tensor result = l.output(out, shape);
      if (plan == null) {
        return l.done(result);
      }
      int octets = rows * (cols / 8);
      DeviceBuffer wq = l.dense(wt.wq());
      DeviceBuffer target = l.buffer(result);
      if (wt.affine()) {
        DeviceBuffer scales = l.denseAs(wt.scales(), out);
        DeviceBuffer biases = l.denseAs(wt.biases(), out);
        l.launch(QuantKernels.launch(plan, wq, scales, biases, target, octets));
      } else {
        DeviceBuffer gs =
            wt.globalScale() == null
                ? QuantKernels.noGlobalScale(l.device)
                : l.dense(wt.globalScale());
        l.launch(QuantKernels.launch(plan, wq, l.dense(wt.scales()), gs, target, octets));
      }
      return l.done(result);
    }
  }

  /** "AffineQuantizeKernel.quantize" and its specialization values, for decisions. */
  static String kernelName(LaunchPlan p) {
    return p.kernel() + p.specialize();
  }
}
