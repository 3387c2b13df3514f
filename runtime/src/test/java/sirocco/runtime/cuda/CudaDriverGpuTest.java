package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.MemoryStats;
import sirocco.runtime.testing.GpuTest;

/** The driver binding on a real GPU: hand-written PTX, events, the memory pool. */
@GpuTest
class CudaDriverGpuTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = CudaDriverGpuTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static CudaDevice device() {
    return (CudaDevice) Devices.cuda(0);
  }

  @Test
  void deviceReportsItsProperties() {
    var info = device().info();
    System.out.println("device: " + info);
    assertTrue(info.computeMajor() >= 8, "Sirocco targets sm_80 and newer: " + info);
    assertTrue(info.multiprocessors() > 0);
    assertTrue(info.totalMemoryBytes() > (1L << 30));
    assertTrue(info.driverVersion() >= 12000);
  }

  @Test
  void handWrittenPtxLoadsLaunchesAndComputes() throws IOException {
    CudaDevice d = device();
    CudaFunction f = d.loadPtx(resource("/ptx/vector_add.ptx"), "vector_add");
    System.out.println(
        "vector_add: " + f.registers() + " registers, jit log: " + f.jitLog().strip());
    int n = 1 << 20;
    SplittableRandom rnd = new SplittableRandom(7);
    float[] a = new float[n];
    float[] b = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) rnd.nextDouble(-10, 10);
      b[i] = (float) rnd.nextDouble(-10, 10);
    }
    try (DeviceBuffer da = d.allocate(ElementType.F32, n);
        DeviceBuffer db = d.allocate(ElementType.F32, n);
        DeviceBuffer dc = d.allocate(ElementType.F32, n)) {
      d.upload(a, 0, da, 0, n, d.defaultStream());
      d.upload(b, 0, db, 0, n, d.defaultStream());
      d.fill32(dc, 0, n, Float.floatToRawIntBits(Float.NaN), d.defaultStream()); // poison
      CudaEvent start = d.defaultStream().recordTimed();
      d.launchFunction(
          f, Dim3.of((n + 255) / 256), Dim3.of(256), 0, d.defaultStream(), da, db, dc, n);
      CudaEvent end = d.defaultStream().recordTimed();
      float[] c = new float[n];
      d.download(dc, 0, c, 0, n, d.defaultStream());
      for (int i = 0; i < n; i++) {
        assertEquals(a[i] + b[i], c[i], 0f, "element " + i);
      }
      assertTrue(end.isComplete());
      float ms = end.elapsedMillisSince(start);
      System.out.println("vector_add of 2^20 floats: " + ms * 1000 + " us (one launch, cold)");
      assertTrue(ms > 0 && ms < 1000, "elapsed " + ms);
    }
  }

  @Test
  void badPtxCarriesTheJitErrorLog() {
    CudaException e =
        assertThrows(
            CudaException.class,
            () -> device().loadPtx(".version 8.0\n.target sm_80\nnonsense", "x"));
    assertEquals("cuModuleLoadDataEx", e.call());
    assertTrue(e.errorName().startsWith("CUDA_ERROR_"), e.getMessage());
    assertTrue(
        e.getMessage().contains("ptxas") || e.getMessage().contains("error"), e.getMessage());
  }

  @Test
  void clearCacheTrimsThePool() {
    // MLX's "clear cache trims CUDA pool": allocate and free 64 MiB, reserved grows, clearCache
    // trims it.
    CudaDevice d = device();
    d.clearCache();
    MemoryStats before = d.memoryStats();
    DeviceBuffer big = d.allocate(ElementType.I8, 64L << 20);
    d.fill32(big, 0, (64L << 20) / 4, 0x01020304, d.defaultStream());
    d.synchronize();
    MemoryStats live = d.memoryStats();
    assertTrue(live.usedBytes() >= before.usedBytes() + (64L << 20), live.toString());
    big.close();
    d.synchronize();
    MemoryStats freed = d.memoryStats();
    assertTrue(freed.reservedBytes() >= 64L << 20, "the pool keeps freed memory: " + freed);
    long t0 = System.nanoTime();
    d.clearCache();
    long micros = (System.nanoTime() - t0) / 1000;
    MemoryStats trimmed = d.memoryStats();
    System.out.println(
        "pool: before "
            + before
            + " live "
            + live
            + " freed "
            + freed
            + " trimmed "
            + trimmed
            + " clearCache took "
            + micros
            + " us");
    // Live buffers keep their pool chunks (32 MiB measured on the H200), so reserved may exceed
    // used by less than one chunk; and it never stays above what it was before this test.
    long chunk = 32L << 20;
    assertTrue(
        trimmed.reservedBytes() <= (trimmed.usedBytes() + chunk - 1) / chunk * chunk
            && trimmed.reservedBytes() <= before.reservedBytes(),
        "reserved falls to what live buffers use: " + trimmed + " (before: " + before + ")");
    if (trimmed.usedBytes() == 0) {
      assertEquals(0, trimmed.reservedBytes(), "nothing live: reserved is 0");
    }
  }

  @Test
  void copiesRejectBadRangesBeforeTouchingTheDevice() {
    CudaDevice d = device();
    try (DeviceBuffer b = d.allocate(ElementType.F32, 16)) {
      assertThrows(
          IllegalArgumentException.class,
          () -> d.upload(new float[8], 0, b, 10, 8, d.defaultStream()));
      assertThrows(
          IllegalArgumentException.class,
          () -> d.upload(new int[8], 0, b, 0, 8, d.defaultStream()));
      float[] out = new float[16];
      Arrays.fill(out, 1f);
      assertThrows(
          IllegalArgumentException.class, () -> d.download(b, 0, out, 4, 16, d.defaultStream()));
      assertArrayEquals(new float[] {1f, 1f}, Arrays.copyOf(out, 2), "nothing changed");
    }
  }
}
