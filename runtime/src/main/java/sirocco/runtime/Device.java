package sirocco.runtime;

import sirocco.api.TileMap;
import sirocco.runtime.sync.CompletionWorker;
import sirocco.runtime.sync.WaitOptions;

/**
 * A place kernels run: a CUDA GPU, or the Java backend (a pool of CPU threads with GPU semantics).
 * Both give the same operations with the same ordering rules, so every op is written once.
 */
public abstract class Device {
  /** Which implementation this is. */
  public enum Kind {
    JAVA,
    CUDA
  }

  public abstract Kind kind();

  public abstract DeviceInfo info();

  /** The stream Sirocco's ops use unless told otherwise; lives as long as the process. */
  public abstract Stream defaultStream();

  /** A new independent stream. */
  public abstract Stream newStream();

  /** A buffer of {@code length} elements, stream-ordered on {@code stream}; contents undefined. */
  public abstract DeviceBuffer allocate(ElementType type, long length, Stream stream);

  public DeviceBuffer allocate(ElementType type, long length) {
    return allocate(type, length, defaultStream());
  }

  /**
   * Copies {@code length} elements of a Java array (starting at {@code srcOffset}) into {@code dst}
   * at {@code dstOffset}, ordered on {@code stream}. The source is read before this returns: the
   * caller may change it.
   */
  public abstract void upload(
      Object srcArray, int srcOffset, DeviceBuffer dst, long dstOffset, int length, Stream stream);

  /**
   * Copies {@code length} elements of {@code src} into a Java array once the work queued on {@code
   * stream} before it has finished; returns when the elements have arrived.
   */
  public abstract void download(
      DeviceBuffer src, long srcOffset, Object dstArray, int dstOffset, int length, Stream stream);

  /** Device-to-device copy of {@code length} elements, ordered on {@code stream}. */
  public abstract void copy(
      DeviceBuffer src,
      long srcOffset,
      DeviceBuffer dst,
      long dstOffset,
      long length,
      Stream stream);

  /** Sets every byte of {@code dst} to zero, ordered on {@code stream}. */
  public abstract void zero(DeviceBuffer dst, Stream stream);

  /**
   * A tile map of a row-major matrix in {@code matrix}: the {@link TileMap#LONGS} longs a kernel
   * passes to {@code Vec.copyTileAsync} to copy {@code boxRows} x {@code boxCols} boxes of the
   * matrix into shared memory. The arguments are in elements of {@code matrix}'s type and follow
   * {@link TileMap#validate}: {@code offset} is the index of the matrix's first element in the
   * buffer, {@code rows} rows of {@code cols} elements lie {@code rowStride} elements apart, and
   * {@code swizzleBytes} (0, 32, 64 or 128) is the pattern the box lands in. The matrix holds
   * {@link ElementType#I8}, {@link ElementType#I16} (bf16 and f16 bits alike: the copy moves bits),
   * {@link ElementType#I32} or {@link ElementType#F32} elements.
   *
   * <p>On CUDA the map is the driver's {@code CUtensorMap} ({@code cuTensorMapEncodeTiled}); copies
   * through it need compute capability 9.0 or newer, though older devices may still encode one. On
   * the Java backend it is the encoding of {@link TileMap#forHost}.
   *
   * <p>The map names the matrix by address, not by reference: {@code matrix} must stay open until
   * every launch that uses the map has finished. The returned buffer ({@link ElementType#I64},
   * {@link TileMap#LONGS} long) belongs to the caller, who closes it as any other buffer.
   *
   * <p>This overload builds the map on the default stream and waits for it, so a kernel on any
   * stream may use it once this returns; the wait includes the work already queued on the default
   * stream. {@link #tileMap(DeviceBuffer, long, long, long, long, int, int, int, Stream)} does not
   * wait.
   *
   * @throws IllegalArgumentException naming the argument, before anything is allocated, when {@code
   *     matrix} is null, closed, of another device or of another element type, or the description
   *     breaks a rule of {@link TileMap#validate}
   */
  public DeviceBuffer tileMap(
      DeviceBuffer matrix,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    Stream s = defaultStream();
    DeviceBuffer map =
        tileMap(matrix, offset, cols, rows, rowStride, boxCols, boxRows, swizzleBytes, s);
    try {
      // An event rather than a stream synchronize: a failure of earlier work stays for the caller's
      // next synchronize instead of surfacing here.
      s.record().synchronize();
    } catch (RuntimeException | Error e) {
      map.close();
      throw e;
    }
    return map;
  }

