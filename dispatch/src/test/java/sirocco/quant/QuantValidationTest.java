package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;

/**
 * Every validation error of quantize, dequantize and quantizedMatmul (MLX's test_throw, the mode
 * and dtype error cases, and the rest of MLX's checks): an {@link IllegalArgumentException} whose
 * message names the argument and the expected form, raised before anything is launched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuantValidationTest {
  Sirocco rt;
  Sirocco other;
  Tensor x;
  Quantized w; // (32, 512) g64 4-bit, bf16

  @BeforeAll
  void open() {
    rt = Sirocco.open(Backend.JAVA);
    other = Sirocco.open(Backend.JAVA);
    x = QTest.upload(rt, QTest.normal(1, 10 * 512, 1, DType.BF16), DType.BF16, 10, 512);
    w =
        rt.quantize(
            QTest.upload(rt, QTest.normal(2, 32 * 512, 1, DType.BF16), DType.BF16, 32, 512),
            64,
            4,
            QuantMode.AFFINE);
  }

  @AfterAll
  void close() {
    rt.close();
    other.close();
  }

  /** {@code body} throws IllegalArgumentException mentioning each fragment; nothing launched. */
  void rejects(Executable body, String... fragments) {
    List<Decision> ds =
        QTest.decisions(
            () -> {
              IllegalArgumentException e = assertThrows(IllegalArgumentException.class, body);
              for (String f : fragments) {
                assertTrue(
                    e.getMessage().contains(f), "'" + e.getMessage() + "' lacks '" + f + "'");
              }
            });
    assertTrue(ds.isEmpty(), "nothing may be launched before validation fails: " + ds);
  }

  Quantized with(Tensor wq, Tensor scales, Tensor biases) {
    return new Quantized(wq, scales, biases, 64, 4, QuantMode.AFFINE);
  }

  @Test
  void quantizeErrors() {
    Tensor wb = rt.zeros(DType.BF16, 8, 128);
    rejects(() -> rt.quantize(null, 64, 4, QuantMode.AFFINE), "w must not be null");
    rejects(
        () -> rt.quantize(rt.zeros(DType.I32, 8, 128), 64, 4, QuantMode.AFFINE),
        "w must be floating point",
        "I32");
    rejects(
        () -> rt.quantize(rt.zeros(DType.I32, 8, 128), 32, 4, QuantMode.MXFP4),
        "w must be floating point");
    rejects(
        () -> rt.quantize(rt.zeros(DType.F32, 128), 64, 4, QuantMode.AFFINE),
        "w must have at least 2 dimensions");
    rejects(() -> rt.quantize(wb, 64, 4, null), "mode must be");
    rejects(
        () -> rt.quantize(wb, 64, 7, QuantMode.AFFINE), "bits must be 2, 3, 4, 5, 6 or 8", "got 7");
    rejects(
        () -> rt.quantize(wb, 16, 4, QuantMode.AFFINE),
        "groupSize must be 32, 64 or 128",
        "got 16");
    rejects(() -> rt.quantize(wb, 32, 3, QuantMode.MXFP4), "bits must be 4 for mxfp4");
    rejects(() -> rt.quantize(wb, 64, 4, QuantMode.MXFP4), "groupSize must be 32 for mxfp4");
    rejects(() -> rt.quantize(wb, 32, 4, QuantMode.NVFP4), "groupSize must be 16 for nvfp4");
    rejects(() -> rt.quantize(wb, 32, 7, QuantMode.MXFP8), "bits must be 8 for mxfp8");
    rejects(
        () -> rt.quantize(rt.zeros(DType.BF16, 8, 96), 64, 4, QuantMode.AFFINE),
        "last dimension must be a multiple of groupSize 64",
        "[8, 96]");
    rejects(
        () -> rt.quantize(wb, 32, 4, QuantMode.MXFP4, rt.fromFloats(new float[] {1}, 1)),
        "globalScale is only defined for NVFP4");
    rejects(
        () -> rt.quantize(wb, 16, 4, QuantMode.NVFP4, rt.fromFloats(new float[] {1, 2}, 2)),
        "globalScale must be one F32 element");
    rejects(
        () -> rt.quantize(other.zeros(DType.BF16, 8, 128), 64, 4, QuantMode.AFFINE),
        "w belongs to another Sirocco instance");
    Tensor closed = rt.zeros(DType.BF16, 8, 128);
    closed.close();
    rejects(() -> rt.quantize(closed, 64, 4, QuantMode.AFFINE), "w is closed");
  }

  @Test
  void dequantizeErrors() {
    rejects(() -> rt.dequantize(null), "q must not be null");
    rejects(
        () -> rt.dequantize(with(rt.zeros(DType.F32, 32, 64), w.scales(), w.biases())),
        "q.wq must be U32");
    rejects(
        () -> rt.dequantize(with(rt.zeros(DType.U32, 64), w.scales(), w.biases())),
        "q.wq must have at least 2 dimensions");
    Tensor intScales = rt.zeros(DType.I32, 32, 8);
    rejects(
        () -> rt.dequantize(with(w.wq(), intScales, rt.zeros(DType.I32, 32, 8))),
        "q.scales must be floating point");
    rejects(
        () -> rt.dequantize(with(w.wq(), w.scales(), rt.zeros(DType.BF16, 32, 4))),
        "q.biases must have the same shape as q.scales");
    rejects(
        () -> rt.dequantize(with(w.wq(), w.scales(), rt.zeros(DType.F16, 32, 8))),
        "q.biases must have the same dtype as q.scales");
    rejects(
        () -> rt.dequantize(with(w.wq(), rt.zeros(DType.BF16, 32, 4), rt.zeros(DType.BF16, 32, 4))),
        "q.scales must have shape [32, 8]");
    rejects(
        () ->
            rt.dequantize(
                new Quantized(w.wq(), rt.zeros(DType.U8, 32, 16), null, 32, 3, QuantMode.MXFP4)),
        "q.bits must be 4 for mxfp4");
    rejects(
        () ->
            rt.dequantize(
                new Quantized(w.wq(), rt.zeros(DType.U8, 32, 16), null, 64, 4, QuantMode.MXFP4)),
        "q.groupSize must be 32 for mxfp4");
    rejects(
        () ->
            rt.dequantize(
                new Quantized(w.wq(), rt.zeros(DType.BF16, 32, 16), null, 32, 4, QuantMode.MXFP4)),
        "q.scales must be U8");
    rejects(() -> rt.dequantize(w, DType.I32), "dtype must be floating point");
    rejects(() -> rt.dequantize(w, DType.F16), "dtype must be BF16 (q.scales' dtype) or F32");
    rejects(
        () ->
            rt.dequantize(
                new Quantized(
                    w.wq(),
                    rt.zeros(DType.U8, 32, 32),
                    null,
                    16,
                    4,
                    QuantMode.NVFP4,
                    rt.zeros(DType.BF16, 1))),
        "q.globalScale must be one F32 element");
    rejects(
        () -> rt.dequantize(with(other.zeros(DType.U32, 32, 64), w.scales(), w.biases())),
        "q.wq belongs to another Sirocco instance");
  }

  /** MLX test_throw and test_mode_error_cases, plus the shape and broadcast checks. */
  @Test
  void quantizedMatmulErrors() {
    // test_throw: the transposed words, the transposed scales, the wrong transpose flag.
    rejects(
        () -> rt.quantizedMatmul(x, with(w.wq().transpose(0, 1), w.scales(), w.biases()), true),
        "w.scales must have shape");
    rejects(
        () ->
            rt.quantizedMatmul(
                x, with(w.wq().transpose(0, 1), w.scales().transpose(0, 1), w.biases()), true),
        "w.biases must have the same shape as w.scales");
    rejects(
        () -> rt.quantizedMatmul(x, w, false),
        "x's last dimension (512) must match the expanded quantized matrix (32, 512)",
        "transpose=false");
    rejects(
        () ->
            rt.quantizedMatmul(
                x, with(w.wq(), w.scales().transpose(0, 1), w.biases().transpose(0, 1)), true),
        "w.scales must have shape [32, 8]");
    // Must have biases for affine (the record refuses), must be floating point.
    assertThrows(
        IllegalArgumentException.class,
        () -> new Quantized(w.wq(), w.scales(), null, 64, 4, QuantMode.AFFINE));
    rejects(
        () -> rt.quantizedMatmul(rt.zeros(DType.I32, 512), w, true),
        "x must be floating point",
        "I32");
    rejects(
        () ->
            rt.quantizedMatmul(
                x, with(w.wq(), rt.zeros(DType.I32, 32, 8), rt.zeros(DType.I32, 32, 8)), true),
        "w.scales must be floating point");
    rejects(
        () ->
            rt.quantizedMatmul(
                x, new Quantized(w.wq(), w.scales(), w.biases(), 64, 3, QuantMode.AFFINE), true),
        "w.scales must have shape");
    rejects(
        () ->
            rt.quantizedMatmul(
                x, new Quantized(w.wq(), w.scales(), w.biases(), 48, 4, QuantMode.AFFINE), true),
        "w.groupSize must be 32, 64 or 128");
    rejects(() -> rt.quantizedMatmul(x, null, true), "w must not be null");
    rejects(() -> rt.quantizedMatmul(null, w, true), "x must not be null");
    rejects(
        () -> rt.quantizedMatmul(rt.zeros(DType.F32), w, true), "x must have at least 1 dimension");
    rejects(
        () -> rt.quantizedMatmul(other.zeros(DType.BF16, 2, 512), w, true),
        "x belongs to another Sirocco instance");
    Quantized batched = rt.quantize(rt.zeros(DType.BF16, 3, 32, 512), 64, 4, QuantMode.AFFINE);
    rejects(
        () -> rt.quantizedMatmul(rt.zeros(DType.BF16, 2, 1, 512), batched, true),
        "x's batch shape [2]",
        "w's batch shape [3]",
        "cannot be broadcast");
    rejects(
        () -> rt.quantizedMatmul(x, with(batched.wq(), w.scales(), w.biases()), true),
        "w.scales must have shape [3, 32, 8]");
    Quantized nv = rt.quantize(rt.zeros(DType.BF16, 32, 512), 16, 4, QuantMode.NVFP4);
    rejects(
        () ->
            rt.quantizedMatmul(
                x,
                new Quantized(
                    nv.wq(), nv.scales(), null, 16, 4, QuantMode.NVFP4, rt.zeros(DType.F32, 2)),
                true),
        "w.globalScale must be one F32 element");
    Tensor closed = rt.zeros(DType.U32, 32, 64);
    closed.close();
    rejects(
        () -> rt.quantizedMatmul(x, with(closed, w.scales(), w.biases()), true), "w.wq is closed");
  }
}
