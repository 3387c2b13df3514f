package sirocco.api;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A two-dimensional tile map: what {@link Vec#copyTileAsync(short[], int, long[], int, int, long[],
 * int) Vec.copyTileAsync} needs to copy a box of a row-major matrix in global memory into shared
 * memory with one instruction (the tensor memory accelerator, {@code cp.async.bulk.tensor},
 * sm_90+).
 *
 * <p>A map is a kernel parameter of {@link #LONGS} longs (128 bytes). The runtime builds it ({@code
 * Device.tileMap}); on the GPU it holds the driver's {@code CUtensorMap} for the matrix, on the
 * Java backend the encoding {@link #forHost} writes. A kernel only passes it on.
 *
 * <p>The matrix: {@code rows} rows of {@code cols} elements, row {@code r} starting {@code r
 * rowStride} elements after the first element. The box: {@code boxRows} rows of {@code boxCols}
 * elements, landing in shared memory row after row, {@code boxCols} elements apart, each 16-byte
 * chunk at the byte offset {@link #swizzle(int, int)} gives. Elements of the box outside the matrix
 * land as zeros.
 *
 * <p>The limits are the driver's ({@link #validate}), so that both backends refuse the same maps.
 */
public final class TileMap {
  private TileMap() {}

  /** Longs in a map: the driver's {@code CUtensorMap} is 128 bytes. */
  public static final int LONGS = 16;

  /** Largest box side, in elements. */
  public static final int MAX_BOX = 256;

  /** First long of a Java-backend map: "SIRTMAP1". */
  static final long HOST_MAGIC = 0x534952544D415031L;

  private static final AtomicLong NEXT_ID = new AtomicLong(1);
  // Java-backend maps name their array by id: a long[] cannot hold a reference. Weak, so a map
  // outliving its array fails the copy instead of keeping the array alive.
  private static final Map<Long, WeakReference<Object>> ARRAYS = new ConcurrentHashMap<>();

  /**
   * Checks a map's description against the driver's rules ({@code cuTensorMapEncodeTiled}) and
   * throws {@link IllegalArgumentException} naming the first argument that breaks one.
   *
   * @param elementBytes bytes per element: 1, 2, 4 or 8
   * @param length elements in the array the matrix lives in
   * @param offset element index of the matrix's first element; its byte address must be a multiple
   *     of 16
   * @param cols elements per row, 1 .. 2^32
   * @param rows rows, 1 .. 2^32
   * @param rowStride elements from one row to the next, at least {@code cols} when there are two
   *     rows or more, in bytes a multiple of 16 below 2^40
   * @param boxCols box width, 1 .. {@link #MAX_BOX}, in bytes a multiple of 16 and, when swizzled,
   *     at most {@code swizzleBytes}
   * @param boxRows box height, 1 .. {@link #MAX_BOX}
   * @param swizzleBytes 0 (rows stored as they are), 32, 64 or 128
   */
  public static void validate(
      int elementBytes,
      long length,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8) {
      throw new IllegalArgumentException(
          "tile map: elementBytes must be 1, 2, 4 or 8, got " + elementBytes);
    }
    if (offset < 0 || (offset * elementBytes) % 16 != 0) {
      throw new IllegalArgumentException(
          "tile map: offset must be a non-negative element index at a multiple of 16 bytes"
              + " (the driver needs a 16-byte aligned address), got "
              + offset);
    }
    if (cols < 1 || cols > 1L << 32) {
      throw new IllegalArgumentException("tile map: cols must be 1 to 2^32, got " + cols);
    }
    if (rows < 1 || rows > 1L << 32) {
      throw new IllegalArgumentException("tile map: rows must be 1 to 2^32, got " + rows);
    }
    if (rowStride < 1
        || (rows > 1 && rowStride < cols)
        || (rowStride * elementBytes) % 16 != 0
        || rowStride * elementBytes >= 1L << 40) {
      throw new IllegalArgumentException(
          "tile map: rowStride must be at least cols ("
              + cols
              + ") elements and in bytes a multiple of 16 below 2^40, got "
              + rowStride
              + " elements of "
              + elementBytes
              + " bytes");
    }
    if (swizzleBytes != 0 && swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128) {
      throw new IllegalArgumentException(
          "tile map: swizzleBytes must be 0, 32, 64 or 128, got " + swizzleBytes);
    }
    if (boxCols < 1
        || boxCols > MAX_BOX
        || (boxCols * elementBytes) % 16 != 0
        || (swizzleBytes != 0 && boxCols * elementBytes > swizzleBytes)) {
      throw new IllegalArgumentException(
          "tile map: boxCols must be 1 to "
              + MAX_BOX
              + " elements, in bytes a multiple of 16"
              + (swizzleBytes != 0 ? " and at most swizzleBytes (" + swizzleBytes + ")" : "")
              + ", got "
              + boxCols
              + " elements of "
              + elementBytes
              + " bytes");
    }
    if (boxRows < 1 || boxRows > MAX_BOX) {
      throw new IllegalArgumentException(
          "tile map: boxRows must be 1 to " + MAX_BOX + ", got " + boxRows);
    }
    long last = offset + (rows - 1) * rowStride + cols;
    if (last > length) {
      throw new IllegalArgumentException(
          "tile map: the matrix (offset "
              + offset
              + ", "
              + rows
              + " rows of "
              + cols
              + ", rowStride "
              + rowStride
              + ") ends at element "
              + last
              + ", past the array's "
              + length);
    }
  }

  /**
   * A Java-backend map of a matrix in {@code array} (a {@code short[]}, {@code int[]}, {@code
   * float[]} or {@code byte[]}); the arguments as {@link #validate}. The map names the array
   * weakly: once the array is unreachable, copies through the map fail.
   */
  public static long[] forHost(
      Object array,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    int size = elementBytes(array);
    validate(
        size,
        java.lang.reflect.Array.getLength(array),
        offset,
        cols,
        rows,
        rowStride,
        boxCols,
        boxRows,
        swizzleBytes);
    long id = NEXT_ID.getAndIncrement();
    ARRAYS.values().removeIf(r -> r.get() == null);
    ARRAYS.put(id, new WeakReference<>(array));
    long[] map = new long[LONGS];
    map[0] = HOST_MAGIC;
    map[1] = id;
    map[2] = size;
    map[3] = offset;
    map[4] = cols;
    map[5] = rows;
    map[6] = rowStride;
    map[7] = boxCols;
    map[8] = boxRows;
    map[9] = swizzleBytes;
    return map;
  }

  /**
   * Where the 16-byte chunk holding byte {@code offset} of a box (offsets counted in the box's rows
   * as stored one after another) lands: the chunk index within each 8 x 16-byte span of the pattern
   * is XORed with bits 7 and up of the offset, 1, 2 or 3 of them for 32-, 64- and 128-byte swizzles
   * (the 16-byte chunks of one 128-byte line permuted by the line's index modulo 8 at 128 bytes).
   * The pattern repeats every {@code 8 swizzleBytes} bytes, which is why a swizzled box must land
   * at a multiple of that.
   */
  public static int swizzle(int offset, int swizzleBytes) {
    if (swizzleBytes == 0) {
      return offset;
    }
    int mask = swizzleBytes / 16 - 1;
    return offset ^ (((offset >> 7) & mask) << 4);
  }

  /**
   * Copies the box at column {@code col}, row {@code row} (element coordinates of its first
   * element; may lie partly or wholly outside the matrix) into {@code dst} from element {@code
   * dstIndex} on; returns the bytes of the box. The Java backend's {@code copyTileAsync}.
   */
  static int copyBox(Object dst, int dstIndex, long[] map, int col, int row) {
    if (map == null || map.length < LONGS || map[0] != HOST_MAGIC) {
      throw new IllegalArgumentException(
          "copyTileAsync: map must be a tile map of "
              + LONGS
              + " longs from Device.tileMap (on the Java backend, TileMap.forHost)");
    }
    WeakReference<Object> ref = ARRAYS.get(map[1]);
    Object src = ref == null ? null : ref.get();
    if (src == null) {
      throw new IllegalStateException(
          "copyTileAsync: the array the tile map describes is gone (the map outlived its buffer)");
    }
    int size = (int) map[2];
    if (elementBytes(dst) != size) {
      throw new IllegalArgumentException(
          "copyTileAsync: dst holds "
              + elementBytes(dst)
              + "-byte elements, the map's matrix "
              + size
              + "-byte elements");
    }
    long offset = map[3];
    long cols = map[4];
    long rows = map[5];
    long rowStride = map[6];
    int boxCols = (int) map[7];
    int boxRows = (int) map[8];
    int swizzleBytes = (int) map[9];
    int dstAlign = Math.max(128, 8 * swizzleBytes);
    if (dstIndex < 0 || ((long) dstIndex * size) % dstAlign != 0) {
      throw new IllegalArgumentException(
          "copyTileAsync: dstIndex must be a non-negative index at a multiple of "
              + dstAlign
              + " bytes ("
              + (swizzleBytes == 0 ? "the copy's alignment" : "the swizzle pattern's period")
              + "), got "
              + dstIndex);
    }
    int rowBytes = boxCols * size;
    int boxBytes = rowBytes * boxRows;
    if ((long) dstIndex + boxBytes / size > java.lang.reflect.Array.getLength(dst)) {
      throw new IllegalArgumentException(
          "copyTileAsync: the box ("
              + boxBytes
              + " bytes) does not fit in dst from index "
              + dstIndex);
    }
    int perChunk = 16 / size;
    for (int r = 0; r < boxRows; r++) {
      long gr = (long) row + r;
      for (int c = 0; c < boxCols; c += perChunk) {
        int to = dstIndex + swizzle(r * rowBytes + c * size, swizzleBytes) / size;
        long gc0 = (long) col + c;
        if (gr >= 0 && gr < rows && gc0 >= 0 && gc0 + perChunk <= cols) {
          // A whole chunk inside the matrix: one copy (the common case, on the Java backend's
          // hot path of every tile-copying kernel).
          System.arraycopy(src, (int) (offset + gr * rowStride + gc0), dst, to, perChunk);
          continue;
        }
        for (int e = 0; e < perChunk; e++) {
          long gc = (long) col + c + e;
          if (gr >= 0 && gr < rows && gc >= 0 && gc < cols) {
            System.arraycopy(src, (int) (offset + gr * rowStride + gc), dst, to + e, 1);
          } else {
            zero(dst, to + e);
          }
        }
      }
    }
    return boxBytes;
  }

  private static void zero(Object dst, int i) {
    switch (dst) {
      case short[] a -> a[i] = 0;
      case int[] a -> a[i] = 0;
      case float[] a -> a[i] = 0;
      case byte[] a -> a[i] = 0;
      default -> throw new IllegalArgumentException("unreachable");
    }
  }

  private static int elementBytes(Object array) {
    return switch (array) {
      case short[] a -> 2;
      case int[] a -> 4;
      case float[] a -> 4;
      case byte[] a -> 1;
      case null -> throw new IllegalArgumentException("tile map: the array must not be null");
      default ->
          throw new IllegalArgumentException(
              "tile map: the array must be a short[], int[], float[] or byte[], got "
                  + array.getClass().getSimpleName());
    };
  }
}
