package sirocco.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sirocco.bench.WorkerBench;

/** {@code tornado bench worker}: the completion worker's CPU cost under a loop of small ops. */
@Command(
    name = "worker",
    description =
        "A loop of small ops that hand temporaries to the completion worker, with and without sleeps:"
            + " busiest thread CPU s, process CPU s, step time median, steps.")
final class BenchWorkerCommand implements Callable<Integer> {
  @Option(names = "--seconds", description = "Seconds per sleep setting (default: 20).")
  double seconds = 20;

  @Option(
      names = "--sleep-ms",
      split = ",",
      paramLabel = "MS",
      description = "Sleeps between steps to measure (default: 5,0).")
  List<Integer> sleepMillis = List.of(5, 0);

  @Option(
      names = "--no-kernel",
      negatable = true,
      description = "Leave out the empty kernel of each step (copies only; works without the JIT).")
  boolean noKernel;

  @Mixin BenchCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    var r =
        WorkerBench.run(
            Backends.device(), new WorkerBench.Options(seconds, sleepMillis, !noKernel), out);
    output.write(r, out);
    return 0;
  }
}
