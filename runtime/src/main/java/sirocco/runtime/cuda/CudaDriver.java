package sirocco.runtime.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Raw downcall handles into the CUDA driver ({@code libcuda.so.1}), created once when this class
 * initialises. Every handle returns the driver's {@code CUresult} as an {@code int}; {@link Cu}
 * checks it. Nothing here is called when the library is missing: {@link #available()} says so and
 * {@link #unavailableReason()} why.
 *
 * <p>The library is looked up by name; the system property {@code sirocco.cuda.library} or the
 * environment variable {@code SIROCCO_CUDA_LIBRARY} override the name or give a path.
 *
 * <p>Handles whose calls return at once and never block (queries, event record) are linked as
 * critical functions, which skips the thread-state transition; copies between the Java heap and the
 * device use critical handles that accept heap segments, so no staging copy is needed. Calls that
 * can block (synchronize, allocation, module load, launch) are ordinary downcalls.
 */
final class CudaDriver {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final String REASON;
  private static final SymbolLookup LIB;

  static {
    String name =
        Optional.ofNullable(System.getProperty("sirocco.cuda.library"))
            .or(() -> Optional.ofNullable(System.getenv("SIROCCO_CUDA_LIBRARY")))
            .orElse("libcuda.so.1");
    SymbolLookup lookup = null;
    String reason = null;
    try {
      lookup = SymbolLookup.libraryLookup(name, Arena.global());
    } catch (IllegalArgumentException | IllegalCallerException e) {
      reason = "the CUDA driver library " + name + " could not be loaded (" + e.getMessage() + ")";
    }
    LIB = lookup;
    REASON = reason;
  }

  private static final FunctionDescriptor I_I = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
  private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);
  private static final FunctionDescriptor I_PI = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
  private static final FunctionDescriptor I_PP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);

  static final MethodHandle cuInit = bind("cuInit", I_I);
  static final MethodHandle cuDriverGetVersion = bind("cuDriverGetVersion", I_P);
  static final MethodHandle cuGetErrorName =
      bind("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
  static final MethodHandle cuGetErrorString =
      bind("cuGetErrorString", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

  static final MethodHandle cuDeviceGetCount = bind("cuDeviceGetCount", I_P);
  static final MethodHandle cuDeviceGet = bind("cuDeviceGet", I_PI);
  static final MethodHandle cuDeviceGetName =
      bind("cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  static final MethodHandle cuDeviceGetAttribute =
      bind("cuDeviceGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  static final MethodHandle cuDeviceTotalMem = bind("cuDeviceTotalMem_v2", I_PI);

  static final MethodHandle cuDevicePrimaryCtxRetain = bind("cuDevicePrimaryCtxRetain", I_PI);
  static final MethodHandle cuDevicePrimaryCtxSetFlags =
      bind("cuDevicePrimaryCtxSetFlags_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  static final MethodHandle cuDevicePrimaryCtxGetState =
      bind(
          "cuDevicePrimaryCtxGetState",
          FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
  static final MethodHandle cuCtxSetCurrent = bind("cuCtxSetCurrent", I_P);
  static final MethodHandle cuCtxGetCurrent = bind("cuCtxGetCurrent", I_P);
  static final MethodHandle cuCtxSynchronize =
      bind("cuCtxSynchronize", FunctionDescriptor.of(JAVA_INT));

  static final MethodHandle cuStreamCreate = bind("cuStreamCreate", I_PI);
  static final MethodHandle cuStreamDestroy = bind("cuStreamDestroy_v2", I_P);
  static final MethodHandle cuStreamSynchronize = bind("cuStreamSynchronize", I_P);
  static final MethodHandle cuStreamQuery = bindCritical("cuStreamQuery", I_P, false);
  static final MethodHandle cuStreamWaitEvent =
      bind("cuStreamWaitEvent", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

  // Graph capture (CudaGraph): the driver's stream capture, instantiate and launch.
  static final MethodHandle cuStreamBeginCapture = bind("cuStreamBeginCapture_v2", I_PI);
  static final MethodHandle cuStreamEndCapture = bind("cuStreamEndCapture", I_PP);
  static final MethodHandle cuGraphInstantiateWithFlags =
      bind(
          "cuGraphInstantiateWithFlags",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
  static final MethodHandle cuGraphLaunch = bind("cuGraphLaunch", I_PP);
  static final MethodHandle cuGraphExecDestroy = bind("cuGraphExecDestroy", I_P);
  static final MethodHandle cuGraphDestroy = bind("cuGraphDestroy", I_P);

  static final MethodHandle cuEventCreate = bind("cuEventCreate", I_PI);
  static final MethodHandle cuEventRecord = bindCritical("cuEventRecord", I_PP, false);
  static final MethodHandle cuEventQuery = bindCritical("cuEventQuery", I_P, false);
  static final MethodHandle cuEventSynchronize = bind("cuEventSynchronize", I_P);
  static final MethodHandle cuEventElapsedTime =
      bindFirst(
          FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
          "cuEventElapsedTime_v2",
          "cuEventElapsedTime");
  static final MethodHandle cuEventDestroy = bind("cuEventDestroy_v2", I_P);

  static final MethodHandle cuMemAlloc =
      bind("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
  static final MethodHandle cuMemFree =
      bind("cuMemFree_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
  static final MethodHandle cuMemAllocAsync =
      bind("cuMemAllocAsync", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemFreeAsync =
      bind("cuMemFreeAsync", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemGetInfo = bind("cuMemGetInfo_v2", I_PP);
  static final MethodHandle cuDeviceGetDefaultMemPool = bind("cuDeviceGetDefaultMemPool", I_PI);
  static final MethodHandle cuMemPoolGetAttribute =
      bind("cuMemPoolGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
  static final MethodHandle cuMemPoolSetAttribute =
      bind("cuMemPoolSetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
  static final MethodHandle cuMemPoolTrimTo =
      bind("cuMemPoolTrimTo", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));

  static final MethodHandle cuMemHostAlloc =
      bind("cuMemHostAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
  static final MethodHandle cuMemFreeHost = bind("cuMemFreeHost", I_P);
  static final MethodHandle cuMemHostGetDevicePointer =
      bind(
          "cuMemHostGetDevicePointer_v2",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

  static final MethodHandle cuMemcpyHtoDAsync =
      bind(
          "cuMemcpyHtoDAsync_v2",
          FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemcpyDtoHAsync =
      bind(
          "cuMemcpyDtoHAsync_v2",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemcpyDtoDAsync =
      bind(
          "cuMemcpyDtoDAsync_v2",
          FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemsetD32Async =
      bind(
          "cuMemsetD32Async",
          FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS));
  static final MethodHandle cuMemsetD8Async =
      bind(
          "cuMemsetD8Async",
          FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, ADDRESS));

  static final MethodHandle cuModuleLoadDataEx =
      bind(
          "cuModuleLoadDataEx",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
  static final MethodHandle cuModuleUnload = bind("cuModuleUnload", I_P);
  static final MethodHandle cuModuleGetFunction =
      bind("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
  static final MethodHandle cuFuncGetAttribute =
      bind("cuFuncGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
  static final MethodHandle cuFuncSetAttribute =
      bind("cuFuncSetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  static final MethodHandle cuLaunchKernel =
      bind(
          "cuLaunchKernel",
          FunctionDescriptor.of(
              JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
              JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

  /** Since CUDA 11.8; null on older drivers (early-start launches then run as plain ones). */
  static final MethodHandle cuLaunchKernelEx =
      bind("cuLaunchKernelEx", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

  static final MethodHandle cuOccupancyMaxActiveBlocksPerMultiprocessor =
      bind(
          "cuOccupancyMaxActiveBlocksPerMultiprocessor",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG));

  /**
   * Since CUDA 12.0; null on older drivers. {@code CUresult (CUtensorMap*, CUtensorMapDataType,
   * cuuint32_t rank, void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t*
   * globalStrides, const cuuint32_t* boxDim, const cuuint32_t* elementStrides, interleave, swizzle,
   * l2Promotion, oobFill)}, the enums C ints.
   */
  static final MethodHandle cuTensorMapEncodeTiled =
      bind(
          "cuTensorMapEncodeTiled",
          FunctionDescriptor.of(
              JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
              JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));

  private CudaDriver() {}

  static boolean available() {
    return LIB != null && cuInit != null;
  }

  static String unavailableReason() {
    return REASON != null
        ? REASON
        : available() ? null : "cuInit not found in the CUDA driver library";
  }

  private static MethodHandle bind(String name, FunctionDescriptor fd) {
    if (LIB == null) {
      return null;
    }
    return LIB.find(name).map(s -> LINKER.downcallHandle(s, fd)).orElse(null);
  }

  private static MethodHandle bindCritical(String name, FunctionDescriptor fd, boolean heap) {
    if (LIB == null) {
      return null;
    }
    return LIB.find(name)
        .map(s -> LINKER.downcallHandle(s, fd, Linker.Option.critical(heap)))
        .orElse(null);
  }

  private static MethodHandle bindFirst(FunctionDescriptor fd, String... names) {
    for (String n : names) {
      MethodHandle h = bind(n, fd);
      if (h != null) {
        return h;
      }
    }
    return null;
  }

  /** A handle that may be null (symbol missing from this driver) turned into a clear error. */
  static MethodHandle require(MethodHandle h, String name) {
    return require(h, name, null);
  }

  /** {@link #require(MethodHandle, String)}, saying what the symbol needs ({@code needs}). */
  static MethodHandle require(MethodHandle h, String name, String needs) {
    if (h == null) {
      throw new CudaException(
          name,
          -1,
          "CUDA_ERROR_NOT_FOUND",
          "this CUDA driver does not export " + name + (needs == null ? "" : " (" + needs + ")"));
    }
    return h;
  }

  static MemorySegment nullPtr() {
    return MemorySegment.NULL;
  }
}
