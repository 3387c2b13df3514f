package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import sirocco.api.TileMap;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.DeviceInfo;
import sirocco.runtime.DeviceOutOfMemoryException;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.MemoryStats;
import sirocco.runtime.Stream;
import sirocco.runtime.lifecycle.Lifecycle;
import sirocco.runtime.sync.CompletionWorker;
import sirocco.runtime.sync.CooperativeWait;
import sirocco.runtime.sync.WaitOptions;

/**
 * One CUDA GPU through its primary context. The context is set to blocking sync before first use,
 * so host waits sleep instead of spinning a core (TornadoVM's spinning waits are what this avoids).
 * Memory comes from the device's default pool with a release threshold high enough that freed
 * memory stays cached for reuse; {@link #clearCache()} trims it.
 */
public final class CudaDevice extends Device {
  static final Cleaner CLEANER =
      Cleaner.create(Thread.ofPlatform().daemon().name("sirocco-cuda-cleaner").factory());

  private final int ordinal;
  private final int handle;
  private final MemorySegment context;
  private final MemorySegment pool;
  private final DeviceInfo info;
  private final int sharedOptInLimit;
  private final CudaStream defaultStream;
  private final List<CudaStream> streams = new ArrayList<>();
  private final ConcurrentLinkedDeque<CudaEvent> markers = new ConcurrentLinkedDeque<>();
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final CudaKernels kernels;
  private final CudaStaging staging = new CudaStaging(this);
  private final CudaMappedBlocks mappedBlocks = new CudaMappedBlocks(this);

