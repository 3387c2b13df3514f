package sirocco.cli;

import java.io.PrintWriter;
import sirocco.bench.ExitVariants;

/**
 * A count of finished runs, rewritten in place ({@code \r}) on standard error, e.g. {@code
 * exit-variants: 120/480 runs done}; the line is blanked when the last run ends, before the table.
 * Only for a person at a terminal ({@link #forConsole}): piped or captured output, where a table or
 * JSON is read by a program, never gets it.
 */
final class TerminalProgress implements ExitVariants.Progress {
  private final PrintWriter err;
  private final String label;
  private int shown;

  TerminalProgress(PrintWriter err, String label) {
    this.err = err;
    this.label = label;
  }

  /** A progress line on {@code err} when the JVM has a console, else null (no progress). */
  static TerminalProgress forConsole(PrintWriter err, String label) {
    return System.console() != null ? new TerminalProgress(err, label) : null;
  }

  @Override
  public synchronized void runsDone(int done, int total) {
    // Counts only grow, so each line covers the previous one.
    String line = label + ": " + done + "/" + total + " runs done";
    err.print("\r" + line);
    shown = line.length();
    if (done >= total) {
      clear();
    }
    err.flush();
  }

  /** Blanks the line (also when the runs stopped early, e.g. on an error). */
  synchronized void clear() {
    if (shown > 0) {
      err.print("\r" + " ".repeat(shown) + "\r");
      err.flush();
      shown = 0;
    }
  }
}
