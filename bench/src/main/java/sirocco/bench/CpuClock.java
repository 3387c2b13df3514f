package sirocco.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/** Process and per-thread CPU time, for benchmarks that report what waiting costs the host. */
public final class CpuClock {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CpuClock() {}

  /** CPU nanoseconds the whole process has used, or -1 when the platform does not say. */
  public static long processNanos() {
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
