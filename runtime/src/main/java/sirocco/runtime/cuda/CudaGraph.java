package sirocco.runtime.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An executable CUDA graph captured from the work one stream queued: replaying it launches the same
 * kernels with one driver call, without the per-launch host cost and with the short inter-kernel
 * gaps of graph launches. Used to time kernels the way PyTorch's references are timed (CUDA-graph
 * replay); the pointers captured are fixed, so every buffer the work touches must outlive the graph
 * and the work must not allocate or synchronize while capturing.
 *
 * <p>Capture uses the driver's relaxed mode: other threads may keep calling the driver (the
 * runtime's completion worker polls events) while this stream captures.
 */
public final class CudaGraph implements AutoCloseable {
  /** {@code CU_STREAM_CAPTURE_MODE_RELAXED}. */
  static final int CAPTURE_MODE_RELAXED = 2;

  private final CudaDevice device;
  private MemorySegment graph;
  private MemorySegment exec;

  private CudaGraph(CudaDevice device, MemorySegment graph, MemorySegment exec) {
    this.device = device;
    this.graph = graph;
    this.exec = exec;
  }

  /**
   * Captures what {@code body} queues on {@code stream} and instantiates it. The work is recorded,
   * not run. If {@code body} throws, capture is ended and the partial graph destroyed before the
   * exception propagates.
   *
   * @throws CudaException from the driver (e.g. an operation capture does not allow)
   */
  public static CudaGraph capture(CudaStream stream, Runnable body) {
    if (stream == null || body == null) {
      throw new IllegalArgumentException("stream and body must not be null");
    }
    CudaDevice device = (CudaDevice) stream.device();
    device.makeCurrent();
    call(
        "cuStreamBeginCapture",
        () ->
            (int)
                CudaDriver.require(CudaDriver.cuStreamBeginCapture, "cuStreamBeginCapture_v2")
                    .invokeExact(stream.handle, CAPTURE_MODE_RELAXED));
    MemorySegment g;
    try {
      stream.capturing = true;
      try {
        body.run();
      } finally {
        stream.capturing = false;
      }
    } catch (RuntimeException | Error e) {
      // Unwinding: end the capture so the stream is usable again; the body's exception is the
      // one the caller needs.
      try {
        MemorySegment partial = endCapture(stream);
        if (!partial.equals(MemorySegment.NULL)) {
          destroyGraph(partial);
        }
      } catch (CudaException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    g = endCapture(stream);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      call(
          "cuGraphInstantiateWithFlags",
          () ->
              (int)
                  CudaDriver.require(
                          CudaDriver.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")
                      .invokeExact(out, g, 0L));
      return new CudaGraph(device, g, out.get(ADDRESS, 0));
    } catch (RuntimeException | Error e) {
      destroyGraph(g);
      throw e;
    }
  }

  /** Queues one replay of the graph on {@code stream}. */
  public void launch(CudaStream stream) {
    if (stream == null) {
      throw new IllegalArgumentException("stream must not be null");
    }
    if (exec == null) {
      throw new IllegalStateException("graph already closed");
    }
    device.makeCurrent();
    MemorySegment e = exec;
    call(
        "cuGraphLaunch",
        () ->
            (int)
                CudaDriver.require(CudaDriver.cuGraphLaunch, "cuGraphLaunch")
                    .invokeExact(e, stream.handle));
  }

  /** Destroys the executable graph and the graph (replays already queued still complete). */
  @Override
  public void close() {
    if (exec == null) {
      return;
    }
    device.makeCurrent();
    MemorySegment e = exec;
    MemorySegment g = graph;
    exec = null;
    graph = null;
    call(
        "cuGraphExecDestroy",
        () ->
            (int)
                CudaDriver.require(CudaDriver.cuGraphExecDestroy, "cuGraphExecDestroy")
                    .invokeExact(e));
    destroyGraph(g);
  }

  private static MemorySegment endCapture(CudaStream stream) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      call(
          "cuStreamEndCapture",
          () ->
              (int)
                  CudaDriver.require(CudaDriver.cuStreamEndCapture, "cuStreamEndCapture")
                      .invokeExact(stream.handle, out));
      return out.get(ADDRESS, 0);
    }
  }

  private static void destroyGraph(MemorySegment g) {
    call(
        "cuGraphDestroy",
        () -> (int) CudaDriver.require(CudaDriver.cuGraphDestroy, "cuGraphDestroy").invokeExact(g));
  }

  @FunctionalInterface
  private interface DriverCall {
    int invoke() throws Throwable;
  }

  private static void call(String name, DriverCall c) {
    int rc;
    try {
      rc = c.invoke();
    } catch (Throwable t) {
      throw Cu.rethrow(t);
    }
    Cu.check(name, rc);
  }
}
