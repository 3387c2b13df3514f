package sirocco.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/** Process and per-thread CPU time, for benchmarks that report what waiting costs the host. */
public final class CpuClock {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int CLOCK_PROCESS_CPUTIME_ID = 2;
  private static final MethodHandle CLOCK_GETTIME = clockGettime();

  private CpuClock() {}

  private static MethodHandle clockGettime() {
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("clock_gettime")
          .map(
              s ->
                  linker.downcallHandle(
                      s,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
          .orElse(null);
    } catch (RuntimeException | Error e) {
      return null;
    }
  }

  /**
   * CPU nanoseconds the whole process has used, or -1 when the platform does not say. Reads {@code
   * CLOCK_PROCESS_CPUTIME_ID} (nanosecond resolution) where it can; the management bean's figure
   * moves in scheduler ticks (10 ms here), too coarse for per-wait costs.
   */
  public static long processNanos() {
    if (CLOCK_GETTIME != null) {
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment ts = arena.allocate(16, 8);
        int rc = (int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts);
        if (rc == 0) {
          return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L
              + ts.get(ValueLayout.JAVA_LONG, 8);
        }
      } catch (Throwable t) {
        // Fall back to the management bean.
      }
    }
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** CPU time of every live thread, by id, with names. */
  public record Snapshot(Map<Long, Long> cpuNanos, Map<Long, String> names) {
    public static Snapshot take() {
      if (THREADS.isThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
        THREADS.setThreadCpuTimeEnabled(true);
      }
      Map<Long, Long> cpu = new HashMap<>();
      Map<Long, String> names = new HashMap<>();
      long[] ids = THREADS.getAllThreadIds();
      ThreadInfo[] infos = THREADS.getThreadInfo(ids);
      for (int i = 0; i < ids.length; i++) {
        long t = THREADS.getThreadCpuTime(ids[i]);
        if (t >= 0 && infos[i] != null) {
          cpu.put(ids[i], t);
          names.put(ids[i], infos[i].getThreadName());
        }
      }
      return new Snapshot(cpu, names);
    }

    /** The thread that used the most CPU between {@code before} and this snapshot. */
    public Busiest busiestSince(Snapshot before) {
      long bestId = -1;
      long best = -1;
      for (var e : cpuNanos.entrySet()) {
        long delta = e.getValue() - before.cpuNanos.getOrDefault(e.getKey(), 0L);
        if (delta > best) {
          best = delta;
          bestId = e.getKey();
        }
      }
      return new Busiest(bestId < 0 ? "-" : names.get(bestId), Math.max(0, best));
    }

    /** CPU used since {@code before} by threads whose name starts with {@code prefix}. */
    public long sinceByPrefix(Snapshot before, String prefix) {
      long sum = 0;
      for (var e : cpuNanos.entrySet()) {
        if (names.get(e.getKey()).startsWith(prefix)) {
          sum += e.getValue() - before.cpuNanos.getOrDefault(e.getKey(), 0L);
        }
      }
      return sum;
    }
  }

  /** A thread and the CPU nanoseconds it used. */
  public record Busiest(String name, long cpuNanos) {}
}
