package sirocco.jit;

import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Options of {@link KernelCompiler#compile(java.lang.reflect.Method, java.util.Map, Target,
 * CompileOptions)}.
 *
 * @param dumpAfter pass names after which the IR is printed ({@code "all"} for every pass, {@code
 *     "ptx"} for the final PTX); see {@link KernelCompiler#PASSES}
 * @param dumpSink where dumps and timings go
 * @param lineInfo emit {@code .loc} source-line directives (for profilers and error reports)
 * @param unroll fully unroll loops with small constant trip counts
 * @param timing report per-pass times to {@code dumpSink}
 */
public record CompileOptions(
    Set<String> dumpAfter,
    Consumer<String> dumpSink,
    boolean lineInfo,
    boolean unroll,
    boolean timing) {
  public CompileOptions {
    dumpAfter = Set.copyOf(dumpAfter);
  }

  /**
   * Defaults: no line info, unrolling on, dumps from the system property {@code sirocco.jit.dump}
   * (a comma-separated list of pass names, or {@code all}) to standard error.
   */
  public static CompileOptions defaults() {
    String p = System.getProperty("sirocco.jit.dump", "");
    Set<String> dump =
        p.isBlank() ? Set.of() : Set.of(p.toLowerCase(Locale.ROOT).replace(" ", "").split(","));
    return new CompileOptions(dump, new PrintLines(System.err), false, true, false);
  }

  /** {@code out::println} (a class rather than a method reference: no bootstrap when cold). */
  private static final class PrintLines implements Consumer<String> {
    private final java.io.PrintStream out;

    PrintLines(java.io.PrintStream out) {
      this.out = out;
    }

    @Override
    public void accept(String s) {
      out.println(s);
    }
  }

  public CompileOptions withDumpAfter(Set<String> passes, Consumer<String> sink) {
    return new CompileOptions(passes, sink, lineInfo, unroll, timing);
  }

  public CompileOptions withLineInfo(boolean on) {
    return new CompileOptions(dumpAfter, dumpSink, on, unroll, timing);
  }

  public CompileOptions withUnroll(boolean on) {
    return new CompileOptions(dumpAfter, dumpSink, lineInfo, on, timing);
  }

  public CompileOptions withTiming(boolean on, Consumer<String> sink) {
    return new CompileOptions(dumpAfter, sink, lineInfo, unroll, on);
  }

  boolean dumps(String pass) {
    return dumpAfter.contains("all") || dumpAfter.contains(pass);
  }
}
