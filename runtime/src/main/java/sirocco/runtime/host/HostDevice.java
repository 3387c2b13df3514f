package sirocco.runtime.host;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
import sirocco.runtime.sync.CompletionWorker;
import sirocco.runtime.sync.WaitOptions;

/**
 * The Java backend as a device: buffers are Java arrays, streams are ordered task queues, and
 * kernels run through {@link HostGridRunner} with GPU semantics. It is the default where no GPU
 * exists and the reference the GPU is tested against.
 */
public final class HostDevice extends Device {
  private static final AtomicInteger STREAMS = new AtomicInteger();

  private final DeviceInfo info;
  private final HostStream defaultStream;
  private final List<HostStream> streams = new ArrayList<>();
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final long capacityBytes;

  /**
   * A Java backend whose "device memory" is the heap, limited to {@code
   * -Dsirocco.java.memoryLimitBytes} when set.
   */
  public HostDevice() {
    this(Long.getLong("sirocco.java.memoryLimitBytes", Runtime.getRuntime().maxMemory()));
  }

  /**
   * A Java backend that treats allocations beyond {@code capacityBytes} in live buffers as out of
   * device memory, as a GPU of that size would.
   */
  public HostDevice(long capacityBytes) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("capacityBytes must be > 0, got " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    int cores = Runtime.getRuntime().availableProcessors();
    this.info =
        new DeviceInfo(
            "java",
            "Java backend (" + cores + " cores)",
            0,
            0,
            cores,
            Runtime.getRuntime().maxMemory(),
            0,
            0,
            0);
    this.defaultStream = new HostStream(this, "default");
    streams.add(defaultStream);
  }

  @Override
  public Kind kind() {
    return Kind.JAVA;
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public Stream defaultStream() {
    return defaultStream;
  }

  @Override
  public Stream newStream() {
    HostStream s = new HostStream(this, "stream-" + STREAMS.incrementAndGet());
    synchronized (streams) {
      streams.add(s);
    }
    return s;
  }

  private HostStream host(Stream s) {
    if (!(s instanceof HostStream h) || h.device() != this) {
      throw new IllegalArgumentException("stream must belong to this Java-backend device");
    }
    return h;
  }

  @Override
  public DeviceBuffer allocate(ElementType type, long length, Stream stream) {
    host(stream);
    if (length < 0 || length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "length must be in [0, "
              + (Integer.MAX_VALUE - 8)
              + "] on the Java backend, got "
              + length);
    }
    long bytes = length * type.bytes();
    HostBuffer b = allocateOnce(type, (int) length, bytes);
    if (b == null) {
      // As on CUDA: drop what is cached (here: wait for queued work, whose tasks may hold the last
      // references to closed buffers' arrays) and retry once before failing. A failure of that
      // work stays for the next synchronize().
      outOfMemoryRetries.incrementAndGet();
      List<HostStream> all;
      synchronized (streams) {
        all = List.copyOf(streams);
      }
      all.forEach(HostStream::awaitIdle);
      b = allocateOnce(type, (int) length, bytes);
      if (b == null) {
        throw new DeviceOutOfMemoryException(info.name(), bytes, memoryStats(), null);
      }
    }
    return b;
  }

  private HostBuffer allocateOnce(ElementType type, int length, long bytes) {
    long now = used.addAndGet(bytes);
    if (now > capacityBytes) {
      used.addAndGet(-bytes);
      return null;
    }
    Object array;
    try {
      array = type.newArray(length);
    } catch (OutOfMemoryError e) {
      used.addAndGet(-bytes);
      return null;
    }
    peak.accumulateAndGet(now, Math::max);
    return new HostBuffer(this, type, array);
  }

