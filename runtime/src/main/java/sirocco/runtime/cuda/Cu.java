package sirocco.runtime.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * Checked calls into the CUDA driver: the one place where a {@code CUresult} becomes an exception.
 * Every failure is a {@link CudaException} naming the call and carrying the driver's error name and
 * description; out-of-memory is a {@link CudaOutOfMemoryException}. Queries that report "not ready"
 * return {@code false} instead of throwing.
 */
public final class Cu {
  public static final int SUCCESS = 0;
  public static final int ERROR_OUT_OF_MEMORY = 2;
  public static final int ERROR_NOT_INITIALIZED = 3;
  public static final int ERROR_DEINITIALIZED = 4;
  public static final int ERROR_NO_DEVICE = 100;
  public static final int ERROR_NOT_READY = 600;

  public static final int CTX_SCHED_BLOCKING_SYNC = 0x04;
  public static final int STREAM_NON_BLOCKING = 0x1;
  public static final int EVENT_DEFAULT = 0x0;
  public static final int EVENT_BLOCKING_SYNC = 0x1;
  public static final int EVENT_DISABLE_TIMING = 0x2;
  public static final int MEMHOSTALLOC_PORTABLE = 0x1;
  public static final int MEMHOSTALLOC_DEVICEMAP = 0x2;

  public static final int ATTR_MAX_THREADS_PER_BLOCK = 1;
  public static final int ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8;
  public static final int ATTR_CLOCK_RATE = 13;
  public static final int ATTR_MULTIPROCESSOR_COUNT = 16;
  public static final int ATTR_CAN_MAP_HOST_MEMORY = 19;
  public static final int ATTR_MEMORY_CLOCK_RATE = 36;
  public static final int ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37;
  public static final int ATTR_L2_CACHE_SIZE = 38;
  public static final int ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39;
  public static final int ATTR_COMPUTE_CAPABILITY_MAJOR = 75;
  public static final int ATTR_COMPUTE_CAPABILITY_MINOR = 76;
  public static final int ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
  public static final int ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
  public static final int ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
  public static final int ATTR_MEMORY_POOLS_SUPPORTED = 115;

  public static final int POOL_ATTR_RELEASE_THRESHOLD = 4;
  public static final int POOL_ATTR_RESERVED_MEM_CURRENT = 5;
  public static final int POOL_ATTR_RESERVED_MEM_HIGH = 6;
  public static final int POOL_ATTR_USED_MEM_CURRENT = 7;
  public static final int POOL_ATTR_USED_MEM_HIGH = 8;

  public static final int FUNC_ATTR_MAX_THREADS_PER_BLOCK = 0;
  public static final int FUNC_ATTR_SHARED_SIZE_BYTES = 1;
  public static final int FUNC_ATTR_LOCAL_SIZE_BYTES = 3;
  public static final int FUNC_ATTR_NUM_REGS = 4;
  public static final int FUNC_ATTR_PTX_VERSION = 5;
  public static final int FUNC_ATTR_BINARY_VERSION = 6;
  public static final int FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
  public static final int FUNC_ATTR_PREFERRED_SHARED_MEMORY_CARVEOUT = 9;

  static final int JIT_INFO_LOG_BUFFER = 3;
  static final int JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
  static final int JIT_ERROR_LOG_BUFFER = 5;
  static final int JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
  static final int JIT_LOG_VERBOSE = 12;
  static final int JIT_GENERATE_LINE_INFO = 13;

  private Cu() {}

  /** True when the driver library loaded; says nothing yet about devices. */
  public static boolean libraryAvailable() {
    return CudaDriver.available();
  }

  /** Why the driver library is unusable, or null when it loaded. */
  public static String libraryUnavailableReason() {
    return CudaDriver.unavailableReason();
  }

  // ---- result checking ----

  /** Throws for any result but success. */
  public static void check(String call, int result) {
    if (result != SUCCESS) {
      throw failure(call, result, 0);
    }
  }