  /**
   * {@link #tileMap(DeviceBuffer, long, long, long, long, int, int, int)}, ordered on {@code
   * stream} as an {@link #upload} is: a kernel launched later on {@code stream} may use the map;
   * one on another stream must be ordered after it ({@link Stream#record()} and {@link
   * Stream#waitFor}) or wait for {@code stream}. The returned buffer is stream-ordered on {@code
   * stream}, as one from {@link #allocate(ElementType, long, Stream)}.
   */
  public abstract DeviceBuffer tileMap(
      DeviceBuffer matrix,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes,
      Stream stream);

  /** Queues a kernel launch on {@code stream}. */
  public abstract void launch(KernelLaunch launch, Stream stream);

  public void launch(KernelLaunch launch) {
    launch(launch, defaultStream());
  }

  /**
   * A buffer of {@code length} 32-bit elements in host memory the device reads and writes directly
   * (see {@link MappedBuffer}); zero-filled.
   */
  public abstract MappedBuffer allocateMapped(ElementType type, long length);

  /**
   * Waits for every stream of this device and rethrows the first failure. Each stream's wait is
   * cooperative from a virtual thread (see {@link Stream#synchronize()}).
   */
  public void synchronize() {
    synchronize(WaitOptions.DEFAULT);
  }

  /** {@link #synchronize()} with options. */
  public abstract void synchronize(WaitOptions options);

  /**
   * Releases {@code resources} once the work queued on {@code stream} so far has finished, without
   * waiting for it: {@link DeviceBuffer}s and {@link java.lang.foreign.Arena}s are closed, anything
   * else is kept reachable until then. Use it for temporaries the queued work reads, or for a
   * buffer another stream used. The device's completion worker does the release; it sleeps while
   * there is nothing to release.
   */
  public void releaseAfter(Stream stream, Object... resources) {
    if (resources == null) {
      throw new IllegalArgumentException("resources must not be null");
    }
    completionWorker().retain(marker(stream), resources);
  }

  /** A marker recorded on {@code stream} now, for the completion worker. */
  protected abstract CompletionWorker.Marker marker(Stream stream);

  private volatile CompletionWorker completionWorker;

  /** Allocations that failed, were retried after {@link #clearCache()}, and succeeded or not. */
  protected final java.util.concurrent.atomic.AtomicLong outOfMemoryRetries =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * How many allocations ran out of memory and were retried once after clearing the cache (whether
   * the retry succeeded or not).
   */
  public long outOfMemoryRetries() {
    return outOfMemoryRetries.get();
  }

  /** This device's completion worker (created on first use). */
  public CompletionWorker completionWorker() {
    CompletionWorker w = completionWorker;
    if (w == null) {
      synchronized (this) {
        w = completionWorker;
        if (w == null) {
          completionWorker =
              w =
                  new CompletionWorker(
                      "sirocco-completion-" + kind().name().toLowerCase(java.util.Locale.ROOT));
        }
      }
    }
    return w;
  }

  public abstract MemoryStats memoryStats();

