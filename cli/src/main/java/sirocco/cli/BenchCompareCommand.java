package sirocco.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sirocco.bench.BenchCompare;
import sirocco.bench.BenchRecord;
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

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the comparison as JSON (- for stdout).")
  String json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var result =
        BenchCompare.compare(
            BenchRecords.read(previous), BenchRecords.read(current), thresholdPercent / 100);
    BenchCompare.print(result, out);
    if (json != null) {
      Json.write(json, document(result), out);
    }
    return failOnRegression && result.regressions() > 0 ? 1 : 0;
  }

  /**
   * The comparison for machines: both records' identity, the threshold, the counts and the rows in
   * the table's order. A median or ratio that does not exist (a new or gone case, or a ratio
   * against a previous median of 0) is null, since JSON has no NaN or infinity; the verdict says
   * which.
   */
  static Map<String, Object> document(BenchCompare.Result r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("previous", identity(r.previous()));
    doc.put("current", identity(r.current()));
    doc.put("thresholdPercent", 100 * r.threshold());
    doc.put("cases", r.rows().size());
    doc.put("regressions", r.regressions());
    doc.put("improvements", r.improvements());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (BenchCompare.Row row : r.rows()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("case", row.key());
      m.put("unit", row.unit());
      m.put("current", finite(row.current()));
      m.put("previous", finite(row.previous()));
      m.put("ratio", finite(row.ratio()));
      m.put("verdict", row.verdict().name().toLowerCase(Locale.ROOT));
      rows.add(m);
    }
    doc.put("rows", rows);
    return doc;
  }

  private static Map<String, Object> identity(BenchRecord r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tool", r.tool());
    m.put("commit", r.commit());
    m.put("date", r.date());
    m.put("device", r.device());
    return m;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
