package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sirocco.jit.testkernels.TileCopyKernels;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * Tile copies through transaction barriers ({@link TileCopyKernels#copyTiles}), end to end with a
 * map from {@code Device.tileMap}: every element of a matrix that is not a multiple of the box in
 * either direction, and not at the start of its buffer, comes back where it was, and the parts of
 * the edge boxes outside it land as zeros. On the Java backend always; on an sm_90 GPU where there
 * is one, which also checks the swizzle model the kernel reads the boxes by against the hardware.
 */
class TileCopyTest {
  private static final int ROWS = 300;
  private static final int COLS = 200;
  private static final int STRIDE = 216; // elements: 432 bytes, a multiple of 16 but not of 128
  private static final int OFFSET = 24; // elements: 48 bytes into the buffer

  /** Swizzle bytes and stages: 16 stages put the tiles in dynamic shared memory. */
  @ParameterizedTest
  @CsvSource({"0, 2", "64, 2", "128, 2", "128, 16"})
  void everyElementComesBackOnTheJavaBackend(int swizzle, int stages) {
    check(Devices.java(), swizzle, stages);
  }

  @ParameterizedTest
  @CsvSource({"0, 2", "64, 2", "128, 2", "128, 16"})
  @GpuTest
  void everyElementComesBackOnTheGpu(int swizzle, int stages) {
    Device d = Devices.cuda(0);
    Assumptions.assumeTrue(d.info().computeMajor() >= 9, "tile copies need sm_90");
    check(d, swizzle, stages);
  }

  private static void check(Device d, int swizzle, int stages) {
    short[] in = new short[OFFSET + (ROWS - 1) * STRIDE + COLS + 40];
    for (int i = 0; i < in.length; i++) {
      in[i] = (short) (i * 7 + 1); // never 0 inside the matrix, so a zero-filled hole shows
    }
    short[] poison = new short[ROWS * COLS];
    java.util.Arrays.fill(poison, (short) 0x7FC1);
    Method m = TestKernels.method(TileCopyKernels.class, "copyTiles");
    DeviceBuffer src = d.allocate(ElementType.I16, in.length);
    DeviceBuffer out = d.allocate(ElementType.I16, poison.length);
    DeviceBuffer bad = d.allocate(ElementType.I32, 1);
    DeviceBuffer map = null;
    try {
      d.upload(in, 0, src, 0, in.length, d.defaultStream());
      d.upload(poison, 0, out, 0, poison.length, d.defaultStream());
      d.zero(bad, d.defaultStream());
      map =
          d.tileMap(
              src,
              OFFSET,
              COLS,
              ROWS,
              STRIDE,
              TileCopyKernels.boxCols(swizzle),
              TileCopyKernels.BOX_ROWS,
              swizzle);
      // 7 blocks: each takes several boxes, so both stages' barriers go through several phases.
      d.launch(
          KernelLaunch.of(
              m,
              new Dim3(7, 1, 1),
              new Dim3(TileCopyKernels.THREADS, 1, 1),
              map,
              out,
              bad,
              COLS,
              ROWS,
              swizzle,
              stages));
      short[] got = new short[poison.length];
      int[] holes = new int[1];
      d.download(out, 0, got, 0, got.length, d.defaultStream());
      d.download(bad, 0, holes, 0, 1, d.defaultStream());
      d.synchronize();
      for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
          int rr = r;
          int cc = c;
          assertEquals(
              in[OFFSET + r * STRIDE + c],
              got[r * COLS + c],
              () -> "element (" + rr + ", " + cc + "), swizzle " + swizzle + ", stages " + stages);
        }
      }
      assertEquals(0, holes[0], "elements outside the matrix that did not land as zeros");
    } finally {
      src.close();
      out.close();
      bad.close();
      if (map != null) {
        map.close();
      }
    }
  }
}