  private final java.util.List<Runnable> cacheOwners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Registers a cache of this device's memory kept outside Sirocco's runtime (a library's
   * per-stream workspace, say): {@link #clearCache()} runs {@code dropCached} first, so what it
   * frees can be trimmed in the same call, and an allocation that ran out of memory retries after
   * it.
   */
  public void addCacheOwner(Runnable dropCached) {
    if (dropCached == null) {
      throw new IllegalArgumentException("dropCached must not be null");
    }
    cacheOwners.add(dropCached);
  }

  /** Runs every registered cache owner's drop; one that throws does not stop the others. */
  protected final void dropOwnedCaches() {
    RuntimeException first = null;
    for (Runnable r : cacheOwners) {
      try {
        r.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * Returns cached device memory: drops Sirocco's own caches, waits for the streams that freed
   * memory, and trims the driver's pool so reserved memory falls to what live buffers use. On CUDA
   * it also frees the pinned host blocks kept for staging copies and for released mapped buffers
   * (freeing pinned memory synchronizes the device, which is why it happens only here).
   */
  public abstract void clearCache();

  protected static void checkBuffer(Device device, DeviceBuffer buffer, String name) {
    if (buffer == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (buffer.device() != device) {
      throw new IllegalArgumentException(name + " belongs to another device");
    }
    if (buffer.isClosed()) {
      throw new IllegalArgumentException(name + " is closed");
    }
  }

  /** The checks every {@link #upload} makes before touching anything. */
  protected static void checkUpload(
      Device device, Object srcArray, int srcOffset, DeviceBuffer dst, long dstOffset, int length) {
    checkBuffer(device, dst, "dst");
    int srcLength = arrayLength(srcArray, "srcArray");
    if (srcArray.getClass() != dst.type().arrayType()) {
      throw new IllegalArgumentException(
          "srcArray is " + srcArray.getClass().getSimpleName() + " but dst holds " + dst.type());
    }
    checkRange("srcArray", srcOffset, length, srcLength);
    checkRange("dst", dstOffset, length, dst.length());
  }

  /** The checks every {@link #tileMap} makes before touching anything. */
  protected static void checkTileMap(
      Device device,
      DeviceBuffer matrix,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {
    checkBuffer(device, matrix, "matrix");
    ElementType t = matrix.type();
    if (t != ElementType.I8
        && t != ElementType.I16
        && t != ElementType.I32
        && t != ElementType.F32) {
      throw new IllegalArgumentException(
          "matrix holds " + t + " elements; a tile map describes I8, I16, I32 or F32 elements");
    }
    TileMap.validate(
        t.bytes(), matrix.length(), offset, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
  }

  /** The checks every {@link #download} makes before touching anything. */
  protected static void checkDownload(
      Device device, DeviceBuffer src, long srcOffset, Object dstArray, int dstOffset, int length) {
    checkBuffer(device, src, "src");
    int dstLength = arrayLength(dstArray, "dstArray");
    if (dstArray.getClass() != src.type().arrayType()) {
      throw new IllegalArgumentException(
          "dstArray is " + dstArray.getClass().getSimpleName() + " but src holds " + src.type());
    }
    checkRange("src", srcOffset, length, src.length());
    checkRange("dstArray", dstOffset, length, dstLength);
  }

  /** The checks every {@link #copy} makes before touching anything. */
  protected static void checkCopy(
      Device device,
      DeviceBuffer src,
      long srcOffset,
      DeviceBuffer dst,
      long dstOffset,
      long length) {
    checkBuffer(device, src, "src");
    checkBuffer(device, dst, "dst");
    if (src.type() != dst.type()) {
      throw new IllegalArgumentException(
          "src holds " + src.type() + " but dst holds " + dst.type());
    }
    checkRange("src", srcOffset, length, src.length());
    checkRange("dst", dstOffset, length, dst.length());
  }

  protected static void checkRange(String name, long offset, long length, long capacity) {
    if (offset < 0 || length < 0 || offset > capacity - length) {
      throw new IllegalArgumentException(
          name
              + " range ["
              + offset
              + ", "
              + offset
              + " + "
              + length
              + ") is outside [0, "
              + capacity
              + ")");
    }
  }

  protected static int arrayLength(Object array, String name) {
    if (array == null
        || !array.getClass().isArray()
        || !array.getClass().getComponentType().isPrimitive()) {
      throw new IllegalArgumentException(name + " must be a primitive array");
    }
    return java.lang.reflect.Array.getLength(array);
  }
}
