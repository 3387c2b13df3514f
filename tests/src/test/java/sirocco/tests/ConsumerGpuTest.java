package sirocco.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.runtime.testing.GpuTest;
import sirocco.tests.ConsumerTest.Result;

/**
 * {@link ConsumerTest} on CUDA: the consumer requires the CUDA backend, so the driver's FFM
 * bindings (module {@code sirocco.runtime}) run its kernel, and its attention call (f16, Lq = 16)
 * consults cuDNN, bound through FFM by module {@code sirocco}. A clean stderr here is what shows
 * the documented {@code --enable-native-access} flag covers both modules. On the GPU machine the
 * consumer comes precompiled ({@code .gpu/consumer}; the bundled JDK has no javac).
 */
@GpuTest
class ConsumerGpuTest {
  private static ConsumerApp.Built consumer;
  @TempDir static Path scratch;

  @BeforeAll
  static void compile() throws IOException {
    consumer = ConsumerApp.obtain(scratch.resolve("consumer"));
  }

  private static void assertCleanCudaRun(Result r) {
    ConsumerTest.assertCleanRunOn("CUDA", r);
    // The attention op went through the dispatch ladder, whose first rung asks cuDNN.
    assertTrue(r.out().contains("sirocco dispatch scaledDotProductAttention -> "), r.out());
  }

  @Test
  void onTheModulePath() throws Exception {
    assertCleanCudaRun(
        ConsumerTest.run(
            consumer,
            scratch,
            true,
            List.of(ConsumerTest.MODULE_PATH_ACCESS, "-Dsirocco.threadInfo=true"),
            "cuda"));
  }

  @Test
  void onTheClassPath() throws Exception {
    assertCleanCudaRun(
        ConsumerTest.run(
            consumer,
            scratch,
            false,
            List.of(ConsumerTest.CLASS_PATH_ACCESS, "-Dsirocco.threadInfo=true"),
            "cuda"));
  }

  /**
   * The runs above can catch a flag without {@code sirocco} only if the attention op calls cuDNN's
   * restricted methods from that module: with {@code sirocco.runtime} alone the JDK must warn.
   */
  @Test
  void cudnnWarnsWhenModuleSiroccoLacksNativeAccess() throws Exception {
    Result r =
        ConsumerTest.run(
            consumer,
            scratch,
            true,
            List.of("--enable-native-access=sirocco.runtime", "-Dsirocco.threadInfo=true"),
            "cuda");
    assertTrue(r.err().contains("restricted method"), r.err());
    assertTrue(r.err().contains("--enable-native-access=sirocco to avoid"), r.err());
  }
}
