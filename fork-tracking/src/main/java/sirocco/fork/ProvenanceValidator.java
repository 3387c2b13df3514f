package sirocco.fork;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.eclipse.jgit.lib.Repository;
import sirocco.fork.internal.CompiledSpec;
import sirocco.fork.internal.GitOps;
import sirocco.fork.internal.Glob;

/**
 * Provenance mode: a file with the {@code fork.yaml} schema but no {@code base}, whose sections map
 * behaviour a project re-implements to its upstream ids and to the files implementing it. It is
 * checked against the files the repository tracks, not against a diff; not every file needs to be
 * described.
 *
 * <p>Rules: the schema; well-formed globs and upstream ids; no {@code base}; every glob (section
 * globs and ignores, top-level ignores) matches at least one tracked file; every section with globs
 * has at least one upstream id, on itself or on an enclosing section.
 */
public final class ProvenanceValidator {
  private ProvenanceValidator() {}

  /**
   * Reads {@code provenanceFile} and validates it against the files tracked in the repository at
   * {@code repoRoot}; schema errors become violations of the result.
   *
   * @throws IOException when the file or the repository cannot be read
   * @throws IllegalArgumentException when {@code repoRoot} is not in a git repository
   */
  public static ProvenanceResult validateFile(Path repoRoot, Path provenanceFile)
      throws IOException {
    ForkSpec spec;
    try {
      spec = ForkSpecParser.parse(provenanceFile);
    } catch (ForkSpecException e) {
      return new ProvenanceResult(e.source(), e.problems(), 0, List.of());
    }
    return validate(spec, trackedFiles(repoRoot));
  }

  /** Validates {@code spec} against the files tracked in the repository at {@code repoRoot}. */
  public static ProvenanceResult validate(Path repoRoot, ForkSpec spec) throws IOException {
    return validate(spec, trackedFiles(repoRoot));
  }

  /**
   * The files the repository at {@code repoRoot} tracks: its index ({@code git ls-files}), less
   * files deleted from the work tree; repository-relative, '/'-separated, sorted.
   *
   * @throws IllegalArgumentException when {@code repoRoot} is not in a git repository
   */
  public static List<String> trackedFiles(Path repoRoot) throws IOException {
    try (Repository r = GitOps.open(repoRoot)) {
      List<String> files = new ArrayList<>(GitOps.trackedFiles(r));
      files.sort(null);
      return files;
    }
  }

  /** Validates {@code spec} against {@code files} (repository-relative, '/'-separated paths). */
  public static ProvenanceResult validate(ForkSpec spec, Collection<String> files) {
    Objects.requireNonNull(spec, "spec");
    CompiledSpec compiled = CompiledSpec.compile(spec);
    List<Violation> violations = new ArrayList<>(compiled.problems());
    spec.base()
        .ifPresent(
            b ->
                violations.add(
                    new Violation(
                        Violation.Kind.BASE,
                        "a provenance file has no 'base' (it describes this repository, not a"
                            + " fork of it): remove it",
                        "",
                        b.line())));
    List<Glob.Subject> subjects = files.stream().sorted().map(Glob.Subject::of).toList();
    List<ProvenanceResult.SectionFiles> sections = new ArrayList<>();
    for (Section s : spec.sections()) {
      sections.add(new ProvenanceResult.SectionFiles(s, matchedFiles(s, spec, subjects)));
    }
    checkUpstream(spec.def(), false, violations);
    violations.addAll(compiled.staleGlobs(subjects, "tracked file"));
    return new ProvenanceResult(spec.source(), violations, files.size(), sections);
  }

  /** Files matching one of the section's globs, less its own and the top-level ignores. */
  private static List<String> matchedFiles(Section s, ForkSpec spec, List<Glob.Subject> files) {
    List<Glob> globs = compileValid(s.globs());
    if (globs.isEmpty()) {
      return List.of();
    }
    List<Glob> ignores = compileValid(s.ignore());
    ignores.addAll(compileValid(spec.ignore()));
    List<String> out = new ArrayList<>();
    for (Glob.Subject f : files) {
      if (globs.stream().anyMatch(g -> g.matches(f))
          && ignores.stream().noneMatch(g -> g.matches(f))) {
        out.add(f.path());
      }
    }
    return out;
  }

  private static List<Glob> compileValid(List<GlobEntry> entries) {
    List<Glob> out = new ArrayList<>();
    for (GlobEntry e : entries) {
      try {
        out.add(Glob.compile(e.pattern()));
      } catch (IllegalArgumentException invalid) {
        // Reported by CompiledSpec as INVALID_GLOB.
      }
    }
    return out;
  }

  private static void checkUpstream(Section s, boolean inherited, List<Violation> out) {
    boolean has = inherited || !s.upstream().isEmpty();
    if (!s.globs().isEmpty() && !has) {
      out.add(
          new Violation(
              Violation.Kind.MISSING_UPSTREAM,
              s.displayName()
                  + " has globs but no upstream id (on itself or an enclosing section): say"
                  + " where the behaviour comes from",
              "",
              s.line()));
    }
    for (Section c : s.sub()) {
      checkUpstream(c, has, out);
    }
  }
}