  CudaDevice(int ordinal) {
    Lifecycle.install();
    Cu.init();
    this.ordinal = ordinal;
    this.handle = Cu.device(ordinal);
    // Must precede the first activation of the primary context; if someone else activated it, keep
    // theirs.
    Cu.primaryContextSetFlags(handle, Cu.CTX_SCHED_BLOCKING_SYNC);
    this.context = Cu.primaryContextRetain(handle);
    makeCurrent();
    this.pool = Cu.defaultMemPool(handle);
    // Keep freed memory in the pool (release threshold = max): allocation then costs no driver
    // round trip.
    Cu.memPoolSetAttribute(pool, Cu.POOL_ATTR_RELEASE_THRESHOLD, -1L);
    this.info =
        new DeviceInfo(
            "cuda",
            Cu.deviceName(handle),
            Cu.deviceAttribute(handle, Cu.ATTR_COMPUTE_CAPABILITY_MAJOR),
            Cu.deviceAttribute(handle, Cu.ATTR_COMPUTE_CAPABILITY_MINOR),
            Cu.deviceAttribute(handle, Cu.ATTR_MULTIPROCESSOR_COUNT),
            Cu.deviceTotalMemory(handle),
            Cu.deviceAttribute(handle, Cu.ATTR_L2_CACHE_SIZE),
            Cu.deviceAttribute(handle, Cu.ATTR_CLOCK_RATE),
            Cu.driverVersion());
    this.sharedOptInLimit = Cu.deviceAttribute(handle, Cu.ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    // Process-lifetime stream: deliberately never destroyed.
    this.defaultStream = new CudaStream(this, Cu.streamCreate(Cu.STREAM_NON_BLOCKING));
    streams.add(defaultStream);
    this.kernels = new CudaKernels(this);
  }

  /**
   * Opens device {@code ordinal}; {@link sirocco.runtime.Devices#cuda(int)} keeps one per process.
   */
  public static CudaDevice open(int ordinal) {
    return new CudaDevice(ordinal);
  }

  public int ordinal() {
    return ordinal;
  }

  /**
   * The most shared memory (static plus dynamic) one block may use once a kernel opts in ({@code
   * CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}: 232448 bytes on an H100/H200).
   */
  public int maxSharedBytesPerBlockOptIn() {
    return sharedOptInLimit;
  }

  /**
   * Makes this device's context current on the calling OS thread (cheap; needed after a thread
   * switch). Public for libraries called through FFM that use the current context (cuDNN).
   */
  public void makeCurrent() {
    Cu.contextSetCurrent(context);
  }

  @Override
  public Kind kind() {
    return Kind.CUDA;
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public CudaStream defaultStream() {
    return defaultStream;
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@code cuStreamCreate} may wait for kernels already running on other streams: on the H200
   * (driver 580, GPU run 16) a creation inside the whole GPU suite, after earlier tests had created
   * many streams, sat in the driver until another stream's 20 s spinning kernel ended
   * (pmodels/yaksa#228 reports the same with a waiting kernel). From a virtual thread the call is
   * therefore handed to a wait worker while the virtual thread parks, as a synchronize is, so a
   * carrier is never held by it; a platform thread calls the driver itself. Create streams before
   * launching long-running kernels where that matters.
   */
  @Override
  public CudaStream newStream() {
    MemorySegment[] handle = new MemorySegment[1];
    CooperativeWait.await(
        null,
        () -> {
          makeCurrent();
          handle[0] = Cu.streamCreate(Cu.STREAM_NON_BLOCKING);
        },
        WaitOptions.DEFAULT);
    CudaStream s = new CudaStream(this, handle[0]);
    synchronized (streams) {
      streams.add(s);
    }
    return s;
  }

  /** Every stream of this device (the default one and those from {@link #newStream()}). */
  List<CudaStream> streams() {
    synchronized (streams) {
      return List.copyOf(streams);
    }
  }

  CudaStream cuda(Stream s) {
    if (!(s instanceof CudaStream c) || c.device != this) {
      throw new IllegalArgumentException("stream must belong to this CUDA device");
    }
    return c;
  }

  CudaEvent markerEvent() {
    CudaEvent e = markers.pollFirst();
    if (e == null) {
      makeCurrent();
      e =
          new CudaEvent(
              this, Cu.eventCreate(Cu.EVENT_BLOCKING_SYNC | Cu.EVENT_DISABLE_TIMING), false);
    }
    return e;
  }

  void returnMarker(CudaEvent e) {
    markers.addFirst(e);
  }

  /** Returns a marker to the pool once it has completed (after a cancelled wait on it). */
  void recycleWhenComplete(CudaEvent e) {
    completionWorker().retain(new EventMarker(e));
  }

  /** A pooled marker event as a completion-worker marker; recycled into the pool afterwards. */
  private final class EventMarker implements CompletionWorker.Marker {
    private final CudaEvent event;

    EventMarker(CudaEvent event) {
      this.event = event;
    }

    @Override
    public boolean isComplete() {
      makeCurrent();
      return Cu.eventQuery(event.handle);
    }

    @Override
    public void await() {
      makeCurrent();
      Cu.eventSynchronize(event.handle);
    }

    @Override
    public void recycle() {
      returnMarker(event);
    }
  }

  @Override
  protected CompletionWorker.Marker marker(Stream stream) {
    CudaStream s = cuda(stream);
    makeCurrent();
    CudaEvent e = markerEvent();
    Cu.eventRecord(e.handle, s.handle);
    return new EventMarker(e);
  }

  @Override
  public DeviceBuffer allocate(ElementType type, long length, Stream stream) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, got " + length);
    }
    CudaStream s = cuda(stream);
    long bytes = Math.max(1, length * type.bytes());
    makeCurrent();
    long ptr;
    try {
      ptr = Cu.memAllocAsync(bytes, s.handle);
    } catch (CudaOutOfMemoryException oom) {
      // Cached pool memory may be what is missing: trim once and retry before failing.
      outOfMemoryRetries.incrementAndGet();
      clearCache();
      makeCurrent();
      try {
        ptr = Cu.memAllocAsync(bytes, s.handle);
      } catch (CudaOutOfMemoryException again) {
        again.addSuppressed(oom);
        throw new DeviceOutOfMemoryException(info.name(), bytes, memoryStats(), again);
      }
    }
    peak.accumulateAndGet(used.addAndGet(bytes), Math::max);
    return new CudaBuffer(this, type, length, ptr, s.handle);
  }

  @Override
  public MappedBuffer allocateMapped(ElementType type, long length) {
    if (type != ElementType.I32 && type != ElementType.F32) {
      throw new IllegalArgumentException("mapped buffers hold I32 or F32 elements, got " + type);
    }
    if (length < 1) {
      throw new IllegalArgumentException("length must be >= 1, got " + length);
    }
    return new CudaMappedBuffer(this, type, length);
  }

  CudaMappedBlocks mappedBlocks() {
    return mappedBlocks;
  }

  /**
   * Pinned host bytes Sirocco holds to stage copies between Java arrays and the device (kept for
   * reuse; {@link #clearCache()} frees them).
   */
  public long stagingBytes() {
    return staging.pinnedBytes();
  }

  /** Released mapped blocks kept for reuse ({@link #clearCache()} frees them). */
  public int idleMappedBlocks() {
    return mappedBlocks.idleBlocks();
  }

  void free(long pointer, long bytes, MemorySegment stream) {
    makeCurrent();
    Cu.memFreeAsync(pointer, stream);
    used.addAndGet(-Math.max(1, bytes));
  }

  private static byte[] toBytes(boolean[] a) {
    byte[] b = new byte[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = (byte) (a[i] ? 1 : 0);
    }
    return b;
  }

  private static MemorySegment heap(Object array, long offset, long length, ElementType type) {
    MemorySegment whole =
        switch (type) {
          case F32 -> MemorySegment.ofArray((float[]) array);
          case I32 -> MemorySegment.ofArray((int[]) array);
          case I16 -> MemorySegment.ofArray((short[]) array);
          case I8 -> MemorySegment.ofArray((byte[]) array);
          case I64 -> MemorySegment.ofArray((long[]) array);
          case F64 -> MemorySegment.ofArray((double[]) array);
          case U16 -> MemorySegment.ofArray((char[]) array);
          case BOOL -> MemorySegment.ofArray(toBytes((boolean[]) array)); // copied: no boolean view
        };
    return whole.asSlice(offset * type.bytes(), length * type.bytes());
  }

  @Override
  public void upload(
      Object srcArray, int srcOffset, DeviceBuffer dst, long dstOffset, int length, Stream stream) {
    checkUpload(this, srcArray, srcOffset, dst, dstOffset, length);
    if (length == 0) {
      return;
    }
    CudaStream s = cuda(stream);
    long dptr = ((CudaMemory) dst).pointer() + dstOffset * dst.type().bytes();
    staging.upload(
        heap(srcArray, srcOffset, length, dst.type()), dptr, (long) length * dst.type().bytes(), s);
  }

  @Override
  public void download(
      DeviceBuffer src, long srcOffset, Object dstArray, int dstOffset, int length, Stream stream) {
    checkDownload(this, src, srcOffset, dstArray, dstOffset, length);
    CudaStream s = cuda(stream);
    if (length == 0) {
      // Still the promise of a download: the stream's earlier work has completed.
      s.synchronize();
      return;
    }
    long sptr = ((CudaMemory) src).pointer() + srcOffset * src.type().bytes();
    if (src.type() == ElementType.BOOL) {
      // Java has no byte view of a boolean[]: land the bytes, then convert.
      byte[] bytes = new byte[length];
      staging.download(sptr, MemorySegment.ofArray(bytes), length, s, WaitOptions.DEFAULT);
      boolean[] out = (boolean[]) dstArray;
      for (int i = 0; i < length; i++) {
        out[dstOffset + i] = bytes[i] != 0;
      }
      return;
    }
    staging.download(
        sptr,
        heap(dstArray, dstOffset, length, src.type()),
        (long) length * src.type().bytes(),
        s,
        WaitOptions.DEFAULT);
  }

  @Override
  public void copy(
      DeviceBuffer src,
      long srcOffset,
      DeviceBuffer dst,
      long dstOffset,
      long length,
      Stream stream) {
    checkCopy(this, src, srcOffset, dst, dstOffset, length);
    if (length == 0) {
      return;
    }
    int b = src.type().bytes();
    makeCurrent();
    Cu.memcpyDtoDAsync(
        ((CudaMemory) dst).pointer() + dstOffset * b,
        ((CudaMemory) src).pointer() + srcOffset * b,
        length * b,
        cuda(stream).handle);
  }

  @Override
  public void zero(DeviceBuffer dst, Stream stream) {
    checkBuffer(this, dst, "dst");
    if (dst.bytes() == 0) {
      return;
    }
    makeCurrent();
    Cu.memsetD8Async(((CudaMemory) dst).pointer(), (byte) 0, dst.bytes(), cuda(stream).handle);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the driver encodes the map on the host ({@code cuTensorMapEncodeTiled}: no capability
   * check beyond the driver's), before anything is allocated, and the 128 bytes are uploaded into
   * the new buffer on {@code stream}. The L2 promotion is 128 bytes. Pool allocations are aligned
   * far beyond the 64 bytes a map in global memory needs.
   */
  @Override
  public DeviceBuffer tileMap(
      DeviceBuffer matrix,
      long offset,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes,
      Stream stream) {
    checkTileMap(this, matrix, offset, cols, rows, rowStride, boxCols, boxRows, swizzleBytes);
    CudaStream s = cuda(stream);
    int elementBytes = matrix.type().bytes();
    long address = ((CudaMemory) matrix).pointer() + offset * elementBytes;
    makeCurrent();
    long[] encoded =
        CuTensorMaps.encode2d(
            matrix.type(),
            address,
            cols,
            rows,
            rowStride * elementBytes,
            boxCols,
            boxRows,
            swizzleBytes);
    DeviceBuffer map = allocate(ElementType.I64, TileMap.LONGS, s);
    try {
      upload(encoded, 0, map, 0, TileMap.LONGS, s);
    } catch (RuntimeException | Error e) {
      map.close();
      throw e;
    }
    return map;
  }

  /**
   * Sets every 32-bit word of a buffer range to {@code bits} (poisoning outputs in tests, zeroing).
   */
  public void fill32(DeviceBuffer dst, long offset, long words, int bits, Stream stream) {
    checkBuffer(this, dst, "dst");
    makeCurrent();
    Cu.memsetD32Async(((CudaMemory) dst).pointer() + offset * 4, bits, words, cuda(stream).handle);
  }

  @Override
  public void launch(KernelLaunch launch, Stream stream) {
    kernels.launch(launch, cuda(stream));
  }

  /**
   * Loads a PTX module and looks up one entry point. The module stays loaded for the life of the
   * process unless the caller unloads it through the kernel cache.
   */
  public CudaFunction loadPtx(String ptx, String entry) {
    makeCurrent();
    Cu.LoadedModule m = Cu.moduleLoadPtx(ptx, true);
    return CudaFunction.lookup(m.module(), entry, m.infoLog());
  }

  /** The kernel cache and launcher of this device. */
  public CudaKernels kernels() {
    return kernels;
  }

  /**
   * Launches a loaded function with raw arguments: {@link DeviceBuffer}s, {@link Long} device
   * pointers and boxed scalars in PTX parameter order. Used by the JIT launch path and by tests of
   * hand-written PTX.
   */
  public void launchFunction(
      CudaFunction function,
      sirocco.runtime.Dim3 grid,
      sirocco.runtime.Dim3 block,
      int sharedBytes,
      Stream stream,
      Object... args) {
    launchRaw(function, grid, block, sharedBytes, stream, false, args);
  }

  /**
   * Whether launches may start early here: compute capability 9.0+ (programmatic dependent launch)
   * and a driver with {@code cuLaunchKernelEx}.
   */
  public boolean supportsEarlyStart() {
    return info.computeMajor() >= 9 && CuLaunchEx.available();
  }

  /**
   * {@link #launchFunction(CudaFunction, sirocco.runtime.Dim3, sirocco.runtime.Dim3, int, Stream,
   * Object...)}, starting before the previous kernel in the stream has finished when {@code
   * earlyStart}, which the caller sets only where {@link #supportsEarlyStart()} (the function must
   * wait with {@code griddepcontrol.wait}; see {@code KernelLaunch}). Not an overload of it: a
   * kernel's first argument may be a boolean.
   */
  void launchRaw(
      CudaFunction function,
      sirocco.runtime.Dim3 grid,
      sirocco.runtime.Dim3 block,
      int sharedBytes,
      Stream stream,
      boolean earlyStart,
      Object[] args) {
    CudaStream s = cuda(stream);
    if (args.length > CudaStream.MAX_ARGS) {
      throw new IllegalArgumentException(
          "at most " + CudaStream.MAX_ARGS + " kernel arguments, got " + args.length);
    }
    makeCurrent();
    synchronized (s) {
      MemorySegment values = s.argValues;
      for (int i = 0; i < args.length; i++) {
        long slot = 8L * i;
        Object a = args[i];
        switch (a) {
          case CudaMemory buf -> {
            checkBuffer(this, buf, "argument " + i);
            values.set(ValueLayout.JAVA_LONG, slot, buf.pointer());
          }
          case Long l -> values.set(ValueLayout.JAVA_LONG, slot, l);
          case Integer n -> values.set(ValueLayout.JAVA_INT, slot, n);
          case Float f -> values.set(ValueLayout.JAVA_FLOAT, slot, f);
          case Double d -> values.set(ValueLayout.JAVA_DOUBLE, slot, d);
          case Boolean z -> values.set(ValueLayout.JAVA_INT, slot, z ? 1 : 0);
          case Short h -> values.set(ValueLayout.JAVA_INT, slot, h);
          case Byte y -> values.set(ValueLayout.JAVA_INT, slot, y);
          case Character c -> values.set(ValueLayout.JAVA_INT, slot, c);
          case null, default ->
              throw new IllegalArgumentException(
                  "argument "
                      + i
                      + " must be a device buffer, pointer or boxed scalar, got "
                      + (a == null ? "null" : a.getClass().getSimpleName()));
        }
      }
      Cu.launchKernel(
          function.handle(),
          grid.x(),
          grid.y(),
          grid.z(),
          block.x(),
          block.y(),
          block.z(),
          sharedBytes,
          s.handle,
          s.argPointers,
          earlyStart ? s.launchConfig : null);
    }
  }

  @Override
  public void synchronize(WaitOptions options) {
    List<CudaStream> all;
    synchronized (streams) {
      all = List.copyOf(streams);
    }
    for (CudaStream s : all) {
      s.synchronize(options);
    }
  }

  /**
   * Waits for all work in this device's context ({@code cuCtxSynchronize}), including work on
   * streams Sirocco did not create. The wait cannot be polled: from a virtual thread it goes
   * straight to a wait worker (an overflow worker when all are busy).
   */
  public void contextSynchronize(WaitOptions options) {
    CooperativeWait.await(
        null,
        () -> {
          makeCurrent();
          Cu.contextSynchronize();
        },
        options);
  }

  @Override
  public MemoryStats memoryStats() {
    makeCurrent();
    return new MemoryStats(
        Cu.memPoolGetAttribute(pool, Cu.POOL_ATTR_USED_MEM_CURRENT),
        Cu.memPoolGetAttribute(pool, Cu.POOL_ATTR_RESERVED_MEM_CURRENT),
        Cu.memPoolGetAttribute(pool, Cu.POOL_ATTR_USED_MEM_HIGH));
  }

  /**
   * Bytes Sirocco's buffers hold by its own count (the pool's counters include other pool users).
   */
  public long trackedBytes() {
    return used.get();
  }

  @Override
  public void clearCache() {
    kernels.trimIdle();
    dropOwnedCaches();
    // Frees are stream-ordered, and the pool releases a freed block only once the host has observed
    // its completion through a stream or context synchronize (an event wait is not enough: measured
    // on the H200, trimming after an event wait released nothing). Report stream errors first, then
    // observe all.
    synchronize();
    contextSynchronize(WaitOptions.DEFAULT);
    makeCurrent();
    Cu.memPoolTrimTo(pool, 0);
    // Pinned host blocks: cuMemFreeHost synchronizes the device, which has just been done.
    staging.trim();
    mappedBlocks.trim();
  }
}
