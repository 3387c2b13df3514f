package sirocco.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.WaitKernels;

/**
 * {@code tornado bench worker}: a loop of small ops, each handing a temporary to the completion
 * worker, with and without a sleep between steps. Reports the table of the MLX completion-thread
 * report: the busiest thread and its CPU seconds, the process's CPU seconds, the step time median
 * and the number of steps, plus the completion worker's own CPU. A completion worker that spins
 * shows up as a busiest thread with CPU seconds close to the wall time, even with sleeps.
 *
 * <p>One step: allocate a 4 KiB temporary, upload into it, copy it to a result buffer, optionally
 * launch an empty kernel, {@code releaseAfter} the temporary, and read one element back (which
 * waits for the stream).
 */
public final class WorkerBench {
  /**
   * @param seconds how long each sleep setting runs
   * @param sleepMillis sleeps between steps to measure (e.g. 5 and 0)
   * @param kernel whether each step also launches a kernel (needs the JIT on CUDA)
   */
  public record Options(double seconds, List<Integer> sleepMillis, boolean kernel) {
    public static Options defaults() {
      return new Options(20, List.of(5, 0), true);
    }

    public Options {
      if (!(seconds > 0) || sleepMillis == null || sleepMillis.isEmpty()) {
        throw new IllegalArgumentException("seconds must be > 0 and at least one sleep given");
      }
      for (int s : sleepMillis) {
        if (s < 0) {
          throw new IllegalArgumentException("sleeps must be >= 0 ms, got " + s);
        }
      }
      sleepMillis = List.copyOf(sleepMillis);
    }
  }

  private WorkerBench() {}

  public static BenchRecord run(Device d, Options o, PrintWriter out) throws InterruptedException {
    Stream s = d.newStream();
    float[] host = new float[1024];
    float[] one = new float[1];
    DeviceBuffer result = d.allocate(ElementType.F32, 1024, s);
    DeviceBuffer flag = d.allocate(ElementType.I32, 1, s);
    KernelLaunch empty =
        KernelLaunch.of(WaitKernels.busyWaitKernel(), Dim3.of(1), Dim3.of(1), flag, 0L);
    Runnable step =
        () -> {
          DeviceBuffer temp = d.allocate(ElementType.F32, 1024, s);
          d.upload(host, 0, temp, 0, 1024, s);
          d.copy(temp, 0, result, 0, 1024, s);
          if (o.kernel()) {
            d.launch(empty, s);
          }
          d.releaseAfter(s, temp);
          d.download(result, 0, one, 0, 1, s);
        };
    for (int i = 0; i < 200; i++) {
      step.run(); // warm-up, and starts the completion worker
    }
    List<BenchCase> cases = new ArrayList<>();
    out.printf(
        Locale.ROOT,
        "bench worker on %s: %.0f s per setting, small ops%s%n%n",
        d.info().name(),
        o.seconds(),
        o.kernel() ? " with a kernel" : " (copies only)");
    String fmt = "%-6s %8s %12s %-28s %12s %12s %12s %8s%n";
    out.printf(
        Locale.ROOT,
        fmt,
        "sleep",
        "steps",
        "step p50 us",
        "busiest thread",
        "busiest cpu s",
        "worker cpu s",
        "process cpu s",
        "wall s");
    String workerName = d.completionWorker().thread().getName();
    for (int sleep : o.sleepMillis()) {
      List<Long> steps = new ArrayList<>();
      CpuClock.Snapshot before = CpuClock.Snapshot.take();
      long cpu0 = CpuClock.processNanos();
      long wall0 = System.nanoTime();
      long end = wall0 + (long) (o.seconds() * 1e9);
      while (System.nanoTime() - end < 0) {
        long t0 = System.nanoTime();
        step.run();
        steps.add(System.nanoTime() - t0);
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
      }
      long wall = System.nanoTime() - wall0;
      long cpu = CpuClock.processNanos() - cpu0;
      CpuClock.Snapshot after = CpuClock.Snapshot.take();
      CpuClock.Busiest busiest = after.busiestSince(before);
      long workerCpu = after.sinceByPrefix(before, workerName);
      long[] ns = steps.stream().mapToLong(Long::longValue).toArray();
      Stats st = Stats.ofNanosAsMicros(ns);
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("sleep_ms", sleep);
      p.put("kernel", o.kernel());
      cases.add(BenchCase.of("worker/step", p, "us", st));
      double wallS = wall / 1e9;
      cases.add(
          BenchCase.of("worker/busiest-thread-cpu", p, "s", Stats.single(busiest.cpuNanos() / 1e9))
              .withReference(wallS, "wall seconds: a spinning thread comes close to this"));
      cases.add(
          BenchCase.of("worker/completion-worker-cpu", p, "s", Stats.single(workerCpu / 1e9))
              .withReference(wallS, "wall seconds: a spinning worker comes close to this"));
      cases.add(BenchCase.of("worker/process-cpu", p, "s", Stats.single(cpu / 1e9)));
      cases.add(
          BenchCase.of("worker/steps", p, "steps", Stats.single(ns.length)).asHigherIsBetter());
      out.printf(
          Locale.ROOT,
          fmt,
          sleep + " ms",
          ns.length,
          String.format(Locale.ROOT, "%.1f", st.median()),
          busiest.name(),
          String.format(Locale.ROOT, "%.3f", busiest.cpuNanos() / 1e9),
          String.format(Locale.ROOT, "%.3f", workerCpu / 1e9),
          String.format(Locale.ROOT, "%.3f", cpu / 1e9),
          String.format(Locale.ROOT, "%.1f", wallS));
    }
    d.completionWorker().awaitDrained(60_000);
    result.close();
    flag.close();
    out.flush();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("seconds", o.seconds());
    params.put("sleep_ms", o.sleepMillis());
    params.put("kernel", o.kernel());
    return BenchRecord.of("tornado bench worker", d.info(), params, cases);
  }
}
