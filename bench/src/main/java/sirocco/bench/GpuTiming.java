package sirocco.bench;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.Event;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaGraph;
import sirocco.runtime.cuda.CudaStream;

/**
 * Device-side timing for the kernel benchmarks, following the method in the tool library's
 * METHOD.md: events around each call after a warm-up, median of many, inputs filled on the device
 * with random data, and the two ceilings measured on the same device (copy bandwidth, and a
 * read-only kernel over the same bytes).
 */
public final class GpuTiming {
  private GpuTiming() {}

  /** Work to time: queues one call on the stream. */
  @FunctionalInterface
  public interface Call {
    void run(int iteration);
  }

  /** Per-call device time, and whether the host ever fell behind the device while queueing. */
  public record Gated(Stats perCall, boolean hostBound) {}

  /**
   * Device time per call with the host kept out of the measurement: before each sample a one-thread
   * busy-wait kernel holds the stream while the host queues {@code callsPerSample} calls between
   * two events, so the device then runs them back to back and the events see device time only. The
   * gate lasts 1.5x the host's measured queueing time for a batch (plus 0.2 ms); a batch whose
   * queueing outlasted its gate is reported as host-bound (the device may have idled inside it).
   * Stops early once {@code maxSeconds} of wall time have been spent and at least 5 samples exist.
   */
  public static Gated gated(
      Device device,
      Stream stream,
      int warmup,
      int samples,
      int callsPerSample,
      double maxSeconds,
      Call call) {
    int n = 0;
    for (int i = 0; i < Math.max(1, warmup); i++) {
      call.run(n++);
    }
    stream.synchronize();
    try (DeviceBuffer sink = device.allocate(ElementType.I32, 1, stream)) {
      Method wait = waitKernel();
      // Host queueing time of one batch, measured behind a long gate so that it is queueing time
      // only.
      device.launch(KernelLaunch.of(wait, Dim3.of(1), Dim3.of(1), sink, 50_000_000L), stream);
      long q0 = System.nanoTime();
      for (int k = 0; k < callsPerSample; k++) {
        call.run(n++);
      }
      long batchNanos = System.nanoTime() - q0;
      stream.synchronize();
      long gate = Math.min(50_000_000L, (long) (batchNanos * 1.5) + 200_000L);
      List<Event[]> pairs = new ArrayList<>();
      boolean hostBound = false;
      long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
      for (int i = 0; i < samples; i++) {
        device.launch(KernelLaunch.of(wait, Dim3.of(1), Dim3.of(1), sink, gate), stream);
        long h0 = System.nanoTime();
        Event a = stream.record();
        for (int k = 0; k < callsPerSample; k++) {
          call.run(n++);
        }
        Event b = stream.record();
        if (System.nanoTime() - h0 > gate) {
          hostBound = true;
        }
        pairs.add(new Event[] {a, b});
        if (i >= 4 && System.nanoTime() > deadline) {
          break;
        }
      }
      stream.synchronize();
      return new Gated(microsPerCall(pairs, callsPerSample), hostBound);
    }
  }

  /**
   * Device time per call as PyTorch's references are timed: the {@code calls} calls (rotating
   * through the inputs the call picks by index) are captured once into a CUDA graph, which is then
   * replayed between two events after {@code warmup} replays; µs per call, one sample per replay.
   * The calls must queue work only (no allocation, no synchronization) on {@code stream}.
   */
  public static Stats graphed(
      CudaStream stream, int calls, int warmup, int replays, double maxSeconds, Call call) {
    try (CudaGraph g =
        CudaGraph.capture(
            stream,
            () -> {
              for (int i = 0; i < calls; i++) {
                call.run(i);
              }
            })) {
      for (int i = 0; i < Math.max(1, warmup); i++) {
        g.launch(stream);
      }
      stream.synchronize();
      List<Event[]> pairs = new ArrayList<>();
      long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
      for (int i = 0; i < replays; i++) {
        Event a = stream.record();
        g.launch(stream);
        Event b = stream.record();
        pairs.add(new Event[] {a, b});
        if (i >= 4 && System.nanoTime() > deadline) {
          break;
        }
      }
      stream.synchronize();
      return microsPerCall(pairs, calls);
    }
  }

  private static Method waitKernel() {
    for (Method m : sirocco.runtime.sync.WaitKernels.class.getMethods()) {
      if (m.getName().equals("busyWait")) {
        return m;
      }
    }
    throw new IllegalStateException("WaitKernels.busyWait");
  }

  /**
   * Device time of each call with events right before and after it, in µs. Only for calls long
   * enough that the host's queueing does not matter (large copies); use {@link #gated} for kernels.
   */
  public static Stats perCall(
      Device device, Stream stream, int warmup, int samples, double maxSeconds, Call call) {
    for (int i = 0; i < warmup; i++) {
      call.run(i);
    }
    stream.synchronize();
    List<Event[]> pairs = new ArrayList<>();
    long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
    for (int i = 0; i < samples; i++) {
      Event a = stream.record();
      call.run(warmup + i);
      Event b = stream.record();
      pairs.add(new Event[] {a, b});
      if (i >= 4 && System.nanoTime() > deadline) {
        break;
      }
    }
    stream.synchronize();
    return microsPerCall(pairs, 1);
  }

