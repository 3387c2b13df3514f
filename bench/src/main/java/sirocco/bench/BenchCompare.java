package sirocco.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compares two benchmark records case by case, as AMDGPU.jl's CI does on every pull request: the
 * current median, the previous one and their ratio (current / previous), sorted by ratio with the
 * largest first, flagging ratios beyond a threshold. A previous median of 0 gives a ratio of 1 when
 * the current one is 0 too, else infinity. Whether a flagged ratio is a regression depends on the
 * case's direction ({@link BenchCase#higherIsBetter()}).
 */
public final class BenchCompare {
  /** How a case moved. */
  public enum Verdict {
    SAME,
    REGRESSION,
    IMPROVEMENT,
    NEW,
    GONE
  }

  /**
   * One row: a case present in either record.
   *
   * @param key the case (name and parameters)
   * @param unit its unit
   * @param current the new median (NaN when the case is gone)
   * @param previous the old median (NaN when the case is new)
   * @param ratio current / previous (NaN unless both exist)
   * @param verdict how it moved relative to the threshold
   */
  public record Row(
      String key, String unit, double current, double previous, double ratio, Verdict verdict) {}

  /** The comparison: rows sorted by ratio (largest first; new and gone cases last). */
  public record Result(
      BenchRecord previous, BenchRecord current, double threshold, List<Row> rows) {
    public long regressions() {
      return rows.stream().filter(r -> r.verdict() == Verdict.REGRESSION).count();
    }

    public long improvements() {
      return rows.stream().filter(r -> r.verdict() == Verdict.IMPROVEMENT).count();
    }
  }

  private BenchCompare() {}

  /**
   * Compares {@code current} with {@code previous}; {@code threshold} is a fraction (0.10 = ±10%).
   */
  public static Result compare(BenchRecord previous, BenchRecord current, double threshold) {
    if (!(threshold > 0) || threshold >= 10) {
      throw new IllegalArgumentException("threshold must be in (0, 10), got " + threshold);
    }
    Map<String, BenchCase> old = new LinkedHashMap<>();
    for (BenchCase c : previous.cases()) {
      old.putIfAbsent(c.key(), c);
    }
    List<Row> rows = new ArrayList<>();
    Map<String, Boolean> seen = new LinkedHashMap<>();
    for (BenchCase c : current.cases()) {
      if (seen.put(c.key(), true) != null) {
        continue;
      }
      BenchCase p = old.get(c.key());
      if (p == null) {
        rows.add(new Row(c.key(), c.unit(), c.median(), Double.NaN, Double.NaN, Verdict.NEW));
        continue;
      }
      double ratio =
          p.median() == 0
              ? (c.median() == 0 ? 1 : Double.POSITIVE_INFINITY)
              : c.median() / p.median();
      Verdict v = Verdict.SAME;
      if (ratio > 1 + threshold) {
        v = c.higherIsBetter() ? Verdict.IMPROVEMENT : Verdict.REGRESSION;
      } else if (ratio < 1 - threshold) {
        v = c.higherIsBetter() ? Verdict.REGRESSION : Verdict.IMPROVEMENT;
      }
      rows.add(new Row(c.key(), c.unit(), c.median(), p.median(), ratio, v));
    }
    for (BenchCase p : old.values()) {
      if (!seen.containsKey(p.key())) {
        rows.add(new Row(p.key(), p.unit(), Double.NaN, p.median(), Double.NaN, Verdict.GONE));
      }
    }
    rows.sort(
        Comparator.comparing((Row r) -> Double.isNaN(r.ratio()))
            .thenComparing(Row::ratio, Comparator.reverseOrder())
            .thenComparing(Row::key));
    return new Result(previous, current, threshold, List.copyOf(rows));
  }

  /** Prints the comparison as a Markdown table (what a CI bot would post). */
  public static void print(Result r, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "previous: %s %s on %s (%s)%n",
        r.previous().tool(),
        r.previous().commit(),
        device(r.previous()),
        r.previous().date());
    out.printf(
        Locale.ROOT,
        "current:  %s %s on %s (%s)%n%n",
        r.current().tool(),
        r.current().commit(),
        device(r.current()),
        r.current().date());
    out.println("| case | current | previous | ratio | |");
    out.println("|---|---:|---:|---:|---|");
    for (Row row : r.rows()) {
      out.printf(
          Locale.ROOT,
          "| %s | %s | %s | %s | %s |%n",
          row.key(),
          number(row.current(), row.unit()),
          number(row.previous(), row.unit()),
          Double.isNaN(row.ratio()) ? "-" : String.format(Locale.ROOT, "%.3f", row.ratio()),
          switch (row.verdict()) {
            case SAME -> "";
            case REGRESSION -> "**regression**";
            case IMPROVEMENT -> "improvement";
            case NEW -> "new";
            case GONE -> "gone";
          });
    }
    out.printf(
        Locale.ROOT,
        "%n%d cases, %d regressions and %d improvements beyond ±%.0f%%%n",
        r.rows().size(),
        r.regressions(),
        r.improvements(),
        100 * r.threshold());
    out.flush();
  }

  private static String device(BenchRecord r) {
    return r.device() == null ? "?" : r.device().name();
  }

  private static String number(double v, String unit) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    String f = a >= 100 ? "%.1f" : a >= 1 ? "%.2f" : "%.4f";
    return String.format(Locale.ROOT, f, v) + " " + unit;
  }
}
