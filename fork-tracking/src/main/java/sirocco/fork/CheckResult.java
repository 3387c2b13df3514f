package sirocco.fork;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of {@code fork check}: every violation (never only the first), the coverage of every
 * changed file, the counts and the summary line.
 *
 * @param source the spec file name, for messages
 * @param violations every violation, in this order: schema, malformed globs and ids, base,
 *     undescribed files (by path), stale globs (by line)
 * @param files every changed file with its coverage, by path; empty when the base was unusable
 * @param filesChecked whether the changed files could be listed (false when {@code base.hash} does
 *     not name a commit)
 * @param baseHash {@code base.hash} as written, when present
 * @param head the commit checked (HEAD), as 40 hex characters
 * @param upstreamRef the {@code --upstream-ref} given, if any
 * @param upstreamCommit the commit {@code upstreamRef} names, if given
 * @param mergeBases {@code merge-base(HEAD, upstreamRef)} (usually one commit; empty without {@code
 *     upstreamRef})
 */
public record CheckResult(
    String source,
    List<Violation> violations,
    List<FileStatus> files,
    boolean filesChecked,
    Optional<String> baseHash,
    String head,
    Optional<String> upstreamRef,
    Optional<String> upstreamCommit,
    List<String> mergeBases) {

  /**
   * One changed file and how the spec covers it.
   *
   * @param path the file's path at HEAD (its old path for deletions)
   * @param oldPath the path at the base for renames and copies, else ""
   * @param section the number of the claiming section ("" for {@code def}); empty when the file is
   *     undescribed or matched by the top-level ignore
   * @param sectionTitle that section's title, "" when none
   */
  public record FileStatus(
      String path,
      String oldPath,
      FileChange change,
      Coverage coverage,
      Optional<String> section,
      String sectionTitle) {}

  public CheckResult {
    Objects.requireNonNull(source, "source");
    violations = List.copyOf(violations);
    files = List.copyOf(files);
    mergeBases = List.copyOf(mergeBases);
  }

  /** Whether every rule holds. */
  public boolean ok() {
    return violations.isEmpty();
  }

  /** {@code 0} when {@link #ok()}, else {@code 1}. */
  public int exitCode() {
    return ok() ? 0 : 1;
  }

  /** Number of changed files (renames and copies once, deletions included). */
  public int changedFiles() {
    return files.size();
  }

  /** Changed files matched by a section glob or an ignore glob. */
  public int described() {
    return (int) files.stream().filter(f -> f.coverage() != Coverage.UNDESCRIBED).count();
  }

  /** Changed files matched by an ignore glob (a part of {@link #described()}). */
  public int ignored() {
    return count(Coverage.IGNORED);
  }

  /** Changed files matched by nothing. */
  public int undescribed() {
    return count(Coverage.UNDESCRIBED);
  }

  /** Globs matching no changed file. */
  public int staleGlobs() {
    return (int) violations.stream().filter(v -> v.kind() == Violation.Kind.STALE_GLOB).count();
  }

  private int count(Coverage c) {
    return (int) files.stream().filter(f -> f.coverage() == c).count();
  }

  /**
   * The summary line, in the seed's form: {@code 190 changed files, 190 described (12 ignored), 0
   * stale globs}. "described" counts files matched by a section or an ignore glob, so the two
   * numbers are equal exactly when no file is undescribed.
   */
  public String summaryLine() {
    if (!filesChecked) {
      boolean schema = violations.stream().anyMatch(v -> v.kind() == Violation.Kind.SCHEMA);
      return "changed files not checked: "
          + (schema ? source + " has schema errors" : "base.hash does not name a commit");
    }
    return summary(changedFiles(), described(), ignored(), staleGlobs());
  }

  static String summary(int changed, int described, int ignored, int stale) {
    return plural(changed, "changed file")
        + ", "
        + described
        + " described ("
        + ignored
        + " ignored), "
        + plural(stale, "stale glob");
  }

  private static String plural(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /**
   * What {@code fork check} prints: each violation on its own line ({@code fork.yaml:LINE: message}
   * where it has a line), then the summary line, then {@code OK} or {@code FAILED: N violations}.
   */
  public String toText() {
    StringBuilder sb = new StringBuilder();
    for (Violation v : violations) {
      sb.append(v.format(source)).append('\n');
    }
    sb.append(summaryLine()).append('\n');
    if (ok()) {
      sb.append("OK\n");
    } else {
      sb.append("FAILED: ")
          .append(violations.size())
          .append(violations.size() == 1 ? " violation" : " violations")
          .append('\n');
    }
    return sb.toString();
  }

  /** The machine-readable review status {@code fork check --json} writes (format 1). */
  public String toJson() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("format", "sirocco-fork-check/1");
    root.put("status", ok() ? "pass" : "fail");
    root.put("exitCode", exitCode());
    root.put("summary", summaryLine());
    root.put("spec", source);
    ObjectNode base = root.putObject("base");
    base.put("hash", baseHash.orElse(null));
    base.put("head", head);
    base.put("upstreamRef", upstreamRef.orElse(null));
    base.put("upstreamCommit", upstreamCommit.orElse(null));
    ArrayNode mb = base.putArray("mergeBase");
    mergeBases.forEach(mb::add);
    ObjectNode counts = root.putObject("counts");
    counts.put("filesChecked", filesChecked);
    counts.put("changed", changedFiles());
    counts.put("described", described());
    counts.put("bySections", count(Coverage.DESCRIBED));
    counts.put("ignored", ignored());
    counts.put("undescribed", undescribed());
    counts.put("staleGlobs", staleGlobs());
    counts.put("violations", violations.size());
    ArrayNode vs = root.putArray("violations");
    for (Violation v : violations) {
      ObjectNode o = vs.addObject();
      o.put("kind", v.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      o.put("message", v.message());
      if (!v.path().isEmpty()) {
        o.put("path", v.path());
      }
      if (v.line() > 0) {
        o.put("line", v.line());
      }
    }
    ArrayNode fs = root.putArray("files");
    for (FileStatus f : files) {
      ObjectNode o = fs.addObject();
      o.put("path", f.path());
      if (!f.oldPath().isEmpty()) {
        o.put("oldPath", f.oldPath());
      }
      o.put("change", f.change().word());
      o.put("coverage", f.coverage().word());
      f.section().ifPresent(s -> o.put("section", s));
      if (!f.sectionTitle().isEmpty()) {
        o.put("sectionTitle", f.sectionTitle());
      }
    }
    try {
      return mapper.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("serializing a JSON tree failed", e);
    }
  }
}
