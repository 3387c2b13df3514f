package sirocco.dispatch.quant;

import java.util.Arrays;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Tensor;
import sirocco.kernels.quant.Quant;

/**
 * Validation shared by the quantization ops, as MLX validates ({@code validate_quantized_input},
 * {@code quantization_params_from_mode}): every failure is an {@link IllegalArgumentException}
 * naming the argument (for a {@link Quantized}, its component, e.g. {@code w.scales}) and the
 * expected form. Nothing here allocates or launches.
 */
final class QuantArgs {
  private QuantArgs() {}

  /** The kernels' mode code. */
  static int mode(QuantMode m) {
    return switch (m) {
      case AFFINE -> Quant.AFFINE;
      case MXFP4 -> Quant.MXFP4;
      case NVFP4 -> Quant.NVFP4;
      case MXFP8 -> Quant.MXFP8;
    };
  }

  /** The kernels' dtype code of a floating dtype. */
  static int dtype(DType d) {
    return switch (d) {
      case BF16 -> Quant.BF16;
      case F16 -> Quant.F16;
      case F32 -> Quant.F32;
      default -> throw new IllegalStateException("not a floating dtype: " + d);
    };
  }

  static String shape(Tensor t) {
    return Arrays.toString(t.shape());
  }

  /**
   * {@code (mode, bits, groupSize)} as MLX accepts them: affine bits 2, 3, 4, 5, 6, 8 and groups
   * 32, 64, 128; fp modes exactly their fixed bits and group. {@code name} prefixes the parameter
   * names (e.g. "w." for a {@link Quantized} argument, "" for quantize's own parameters).
   */
  static void checkFormat(QuantMode mode, int bits, int groupSize, String name) {
    if (mode == null) {
      throw new IllegalArgumentException(
          name + "mode must be AFFINE, MXFP4, NVFP4 or MXFP8, not null");
    }
    String bad = Quant.checkFormat(mode(mode), bits, groupSize);
    if (bad != null) {
      throw new IllegalArgumentException(name + bad);
    }
  }

  /** A floating dtype check: F32, F16 or BF16. */
  static void checkFloating(Tensor t, String name, String what) {
    if (!t.dtype().isFloating()) {
      throw new IllegalArgumentException(
          name + " must be floating point (F32, F16 or BF16)" + what + ", got " + t.dtype());
    }
  }

  /**
   * Validated quantized weights: {@code wq [..batch, rows, packed]} U32, {@code scales} (and for
   * affine {@code biases}) {@code [..batch, rows, groups]}, with {@code packed * 32 / bits ==
   * groups * groupSize == cols}.
   *
   * @param cols the unpacked length of the last axis
   */
  record Weights(
      Quantized q,
      int mode,
      int bits,
      int groupSize,
      long[] batch,
      long rows,
      long packed,
      long groups,
      long cols) {
    Tensor wq() {
      return q.wq();
    }

    Tensor scales() {
      return q.scales();
    }

    Tensor biases() {
      return q.biases();
    }

    Tensor globalScale() {
      return q.globalScale();
    }

    boolean affine() {
      return mode == Quant.AFFINE;
    }

    long batchSize() {
      long n = 1;
      for (long d : batch) {
        n *= d;
      }
      return n;
    }
  }

  /**
   * Checks a {@link Quantized} argument called {@code name}; its tensors have already been checked
   * to belong to the instance and be open.
   */
  static Weights weights(Quantized q, String name) {
    if (q == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    String p = name + ".";
    checkFormat(q.mode(), q.bits(), q.groupSize(), p);
    Tensor wq = q.wq();
    Tensor scales = q.scales();
    Tensor biases = q.biases();
    if (wq.dtype() != sirocco.DType.U32) {
      throw new IllegalArgumentException(
          p + "wq must be U32 (packed codes), got " + wq.dtype() + " " + shape(wq));
    }
    if (wq.rank() < 2) {
      throw new IllegalArgumentException(
          p + "wq must have at least 2 dimensions [..., rows, words], got shape " + shape(wq));
    }
    boolean affine = q.mode() == QuantMode.AFFINE;
    if (affine) {
      checkFloating(scales, p + "scales", " for affine quantization");
      if (!Arrays.equals(scales.shape(), biases.shape())) {
        throw new IllegalArgumentException(
            p
                + "biases must have the same shape as "
                + p
                + "scales "
                + shape(scales)
                + ", got "
                + shape(biases));
      }
      if (biases.dtype() != scales.dtype()) {
        throw new IllegalArgumentException(
            p
                + "biases must have the same dtype as "
                + p
                + "scales ("
                + scales.dtype()
                + "), got "
                + biases.dtype());
      }
    } else if (scales.dtype() != sirocco.DType.U8) {
      throw new IllegalArgumentException(
          p + "scales must be U8 (scale codes) for " + q.mode() + ", got " + scales.dtype());
    }
    long[] ws = wq.shape();
    long[] ss = scales.shape();
    int r = ws.length;
    long packed = ws[r - 1];
    long rows = ws[r - 2];
    long cols = packed * 32 / q.bits();
    boolean sameBatch = ss.length == r;
    for (int i = 0; sameBatch && i < r - 1; i++) {
      sameBatch = ss[i] == ws[i];
    }
    if (!sameBatch || packed * 32 != ss[r - 1] * (long) q.groupSize() * q.bits()) {
      long groups = packed * 32 % q.bits() == 0 ? cols / q.groupSize() : -1;
      long[] want = ws.clone();
      want[r - 1] = groups;
      throw new IllegalArgumentException(
          p
              + "scales must have shape "
              + (groups < 0 ? "[..., rows, words*32/bits/groupSize]" : Arrays.toString(want))
              + " to match "
              + p
              + "wq "
              + shape(wq)
              + " (the same batch and rows, wq.shape(-1)*32/bits == scales.shape(-1)*groupSize"
              + " with bits="
              + q.bits()
              + ", groupSize="
              + q.groupSize()
              + "), got "
              + shape(scales));
    }
    Tensor gs = q.globalScale();
    if (gs != null && (gs.dtype() != sirocco.DType.F32 || gs.size() != 1)) {
      throw new IllegalArgumentException(
          p + "globalScale must be one F32 element, got " + gs.dtype() + " " + shape(gs));
    }
    return new Weights(
        q,
        mode(q.mode()),
        q.bits(),
        q.groupSize(),
        Arrays.copyOfRange(ws, 0, r - 2),
        rows,
        packed,
        ss[r - 1],
        cols);
  }
}
