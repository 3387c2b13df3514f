package sirocco.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sirocco.bench.SyncBench;

/** {@code tornado bench sync}: launch + synchronize of a busy-wait kernel, every way of waiting. */
@Command(
    name = "sync",
    description =
        "Launch + synchronize of a busy-wait kernel (0 us, 100 us, 1 ms, 5 ms): blocking, cooperative"
            + " (spin and no-spin), 1/4/16/64 concurrent virtual threads; median, p90, CPU per wait.")
final class BenchSyncCommand implements Callable<Integer> {
  @Option(
      names = "--kernel-us",
      split = ",",
      paramLabel = "US",
      description = "Busy-wait durations in microseconds (default: 0,100,1000,5000).")
  List<Integer> kernelMicros = List.of(0, 100, 1000, 5000);

  @Option(
      names = "--iterations",
      description = "Timed round trips per single-thread mode (default: 200).")
  int iterations = 200;

  @Option(names = "--warmup", description = "Untimed round trips first (default: 20).")
  int warmup = 20;

  @Option(
      names = "--concurrency",
      split = ",",
      description = "Concurrent virtual-thread counts (default: 1,4,16,64).")
  List<Integer> concurrency = List.of(1, 4, 16, 64);

  @Option(
      names = "--concurrent-iterations",
      description = "Timed round trips per virtual thread in the concurrent modes (default: 20).")
  int concurrentIterations = 20;

  @Mixin BenchCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    var r =
        SyncBench.run(
            Backends.device(),
            new SyncBench.Options(
                kernelMicros, iterations, warmup, concurrency, concurrentIterations),
            out);
    output.write(r, out);
    return 0;
  }
}
