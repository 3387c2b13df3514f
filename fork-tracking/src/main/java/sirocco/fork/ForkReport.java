package sirocco.fork;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.treewalk.TreeWalk;
import sirocco.fork.internal.CompiledSpec;
import sirocco.fork.internal.GitOps;
import sirocco.fork.internal.Glob;

/**
 * The review overview of a fork ({@code fork report}): sections in order with their descriptions,
 * upstream ids, files and added/removed line counts, plus undescribed ("other") and ignored
 * changes. Render it with {@link ReportRenderer}.
 *
 * @param spec the spec
 * @param baseCommit the commit the diff starts from ({@code base.hash}, else {@code base.ref})
 * @param headCommit the commit reported (HEAD)
 * @param sections every section, parents before children ({@code def} first)
 * @param undescribed changed files no section or ignore glob matches
 * @param ignored changed files matched by the top-level {@code ignore}
 * @param logoDataUri the logo embedded as a {@code data:} URI, when {@code logo} is an image file
 *     in the HEAD tree (addresses are never fetched)
 * @param problems malformed globs and upstream ids, and stale globs, for the reader's information
 */
public record ForkReport(
    ForkSpec spec,
    String baseCommit,
    String headCommit,
    List<SectionReport> sections,
    List<FileStat> undescribed,
    List<FileStat> ignored,
    Optional<String> logoDataUri,
    List<Violation> problems) {

  private static final Pattern FULL_HASH = Pattern.compile("[0-9a-fA-F]{40}");
  private static final int MAX_LOGO_BYTES = 512 * 1024;

  /**
   * One changed file with its line counts.
   *
   * @param path the path at HEAD (the old path for deletions)
   * @param oldPath the path at the base for renames and copies, else ""
   * @param added lines added (0 for binary files)
   * @param removed lines removed (0 for binary files)
   * @param binary whether git sees the file as binary (no line counts)
   */
  public record FileStat(
      String path,
      String oldPath,
      FileChange change,
      int added,
      int removed,
      boolean binary,
      Coverage coverage) {}

  /** Line totals over some files. */
  public record Lines(int files, int added, int removed) {
    static final Lines ZERO = new Lines(0, 0, 0);

    Lines plus(Lines o) {
      return new Lines(files + o.files, added + o.added, removed + o.removed);
    }

    static Lines of(List<FileStat> fs) {
      Lines l = ZERO;
      for (FileStat f : fs) {
        l = l.plus(new Lines(1, f.added(), f.removed()));
      }
      return l;
    }
  }

  /**
   * A section with the files it claims (forkdiff's precedence: sub sections before their parent).
   *
   * @param files files matched by the section's {@code globs}
   * @param ignoredFiles files matched by the section's own {@code ignore}
   * @param own totals of {@code files}
   * @param total totals of {@code files} of this section and all below it
   * @param ignoredTotal totals of {@code ignoredFiles} of this section and all below it
   */
  public record SectionReport(
      Section section,
      List<FileStat> files,
      List<FileStat> ignoredFiles,
      Lines own,
      Lines total,
      Lines ignoredTotal) {}

  public ForkReport {
    Objects.requireNonNull(spec, "spec");
    sections = List.copyOf(sections);
    undescribed = List.copyOf(undescribed);
    ignored = List.copyOf(ignored);
    problems = List.copyOf(problems);
  }

  /** Builds the report of HEAD of the repository at {@code repo}. */
  public static ForkReport build(Path repo, ForkSpec spec) throws IOException {
    return build(repo, spec, "HEAD");
  }

  /**
   * Builds the report of {@code headRev} of the repository at {@code repo} against the spec's base
   * ({@code base.hash} when it names a commit, else {@code base.ref}).
   *
   * @throws IllegalArgumentException when {@code repo} is not a git repository, {@code headRev}
   *     names no commit, or neither {@code base.hash} nor {@code base.ref} names a commit
   */
  public static ForkReport build(Path repo, ForkSpec spec, String headRev) throws IOException {
    Objects.requireNonNull(spec, "spec");
    CompiledSpec compiled = CompiledSpec.compile(spec);
    try (Repository r = GitOps.open(repo)) {
      RevCommit head = GitOps.resolveCommit(r, headRev);
      if (head == null) {
        throw new IllegalArgumentException(
            headRev + " does not name a commit in " + repo + " (empty repository?)");
      }
      RevCommit base = resolveBase(r, spec);
      Map<Section, List<FileStat>> files = new IdentityHashMap<>();
      Map<Section, List<FileStat>> ignoredBySection = new IdentityHashMap<>();
      List<FileStat> undescribed = new ArrayList<>();
      List<FileStat> topIgnored = new ArrayList<>();
      List<Glob.Subject> subjects = new ArrayList<>();
      try (GitOps.Differ differ = new GitOps.Differ(r)) {
        for (GitOps.Change c : differ.changes(base, head)) {
          Glob.Subject subject = Glob.Subject.of(c.path());
          subjects.add(subject);
          CompiledSpec.Claim claim = compiled.claim(subject);
          GitOps.Lines lines = differ.lines(c);
          FileStat stat =
              new FileStat(
                  c.path(),
                  c.oldPath(),
                  c.change(),
                  lines.added(),
                  lines.removed(),
                  lines.binary(),
                  claim.coverage());
          switch (claim.coverage()) {
            case UNDESCRIBED -> undescribed.add(stat);
            case IGNORED -> {
              if (claim.section() == null) {
                topIgnored.add(stat);
              } else {
                ignoredBySection.computeIfAbsent(claim.section(), k -> new ArrayList<>()).add(stat);
              }
            }
            case DESCRIBED ->
                files.computeIfAbsent(claim.section(), k -> new ArrayList<>()).add(stat);
          }
        }
      }
      List<Violation> problems = new ArrayList<>(compiled.problems());
      problems.addAll(compiled.staleGlobs(subjects, "changed file"));
      List<SectionReport> sections = new ArrayList<>();
      totals(spec.def(), files, ignoredBySection, sections);
      // totals() appends in post-order; reports read parents first.
      List<SectionReport> ordered = new ArrayList<>();
      Map<Section, SectionReport> bySection = new IdentityHashMap<>();
      sections.forEach(s -> bySection.put(s.section(), s));
      for (Section s : spec.sections()) {
        ordered.add(bySection.get(s));
      }
      return new ForkReport(
          spec,
          base.name(),
          head.name(),
          ordered,
          undescribed,
          topIgnored,
          logo(r, head, spec.logo()),
          problems);
    }
  }

  private static SectionReport totals(
      Section s,
      Map<Section, List<FileStat>> files,
      Map<Section, List<FileStat>> ignored,
      List<SectionReport> out) {
    List<FileStat> own = files.getOrDefault(s, List.of());
    List<FileStat> ign = ignored.getOrDefault(s, List.of());
    Lines ownLines = Lines.of(own);
    Lines total = ownLines;
    Lines ignoredTotal = Lines.of(ign);
    for (Section c : s.sub()) {
      SectionReport cr = totals(c, files, ignored, out);
      total = total.plus(cr.total());
      ignoredTotal = ignoredTotal.plus(cr.ignoredTotal());
    }
    SectionReport sr = new SectionReport(s, own, ign, ownLines, total, ignoredTotal);
    out.add(sr);
    return sr;
  }

  private static RevCommit resolveBase(Repository r, ForkSpec spec) throws IOException {
    RepoRef b =
        spec.base()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        spec.source() + " has no 'base': the report needs base.hash or base.ref"));
    Optional<String> hash = b.hashIfSet().filter(h -> FULL_HASH.matcher(h).matches());
    if (hash.isPresent()) {
      RevCommit c = GitOps.resolveCommit(r, hash.get().toLowerCase(Locale.ROOT));
      if (c != null) {
        return c;
      }
    }
    if (b.refIfSet().isPresent()) {
      RevCommit c = GitOps.resolveCommit(r, b.refIfSet().get());
      if (c != null) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "neither base.hash ('"
            + b.hash()
            + "') nor base.ref ('"
            + b.ref()
            + "') of "
            + spec.source()
            + " names a commit of the repository");
  }

  private static Optional<String> logo(Repository r, RevCommit head, String logo)
      throws IOException {
    if (logo.isBlank() || logo.contains(":")) {
      return Optional.empty();
    }
    String mime = mimeOf(logo);
    if (mime == null) {
      return Optional.empty();
    }
    String path = logo.startsWith("./") ? logo.substring(2) : logo;
    try (TreeWalk tw = TreeWalk.forPath(r, path, head.getTree())) {
      if (tw == null) {
        return Optional.empty();
      }
      ObjectLoader loader = r.open(tw.getObjectId(0));
      if (loader.getSize() > MAX_LOGO_BYTES) {
        return Optional.empty();
      }
      return Optional.of(
          "data:" + mime + ";base64," + Base64.getEncoder().encodeToString(loader.getBytes()));
    }
  }

  private static String mimeOf(String path) {
    String p = path.toLowerCase(Locale.ROOT);
    if (p.endsWith(".png")) {
      return "image/png";
    } else if (p.endsWith(".jpg") || p.endsWith(".jpeg")) {
      return "image/jpeg";
    } else if (p.endsWith(".gif")) {
      return "image/gif";
    } else if (p.endsWith(".svg")) {
      return "image/svg+xml";
    } else if (p.endsWith(".webp")) {
      return "image/webp";
    }
    return null;
  }

  /** All changed files: sections' (described and ignored), undescribed, top-level ignored. */
  public int changedFiles() {
    int n = undescribed.size() + ignored.size();
    for (SectionReport s : sections) {
      n += s.files().size() + s.ignoredFiles().size();
    }
    return n;
  }

  /** Files matched by an ignore glob (top-level or a section's own). */
  public int ignoredFiles() {
    int n = ignored.size();
    for (SectionReport s : sections) {
      n += s.ignoredFiles().size();
    }
    return n;
  }

  /** Totals over files matched by section globs (ignored and undescribed files excluded). */
  public Lines describedLines() {
    return sections.getFirst().total();
  }

  /** Totals over ignored files (top-level and sections'). */
  public Lines ignoredLines() {
    return sections.getFirst().ignoredTotal().plus(Lines.of(ignored));
  }

  /** Totals over undescribed files. */
  public Lines undescribedLines() {
    return Lines.of(undescribed);
  }

  /** Number of stale globs found while building the report. */
  public int staleGlobs() {
    return (int) problems.stream().filter(v -> v.kind() == Violation.Kind.STALE_GLOB).count();
  }

  /** The check's summary line for this diff (without upstream-ref checks). */
  public String summaryLine() {
    int changed = changedFiles();
    return CheckResult.summary(changed, changed - undescribed.size(), ignoredFiles(), staleGlobs());
  }
}
