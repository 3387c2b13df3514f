package sirocco.quant;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;

/** The quantized-matmul cases on the Java backend (the reference backend; runs everywhere). */
class QuantJavaTest extends QuantContract {
  @Override
  protected Backend backend() {
    return Backend.JAVA;
  }

  /** {@code -Dsirocco.threadInfo=true} (the CLI's --threadInfo) prints each decision. */
  @Test
  void threadInfoPrintsTheDecision() {
    String previous = System.getProperty("sirocco.threadInfo");
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (Sirocco r = Sirocco.open(Backend.JAVA)) {
      Quantized q = r.quantize(r.zeros(DType.BF16, 16, 64), 64, 4, QuantMode.AFFINE);
      Tensor x = r.zeros(DType.BF16, 1, 64);
      System.setProperty("sirocco.threadInfo", "true");
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      r.toFloats(r.quantizedMatmul(x, q, true));
    } finally {
      System.setOut(out);
      if (previous == null) {
        System.clearProperty("sirocco.threadInfo");
      } else {
        System.setProperty("sirocco.threadInfo", previous);
      }
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    assertTrue(
        printed.contains(
            "sirocco dispatch quantizedMatmul -> qmv (rejected: "
                + QuantContract.LADDER_HEAD
                + "; "
                + QuantContract.ASYNC_ONE_GROUP
                + "; qmm-mma-splitk: policy: affine weights use the vector path below 2 rows"
                + " (rows=1); qmm-mma-fp-async: fp modes only (mxfp4, nvfp4, mxfp8); affine"
                + " weights use the affine tensor-core rungs; qmm-mma: policy: affine weights"
                + " use the vector path below 2 rows (rows=1); qmv-warp: policy:"),
        printed);
  }
}
