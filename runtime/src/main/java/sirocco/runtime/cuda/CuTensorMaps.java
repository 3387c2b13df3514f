package sirocco.runtime.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import sirocco.runtime.ElementType;

/**
 * Tensor maps for the tensor memory accelerator: {@code cuTensorMapEncodeTiled} through the one
 * checked-call path of {@link Cu} (a {@link CudaException} with the driver's error name). Only
 * encodes on the host; nothing touches the device.
 */
final class CuTensorMaps {
  private CuTensorMaps() {}

  // cuTensorMapEncodeTiled's enums (cuda.h, CUDA 12): CUtensorMapDataType, CUtensorMapSwizzle,
  // CUtensorMapL2promotion; interleave and out-of-bounds fill are always NONE (0).
  static final int DATA_TYPE_UINT8 = 0;
  static final int DATA_TYPE_UINT16 = 1;
  static final int DATA_TYPE_UINT32 = 2;
  static final int DATA_TYPE_FLOAT32 = 7;
  static final int SWIZZLE_NONE = 0;
  static final int SWIZZLE_32B = 1;
  static final int SWIZZLE_64B = 2;
  static final int SWIZZLE_128B = 3;
  static final int L2_PROMOTION_L2_128B = 2;
  private static final int INTERLEAVE_NONE = 0;
  private static final int FLOAT_OOB_FILL_NONE = 0;

  /** Bytes of a {@code CUtensorMap}. */
  static final int BYTES = 128;

  /**
   * The map of a row-major matrix of {@code type} elements at device address {@code address}
   * ({@code cols} x {@code rows}, rows {@code rowStrideBytes} apart, boxes of {@code boxCols} x
   * {@code boxRows}, a {@code swizzleBytes}-byte swizzle, 128-byte L2 promotion), as its 16 longs;
   * the arguments already checked ({@code TileMap.validate}).
   */
  static long[] encode2d(
      ElementType type,
      long address,
      long cols,
      long rows,
      long rowStrideBytes,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    int dataType =
        switch (type) {
          case I8 -> DATA_TYPE_UINT8;
          // Copies move bits: bf16 and f16 alike.
          case I16 -> DATA_TYPE_UINT16;
          case I32 -> DATA_TYPE_UINT32;
          case F32 -> DATA_TYPE_FLOAT32;
          default -> throw new IllegalStateException("no tile maps of " + type + " elements");
        };
    int swizzle =
        switch (swizzleBytes) {
          case 0 -> SWIZZLE_NONE;
          case 32 -> SWIZZLE_32B;
          case 64 -> SWIZZLE_64B;
          case 128 -> SWIZZLE_128B;
          default -> throw new IllegalStateException("no swizzle of " + swizzleBytes + " bytes");
        };
    return tiled2d(
        dataType,
        address,
        cols,
        rows,
        rowStrideBytes,
        boxCols,
        boxRows,
        swizzle,
        L2_PROMOTION_L2_128B);
  }

  /**
   * A two-dimensional tiled {@code CUtensorMap} ({@code cuTensorMapEncodeTiled}) as its 16 longs:
   * {@code dim0} x {@code dim1} elements of {@code dataType} at device address {@code address},
   * rows {@code rowStrideBytes} apart, boxes of {@code box0} x {@code box1}, elements out of bounds
   * read as zeros. Dimension 0 is the contiguous one. Only encodes: nothing touches the device.
   */
  static long[] tiled2d(
      int dataType,
      long address,
      long dim0,
      long dim1,
      long rowStrideBytes,
      int box0,
      int box1,
      int swizzle,
      int l2Promotion) {
    MethodHandle h =
        CudaDriver.require(
            CudaDriver.cuTensorMapEncodeTiled,
            "cuTensorMapEncodeTiled",
            "tile maps need a CUDA 12 driver, and copies through them an sm_90 GPU");
    try (Arena arena = Arena.ofConfined()) {
      // The driver requires the map 64-byte aligned.
      MemorySegment map = arena.allocate(BYTES, 64);
      MemorySegment globalDim = arena.allocateFrom(JAVA_LONG, dim0, dim1);
      MemorySegment globalStrides = arena.allocateFrom(JAVA_LONG, rowStrideBytes);
      MemorySegment boxDim = arena.allocateFrom(JAVA_INT, box0, box1);
      MemorySegment elementStrides = arena.allocateFrom(JAVA_INT, 1, 1);
      int rc =
          (int)
              h.invokeExact(
                  map,
                  dataType,
                  2,
                  MemorySegment.ofAddress(address),
                  globalDim,
                  globalStrides,
                  boxDim,
                  elementStrides,
                  INTERLEAVE_NONE,
                  swizzle,
                  l2Promotion,
                  FLOAT_OOB_FILL_NONE);
      if (rc != Cu.SUCCESS) {
        throw new CudaException(
            "cuTensorMapEncodeTiled",
            rc,
            Cu.errorName(rc),
            Cu.errorString(rc),
            String.format(
                "dataType %d, address 0x%x, globalDim {%d, %d}, globalStrides {%d}, boxDim {%d, %d},"
                    + " swizzle %d, l2Promotion %d",
                dataType, address, dim0, dim1, rowStrideBytes, box0, box1, swizzle, l2Promotion));
      }
      return map.toArray(JAVA_LONG);
    } catch (Throwable t) {
      throw Cu.rethrow(t);
    }
  }
}
