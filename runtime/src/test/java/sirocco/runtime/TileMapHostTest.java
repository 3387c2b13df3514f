package sirocco.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.api.TileMap;
import sirocco.runtime.host.HostDevice;

/**
 * {@link Device#tileMap} on the Java backend: the map holds the description it was given, and a bad
 * description is refused by name before anything is allocated.
 */
class TileMapHostTest {
  private final HostDevice d = new HostDevice();

  private static long[] read(Device d, DeviceBuffer map) {
    long[] out = new long[TileMap.LONGS];
    d.download(map, 0, out, 0, TileMap.LONGS, d.defaultStream());
    return out;
  }

  /** map[2..9]: element bytes, offset, cols, rows, rowStride, boxCols, boxRows, swizzle. */
  private static void assertFields(long[] map, long... fields) {
    for (int i = 0; i < fields.length; i++) {
      assertEquals(fields[i], map[2 + i], "map[" + (2 + i) + "]");
    }
  }

  @Test
  void aMapHoldsItsDescription() {
    try (DeviceBuffer m = d.allocate(ElementType.I16, 8 + 300 * 208)) {
      long before = d.memoryStats().usedBytes();
      try (DeviceBuffer map = d.tileMap(m, 8, 200, 300, 208, 64, 32, 128)) {
        assertEquals(ElementType.I64, map.type());
        assertEquals(TileMap.LONGS, map.length());
        assertEquals(before + 8L * TileMap.LONGS, d.memoryStats().usedBytes());
        assertFields(read(d, map), 2, 8, 200, 300, 208, 64, 32, 128);
      }
      assertEquals(before, d.memoryStats().usedBytes(), "closing the map returns its memory");
    }
  }

  @Test
  void everyAllowedElementTypeAndAStreamOfItsOwn() {
    Stream s = d.newStream();
    try (DeviceBuffer ints = d.allocate(ElementType.I32, 4 * 64, s);
        DeviceBuffer floats = d.allocate(ElementType.F32, 64);
        DeviceBuffer bytes = d.allocate(ElementType.I8, 64);
        DeviceBuffer a = d.tileMap(ints, 4, 60, 4, 64, 16, 4, 64, s);
        DeviceBuffer b = d.tileMap(floats, 0, 64, 1, 64, 4, 1, 0);
        DeviceBuffer c = d.tileMap(bytes, 16, 48, 1, 48, 32, 2, 32)) {
      assertFields(read(d, a), 4, 4, 60, 4, 64, 16, 4, 64);
      assertFields(read(d, b), 4, 0, 64, 1, 64, 4, 1, 0);
      assertFields(read(d, c), 1, 16, 48, 1, 48, 32, 2, 32);
    }
  }

  private void refused(String names, DeviceBuffer matrix, long... a) {
    long used = d.memoryStats().usedBytes();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> d.tileMap(matrix, a[0], a[1], a[2], a[3], (int) a[4], (int) a[5], (int) a[6]));
    assertTrue(e.getMessage().contains(names), "message names " + names + ": " + e.getMessage());
    assertEquals(used, d.memoryStats().usedBytes(), "nothing allocated: " + e.getMessage());
  }

  @Test
  void badDescriptionsAreRefusedByNameBeforeAnythingIsAllocated() {
    try (DeviceBuffer m = d.allocate(ElementType.I16, 8 + 300 * 208)) {
      refused("offset", m, 4, 200, 300, 208, 64, 32, 128);
      refused("rowStride", m, 8, 200, 300, 192, 64, 32, 128);
      refused("boxCols", m, 8, 200, 300, 208, 128, 32, 128);
      refused("boxCols", m, 8, 200, 300, 208, 64, 32, 64);
      refused("boxRows", m, 8, 200, 300, 208, 64, 0, 128);
      refused("boxRows", m, 8, 200, 300, 208, 64, 257, 128);
      refused("swizzleBytes", m, 8, 200, 300, 208, 64, 32, 16);
      refused("past the array", m, 24, 200, 300, 208, 64, 32, 128);
      refused("cols", m, 8, 0, 300, 208, 64, 32, 128);
      refused("rows", m, 8, 200, 0, 208, 64, 32, 128);
    }
    try (DeviceBuffer wide = d.allocate(ElementType.I64, 1024);
        DeviceBuffer flags = d.allocate(ElementType.BOOL, 1024)) {
      refused("I64", wide, 0, 64, 1, 64, 8, 1, 0);
      refused("BOOL", flags, 0, 64, 1, 64, 16, 1, 0);
    }
    refused("matrix", null, 0, 64, 1, 64, 8, 1, 0);
    DeviceBuffer closed = d.allocate(ElementType.I16, 64);
    closed.close();
    refused("matrix", closed, 0, 64, 1, 64, 8, 1, 0);
    try (DeviceBuffer foreign = new HostDevice().allocate(ElementType.I16, 64)) {
      refused("matrix", foreign, 0, 64, 1, 64, 8, 1, 0);
    }
  }

  @Test
  void aStreamOfAnotherDeviceIsRefusedBeforeAnythingIsAllocated() {
    try (DeviceBuffer m = d.allocate(ElementType.I16, 64)) {
      long used = d.memoryStats().usedBytes();
      Stream other = new HostDevice().defaultStream();
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> d.tileMap(m, 0, 64, 1, 64, 8, 1, 0, other));
      assertTrue(e.getMessage().contains("stream"), e.getMessage());
      assertEquals(used, d.memoryStats().usedBytes());
    }
  }
}
