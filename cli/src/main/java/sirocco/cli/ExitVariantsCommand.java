package sirocco.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sirocco.bench.ExitVariants;
import sirocco.runtime.Device;

/** {@code tornado exit-variants}: every way of leaving the JVM with device work in flight. */
@Command(
    name = "exit-variants",
    description =
        "Run each way of exiting the JVM while device work is in flight as a separate JVM; exit 0"
            + " only when every run had the expected status and an empty stderr.")
final class ExitVariantsCommand implements Callable<Integer> {
  @Parameters(
      arity = "0..*",
      paramLabel = "VARIANT",
      description = "Variants to run (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = VariantIds.class)
  List<String> variants = new ArrayList<>();

  @Option(names = "--repeat", description = "Runs per variant (default: 1).")
  int repeat = 1;

  @Option(names = "--parallel", description = "Child JVMs at once (default: 2).")
  int parallel = 2;

  @Option(
      names = "--long-ms",
      description = "How long the in-flight device work runs, in ms (default: 3000).")
  long longMillis = 3000;

  @Option(
      names = "--work",
      description =
          "kernel (a busy-wait Java kernel) or copy (device copies; cuda only, no JIT needed).")
  String work = "kernel";

  @Option(
      names = "--timeout-s",
      description = "A run still alive after this many seconds is a hang (default: 60).")
  long timeoutSeconds = 60;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON.")
  String json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static final class VariantIds extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    VariantIds() {
      super(List.of(ExitVariants.Variant.ids()));
    }
  }

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    String backend = System.getProperty("sirocco.backend");
    if (backend == null || backend.isBlank()) {
      backend = Backends.device().kind() == Device.Kind.CUDA ? "cuda" : "java";
    }
    List<ExitVariants.Variant> chosen = new ArrayList<>();
    for (String v : variants) {
      chosen.add(ExitVariants.Variant.byId(v));
    }
    // Minutes of silence otherwise; a person at a terminal sees the count on stderr, the table and
    // JSON stay clean.
    TerminalProgress progress =
        TerminalProgress.forConsole(spec.commandLine().getErr(), "exit-variants");
    ExitVariants.Report r;
    try {
      r =
          ExitVariants.run(
              new ExitVariants.Options(
                  chosen, repeat, parallel, backend, longMillis, work, timeoutSeconds),
              out,
              progress);
    } finally {
      if (progress != null) {
        progress.clear();
      }
    }
    if (json != null) {
      Json.write(json, r, out);
    }
    return r.passed() ? 0 : 1;
  }
}
