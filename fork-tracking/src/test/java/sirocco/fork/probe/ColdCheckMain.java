package sirocco.fork.probe;

import java.nio.file.Path;
import java.util.Optional;
import sirocco.fork.CheckResult;
import sirocco.fork.ForkChecker;

/**
 * Runs one {@code fork check} in a fresh JVM, as the CLI would, and prints {@code coldCheckMillis=N
 * exit=E summary}: parse and check time from the first line of main, JIT cold. Used by {@link
 * LargeForkBenchmarkTest}.
 */
public final class ColdCheckMain {
  private ColdCheckMain() {}

  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    CheckResult r = ForkChecker.checkFile(Path.of(args[0]), Path.of(args[1]), Optional.of(args[2]));
    long millis = (System.nanoTime() - t0) / 1_000_000;
    System.out.println(
        "coldCheckMillis="
            + millis
            + " exit="
            + r.exitCode()
            + " "
            + r.summaryLine()
            + " ["
            + ForkChecker.class.getModule()
            + "]");
  }
}
