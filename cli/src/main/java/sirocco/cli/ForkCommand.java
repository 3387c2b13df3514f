package sirocco.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sirocco.fork.CheckResult;
import sirocco.fork.ForkChecker;
import sirocco.fork.ForkReport;
import sirocco.fork.ForkSpecException;
import sirocco.fork.ForkSpecParser;
import sirocco.fork.ProvenanceResult;
import sirocco.fork.ProvenanceValidator;
import sirocco.fork.ReportRenderer;

/** {@code tornado fork …}: fork.yaml checking and review reports for forks kept in git. */
@Command(
    name = "fork",
    description =
        "Check that every change of a fork is described in fork.yaml, and render the review report.",
    subcommands = {ForkCommand.Check.class, ForkCommand.Report.class, ForkCommand.Provenance.class})
final class ForkCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The fork file: as given, else fork.yaml in the repository. */
  static Path forkFile(Path repo, Path fork) {
    return existing(fork != null ? fork : repo.resolve("fork.yaml"), "--fork");
  }

  static Path existing(Path file, String option) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          option + " file " + file + " does not exist or is not a file");
    }
    return file;
  }

  @Command(
      name = "check",
      description = {
        "Exit 0 only when base.hash is right and every changed file is described, with no stale glob and no"
            + " malformed upstream id; otherwise exit 1 listing every violation."
      })
  static final class Check implements Callable<Integer> {
    @Option(
        names = "--repo",
        paramLabel = "DIR",
        description = "The fork's git repository (default: .).")
    Path repo = Path.of(".");

    @Option(
        names = "--fork",
        paramLabel = "FILE",
        description = "The fork description (default: REPO/fork.yaml).")
    Path fork;

    @Option(
        names = "--upstream-ref",
        paramLabel = "REF",
        description = "Upstream branch or commit: base.hash must be its merge-base with HEAD.")
    String upstreamRef;

    @Option(
        names = "--json",
        paramLabel = "FILE",
        description = "Write the review status as JSON (- for stdout).")
    String json;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      var out = spec.commandLine().getOut();
      CheckResult r =
          ForkChecker.checkFile(repo, forkFile(repo, fork), Optional.ofNullable(upstreamRef));
      out.println(r.toText());
      if (json != null) {
        writeText(json, r.toJson(), out);
      }
      return r.exitCode();
    }
  }

  @Command(
      name = "report",
      description = "Render the review report: sections, upstream ids, files, line counts.")
  static final class Report implements Callable<Integer> {
    @Option(
        names = "--repo",
        paramLabel = "DIR",
        description = "The fork's git repository (default: .).")
    Path repo = Path.of(".");

    @Option(
        names = "--fork",
        paramLabel = "FILE",
        description = "The fork description (default: REPO/fork.yaml).")
    Path fork;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description = "Write the report here (default: stdout).")
    String outFile;

    @Option(
        names = "--format",
        paramLabel = "md|html",
        description = "Report format (default: ${DEFAULT-VALUE}).")
    String format = "md";

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      ReportRenderer.Format f = ReportRenderer.Format.parse(format);
      var forkSpec = ForkSpecParser.parse(forkFile(repo, fork));
      String text = ReportRenderer.render(ForkReport.build(repo, forkSpec), f);
      writeText(outFile == null ? "-" : outFile, text, spec.commandLine().getOut());
      return 0;
    }
  }

  @Command(
      name = "provenance",
      description =
          "Validate a provenance file (fork.yaml schema without base): ids well formed, no stale glob.")
  static final class Provenance implements Callable<Integer> {
    @Option(names = "--repo", paramLabel = "DIR", description = "Repository root (default: .).")
    Path repo = Path.of(".");

    @Option(
        names = "--file",
        paramLabel = "FILE",
        description = "The provenance file (default: REPO/PROVENANCE.yaml).")
    Path file;

    @Option(
        names = "--json",
        paramLabel = "FILE",
        description = "Also write the result as JSON (- for stdout).")
    String json;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      var out = spec.commandLine().getOut();
      ProvenanceResult r =
          ProvenanceValidator.validateFile(
              repo, file != null ? file : repo.resolve("PROVENANCE.yaml"));
      out.println(r.toText());
      if (json != null) {
        writeText(json, r.toJson(), out);
      }
      return r.exitCode();
    }
  }

  static void writeText(String target, String text, java.io.PrintWriter out) throws IOException {
    if (target.equals("-")) {
      out.println(text);
    } else {
      Path p = Path.of(target);
      if (p.getParent() != null) {
        Files.createDirectories(p.getParent());
      }
      Files.writeString(p, text.endsWith("\n") ? text : text + "\n");
    }
  }

  /** Schema errors of a fork file are the user's input errors: report them as such. */
  static boolean isInputError(Throwable t) {
    return t instanceof ForkSpecException;
  }
}