  static CudaException failure(String call, int result, long requestedBytes) {
    String name = errorName(result);
    String description = errorString(result);
    if (result == ERROR_OUT_OF_MEMORY) {
      return new CudaOutOfMemoryException(call, result, name, description, requestedBytes);
    }
    return new CudaException(call, result, name, description);
  }

  /** The driver's name for a result code, e.g. {@code CUDA_ERROR_INVALID_VALUE}. */
  public static String errorName(int result) {
    return describe(CudaDriver.cuGetErrorName, result, "CUDA_ERROR_" + result);
  }

  /** The driver's description of a result code. */
  public static String errorString(int result) {
    return describe(CudaDriver.cuGetErrorString, result, "unknown CUDA error " + result);
  }

  private static String describe(MethodHandle h, int result, String fallback) {
    if (h == null || Lifecycle.exiting()) {
      return fallback;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      int rc = (int) h.invokeExact(result, out);
      if (rc != SUCCESS) {
        return fallback;
      }
      MemorySegment str = out.get(ADDRESS, 0);
      return str.equals(MemorySegment.NULL) ? fallback : str.reinterpret(4096).getString(0);
    } catch (Throwable t) {
      return fallback;
    }
  }

  static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  // ---- initialisation and devices ----

  public static void init() {
    try {
      check("cuInit", (int) CudaDriver.cuInit.invokeExact(0));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** cuInit's raw result, for discovery code that wants to report rather than throw. */
  public static int tryInit() {
    try {
      return (int) CudaDriver.cuInit.invokeExact(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int driverVersion() {
    return outInt("cuDriverGetVersion", CudaDriver.cuDriverGetVersion);
  }

  public static int deviceCount() {
    return outInt("cuDeviceGetCount", CudaDriver.cuDeviceGetCount);
  }

  public static int device(int ordinal) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check("cuDeviceGet", (int) CudaDriver.cuDeviceGet.invokeExact(out, ordinal));
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static String deviceName(int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(256);
      check("cuDeviceGetName", (int) CudaDriver.cuDeviceGetName.invokeExact(out, 256, device));
      return out.getString(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int deviceAttribute(int device, int attribute) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check(
          "cuDeviceGetAttribute",
          (int) CudaDriver.cuDeviceGetAttribute.invokeExact(out, attribute, device));
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static long deviceTotalMemory(int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      check("cuDeviceTotalMem", (int) CudaDriver.cuDeviceTotalMem.invokeExact(out, device));
      return out.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Free and total device memory of the current context, in bytes. */
  public static long[] memoryInfo() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment free = arena.allocate(JAVA_LONG);
      MemorySegment total = arena.allocate(JAVA_LONG);
      check("cuMemGetInfo", (int) CudaDriver.cuMemGetInfo.invokeExact(free, total));
      return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- context ----

  /**
   * Sets the primary context's flags; only possible before the context is first made active.
   * Returns false when the context was already active with other flags (another library created it
   * first).
   */
  public static boolean primaryContextSetFlags(int device, int flags) {
    try {
      int rc = (int) CudaDriver.cuDevicePrimaryCtxSetFlags.invokeExact(device, flags);
      if (rc == 708 /* CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE */) {
        return false;
      }
      check("cuDevicePrimaryCtxSetFlags", rc);
      return true;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static MemorySegment primaryContextRetain(int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check(
          "cuDevicePrimaryCtxRetain",
          (int) CudaDriver.cuDevicePrimaryCtxRetain.invokeExact(out, device));
      return out.get(ADDRESS, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void contextSetCurrent(MemorySegment context) {
    try {
      check("cuCtxSetCurrent", (int) CudaDriver.cuCtxSetCurrent.invokeExact(context));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static MemorySegment contextGetCurrent() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check("cuCtxGetCurrent", (int) CudaDriver.cuCtxGetCurrent.invokeExact(out));
      return out.get(ADDRESS, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void contextSynchronize() {
    try {
      check("cuCtxSynchronize", (int) CudaDriver.cuCtxSynchronize.invokeExact());
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- streams and events ----

  public static MemorySegment streamCreate(int flags) {
    return outPointer("cuStreamCreate", CudaDriver.cuStreamCreate, flags);
  }

  public static void streamDestroy(MemorySegment stream) {
    try {
      check("cuStreamDestroy", (int) CudaDriver.cuStreamDestroy.invokeExact(stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void streamSynchronize(MemorySegment stream) {
    try {
      check("cuStreamSynchronize", (int) CudaDriver.cuStreamSynchronize.invokeExact(stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** True when all work queued on the stream has completed. */
  public static boolean streamQuery(MemorySegment stream) {
    try {
      int rc = (int) CudaDriver.cuStreamQuery.invokeExact(stream);
      if (rc == ERROR_NOT_READY) {
        return false;
      }
      check("cuStreamQuery", rc);
      return true;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void streamWaitEvent(MemorySegment stream, MemorySegment event) {
    try {
      check("cuStreamWaitEvent", (int) CudaDriver.cuStreamWaitEvent.invokeExact(stream, event, 0));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static MemorySegment eventCreate(int flags) {
    return outPointer("cuEventCreate", CudaDriver.cuEventCreate, flags);
  }

  public static void eventRecord(MemorySegment event, MemorySegment stream) {
    try {
      check("cuEventRecord", (int) CudaDriver.cuEventRecord.invokeExact(event, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** True when the event has completed. */
  public static boolean eventQuery(MemorySegment event) {
    try {
      int rc = (int) CudaDriver.cuEventQuery.invokeExact(event);
      if (rc == ERROR_NOT_READY) {
        return false;
      }
      check("cuEventQuery", rc);
      return true;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void eventSynchronize(MemorySegment event) {
    try {
      check("cuEventSynchronize", (int) CudaDriver.cuEventSynchronize.invokeExact(event));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Milliseconds between two completed events recorded without {@link #EVENT_DISABLE_TIMING}. */
  public static float eventElapsedMillis(MemorySegment start, MemorySegment end) {
    MethodHandle h = CudaDriver.require(CudaDriver.cuEventElapsedTime, "cuEventElapsedTime");
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_FLOAT);
      check("cuEventElapsedTime", (int) h.invokeExact(out, start, end));
      return out.get(JAVA_FLOAT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void eventDestroy(MemorySegment event) {
    try {
      check("cuEventDestroy", (int) CudaDriver.cuEventDestroy.invokeExact(event));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- memory ----

  /** Stream-ordered allocation from the device's current pool (the default pool unless changed). */
  public static long memAllocAsync(long bytes, MemorySegment stream) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      int rc = (int) CudaDriver.cuMemAllocAsync.invokeExact(out, bytes, stream);
      if (rc != SUCCESS) {
        throw failure("cuMemAllocAsync", rc, bytes);
      }
      return out.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memFreeAsync(long pointer, MemorySegment stream) {
    try {
      check("cuMemFreeAsync", (int) CudaDriver.cuMemFreeAsync.invokeExact(pointer, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static long memAlloc(long bytes) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      int rc = (int) CudaDriver.cuMemAlloc.invokeExact(out, bytes);
      if (rc != SUCCESS) {
        throw failure("cuMemAlloc", rc, bytes);
      }
      return out.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memFree(long pointer) {
    try {
      check("cuMemFree", (int) CudaDriver.cuMemFree.invokeExact(pointer));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static MemorySegment defaultMemPool(int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check(
          "cuDeviceGetDefaultMemPool",
          (int) CudaDriver.cuDeviceGetDefaultMemPool.invokeExact(out, device));
      return out.get(ADDRESS, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** A 64-bit pool attribute (thresholds and memory counters). */
  public static long memPoolGetAttribute(MemorySegment pool, int attribute) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      check(
          "cuMemPoolGetAttribute",
          (int) CudaDriver.cuMemPoolGetAttribute.invokeExact(pool, attribute, out));
      return out.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memPoolSetAttribute(MemorySegment pool, int attribute, long value) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocate(JAVA_LONG);
      in.set(JAVA_LONG, 0, value);
      check(
          "cuMemPoolSetAttribute",
          (int) CudaDriver.cuMemPoolSetAttribute.invokeExact(pool, attribute, in));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Releases reserved pool memory above {@code keepBytes} that no allocation is using. */
  public static void memPoolTrimTo(MemorySegment pool, long keepBytes) {
    try {
      check("cuMemPoolTrimTo", (int) CudaDriver.cuMemPoolTrimTo.invokeExact(pool, keepBytes));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Page-locked host memory, optionally mapped into the device's address space. */
  public static MemorySegment memHostAlloc(long bytes, int flags) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      int rc = (int) CudaDriver.cuMemHostAlloc.invokeExact(out, bytes, flags);
      if (rc != SUCCESS) {
        throw failure("cuMemHostAlloc", rc, bytes);
      }
      return out.get(ADDRESS, 0).reinterpret(bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memFreeHost(MemorySegment host) {
    try {
      check("cuMemFreeHost", (int) CudaDriver.cuMemFreeHost.invokeExact(host));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The device address of mapped pinned host memory. */
  public static long memHostGetDevicePointer(MemorySegment host) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_LONG);
      check(
          "cuMemHostGetDevicePointer",
          (int) CudaDriver.cuMemHostGetDevicePointer.invokeExact(out, host, 0));
      return out.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Queues a copy of {@code bytes} from native (pinned) host memory to the device on {@code
   * stream}; the source must stay untouched until the copy has completed.
   */
  public static void memcpyHtoDAsync(
      long dst, MemorySegment src, long bytes, MemorySegment stream) {
    if (!src.isNative()) {
      throw new IllegalArgumentException("an asynchronous copy needs native host memory");
    }
    try {
      check(
          "cuMemcpyHtoDAsync",
          (int) CudaDriver.cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Queues a copy of device memory into native (pinned) host memory on {@code stream}. */
  public static void memcpyDtoHAsync(
      MemorySegment dst, long src, long bytes, MemorySegment stream) {
    if (!dst.isNative()) {
      throw new IllegalArgumentException("an asynchronous copy needs native host memory");
    }
    try {
      check(
          "cuMemcpyDtoHAsync",
          (int) CudaDriver.cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memcpyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
    try {
      check(
          "cuMemcpyDtoDAsync",
          (int) CudaDriver.cuMemcpyDtoDAsync.invokeExact(dst, src, bytes, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memsetD32Async(long dst, int value, long count, MemorySegment stream) {
    try {
      check(
          "cuMemsetD32Async",
          (int) CudaDriver.cuMemsetD32Async.invokeExact(dst, value, count, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void memsetD8Async(long dst, byte value, long count, MemorySegment stream) {
    try {
      check(
          "cuMemsetD8Async",
          (int) CudaDriver.cuMemsetD8Async.invokeExact(dst, value, count, stream));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- modules and launch ----

  /** A loaded module and the driver JIT's logs (warnings and resource usage when verbose). */
  public record LoadedModule(MemorySegment module, String infoLog) {}

  /**
   * Loads a PTX image ({@code cuModuleLoadDataEx}) with info and error log buffers; a failure
   * carries the driver JIT's error log.
   */
  public static LoadedModule moduleLoadPtx(String ptx, boolean verbose) {
    int logBytes = 16 * 1024;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment image = arena.allocateFrom(ptx);
      MemorySegment info = arena.allocate(logBytes);
      MemorySegment error = arena.allocate(logBytes);
      int n = verbose ? 5 : 4;
      MemorySegment options = arena.allocate(JAVA_INT, n);
      MemorySegment values = arena.allocate(ADDRESS, n);
      options.setAtIndex(JAVA_INT, 0, JIT_INFO_LOG_BUFFER);
      values.setAtIndex(ADDRESS, 0, info);
      options.setAtIndex(JAVA_INT, 1, JIT_INFO_LOG_BUFFER_SIZE_BYTES);
      values.setAtIndex(ADDRESS, 1, MemorySegment.ofAddress(logBytes));
      options.setAtIndex(JAVA_INT, 2, JIT_ERROR_LOG_BUFFER);
      values.setAtIndex(ADDRESS, 2, error);
      options.setAtIndex(JAVA_INT, 3, JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
      values.setAtIndex(ADDRESS, 3, MemorySegment.ofAddress(logBytes));
      if (verbose) {
        options.setAtIndex(JAVA_INT, 4, JIT_LOG_VERBOSE);
        values.setAtIndex(ADDRESS, 4, MemorySegment.ofAddress(1));
      }
      MemorySegment out = arena.allocate(ADDRESS);
      int rc = (int) CudaDriver.cuModuleLoadDataEx.invokeExact(out, image, n, options, values);
      if (rc != SUCCESS) {
        throw new CudaException(
            "cuModuleLoadDataEx", rc, errorName(rc), errorString(rc), error.getString(0));
      }
      return new LoadedModule(out.get(ADDRESS, 0), info.getString(0));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void moduleUnload(MemorySegment module) {
    try {
      check("cuModuleUnload", (int) CudaDriver.cuModuleUnload.invokeExact(module));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static MemorySegment moduleGetFunction(MemorySegment module, String name) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      int rc =
          (int) CudaDriver.cuModuleGetFunction.invokeExact(out, module, arena.allocateFrom(name));
      if (rc != SUCCESS) {
        throw new CudaException(
            "cuModuleGetFunction", rc, errorName(rc), errorString(rc), "function " + name);
      }
      return out.get(ADDRESS, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int functionAttribute(MemorySegment function, int attribute) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check(
          "cuFuncGetAttribute",
          (int) CudaDriver.cuFuncGetAttribute.invokeExact(out, attribute, function));
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static void functionSetAttribute(MemorySegment function, int attribute, int value) {
    try {
      check(
          "cuFuncSetAttribute",
          (int) CudaDriver.cuFuncSetAttribute.invokeExact(function, attribute, value));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Launches a kernel. {@code params} is the {@code void**} array whose entries point at each
   * argument's value; the driver copies the values before returning, so the caller may reuse the
   * memory at once.
   */
  public static void launchKernel(
      MemorySegment function,
      int gridX,
      int gridY,
      int gridZ,
      int blockX,
      int blockY,
      int blockZ,
      int sharedBytes,
      MemorySegment stream,
      MemorySegment params) {
    launchKernel(
        function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes, stream, params, null);
  }

  /**
   * {@link #launchKernel(MemorySegment, int, int, int, int, int, int, int, MemorySegment,
   * MemorySegment)}, or, when {@code earlyConfig} is not null, a launch that may start before the
   * previous kernel in {@code stream} has finished ({@code cuLaunchKernelEx} with programmatic
   * stream serialization allowed); {@code earlyConfig} is then {@link CuLaunchEx#CONFIG_BYTES} of
   * scratch, 8-byte aligned, that this call fills.
   */
  public static void launchKernel(
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
      MemorySegment earlyConfig) {
    if (earlyConfig != null) {
      CuLaunchEx.launchEarly(
          function,
          gridX,
          gridY,
          gridZ,
          blockX,
          blockY,
          blockZ,
          sharedBytes,
          stream,
          params,
          earlyConfig);
      return;
    }
    try {
      int rc =
          (int)
              CudaDriver.cuLaunchKernel.invokeExact(
                  function,
                  gridX,
                  gridY,
                  gridZ,
                  blockX,
                  blockY,
                  blockZ,
                  sharedBytes,
                  stream,
                  params,
                  MemorySegment.NULL);
      check("cuLaunchKernel", rc);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int occupancyMaxActiveBlocksPerMultiprocessor(
      MemorySegment function, int blockSize, long dynamicSharedBytes) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check(
          "cuOccupancyMaxActiveBlocksPerMultiprocessor",
          (int)
              CudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor.invokeExact(
                  out, function, blockSize, dynamicSharedBytes));
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- helpers ----

  private static int outInt(String call, MethodHandle h) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check(call, (int) h.invokeExact(out));
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MemorySegment outPointer(String call, MethodHandle h, int flags) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check(call, (int) h.invokeExact(out, flags));
      return out.get(ADDRESS, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
