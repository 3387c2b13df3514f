package sirocco.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sirocco.bench.BenchRecord;
import sirocco.bench.BenchRecords;

/**
 * {@code tornado bench}: the benchmarks. Every subcommand prints a table and, with {@code --json
 * FILE}, writes a {@link BenchRecord} (the common format {@code bench compare} reads). New
 * benchmarks add a subcommand here that mixes in {@link Output} and calls {@link Output#write}.
 */
@Command(
    name = "bench",
    description =
        "Benchmarks; each writes a common JSON record with --json, read by bench compare.",
    subcommands = {
      BenchWorkerCommand.class,
      BenchSyncCommand.class,
      BenchMemoryCommand.class,
      BenchQmmCommand.class,
      BenchSdpaCommand.class,
      BenchCompareCommand.class
    })
final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The {@code --json FILE} option every benchmark takes. */
  static final class Output {
    @Option(
        names = "--json",
        paramLabel = "FILE",
        description = "Also write the benchmark record as JSON (- for stdout).")
    String json;

    void write(BenchRecord r, PrintWriter out) {
      if (json != null) {
        BenchRecords.write(r, json, out);
        if (!json.equals("-")) {
          out.println("record written to " + json);
        }
      }
    }
  }
}
