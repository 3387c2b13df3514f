package sirocco.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sirocco.bench.BenchCompare;
import sirocco.bench.BenchRecords;

/** {@code tornado bench compare OLD.json NEW.json}: the per-case ratio table. */
@Command(
    name = "compare",
    description =
        "Compare two benchmark records: case, current, previous, ratio, sorted by ratio, flagging"
            + " ratios beyond the threshold.")
final class BenchCompareCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "OLD.json", description = "The previous record.")
  Path previous;

  @Parameters(index = "1", paramLabel = "NEW.json", description = "The current record.")
  Path current;

  @Option(
      names = "--threshold",
      paramLabel = "PERCENT",
      description = "Flag ratios beyond +-PERCENT (default: 10).")
  double thresholdPercent = 10;

  @Option(
      names = "--fail-on-regression",
      description = "Exit 1 when any case regressed beyond the threshold.")
  boolean failOnRegression;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var result =
        BenchCompare.compare(
            BenchRecords.read(previous), BenchRecords.read(current), thresholdPercent / 100);
    BenchCompare.print(result, out);
    return failOnRegression && result.regressions() > 0 ? 1 : 0;
  }
}
