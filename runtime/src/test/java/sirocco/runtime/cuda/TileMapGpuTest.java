package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.api.TileMap;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.Stream;
import sirocco.runtime.testing.GpuTest;

/**
 * {@code Device.tileMap} on the GPU: maps the driver encodes ({@code cuTensorMapEncodeTiled}) drive
 * hand-written {@code cp.async.bulk.tensor} copies ({@code ptx/tile_copy.ptx}) of boxes of a bf16
 * matrix (300 rows of 200 elements, rows 208 apart, starting 8 elements into its buffer) into
 * shared memory. What lands must be the matrix's elements, zeros outside it, at the byte offsets
 * the swizzle pattern gives, written out here from its definition (and equal to {@link
 * TileMap#swizzle}, the Java backend's model).
 */
@GpuTest
class TileMapGpuTest {
  private static final int ROWS = 300;
  private static final int COLS = 200;
  private static final int STRIDE = 208;
  private static final int OFFSET = 8;
  // Padding and the elements before the matrix: above every matrix value (1 .. ROWS * COLS), so
  // a copy that reads them instead of filling zeros shows.
  private static final short PAD = (short) 0xFFFF;
  private static final int POISON = 0xFFFEFFFE;

  /** A map's box and the corners (col, row) copied through it. */
  private record Case(int swizzle, int boxCols, int boxRows, int[][] corners) {
    int rowBytes() {
      return boxCols * 2;
    }

    int bytes() {
      return rowBytes() * boxRows;
    }
  }

  private static final Case[] CASES = {
    // Inside; over the last column and row; partly before the first; wholly outside.
    new Case(0, 40, 24, new int[][] {{16, 40}, {184, 290}, {-8, -3}, {208, 304}}),
    new Case(128, 64, 32, new int[][] {{0, 0}, {64, 100}, {192, 295}, {136, 268}}),
    new Case(64, 32, 16, new int[][] {{32, 17}, {176, 290}, {-16, -5}}),
    new Case(32, 16, 8, new int[][] {{8, 8}, {192, 296}}),
  };

