package sirocco.dispatch.cudnn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * Checked calls into cuDNN: the one place where a {@code cudnnStatus_t} becomes an exception. Every
 * failure is a {@link CudnnException} naming the call, the status (cuDNN's own name from {@code
 * cudnnGetErrorString}), the descriptor type and attribute involved, and cuDNN's last-error
 * message.
 *
 * <p>Nothing here throws because the library is missing until something is actually called: {@link
 * #available()} and {@link #unavailableReason()} answer first. See {@link CudnnLibrary} for how the
 * library is found.
 *
 * <p>Destroying is checked like every other call ({@link CudnnApi#destroy}, {@link
 * #destroyHandle}); teardown paths use {@link CudnnApi#destroyQuietly} instead, which counts a
 * failure in {@link #teardownFailures()} (shown by {@link CudnnSdpa#explain()}) and never throws or
 * prints.
 */
public final class Cudnn {
  private static final Ffm API = new Ffm();

  private static final LongAdder TEARDOWN_FAILURES = new LongAdder();
  private static volatile String lastTeardownFailure;

  private Cudnn() {}

  static CudnnLibrary lib() {
    return CudnnLibrary.global();
  }

  /**
   * True once something in this process has looked the library up (whether or not it loaded);
   * asking this never loads it, so reports can leave cuDNN out when nothing used it.
   */
  public static boolean lookedUp() {
    return CudnnLibrary.lookedUp();
  }

  /** True when {@code libcudnn.so.9} (or the override) loaded and is cuDNN 9. */
  public static boolean available() {
    return lib().available();
  }

  /** Why cuDNN is unusable, or null when it loaded. */
  public static String unavailableReason() {
    return lib().unavailableReason();
  }

  /** The library name or path that was loaded (or tried). */
  public static String libraryName() {
    return lib().name;
  }

  /** {@code cudnnGetVersion()}, e.g. 91400 for 9.14.0; 0 when unavailable. */
  public static long version() {
    return lib().version;
  }

  /** "9.14.0", or "unknown". */
  public static String versionString() {
    return CudnnConstants.versionString(version());
  }

  /** One line for explain output: version, library, cudart, or the reason it is unavailable. */
  public static String describe() {
    CudnnLibrary l = lib();
    if (!l.available()) {
      return "cuDNN unavailable: " + l.unavailableReason();
    }
    long cudart = l.cudartVersion();
    return "cuDNN "
        + CudnnConstants.versionString(l.version)
        + " ("
        + l.name
        + (cudart > 0
            ? ", built against CUDA runtime " + cudart / 1000 + "." + cudart % 1000 / 10
            : "")
        + (l.maxDeviceVersion() > 0 ? ", newest target sm_" + l.maxDeviceVersion() / 10 : "")
        + ")";
  }

  /**
   * How many destroys on teardown paths failed so far (cuDNN returned an error, or the call threw);
   * those paths cannot act on a failure, so they count it here instead of throwing.
   */
  public static long teardownFailures() {
    return TEARDOWN_FAILURES.sum();
  }

  /** The most recent teardown failure's message, or null when none happened. */
  public static String lastTeardownFailure() {
    return lastTeardownFailure;
  }

  /** Records a failed teardown destroy (from {@link CudnnApi#destroyQuietly}). */
  static void teardownFailed(RuntimeException e) {
    TEARDOWN_FAILURES.increment();
    lastTeardownFailure = e.getMessage() != null ? e.getMessage() : e.toString();
  }

  /** The real backend API through FFM. Its calls fail with a clear message if cuDNN is absent. */
  static CudnnApi api() {
    return API;
  }

  // ---- status ----

  /** cuDNN's name for a status code (from the library when loaded, else Sirocco's table). */
  static String statusName(int status) {
    CudnnLibrary l = lib();
    if (l.available() && l.getErrorString != null && !Lifecycle.exiting()) {
      try {
        MemorySegment s = (MemorySegment) l.getErrorString.invokeExact(status);
        if (!s.equals(MemorySegment.NULL)) {
          String name = s.reinterpret(512).getString(0);
          if (!name.isBlank()) {
            return name;
          }
        }
      } catch (Throwable ignored) {
        // fall through to the table
      }
    }
    return CudnnConstants.statusName(status);
  }

  /** cuDNN's message for the last failed call on this thread, or null. */
  static String lastErrorString() {
    CudnnLibrary l = lib();
    if (!l.available() || l.getLastErrorString == null || Lifecycle.exiting()) {
      return null;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment buf = arena.allocate(2048);
      l.getLastErrorString.invokeExact(buf, 2048L);
      String s = buf.getString(0);
      return s.isBlank() ? null : s;
    } catch (Throwable t) {
      return null;
    }
  }

  /** Throws for any status but success. */
  static void check(String call, int status, Integer descriptorType, Integer attribute) {
    if (status != CudnnConstants.STATUS_SUCCESS) {
      throw new CudnnException(
          call,
          status,
          statusName(status),
          descriptorType == null ? null : CudnnConstants.descriptorTypeName(descriptorType),
          attribute == null ? null : CudnnConstants.attributeName(attribute),
          lastErrorString());
    }
  }

  private static CudnnLibrary require() {
    CudnnLibrary l = lib();
    if (!l.available()) {
      throw new CudnnException("cuDNN", -1, "CUDNN_UNAVAILABLE", null, null, l.unavailableReason());
    }
    return l;
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

  // ---- handles and streams ----

  /**
   * {@code cudnnCreate}: a handle bound to the CUDA context current on the calling thread (make the
   * device's context current first).
   */
  static long createHandle() {
    CudnnLibrary l = require();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check("cudnnCreate", (int) l.create.invokeExact(out), null, null);
      return out.get(ADDRESS, 0).address();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * {@code cudnnDestroy}, checked: throws {@link CudnnException} when cuDNN refuses. Sirocco keeps
   * its per-device handles for the life of the process (see {@code CudnnDeviceState}), so the only
   * callers destroy a handle on purpose and must hear about a failure; there is no teardown caller
   * to keep quiet for. Does nothing for handle 0, without the library (no handle can exist) or once
   * the JVM is exiting (cuDNN may already be torn down and the process is going away).
   */
  static void destroyHandle(long handle) {
    CudnnLibrary l = lib();
    if (!l.available() || Lifecycle.exiting() || handle == 0) {
      return;
    }
    try {
      check(
          "cudnnDestroy", (int) l.destroy.invokeExact(MemorySegment.ofAddress(handle)), null, null);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code cudnnSetStream}: later work on the handle is queued on {@code stream} (a CUstream). */
  static void setStream(long handle, MemorySegment stream) {
    CudnnLibrary l = require();
    try {
      check(
          "cudnnSetStream",
          (int) l.setStream.invokeExact(MemorySegment.ofAddress(handle), stream),
          null,
          null);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  // ---- the backend API through FFM ----

  private static final class Ffm implements CudnnApi {
    @Override
    public Descriptor create(int type) {
      CudnnLibrary l = require();
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment out = arena.allocate(ADDRESS);
        check(
            "cudnnBackendCreateDescriptor",
            (int) l.backendCreateDescriptor.invokeExact(type, out),
            type,
            null);
        return new Descriptor(out.get(ADDRESS, 0).address(), type);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public void destroy(Descriptor d) {
      CudnnLibrary l = lib();
      // Without the library no descriptor can exist; at exit cuDNN may already be torn down.
      if (d == null || !l.available() || Lifecycle.exiting()) {
        return;
      }
      try {
        check(
            "cudnnBackendDestroyDescriptor",
            (int) l.backendDestroyDescriptor.invokeExact(MemorySegment.ofAddress(d.address())),
            d.type(),
            null);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public void set(Descriptor d, int attribute, int attributeType, long... values) {
      CudnnLibrary l = require();
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment elements = encode(arena, attributeType, values);
        int rc =
            (int)
                l.backendSetAttribute.invokeExact(
                    MemorySegment.ofAddress(d.address()),
                    attribute,
                    attributeType,
                    (long) values.length,
                    elements);
        check("cudnnBackendSetAttribute", rc, d.type(), attribute);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public long get(Descriptor d, int attribute, int attributeType, long[] inOut) {
      CudnnLibrary l = require();
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment count = arena.allocate(JAVA_LONG);
        MemorySegment elements =
            inOut.length == 0 ? MemorySegment.NULL : encode(arena, attributeType, inOut);
        int rc =
            (int)
                l.backendGetAttribute.invokeExact(
                    MemorySegment.ofAddress(d.address()),
                    attribute,
                    attributeType,
                    (long) inOut.length,
                    count,
                    elements);
        check("cudnnBackendGetAttribute", rc, d.type(), attribute);
        long n = count.get(JAVA_LONG, 0);
        if (inOut.length > 0) {
          decode(elements, attributeType, inOut, (int) Math.min(n, inOut.length));
        }
        return n;
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public String getString(Descriptor d, int attribute) {
      CudnnLibrary l = require();
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment count = arena.allocate(JAVA_LONG);
        MemorySegment h = MemorySegment.ofAddress(d.address());
        int rc =
            (int)
                l.backendGetAttribute.invokeExact(
                    h, attribute, CudnnConstants.TYPE_CHAR, 0L, count, MemorySegment.NULL);
        check("cudnnBackendGetAttribute", rc, d.type(), attribute);
        long n = count.get(JAVA_LONG, 0);
        if (n <= 0) {
          return "";
        }
        MemorySegment chars = arena.allocate(n + 1);
        rc =
            (int)
                l.backendGetAttribute.invokeExact(
                    h, attribute, CudnnConstants.TYPE_CHAR, n, count, chars);
        check("cudnnBackendGetAttribute", rc, d.type(), attribute);
        chars.set(JAVA_BYTE, Math.min(n, count.get(JAVA_LONG, 0)), (byte) 0);
        return chars.getString(0);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public void finalizeDescriptor(Descriptor d) {
      CudnnLibrary l = require();
      try {
        check(
            "cudnnBackendFinalize",
            (int) l.backendFinalize.invokeExact(MemorySegment.ofAddress(d.address())),
            d.type(),
            null);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    @Override
    public void execute(long handle, Descriptor plan, Descriptor variantPack) {
      CudnnLibrary l = require();
      try {
        check(
            "cudnnBackendExecute",
            (int)
                l.backendExecute.invokeExact(
                    MemorySegment.ofAddress(handle),
                    MemorySegment.ofAddress(plan.address()),
                    MemorySegment.ofAddress(variantPack.address())),
            plan.type(),
            null);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }
  }

  /** Lays {@code values} out as cuDNN's {@code arrayOfElements} for the attribute type. */
  static MemorySegment encode(Arena arena, int attributeType, long[] values) {
    int w = CudnnConstants.elementBytes(attributeType);
    MemorySegment s = arena.allocate((long) Math.max(1, values.length) * w, 8);
    for (int i = 0; i < values.length; i++) {
      switch (w) {
        case 1 -> s.set(JAVA_BYTE, i, (byte) values[i]);
        case 4 -> s.set(JAVA_INT, 4L * i, (int) values[i]);
        default -> s.set(JAVA_LONG, 8L * i, values[i]);
      }
    }
    return s;
  }

  static void decode(MemorySegment s, int attributeType, long[] out, int n) {
    int w = CudnnConstants.elementBytes(attributeType);
    for (int i = 0; i < n; i++) {
      out[i] =
          switch (w) {
            case 1 -> s.get(JAVA_BYTE, i);
            case 4 -> s.get(JAVA_INT, 4L * i);
            default -> s.get(JAVA_LONG, 8L * i);
          };
    }
  }
}
