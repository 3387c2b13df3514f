package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.ElementType;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.Stream;
import sirocco.runtime.testing.GpuTest;

/**
 * Copies between Java arrays and the device go through Sirocco's pinned staging blocks ({@link
 * CudaStaging}), and released mapped buffers go back to a pool ({@link CudaMappedBlocks}), so that
 * neither waits for unrelated work: the whole GPU suite once saw a 16 KiB pageable upload blocked
 * for 20 s behind another stream's spinning kernel. The references are the arrays themselves (a
 * round trip must give back every bit).
 */
@GpuTest
class CudaStagingGpuTest {
  private static CudaDevice device() {
    return (CudaDevice) Devices.cuda(0);
  }

  private static final int CHUNK_FLOATS = (int) (CudaStaging.CHUNK / 4);

  @Test
  void roundTripsEverySizeAcrossBlockAndChunkBoundaries() {
    CudaDevice d = device();
    Stream s = d.newStream();
    SplittableRandom rnd = new SplittableRandom(7);
    int[] sizes = {
      1, 3, 16_383, 16_384, 16_385, CHUNK_FLOATS, CHUNK_FLOATS + 1, 2 * CHUNK_FLOATS + 7
    };
    for (int n : sizes) {
      float[] src = new float[n + 5];
      for (int i = 0; i < src.length; i++) {
        src[i] = (float) rnd.nextDouble(-1e6, 1e6);
      }
      try (DeviceBuffer b = d.allocate(ElementType.F32, n + 9, s)) {
        d.upload(src, 5, b, 9, n, s); // offsets on both sides
        float[] got = new float[n + 2];
        Arrays.fill(got, Float.NaN);
        d.download(b, 9, got, 2, n, s);
        assertArrayEquals(
            Arrays.copyOfRange(src, 5, 5 + n), Arrays.copyOfRange(got, 2, 2 + n), "n=" + n);
        assertTrue(Float.isNaN(got[0]) && Float.isNaN(got[1]), "nothing written before offset");
      }
    }
    short[] h = new short[40_001];
    byte[] c = new byte[70_000];
    boolean[] z = new boolean[1_001];
    long[] l = new long[3];
    for (int i = 0; i < h.length; i++) {
      h[i] = (short) rnd.nextInt();
    }
    for (int i = 0; i < c.length; i++) {
      c[i] = (byte) rnd.nextInt();
    }
    for (int i = 0; i < z.length; i++) {
      z[i] = rnd.nextBoolean();
    }
    for (int i = 0; i < l.length; i++) {
      l[i] = rnd.nextLong();
    }
    try (DeviceBuffer bh = d.allocate(ElementType.I16, h.length, s);
        DeviceBuffer bc = d.allocate(ElementType.I8, c.length, s);
        DeviceBuffer bz = d.allocate(ElementType.BOOL, z.length, s);
        DeviceBuffer bl = d.allocate(ElementType.I64, l.length, s)) {
      d.upload(h, 0, bh, 0, h.length, s);
      d.upload(c, 0, bc, 0, c.length, s);
      d.upload(z, 0, bz, 0, z.length, s);
      d.upload(l, 0, bl, 0, l.length, s);
      short[] h2 = new short[h.length];
      byte[] c2 = new byte[c.length];
      boolean[] z2 = new boolean[z.length];
      long[] l2 = new long[l.length];
      d.download(bh, 0, h2, 0, h.length, s);
      d.download(bc, 0, c2, 0, c.length, s);
      d.download(bz, 0, z2, 0, z.length, s);
      d.download(bl, 0, l2, 0, l.length, s);
      assertArrayEquals(h, h2);
      assertArrayEquals(c, c2);
      assertArrayEquals(z, z2);
      assertArrayEquals(l, l2);
    }
    assertTrue(d.stagingBytes() > 0, "copies went through staging blocks");
    d.clearCache();
    assertEquals(0, d.stagingBytes(), "clearCache frees idle staging blocks");
  }

  @Test
  void copiesAndMappedReleasesOnAnIdleStreamDoNotWaitForAnotherStreamsKernel() throws Exception {
    CudaDevice d = device();
    Stream busy = d.newStream();
    Stream idle = d.newStream();
    MappedBuffer other = d.allocateMapped(ElementType.I32, 16);
    PtxSpinner spinner = new PtxSpinner(busy);
    long t0 = System.nanoTime();
    // cuMemFreeHost would synchronize the device here, i.e. wait for the spinner's give-up (20 s).
    other.close();
    float[] data = new float[4096];
    Arrays.fill(data, 2.5f);
    float[] big = new float[2 * CHUNK_FLOATS + 3]; // streams through more than one block
    big[big.length - 1] = -1f;
    for (int round = 0; round < 20; round++) {
      try (DeviceBuffer a = d.allocate(ElementType.F32, data.length, idle);
          DeviceBuffer b = d.allocate(ElementType.F32, big.length, idle)) {
        d.upload(data, 0, a, 0, data.length, idle);
        d.upload(big, 0, b, 0, big.length, idle);
        float[] back = new float[data.length];
        d.download(a, 0, back, 0, back.length, idle);
        assertArrayEquals(data, back);
        float[] last = new float[1];
        d.download(b, big.length - 1, last, 0, 1, idle);
        assertEquals(-1f, last[0]);
      }
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    System.out.printf("20 rounds of copies beside a spinning kernel: %.1f ms%n", ms);
    // The behaviour, not a time: none of it waited for the kernel, which still spins.
    assertFalse(busy.isIdle(), "the other stream's kernel still runs");
    assertEquals(1, spinner.finish(), "the kernel saw the flag (did not give up)");
    busy.synchronize();
    assertTrue(d.idleMappedBlocks() >= 1, "released mapped blocks are kept, not freed");
  }

  @Test
  void aReleasedMappedBlockIsReusedZeroedOnceTheStreamsHavePassedIt() {
    CudaDevice d = device();
    d.synchronize();
    d.clearCache();
    assertEquals(0, d.idleMappedBlocks());
    CudaMappedBuffer m = (CudaMappedBuffer) d.allocateMapped(ElementType.I32, 123);
    long pointer = m.pointer();
    for (int i = 0; i < 123; i++) {
      m.setIntVolatile(i, i + 1);
    }
    m.close();
    assertEquals(1, d.idleMappedBlocks());
    d.synchronize();
    CudaMappedBuffer again = (CudaMappedBuffer) d.allocateMapped(ElementType.I32, 123);
    assertEquals(0, d.idleMappedBlocks(), "taken from the pool");
    assertEquals(pointer, again.pointer(), "the same block");
    for (int i = 0; i < 123; i++) {
      assertEquals(0, again.getIntVolatile(i), "zeroed at " + i);
    }
    CudaMappedBuffer other = (CudaMappedBuffer) d.allocateMapped(ElementType.I32, 124);
    assertTrue(other.pointer() != pointer);
    again.close();
    other.close();
    d.synchronize();
    d.clearCache();
    assertEquals(0, d.idleMappedBlocks(), "clearCache frees them");
  }
}
