package sirocco.runtime.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Early-start launches through {@code cuLaunchKernelEx}: the {@code CUlaunchConfig} layout with one
 * {@code CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION} attribute, filled in per-stream
 * scratch ({@link CudaStream}). {@link Cu#launchKernel} comes here when it is given that scratch.
 */
final class CuLaunchEx {
  private CuLaunchEx() {}

  /** {@code CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION}. */
  static final int PROGRAMMATIC_STREAM_SERIALIZATION = 6;

  /**
   * Bytes of a {@code CUlaunchConfig} (seven {@code unsigned int}s, the stream at 32, the attribute
   * pointer at 40, their count at 48) followed by one {@code CUlaunchAttribute} (the id, padding to
   * 8, a 64-byte value union) at {@link #ATTRIBUTE_OFFSET}.
   */
  static final int CONFIG_BYTES = 56 + 72;

  static final int ATTRIBUTE_OFFSET = 56;

  /** Whether this driver has {@code cuLaunchKernelEx} (CUDA 11.8+). */
  static boolean available() {
    return CudaDriver.cuLaunchKernelEx != null;
  }

  /** A launch that may start before the previous kernel in {@code stream} has finished. */
  static void launchEarly(
      MemorySegment function,
      int gridX,
      int gridY,
      int gridZ,
      int blockX,
      int blockY,
      int blockZ,
      int sharedBytes,
      MemorySegment stream,
      MemorySegment params,
      MemorySegment config) {
    MethodHandle ex = CudaDriver.require(CudaDriver.cuLaunchKernelEx, "cuLaunchKernelEx");
    config.fill((byte) 0);
    config.set(JAVA_INT, 0, gridX);
    config.set(JAVA_INT, 4, gridY);
    config.set(JAVA_INT, 8, gridZ);
    config.set(JAVA_INT, 12, blockX);
    config.set(JAVA_INT, 16, blockY);
    config.set(JAVA_INT, 20, blockZ);
    config.set(JAVA_INT, 24, sharedBytes);
    config.set(ADDRESS, 32, stream);
    MemorySegment attr = config.asSlice(ATTRIBUTE_OFFSET, 72);
    config.set(ADDRESS, 40, attr);
    config.set(JAVA_INT, 48, 1);
    attr.set(JAVA_INT, 0, PROGRAMMATIC_STREAM_SERIALIZATION);
    attr.set(JAVA_INT, 8, 1); // value.programmaticStreamSerializationAllowed
    try {
      int rc = (int) ex.invokeExact(config, function, params, MemorySegment.NULL);
      Cu.check("cuLaunchKernelEx", rc);
    } catch (Throwable t) {
      throw Cu.rethrow(t);
    }
  }
}
