package sirocco.dispatch.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import sirocco.kernels.attention.SdpaFusedCombine;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.Stream;

/**
 * The int32 counters of {@link SdpaFusedCombine#decode}, one buffer per stream (of any device).
 *
 * <p>Invariant: every counter is 0 whenever no fused launch is running on the stream. A buffer is
 * zeroed once, in stream order, when it is created; every launch leaves the counters it used at 0
 * (the last block of each row group resets its counter). Launches on one stream run one after
 * another, so they can share the buffer without a memset per call, and a CUDA graph that captured a
 * launch can replay it. Launches on different streams get different buffers. A buffer is never
 * freed while its stream is reachable, even when a larger one replaces it (a captured graph may
 * still point at it); it goes with the stream. Not covered: replaying one captured graph on two
 * streams at once (the replays would share counters), and a launch that faults mid-way (its
 * counters are left undefined; the stream is unusable anyway).
 */
final class FusedCounters {
  private FusedCounters() {}

  /** Smallest buffer (ints): enough for 4096 row groups, 16 KiB. */
  static final long MIN_COUNTERS = 4096;

  private static final class Holder {
    DeviceBuffer current;
    final List<DeviceBuffer> retired = new ArrayList<>(); // kept alive for captured graphs
  }

  private static final Map<Stream, Holder> BY_STREAM = new WeakHashMap<>();

  /**
   * A zeroed (between launches) buffer of at least {@code needed} counters for launches on {@code
   * stream}: the stream's buffer, or a new one (at least twice the old size) zeroed on the stream.
   */
  static DeviceBuffer forStream(Device device, Stream stream, long needed) {
    synchronized (BY_STREAM) {
      Holder h = BY_STREAM.computeIfAbsent(stream, s -> new Holder());
      if (h.current == null || h.current.length() < needed) {
        long size = Math.max(MIN_COUNTERS, needed);
        if (h.current != null) {
          size = Math.max(size, 2 * h.current.length());
          h.retired.add(h.current);
        }
        DeviceBuffer b = device.allocate(ElementType.I32, size, stream);
        device.zero(b, stream);
        h.current = b;
      }
      return h.current;
    }
  }
}
