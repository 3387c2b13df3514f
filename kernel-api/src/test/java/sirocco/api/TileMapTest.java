package sirocco.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@link TileMap#swizzle} against the pattern stated independently (16-byte chunk index XOR a slice
 * of the line index), and {@link TileMap#validate} at each limit: accepted at the edge, refused one
 * step past it with a message naming the argument.
 */
class TileMapTest {
  @Test
  void swizzle128PermutesTheChunksOfEach128ByteLineByTheLineIndexModulo8() {
    for (int r = 0; r < 16; r++) {
      for (int c = 0; c < 8; c++) {
        for (int b = 0; b < 16; b++) {
          int from = 128 * r + 16 * c + b;
          assertEquals(128 * r + 16 * (c ^ (r % 8)) + b, TileMap.swizzle(from, 128), "row " + r);
        }
      }
    }
  }

  @Test
  void swizzle64PermutesPairsOf64ByteRows() {
    for (int r = 0; r < 16; r++) {
      for (int c = 0; c < 4; c++) {
        for (int b = 0; b < 16; b++) {
          int from = 64 * r + 16 * c + b;
          assertEquals(
              64 * r + 16 * (c ^ ((r / 2) % 4)) + b, TileMap.swizzle(from, 64), "row " + r);
        }
      }
    }
  }

  @Test
  void swizzle32PermutesGroupsOfFour32ByteRows() {
    for (int r = 0; r < 16; r++) {
      for (int c = 0; c < 2; c++) {
        for (int b = 0; b < 16; b++) {
          int from = 32 * r + 16 * c + b;
          assertEquals(
              32 * r + 16 * (c ^ ((r / 4) % 2)) + b, TileMap.swizzle(from, 32), "row " + r);
        }
      }
    }
  }

  @Test
  void noSwizzleIsTheIdentity() {
    for (int off = 0; off < 4096; off++) {
      assertEquals(off, TileMap.swizzle(off, 0));
    }
  }

  @Test
  void swizzleIsAPermutationOfEachPeriod() {
    for (int s : new int[] {32, 64, 128}) {
      boolean[] hit = new boolean[8 * s];
      for (int off = 0; off < 8 * s; off++) {
        int to = TileMap.swizzle(off, s);
        assertTrue(to >= 0 && to < 8 * s && !hit[to], "swizzle " + s + " of " + off + " -> " + to);
        hit[to] = true;
      }
    }
  }

  private static final long BIG = Long.MAX_VALUE / 4;

  /** A valid description (2-byte elements) with one argument changed. */
  private record Map(
      int elementBytes,
      long length,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    static Map ok() {
      return new Map(2, 100_000, 8, 200, 300, 208, 64, 32, 128);
    }

    void validate() {
      TileMap.validate(
          elementBytes, length, offset, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
    }

    /** Element size {@code v}, the matrix at offset 0 (aligned for any size). */
    Map bytes(int v) {
      return new Map(v, length, 0, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
    }

    Map length(long v) {
      return new Map(
          elementBytes, v, offset, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
    }

    Map offset(long v) {
      return new Map(
          elementBytes, length, v, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
    }

    Map cols(long v) {
      return new Map(
          elementBytes, length, offset, v, rows, rowStride, boxCols, boxRows, swizzleBytes);
    }

    Map rows(long v) {
      return new Map(
          elementBytes, length, offset, cols, v, rowStride, boxCols, boxRows, swizzleBytes);
    }

    Map stride(long v) {
      return new Map(elementBytes, length, offset, cols, rows, v, boxCols, boxRows, swizzleBytes);
    }

    Map box(int c, int r) {
      return new Map(elementBytes, length, offset, cols, rows, rowStride, c, r, swizzleBytes);
    }

    Map swizzle(int v) {
      return new Map(elementBytes, length, offset, cols, rows, rowStride, boxCols, boxRows, v);
    }
  }

  private static void accepted(Map m) {
    assertDoesNotThrow((Executable) m::validate, m.toString());
  }

  private static void refused(Map m, String names) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, m::validate, m::toString);
    assertTrue(e.getMessage().contains(names), "message names " + names + ": " + e.getMessage());
  }

  @Test
  void elementBytes() {
    for (int b : new int[] {1, 2, 4, 8}) {
      accepted(Map.ok().bytes(b).box(16, 1).swizzle(0));
    }
    for (int b : new int[] {0, 3, 16}) {
      refused(Map.ok().bytes(b), "elementBytes");
    }
  }

  @Test
  void offsetIsANonNegativeMultipleOf16Bytes() {
    accepted(Map.ok().offset(0));
    accepted(Map.ok().offset(8));
    refused(Map.ok().offset(7), "offset");
    refused(Map.ok().offset(-8), "offset");
    accepted(Map.ok().bytes(1).offset(16).box(16, 1));
    refused(Map.ok().bytes(1).offset(15).box(16, 1), "offset");
  }

  @Test
  void colsAndRowsRunFrom1To2To32() {
    Map one = Map.ok().length(BIG).rows(1);
    accepted(one.cols(1));
    refused(one.cols(0), "cols");
    accepted(one.cols(1L << 32));
    refused(one.cols((1L << 32) + 1), "cols");
    Map column = Map.ok().length(BIG).cols(1).stride(8);
    accepted(column.rows(1));
    refused(column.rows(0), "rows");
    accepted(column.rows(1L << 32));
    refused(column.rows((1L << 32) + 1), "rows");
  }

  @Test
  void rowStrideCoversARowIsAMultipleOf16BytesAndStaysBelow2To40Bytes() {
    accepted(Map.ok().stride(200));
    refused(Map.ok().stride(192), "rowStride");
    refused(Map.ok().stride(204), "rowStride");
    refused(Map.ok().stride(0), "rowStride");
    // One row: the stride never steps, so it may be shorter than the row.
    accepted(Map.ok().rows(1).stride(8));
    Map bytes = Map.ok().bytes(1).length(BIG).cols(16).rows(2).box(16, 1);
    accepted(bytes.stride((1L << 40) - 16));
    refused(bytes.stride(1L << 40), "rowStride");
  }

  @Test
  void swizzleBytesIs0_32_64Or128() {
    for (int s : new int[] {0, 32, 64, 128}) {
      accepted(Map.ok().box(16, 8).swizzle(s));
    }
    for (int s : new int[] {16, 48, 256, -128}) {
      refused(Map.ok().box(16, 8).swizzle(s), "swizzleBytes");
    }
  }

  @Test
  void boxColsIsAMultipleOf16BytesUpTo256ElementsAndTheSwizzleSpan() {
    Map plain = Map.ok().swizzle(0);
    accepted(plain.box(8, 1));
    refused(plain.box(9, 1), "boxCols");
    refused(plain.box(0, 1), "boxCols");
    accepted(plain.bytes(1).box(256, 1));
    refused(plain.bytes(1).box(272, 1), "boxCols");
    accepted(plain.box(256, 1));
    refused(plain.box(264, 1), "boxCols");
    accepted(Map.ok().swizzle(128).box(64, 1));
    refused(Map.ok().swizzle(128).box(72, 1), "boxCols");
    accepted(Map.ok().swizzle(64).box(32, 1));
    refused(Map.ok().swizzle(64).box(40, 1), "boxCols");
    accepted(Map.ok().swizzle(32).box(16, 1));
    refused(Map.ok().swizzle(32).box(24, 1), "boxCols");
  }

  @Test
  void boxRowsRunFrom1To256() {
    accepted(Map.ok().box(64, 1));
    accepted(Map.ok().box(64, 256));
    refused(Map.ok().box(64, 0), "boxRows");
    refused(Map.ok().box(64, 257), "boxRows");
  }

  @Test
  void theMatrixEndsWithinTheArray() {
    long end = 8 + 299L * 208 + 200;
    accepted(Map.ok().length(end));
    refused(Map.ok().length(end - 1), "past the array");
  }
}
