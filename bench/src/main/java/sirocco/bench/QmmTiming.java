package sirocco.bench;

import sirocco.bench.QmmBench.Options;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.Event;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaStream;

/**
 * Device-side timing of {@link QmmBench}'s cases: back-to-back launches between events ({@link
 * #time}), CUDA-graph replay ({@link #graphed}), and the copy bandwidth printed once per run.
 */
final class QmmTiming {
  private QmmTiming() {}

  record Timed(Stats stats, int launchesPerSample) {}

  /**
   * Device time each case is warmed for before its samples, per launch allowed in a sample ({@code
   * --launches}): 100 ms at the default 50. Run 77 and earlier: with one pass over the copies as
   * the only warm-up, the first case of a run was slow and scattered (1 row: p50 16.95 µs, p10
   * 13.94, p90 29.26, where later cases of the same kernel took 12.4–14).
   */
  static final double WARMUP_US_PER_LAUNCH = 2000;

  /**
   * One pass over the copies (compiles), one timed pass, a warm-up of about {@link
   * #WARMUP_US_PER_LAUNCH} × L µs of launches, then {@code repeats} samples of L launches each, all
   * queued before one wait; L from the timed pass so that a case stays near a quarter second.
   */
  static Timed time(Device device, Stream stream, KernelLaunch[] launches, Options o) {
    int copies = launches.length;
    for (KernelLaunch l : launches) {
      device.launch(l, stream); // compiles on first use
    }
    stream.synchronize();
    Event a = stream.record();
    for (KernelLaunch l : launches) {
      device.launch(l, stream);
    }
    Event b = stream.record();
    b.synchronize();
    double estUs = Math.max(1e-3, b.elapsedMillisSince(a) * 1e3 / copies);
    int perSample =
        (int) Math.max(1, Math.min(o.launches(), Math.floor(250_000 / (o.repeats() * estUs))));
    long warm = (long) Math.ceil(WARMUP_US_PER_LAUNCH * o.launches() / estUs);
    int next = 0;
    for (long i = 0; i < warm; i++) {
      device.launch(launches[next], stream);
      next = (next + 1) % copies;
    }
    Event[] marks = new Event[o.repeats() + 1];
    marks[0] = stream.record();
    for (int s = 0; s < o.repeats(); s++) {
      for (int i = 0; i < perSample; i++) {
        device.launch(launches[next], stream);
        next = (next + 1) % copies;
      }
      marks[s + 1] = stream.record();
    }
    marks[o.repeats()].synchronize();
    double[] us = new double[o.repeats()];
    for (int s = 0; s < o.repeats(); s++) {
      us[s] = marks[s + 1].elapsedMillisSince(marks[s]) * 1e3 / perSample;
    }
    return new Timed(Stats.of(us), perSample);
  }

  /** Launches captured per graph: the sample size, at least 20 (as the attention bench). */
  static int graphLaunches(int launchesPerSample) {
    return Math.max(20, launchesPerSample);
  }

  /**
   * Device time per launch by CUDA-graph replay, the way PyTorch's references are timed: {@link
   * #graphLaunches} launches rotating through the copies are captured once, replayed for a warm-up
   * of about {@link #WARMUP_US_PER_LAUNCH} × L µs (L = {@code --launches}), then {@code repeats}
   * replays are timed between events (µs per launch, one sample per replay). Without the host's
   * launch calls between kernels, this shows what the gaps between back-to-back launches cost in
   * {@link #time}.
   */
  static Stats graphed(
      Device device, CudaStream stream, KernelLaunch[] launches, Options o, Timed t) {
    int calls = graphLaunches(t.launchesPerSample());
    double estUs = Math.max(1e-3, t.stats().median());
    int warm =
        (int)
            Math.max(
                3,
                Math.min(10_000, Math.ceil(WARMUP_US_PER_LAUNCH * o.launches() / (estUs * calls))));
    return GpuTiming.graphed(
        stream,
        calls,
        warm,
        o.repeats(),
        5.0,
        i -> device.launch(launches[i % launches.length], stream));
  }

  /** Read + written bytes per second of one device-to-device copy of {@code bytes}. */
  static double copyBandwidth(Device device, Stream stream, long bytes) {
    long n = bytes / 4;
    DeviceBuffer src = device.allocate(ElementType.I32, n, stream);
    DeviceBuffer dst = device.allocate(ElementType.I32, n, stream);
    try {
      device.zero(src, stream);
      device.copy(src, 0, dst, 0, n, stream); // warm-up
      double[] ms = new double[5];
      for (int i = 0; i < ms.length; i++) {
        Event a = stream.record();
        device.copy(src, 0, dst, 0, n, stream);
        Event b = stream.record();
        b.synchronize();
        ms[i] = b.elapsedMillisSince(a);
      }
      double med = Stats.of(ms).median();
      return 2.0 * n * 4 / (med * 1e-3) / 1e9;
    } finally {
      src.close();
      dst.close();
    }
  }
}
