package sirocco.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Exit-safe teardown, proved: runs each way of leaving the JVM while device work is in flight as a
 * separate JVM ({@link ExitVariantChild}), and checks its exit status and that it printed nothing
 * on stderr (no stack trace, no driver abort). A run is an abort when it died of a signal it was
 * not sent (exit status above 128 other than the expected one, e.g. 134 for SIGABRT), a hang when
 * it outlived the timeout. Prints a table; {@link Report#passed()} only when every run matched and
 * every stderr was empty.
 */
public final class ExitVariants {
  /** The variants: name, expected exit status, what happens. */
  public enum Variant {
    DEFAULT_RETURN("default-return", 0, "default stream, return from main"),
    DEFAULT_EXIT("default-exit", 3, "default stream, System.exit(3) from main"),
    THREAD_EXIT("thread-exit", 3, "op and System.exit(3) on a second thread"),
    MAIN_OP_THREAD_EXIT(
        "main-op-thread-exit", 3, "op on main (in synchronize), System.exit(3) on a second thread"),
    STREAM_RETURN("stream-return", 0, "new stream, return from main"),
    STREAM_THREAD_EXIT(
        "stream-thread-exit", 3, "new stream on a second thread, System.exit(3) there"),
    VIRTUAL_WAIT_EXIT(
        "virtual-wait-exit", 3, "System.exit(3) while a virtual thread waits cooperatively"),
    MANY_WAITERS_EXIT(
        "many-waiters-exit", 3, "System.exit(3) with 64 virtual threads waiting on 64 streams"),
    SIGTERM("sigterm", 143, "SIGTERM during the long work"),
    HALT("halt", 3, "Runtime.halt(3) during the long work"),
    CLEANER_EXIT("cleaner-exit", 3, "System.exit(3) while cleaners free dropped buffers"),
    COMPLETION_EXIT(
        "completion-exit", 3, "System.exit(3) while the completion worker holds buffers");

    public final String id;
    public final int expected;
    public final String description;

    Variant(String id, int expected, String description) {
      this.id = id;
      this.expected = expected;
      this.description = description;
    }

    public static Variant byId(String id) {
      for (Variant v : values()) {
        if (v.id.equals(id)) {
          return v;
        }
      }
      throw new IllegalArgumentException(
          "unknown exit variant '" + id + "'; known: " + java.util.Arrays.toString(ids()));
    }

    public static String[] ids() {
      return java.util.Arrays.stream(values()).map(v -> v.id).toArray(String[]::new);
    }
  }

  /**
   * @param variants which variants (all when empty)
   * @param repeat runs per variant
   * @param parallel child JVMs at once
   * @param backend "java" or "cuda"
   * @param longMillis how long the in-flight work runs
   * @param work "kernel" (a busy-wait Java kernel) or "copy" (device copies, CUDA only)
   * @param timeoutSeconds a run still alive after this is a hang
   */
  public record Options(
      List<Variant> variants,
      int repeat,
      int parallel,
      String backend,
      long longMillis,
      String work,
      long timeoutSeconds) {
    public static Options defaults(String backend) {
      return new Options(List.of(), 1, 2, backend, 3000, "kernel", 60);
    }

    public Options {
      variants = variants == null || variants.isEmpty() ? List.of(Variant.values()) : variants;
      if (repeat < 1 || parallel < 1 || longMillis < 1 || timeoutSeconds < 1) {
        throw new IllegalArgumentException(
            "repeat, parallel, longMillis and timeoutSeconds must be >= 1");
      }
      if (!backend.equals("java") && !backend.equals("cuda")) {
        throw new IllegalArgumentException("backend must be java or cuda, got " + backend);
      }
      if (!work.equals("kernel") && !work.equals("copy")) {
        throw new IllegalArgumentException("work must be kernel or copy, got " + work);
      }
      if (work.equals("copy") && backend.equals("java")) {
        throw new IllegalArgumentException("work=copy is for the cuda backend");
      }
    }
  }

  /** One child run. */
  public record Run(Variant variant, int exitCode, boolean hung, String stdout, String stderr) {
    public boolean matched() {
      return !hung && exitCode == variant.expected;
    }

    public boolean stderrClean() {
      return stderr.isEmpty();
    }

    public boolean aborted() {
      return !hung && exitCode > 128 && exitCode != variant.expected;
    }
  }

  /** All runs of one variant. */
  public record Outcome(
      Variant variant,
      int runs,
      int matched,
      int aborts,
      int hangs,
      int stderrClean,
      Map<Integer, Integer> exitCodes,
      String firstProblem) {
    public boolean passed() {
      return matched == runs && stderrClean == runs;
    }

    /** Exit statuses seen, e.g. "3" or "3 x199, 134 x1". */
    public String actual() {
      if (exitCodes.size() == 1 && hangs == 0) {
        return String.valueOf(exitCodes.keySet().iterator().next());
      }
      List<String> parts = new ArrayList<>();
      exitCodes.forEach((k, v) -> parts.add(k + " x" + v));
      if (hangs > 0) {
        parts.add("hang x" + hangs);
      }
      return String.join(", ", parts);
    }
  }

  /** Every variant's outcome. */
  public record Report(Options options, List<Outcome> outcomes, double seconds) {
    public boolean passed() {
      return outcomes.stream().allMatch(Outcome::passed);
    }
  }

  private ExitVariants() {}

  /** Runs every requested variant {@code repeat} times, prints the table, returns the report. */
  /** Told as child runs end; for a progress display. */
  @FunctionalInterface
  public interface Progress {
    /**
     * {@code done} of {@code total} runs have ended. Calls are serialized and {@code done} rises by
     * one each time, so the last call has {@code done == total}; all happen before {@link #run}
     * prints its table.
     */
    void runsDone(int done, int total);
  }

  /** {@link #run(Options, PrintWriter, Progress)} without progress. */
  public static Report run(Options o, PrintWriter out) throws InterruptedException {
    return run(o, out, null);
  }

  /**
   * Runs every requested variant {@code o.repeat()} times, {@code o.parallel()} at once, tells
   * {@code progress} (null for none) as runs end, prints the table to {@code out}.
   */
  public static Report run(Options o, PrintWriter out, Progress progress)
      throws InterruptedException {
    long t0 = System.nanoTime();
    List<Variant> todo = new ArrayList<>();
    for (Variant v : o.variants()) {
      for (int i = 0; i < o.repeat(); i++) {
        todo.add(v);
      }
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            o.parallel(), Thread.ofPlatform().daemon().name("exit-variants-", 0).factory());
    List<Future<Run>> futures = new ArrayList<>();
    int total = todo.size();
    int[] done = {0};
    try {
      for (Variant v : todo) {
        futures.add(
            pool.submit(
                () -> {
                  Run r = runOnce(v, o);
                  if (progress != null) {
                    synchronized (done) {
                      progress.runsDone(++done[0], total);
                    }
                  }
                  return r;
                }));
      }
      Map<Variant, List<Run>> byVariant = new LinkedHashMap<>();
      for (Variant v : o.variants()) {
        byVariant.put(v, new ArrayList<>());
      }
      for (Future<Run> f : futures) {
        Run r;
        try {
          r = f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException("could not run an exit variant: " + e.getCause(), e);
        }
        byVariant.get(r.variant()).add(r);
      }
      List<Outcome> outcomes = new ArrayList<>();
      byVariant.forEach((v, runs) -> outcomes.add(outcome(v, runs)));
      Report report = new Report(o, outcomes, (System.nanoTime() - t0) / 1e9);
      print(report, out);
      return report;
    } finally {
      pool.shutdownNow();
    }
  }

  private static Outcome outcome(Variant v, List<Run> runs) {
    int matched = 0;
    int aborts = 0;
    int hangs = 0;
    int clean = 0;
    Map<Integer, Integer> codes = new TreeMap<>();
    String problem = null;
    for (Run r : runs) {
      matched += r.matched() ? 1 : 0;
      aborts += r.aborted() ? 1 : 0;
      hangs += r.hung() ? 1 : 0;
      clean += r.stderrClean() ? 1 : 0;
      if (!r.hung()) {
        codes.merge(r.exitCode(), 1, Integer::sum);
      }
      if (problem == null && (!r.matched() || !r.stderrClean())) {
        problem =
            (r.hung() ? "hung" : "exit " + r.exitCode())
                + "; stdout: "
                + abbreviate(r.stdout())
                + "; stderr: "
                + abbreviate(r.stderr());
      }
    }
    return new Outcome(v, runs.size(), matched, aborts, hangs, clean, codes, problem);
  }

  private static String abbreviate(String s) {
    String t = s.strip().replace('\n', '|');
    return t.length() > 600 ? t.substring(0, 600) + "..." : t;
  }

  /** Prints the table: variant, expected, actual, runs, aborts, hangs, stderr clean. */
  public static void print(Report r, PrintWriter out) {
    Options o = r.options();
    out.printf(
        Locale.ROOT,
        "exit variants on the %s backend (%s work of %d ms, %d run(s) each, %d at once)%n%n",
        o.backend(),
        o.work(),
        o.longMillis(),
        o.repeat(),
        o.parallel());
    String fmt = "%-20s %8s %-16s %6s %7s %6s %6s %12s%n";
    out.printf(
        Locale.ROOT,
        fmt,
        "variant",
        "expected",
        "actual",
        "runs",
        "matched",
        "aborts",
        "hangs",
        "stderr clean");
    for (Outcome oc : r.outcomes()) {
      out.printf(
          Locale.ROOT,
          fmt,
          oc.variant().id,
          oc.variant().expected,
          oc.actual(),
          oc.runs(),
          oc.matched(),
          oc.aborts(),
          oc.hangs(),
          oc.stderrClean() == oc.runs() ? "yes" : "no (" + (oc.runs() - oc.stderrClean()) + ")");
    }
    for (Outcome oc : r.outcomes()) {
      if (oc.firstProblem() != null) {
        out.println();
        out.println(oc.variant().id + ": first problem: " + oc.firstProblem());
      }
    }
    out.printf(
        Locale.ROOT,
        "%n%s in %.1f s%n",
        r.passed() ? "all variants matched with clean stderr" : "FAILED",
        r.seconds());
    out.flush();
  }

  /**
   * The JVM command for a child: this JVM's java and class path, Sirocco's -D options (also how to
   * rerun one variant by hand).
   */
  public static List<String> command(Variant v, Options o) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("sirocco.")) {
        cmd.add("-D" + name + "=" + System.getProperty(name));
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ExitVariantChild.class.getName());
    cmd.add(v.id);
    cmd.add(o.backend());
    cmd.add(Long.toString(o.longMillis()));
    cmd.add(o.work());
    return cmd;
  }

  static Run runOnce(Variant v, Options o) throws IOException, InterruptedException {
    Path err = Files.createTempFile("sirocco-exit-", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(command(v, o));
      pb.redirectError(err.toFile());
      Process p = pb.start();
      p.getOutputStream().close();
      StringBuilder stdout = new StringBuilder();
      Thread reader =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (BufferedReader in =
                        new BufferedReader(
                            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                      String line;
                      while ((line = in.readLine()) != null) {
                        synchronized (stdout) {
                          stdout.append(line).append('\n');
                        }
                        if (v == Variant.SIGTERM && line.equals("RUNNING")) {
                          // Give the child a moment to enter its wait, then SIGTERM it.
                          Thread.sleep(100);
                          p.destroy();
                        }
                      }
                    } catch (IOException | InterruptedException e) {
                      // The child is gone; what was read is kept.
                    }
                  });
      boolean finished = p.waitFor(o.timeoutSeconds(), TimeUnit.SECONDS);
      if (!finished) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
      reader.join(5000);
      String out;
      synchronized (stdout) {
        out = stdout.toString();
      }
      return new Run(
          v,
          finished ? p.exitValue() : -1,
          !finished,
          out,
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /**
   * {@code java sirocco.bench.ExitVariants [--backend java|cuda] [--repeat N] [--parallel N]
   * [--long-ms N] [--work kernel|copy] [--timeout-s N] [VARIANT...]}; exits 0 only when every run
   * matched with clean stderr.
   */
  public static void main(String[] args) throws Exception {
    String backend = "java";
    int repeat = 1;
    int parallel = 2;
    long longMs = 3000;
    String work = "kernel";
    long timeout = 60;
    List<Variant> variants = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--backend" -> backend = args[++i];
        case "--repeat" -> repeat = Integer.parseInt(args[++i]);
        case "--parallel" -> parallel = Integer.parseInt(args[++i]);
        case "--long-ms" -> longMs = Long.parseLong(args[++i]);
        case "--work" -> work = args[++i];
        case "--timeout-s" -> timeout = Long.parseLong(args[++i]);
        default -> variants.add(Variant.byId(args[i]));
      }
    }
    PrintWriter out = new PrintWriter(System.out, true);
    Report r = run(new Options(variants, repeat, parallel, backend, longMs, work, timeout), out);
    System.exit(r.passed() ? 0 : 1);
  }
}
