package sirocco.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sirocco.bench.MemoryBench;

/** {@code tornado bench memory}: pool allocation and clearCache costs. */
@Command(
    name = "memory",
    description =
        "Pool allocate+free per size, clearCache() with nothing cached and after a free, and the"
            + " first allocation after a trim.")
final class BenchMemoryCommand implements Callable<Integer> {
  @Option(names = "--iterations", description = "Alloc+free pairs for small sizes (default: 2000).")
  int iterations = 2000;

  @Option(
      names = "--sizes",
      split = ",",
      paramLabel = "BYTES",
      description = "Allocation sizes in bytes (default: 4096,1048576,67108864).")
  List<Long> sizes = List.of(4096L, 1L << 20, 64L << 20);

  @Option(names = "--clear-iterations", description = "Timed clearCache calls (default: 50).")
  int clearIterations = 50;

  @Option(
      names = "--cached-bytes",
      description = "Freed memory left cached before clearCache (default: 64 MiB).")
  long cachedBytes = 64L << 20;

  @Mixin BenchCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var r =
        MemoryBench.run(
            Backends.device(),
            new MemoryBench.Options(iterations, sizes, clearIterations, cachedBytes),
            out);
    output.write(r, out);
    return 0;
  }
}