  @Override
  public MappedBuffer allocateMapped(ElementType type, long length) {
    if (type != ElementType.I32 && type != ElementType.F32) {
      throw new IllegalArgumentException("mapped buffers hold I32 or F32 elements, got " + type);
    }
    if (length < 1 || length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "length must be in [1, " + (Integer.MAX_VALUE - 8) + "], got " + length);
    }
    return new HostMappedBuffer(this, type, type.newArray((int) length));
  }

  @Override
  protected CompletionWorker.Marker marker(Stream stream) {
    return host(stream).marker();
  }

  void released(long bytes) {
    used.addAndGet(-bytes);
  }

  @Override
  public void upload(
      Object srcArray, int srcOffset, DeviceBuffer dst, long dstOffset, int length, Stream stream) {
    checkUpload(this, srcArray, srcOffset, dst, dstOffset, length);
    // Snapshot now: the caller may reuse its array as soon as this returns, as with CUDA's pageable
    // copies.
    Object copy = dst.type().newArray(length);
    System.arraycopy(srcArray, srcOffset, copy, 0, length);
    Object target = ((HostBuffer) dst).array();
    host(stream).submit(() -> System.arraycopy(copy, 0, target, (int) dstOffset, length));
  }

  @Override
  public void download(
      DeviceBuffer src, long srcOffset, Object dstArray, int dstOffset, int length, Stream stream) {
    checkDownload(this, src, srcOffset, dstArray, dstOffset, length);
    Object source = ((HostBuffer) src).array();
    HostStream s = host(stream);
    s.submit(() -> System.arraycopy(source, (int) srcOffset, dstArray, dstOffset, length));
    s.synchronize();
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
    Object a = ((HostBuffer) src).array();
    Object b = ((HostBuffer) dst).array();
    host(stream)
        .submit(() -> System.arraycopy(a, (int) srcOffset, b, (int) dstOffset, (int) length));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the map is written when this returns (a new array no queued work can touch), so it is
   * ready for every stream at once.
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
    host(stream);
    long[] encoded =
        TileMap.forHost(
            ((HostBuffer) matrix).array(),
            offset,
            cols,
            rows,
            rowStride,
            boxCols,
            boxRows,
            swizzleBytes);
    DeviceBuffer map = allocate(ElementType.I64, TileMap.LONGS, stream);
    System.arraycopy(encoded, 0, ((HostBuffer) map).array(), 0, TileMap.LONGS);
    return map;
  }

  @Override
  public void zero(DeviceBuffer dst, Stream stream) {
    checkBuffer(this, dst, "dst");
    Object a = ((HostBuffer) dst).array();
    host(stream)
        .submit(
            () -> {
              switch (a) {
                case float[] f -> java.util.Arrays.fill(f, 0f);
                case int[] i -> java.util.Arrays.fill(i, 0);
                case short[] h -> java.util.Arrays.fill(h, (short) 0);
                case byte[] b -> java.util.Arrays.fill(b, (byte) 0);
                case long[] l -> java.util.Arrays.fill(l, 0L);
                case double[] d -> java.util.Arrays.fill(d, 0.0);
                case char[] c -> java.util.Arrays.fill(c, (char) 0);
                case boolean[] z -> java.util.Arrays.fill(z, false);
                default ->
                    throw new IllegalStateException("unexpected buffer array " + a.getClass());
              }
            });
  }

  @Override
  public void launch(KernelLaunch launch, Stream stream) {
    HostGridRunner.prepare(launch.kernel());
    Object[] args = launch.args().clone();
    for (int i = 0; i < args.length; i++) {
      if (args[i] instanceof DeviceBuffer b) {
        checkBuffer(this, b, "argument " + (i + 1));
        args[i] = ((HostBuffer) b).array();
      }
    }
    host(stream)
        .submit(() -> HostGridRunner.run(launch.kernel(), launch.grid(), launch.block(), args));
  }

  @Override
  public void synchronize(WaitOptions options) {
    List<HostStream> all;
    synchronized (streams) {
      all = List.copyOf(streams);
    }
    RuntimeException first = null;
    for (HostStream s : all) {
      try {
        s.synchronize(options);
      } catch (sirocco.runtime.sync.WaitCancelledException cancelled) {
        throw cancelled;
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public MemoryStats memoryStats() {
    long u = used.get();
    return new MemoryStats(u, u, peak.get());
  }

  @Override
  public void clearCache() {
    // No cache of its own: arrays are returned to the garbage collector when buffers are dropped.
    dropOwnedCaches();
    synchronize();
  }
}
