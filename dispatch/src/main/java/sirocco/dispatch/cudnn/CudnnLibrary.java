package sirocco.dispatch.cudnn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Raw downcall handles into {@code libcudnn.so.9}, made once per loaded library. Every handle that
 * returns {@code cudnnStatus_t} returns it as an {@code int}; {@link Cudnn} checks it.
 *
 * <p>The library is looked up by name ({@code libcudnn.so.9}, found through the loader's search
 * path; on the GPU machine it is {@code /usr/lib/x86_64-linux-gnu/libcudnn.so.9}); the system
 * property {@code sirocco.cudnn.library} or the environment variable {@code SIROCCO_CUDNN_LIBRARY}
 * give another name or a path. A library that cannot be loaded, lacks a backend-API symbol or is
 * not cuDNN 9 leaves this object {@linkplain #available() unavailable} with the reason: nothing
 * here throws, at class load or later.
 */
final class CudnnLibrary {
  static final String DEFAULT_NAME = "libcudnn.so.9";
  static final String PROPERTY = "sirocco.cudnn.library";
  static final String ENV = "SIROCCO_CUDNN_LIBRARY";

  private static final Linker LINKER = Linker.nativeLinker();

  private static volatile CudnnLibrary global;

  final String name;
  final String reason;
  final long version;

  // size_t cudnnGetVersion(void) and friends
  final MethodHandle getVersion;
  final MethodHandle getCudartVersion;
  final MethodHandle getMaxDeviceVersion;
  // const char* cudnnGetErrorString(cudnnStatus_t)
  final MethodHandle getErrorString;
  // void cudnnGetLastErrorString(char*, size_t)
  final MethodHandle getLastErrorString;
  // cudnnStatus_t cudnnCreate(cudnnHandle_t*), cudnnDestroy(cudnnHandle_t)
  final MethodHandle create;
  final MethodHandle destroy;
  // cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t)
  final MethodHandle setStream;
  // cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t, void**)
  final MethodHandle backendCreateDescriptor;
  final MethodHandle backendDestroyDescriptor;
  final MethodHandle backendFinalize;
  // cudnnStatus_t cudnnBackendSetAttribute(desc, name, type, int64_t count, const void* elements)
  final MethodHandle backendSetAttribute;
  // cudnnStatus_t cudnnBackendGetAttribute(desc, name, type, int64_t requested, int64_t* count,
  // void* elements)
  final MethodHandle backendGetAttribute;
  // cudnnStatus_t cudnnBackendExecute(cudnnHandle_t, plan, variantPack)
  final MethodHandle backendExecute;

  private CudnnLibrary(String name) {
    this.name = name;
    SymbolLookup lib = null;
    String why = null;
    try {
      lib = SymbolLookup.libraryLookup(name, Arena.global());
    } catch (IllegalArgumentException | IllegalCallerException e) {
      why = "the cuDNN library " + name + " could not be loaded (" + e.getMessage() + ")";
    } catch (RuntimeException | LinkageError e) {
      why = "the cuDNN library " + name + " could not be loaded (" + e + ")";
    }
    List<String> missing = new ArrayList<>();
    FunctionDescriptor sizeT = FunctionDescriptor.of(JAVA_LONG);
    FunctionDescriptor iP = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    getVersion = bind(lib, "cudnnGetVersion", sizeT, missing);
    getCudartVersion = bind(lib, "cudnnGetCudartVersion", sizeT, null);
    getMaxDeviceVersion = bind(lib, "cudnnGetMaxDeviceVersion", sizeT, null);
    getErrorString =
        bind(lib, "cudnnGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT), missing);
    getLastErrorString =
        bind(lib, "cudnnGetLastErrorString", FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG), null);
    create = bind(lib, "cudnnCreate", iP, missing);
    destroy = bind(lib, "cudnnDestroy", iP, missing);
    setStream =
        bind(lib, "cudnnSetStream", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), missing);
    backendCreateDescriptor =
        bind(
            lib,
            "cudnnBackendCreateDescriptor",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS),
            missing);
    backendDestroyDescriptor = bind(lib, "cudnnBackendDestroyDescriptor", iP, missing);
    backendFinalize = bind(lib, "cudnnBackendFinalize", iP, missing);
    backendSetAttribute =
        bind(
            lib,
            "cudnnBackendSetAttribute",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
            missing);
    backendGetAttribute =
        bind(
            lib,
            "cudnnBackendGetAttribute",
            FunctionDescriptor.of(
                JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS),
            missing);
    backendExecute =
        bind(
            lib,
            "cudnnBackendExecute",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
            missing);

    long v = 0;
    if (why == null && !missing.isEmpty()) {
      why =
          "the library "
              + name
              + " lacks the cuDNN backend-API symbols "
              + String.join(", ", missing)
              + " (not a cuDNN 9 library?)";
    }
    if (why == null) {
      try {
        v = (long) getVersion.invokeExact();
      } catch (Throwable t) {
        why = "cudnnGetVersion failed in " + name + " (" + t + ")";
      }
      if (why == null && v < 90000) {
        why =
            name
                + " is cuDNN "
                + legacyVersionString(v)
                + "; Sirocco's cuDNN path needs cuDNN 9 (the graph API of cudnn_graph.h)";
      }
    }
    this.version = v;
    this.reason = why;
  }

  private static String legacyVersionString(long v) {
    // cuDNN 8 encoded major·1000 + minor·100 + patch.
    return v >= 1000 ? (v / 1000) + "." + (v / 100) % 10 + "." + v % 100 : String.valueOf(v);
  }

  private static MethodHandle bind(
      SymbolLookup lib, String symbol, FunctionDescriptor fd, List<String> missing) {
    if (lib == null) {
      return null;
    }
    try {
      MethodHandle h = lib.find(symbol).map(s -> LINKER.downcallHandle(s, fd)).orElse(null);
      if (h == null && missing != null) {
        missing.add(symbol);
      }
      return h;
    } catch (RuntimeException e) {
      if (missing != null) {
        missing.add(symbol + " (" + e.getMessage() + ")");
      }
      return null;
    }
  }

  /** The library name or path the process uses: property, else environment, else the default. */
  static String configuredName() {
    String p = System.getProperty(PROPERTY);
    if (p != null && !p.isBlank()) {
      return p.strip();
    }
    String e = System.getenv(ENV);
    if (e != null && !e.isBlank()) {
      return e.strip();
    }
    return DEFAULT_NAME;
  }

  /** Loads the named library; never throws. */
  static CudnnLibrary load(String name) {
    return new CudnnLibrary(name);
  }

  /** The process-wide library, loaded on first use from {@link #configuredName()}. */
  static CudnnLibrary global() {
    CudnnLibrary g = global;
    if (g == null) {
      synchronized (CudnnLibrary.class) {
        g = global;
        if (g == null) {
          global = g = load(configuredName());
        }
      }
    }
    return g;
  }

  /** True once {@link #global()} has run (the lookup is made at most once). */
  static boolean lookedUp() {
    return global != null;
  }

  boolean available() {
    return reason == null;
  }

  /** Why the library is unusable, or null. */
  String unavailableReason() {
    return reason;
  }

  /** cudnnGetCudartVersion, or 0 when the symbol is missing. */
  long cudartVersion() {
    return sizeT(getCudartVersion);
  }

  /** cudnnGetMaxDeviceVersion (the newest compute capability it targets), or 0. */
  long maxDeviceVersion() {
    return sizeT(getMaxDeviceVersion);
  }

  private long sizeT(MethodHandle h) {
    if (!available() || h == null) {
      return 0;
    }
    try {
      return (long) h.invokeExact();
    } catch (Throwable t) {
      return 0;
    }
  }

  static MemorySegment address(long a) {
    return MemorySegment.ofAddress(a);
  }
}