  /** µs per call of each (start, end) event pair around {@code calls} calls; all complete. */
  private static Stats microsPerCall(List<Event[]> pairs, int calls) {
    double[] us = new double[pairs.size()];
    for (int i = 0; i < us.length; i++) {
      us[i] = pairs.get(i)[1].elapsedMillisSince(pairs.get(i)[0]) * 1000.0 / calls;
    }
    return Stats.of(us);
  }

  private static Method kernel(String name) {
    for (Method m : BenchKernels.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalStateException("BenchKernels." + name);
  }

  private static Dim3 gridFor(Device device, long elements) {
    int sms = Math.max(1, device.info().multiprocessors());
    return Dim3.of((int) Math.max(1, Math.min((elements + 255) / 256, 8L * sms)));
  }

  /** Fills a 16-bit buffer with random bf16 values in [-scale, scale). */
  public static void fillBf16(Device d, Stream s, DeviceBuffer buf, int seed, float scale) {
    int n = Math.toIntExact(buf.length());
    d.launch(
        KernelLaunch.of(kernel("fillBf16"), gridFor(d, n), Dim3.of(256), buf, seed, scale, n), s);
  }

  /** Fills a 32-bit buffer with random words. */
  public static void fillWords(Device d, Stream s, DeviceBuffer buf, int seed) {
    int n = Math.toIntExact(buf.length());
    d.launch(KernelLaunch.of(kernel("fillWords"), gridFor(d, n), Dim3.of(256), buf, seed, n), s);
  }

  /**
   * Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written, for a copy of
   * {@code bytes} (median of a few).
   */
  public static double copyBandwidthGBs(Device d, long bytes) {
    Stream s = d.defaultStream();
    long words = bytes / 4;
    try (DeviceBuffer a = d.allocate(ElementType.I32, words, s);
        DeviceBuffer b = d.allocate(ElementType.I32, words, s)) {
      fillWords(d, s, a, 7);
      Stats t = perCall(d, s, 2, 10, 5, i -> d.copy(a, 0, b, 0, words, s));
      return 2.0 * words * 4 / (t.median() * 1e-6) / 1e9;
    }
  }

  /**
   * Time of a read-only kernel over {@code bytes} of data spread over {@code copies} buffers (one
   * per call, rotated, so the L2 cache does not serve them), in µs per call.
   */
  public static Stats readFloor(Device d, long bytes, int copies, int samples) {
    return readFloors(d, bytes, copies, samples).gated();
  }

  /**
   * The read-only kernel's time per call two ways: back-to-back launches behind a gate ({@link
   * #gated}), and by CUDA-graph replay of 20 calls ({@link #graphed}; null where the device is not
   * CUDA), which leaves out the gaps the host's launch calls put between kernels.
   */
  public record Floors(Stats gated, Stats graph) {}

  /** {@link #readFloor}, also timed by graph replay (see {@link Floors}). */
  public static Floors readFloors(Device d, long bytes, int copies, int samples) {
    if (d == null) {
      throw new IllegalArgumentException("d must be a device, got null");
    }
    if (bytes < 16 || bytes / 16 * 4 > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "bytes must be 16 to 2^33 (16-byte loads, 32-bit word indexes), got " + bytes);
    }
    if (copies < 1 || samples < 1) {
      throw new IllegalArgumentException(
          "copies and samples must be positive, got " + copies + " and " + samples);
    }
    Stream s = d.defaultStream();
    long words = (bytes / 16) * 4;
    List<DeviceBuffer> bufs = new ArrayList<>();
    try (DeviceBuffer sink = d.allocate(ElementType.I32, 1, s)) {
      for (int c = 0; c < copies; c++) {
        DeviceBuffer b = d.allocate(ElementType.I32, words, s);
        fillWords(d, s, b, 100 + c);
        bufs.add(b);
      }
      int w = Math.toIntExact(words);
      int sms = Math.max(1, d.info().multiprocessors());
      int blocks = (int) Math.max(1, Math.min((words / 16 + 255) / 256, 8L * sms));
      Method floor = kernel("readFloor");
      Call call =
          i ->
              d.launch(
                  KernelLaunch.of(
                      floor, Dim3.of(blocks), Dim3.of(256), bufs.get(i % copies), sink, w),
                  s);
      Stats gated = gated(d, s, 3, samples, 10, 5, call).perCall();
      Stats graph = s instanceof CudaStream cs ? graphed(cs, 20, 20, samples, 5, call) : null;
      return new Floors(gated, graph);
    } finally {
      bufs.forEach(DeviceBuffer::close);
    }
  }

  /**
   * How many copies of a {@code bytes} working set rotate past the L2 cache: enough for 256 MiB, at
   * most 32.
   */
  public static int copiesFor(long bytes) {
    return (int) Math.max(1, Math.min(32, ((256L << 20) + bytes - 1) / Math.max(1, bytes)));
  }
}
