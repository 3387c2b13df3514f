package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import sirocco.Backend;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;

/** The attention cases on the Java backend (the reference backend; runs everywhere). */
class AttentionJavaTest extends AttentionContract {
  @Override
  Backend backend() {
    return Backend.JAVA;
  }

  /** {@code -Dsirocco.threadInfo=true} (the CLI's --threadInfo) prints each decision. */
  @Test
  void threadInfoPrintsTheDecision() {
    String previous = System.getProperty("sirocco.threadInfo");
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (Sirocco rt = Sirocco.open(Backend.JAVA)) {
      Tensor q = rt.zeros(DType.F32, 1, 1, 1, 8);
      Tensor k = rt.zeros(DType.F32, 1, 1, 4, 8);
      System.setProperty("sirocco.threadInfo", "true");
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      rt.toFloats(rt.scaledDotProductAttention(q, k, k, 1f, Mask.causal()));
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
            "sirocco dispatch scaledDotProductAttention -> fallback (rejected: cudnn: cuDNN runs only"
                + " on CUDA devices; vector: vector SDPA takes bf16 or f16 (got f32)"),
        printed);
  }
}
