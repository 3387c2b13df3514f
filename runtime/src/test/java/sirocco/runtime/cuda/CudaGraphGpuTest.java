package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.testing.GpuTest;

/** Graph capture and replay (what the benchmarks' graph timing uses) on a real GPU. */
@GpuTest
class CudaGraphGpuTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = CudaGraphGpuTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static float[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextDouble(-10, 10);
    }
    return a;
  }

  @Test
  void capturedLaunchesRunOnlyWhenReplayedAndReadTheBuffersAtReplay() throws IOException {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    CudaFunction add = d.loadPtx(resource("/ptx/vector_add.ptx"), "vector_add");
    CudaStream s = d.newStream();
    int n = 1 << 16;
    float[] a = random(n, 1);
    float[] b = random(n, 2);
    try (DeviceBuffer da = d.allocate(ElementType.F32, n);
        DeviceBuffer db = d.allocate(ElementType.F32, n);
        DeviceBuffer dc = d.allocate(ElementType.F32, n)) {
      d.upload(a, 0, da, 0, n, s);
      d.upload(b, 0, db, 0, n, s);
      d.fill32(dc, 0, n, Float.floatToRawIntBits(Float.NaN), s); // poison
      s.synchronize();
      Dim3 grid = Dim3.of((n + 255) / 256);
      assertFalse(s.capturing());
      boolean[] seen = new boolean[1];
      CudaGraph g =
          CudaGraph.capture(
              s,
              () -> {
                seen[0] = s.capturing(); // what ops consult to choose graph-friendly launches
                d.launchFunction(add, grid, Dim3.of(256), 0, s, da, db, dc, n); // c = a + b
                d.launchFunction(add, grid, Dim3.of(256), 0, s, dc, db, dc, n); // c = a + 2b
              });
      assertTrue(seen[0], "the stream reports capture while the body runs");
      assertFalse(s.capturing(), "and not after it");
      try (g) {
        float[] c = new float[n];
        d.download(dc, 0, c, 0, n, s);
        assertTrue(Float.isNaN(c[0]) && Float.isNaN(c[n - 1]), "capture must not run the work");
        g.launch(s);
        d.download(dc, 0, c, 0, n, s);
        for (int i = 0; i < n; i++) {
          assertEquals(a[i] + b[i] + b[i], c[i], 1e-4f * (Math.abs(a[i]) + 2 * Math.abs(b[i])));
        }
        // New contents of the same buffers: the replay reads them, not what capture saw.
        float[] a2 = random(n, 3);
        d.upload(a2, 0, da, 0, n, s);
        g.launch(s);
        g.launch(s);
        d.download(dc, 0, c, 0, n, s);
        for (int i = 0; i < n; i += 97) {
          assertEquals(a2[i] + b[i] + b[i], c[i], 1e-4f * (Math.abs(a2[i]) + 2 * Math.abs(b[i])));
        }
      }
      assertThrows(IllegalStateException.class, () -> g.launch(s), "closed graph");
    }
  }

  @Test
  void aBodyThatThrowsEndsTheCaptureAndLeavesTheStreamUsable() throws IOException {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    CudaFunction add = d.loadPtx(resource("/ptx/vector_add.ptx"), "vector_add");
    CudaStream s = d.newStream();
    IllegalStateException boom = new IllegalStateException("boom");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                CudaGraph.capture(
                    s,
                    () -> {
                      throw boom;
                    }));
    assertSame(boom, e);
    assertFalse(s.capturing(), "capture ended with the body's exception");
    int n = 256;
    try (DeviceBuffer da = d.allocate(ElementType.F32, n);
        DeviceBuffer dc = d.allocate(ElementType.F32, n)) {
      float[] a = random(n, 4);
      d.upload(a, 0, da, 0, n, s);
      d.launchFunction(add, Dim3.of(1), Dim3.of(256), 0, s, da, da, dc, n);
      float[] c = new float[n];
      d.download(dc, 0, c, 0, n, s);
      assertEquals(2 * a[17], c[17], 1e-5f * Math.abs(a[17]));
    }
  }
}
