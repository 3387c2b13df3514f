package sirocco.fork;

import java.util.List;

/** A spec file that is not valid YAML or does not follow the schema; lists every problem found. */
public final class ForkSpecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final transient List<Violation> problems;

  public ForkSpecException(String source, List<Violation> problems) {
    this(source, sortedByLine(problems), true);
  }

  private ForkSpecException(String source, List<Violation> sorted, boolean unused) {
    super(message(source, sorted));
    this.source = source;
    this.problems = sorted;
  }

  private static List<Violation> sortedByLine(List<Violation> problems) {
    return problems.stream().sorted(java.util.Comparator.comparingInt(Violation::line)).toList();
  }

  private static String message(String source, List<Violation> problems) {
    StringBuilder sb = new StringBuilder();
    sb.append(source)
        .append(": ")
        .append(problems.size())
        .append(problems.size() == 1 ? " schema error" : " schema errors");
    for (Violation v : problems) {
      sb.append("\n  ").append(v.format(source));
    }
    return sb.toString();
  }

  /** The file the spec was read from. */
  public String source() {
    return source;
  }

  /** Every problem found, by line; all of kind {@link Violation.Kind#SCHEMA}. */
  public List<Violation> problems() {
    return problems;
  }
}