  private static String resource(String name) throws IOException {
    try (InputStream in = TileMapGpuTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static CudaDevice device() {
    return (CudaDevice) Devices.cuda(0);
  }

  private static short[] matrix() {
    short[] m = new short[OFFSET + ROWS * STRIDE];
    java.util.Arrays.fill(m, PAD);
    for (int r = 0; r < ROWS; r++) {
      for (int c = 0; c < COLS; c++) {
        m[OFFSET + r * STRIDE + c] = (short) (1 + r * COLS + c);
      }
    }
    return m;
  }

  /**
   * Where byte {@code byteInRow} of box row {@code r} lands, from the pattern's definition: the
   * 16-byte chunk index XOR the line index bits a swizzle of that span takes (boxes here have rows
   * exactly as wide as the span).
   */
  private static int landing(int r, int byteInRow, int rowBytes, int swizzle) {
    int chunk = byteInRow / 16;
    int within = byteInRow % 16;
    return switch (swizzle) {
      case 0 -> r * rowBytes + byteInRow;
      case 32 -> 32 * r + 16 * (chunk ^ ((r / 4) % 2)) + within;
      case 64 -> 64 * r + 16 * (chunk ^ ((r / 2) % 4)) + within;
      case 128 -> 128 * r + 16 * (chunk ^ (r % 8)) + within;
      default -> throw new IllegalArgumentException("swizzle " + swizzle);
    };
  }

  @Test
  void copiesThroughMapsLandSwizzledWithZerosOutsideTheMatrix() throws IOException {
    CudaDevice d = device();
    assumeTrue(
        d.info().computeMajor() >= 9,
        "copies through a tile map need compute capability 9.0+: " + d.info());
    CudaFunction f = d.loadPtx(resource("/ptx/tile_copy.ptx"), "tile_copy");
    Stream s = d.defaultStream();
    short[] host = matrix();
    List<String> failures = new ArrayList<>();
    try (DeviceBuffer m = d.allocate(ElementType.I16, host.length);
        DeviceBuffer out = d.allocate(ElementType.I16, 4096);
        DeviceBuffer status = d.allocate(ElementType.I32, 1)) {
      d.upload(host, 0, m, 0, host.length, s);
      for (Case c : CASES) {
        // Both overloads: the waiting one, and the one ordered on the launch's stream.
        try (DeviceBuffer map =
            c.swizzle == 64
                ? d.tileMap(m, OFFSET, COLS, ROWS, STRIDE, c.boxCols, c.boxRows, c.swizzle, s)
                : d.tileMap(m, OFFSET, COLS, ROWS, STRIDE, c.boxCols, c.boxRows, c.swizzle)) {
          for (int[] at : c.corners) {
            String what =
                "swizzle "
                    + c.swizzle
                    + ", box "
                    + c.boxCols
                    + " x "
                    + c.boxRows
                    + " at col "
                    + at[0]
                    + ", row "
                    + at[1];
            d.fill32(out, 0, 2048, POISON, s);
            d.zero(status, s);
            d.launchFunction(
                f, Dim3.of(1), Dim3.of(128), 0, s, map, out, at[0], at[1], c.bytes(), status);
            short[] got = new short[c.bytes() / 2];
            int[] timedOut = new int[1];
            d.download(out, 0, got, 0, got.length, s);
            d.download(status, 0, timedOut, 0, 1, s);
            if (timedOut[0] != 0) {
              failures.add(what + ": the copy never completed (the mbarrier wait gave up)");
              continue;
            }
            check(c, at[0], at[1], got, what, failures);
          }
        }
      }
    }
    assertTrue(failures.isEmpty(), failures.size() + " failures:\n" + String.join("\n", failures));
  }

  private static void check(
      Case c, int col, int row, short[] got, String what, List<String> failures) {
    int wrong = 0;
    for (int r = 0; r < c.boxRows; r++) {
      for (int e = 0; e < c.boxCols; e++) {
        int byteInRow = e * 2;
        int to = landing(r, byteInRow, c.rowBytes(), c.swizzle);
        assertEquals(
            TileMap.swizzle(r * c.rowBytes() + byteInRow, c.swizzle),
            to,
            "TileMap.swizzle disagrees with the pattern's definition");
        long gr = (long) row + r;
        long gc = (long) col + e;
        boolean inside = gr >= 0 && gr < ROWS && gc >= 0 && gc < COLS;
        int want = inside ? 1 + (int) (gr * COLS + gc) : 0;
        int have = Short.toUnsignedInt(got[to / 2]);
        if (have != want && wrong++ < 8) {
          failures.add(
              String.format(
                  "%s: box row %d, element %d (matrix row %d, col %d) at out[%d]: got %d%s,"
                      + " want %d%s",
                  what,
                  r,
                  e,
                  gr,
                  gc,
                  to / 2,
                  have,
                  have == 0xFFFE
                      ? " (never written)"
                      : have == 0xFFFF ? " (padding: read outside the matrix)" : "",
                  want,
                  inside ? "" : " (outside the matrix: zero fill)"));
        }
      }
    }
    if (wrong > 8) {
      failures.add(what + ": " + (wrong - 8) + " more wrong elements");
    }
  }

  @Test
  void badDescriptionsAreRefusedBeforeTheDriverOrTheAllocatorSeeThem() {
    CudaDevice d = device();
    try (DeviceBuffer m = d.allocate(ElementType.I16, OFFSET + ROWS * STRIDE);
        DeviceBuffer wide = d.allocate(ElementType.F64, 1024)) {
      d.synchronize();
      long tracked = d.trackedBytes();
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> d.tileMap(m, OFFSET, COLS, ROWS, STRIDE, 128, 32, 128));
      assertTrue(e.getMessage().contains("boxCols"), e.getMessage());
      e =
          assertThrows(
              IllegalArgumentException.class,
              () -> d.tileMap(m, OFFSET + 1, COLS, ROWS, STRIDE, 64, 32, 128));
      assertTrue(e.getMessage().contains("offset"), e.getMessage());
      e =
          assertThrows(
              IllegalArgumentException.class, () -> d.tileMap(wide, 0, 64, 1, 64, 8, 1, 0));
      assertTrue(e.getMessage().contains("F64"), e.getMessage());
      assertEquals(tracked, d.trackedBytes(), "nothing allocated");
      try (DeviceBuffer map = d.tileMap(m, OFFSET, COLS, ROWS, STRIDE, 64, 32, 128)) {
        assertEquals(ElementType.I64, map.type());
        assertEquals(TileMap.LONGS, map.length());
        long[] bits = new long[TileMap.LONGS];
        d.download(map, 0, bits, 0, bits.length, d.defaultStream());
        assertTrue(java.util.Arrays.stream(bits).anyMatch(b -> b != 0), "the driver wrote the map");
      }
    }
  }
}
