package sirocco.fork;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of a section's {@code upstream} list (a Sirocco addition that forkdiff ignores).
 *
 * <p>Well-formed ids are a commit ({@code 7} to {@code 40} hex characters), a pull request or issue
 * ({@code owner/repo#N}), or a commit of a named repository ({@code owner/repo@HEX}).
 *
 * @param id the upstream id as written
 * @param kind how the fork's change relates to it
 * @param note free text, empty when absent
 * @param line 1-based line of the entry in the spec file, 0 when unknown
 */
public record UpstreamRef(String id, UpstreamKind kind, String note, int line) {
  private static final String OWNER = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})";
  private static final String REPO = "(?!\\.{1,2}(?:[#@]|$))[A-Za-z0-9._-]{1,100}";
  private static final Pattern COMMIT = Pattern.compile("[0-9a-fA-F]{7,40}");
  private static final Pattern PULL =
      Pattern.compile("(" + OWNER + ")/(" + REPO + ")#([1-9][0-9]{0,9})");
  private static final Pattern REPO_COMMIT =
      Pattern.compile("(" + OWNER + ")/(" + REPO + ")@([0-9a-fA-F]{7,40})");

  public UpstreamRef {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    note = note == null ? "" : note;
  }

  /** Whether {@code id} is well-formed (see the class comment). */
  public boolean isWellFormed() {
    return wellFormed(id);
  }

  /** Whether {@code id} is a well-formed upstream id. */
  public static boolean wellFormed(String id) {
    return COMMIT.matcher(id).matches()
        || PULL.matcher(id).matches()
        || REPO_COMMIT.matcher(id).matches();
  }

  /** A web address for the id on GitHub, when it names a repository. */
  public Optional<String> githubUrl() {
    Matcher m = PULL.matcher(id);
    if (m.matches()) {
      return Optional.of(
          "https://github.com/" + m.group(1) + "/" + m.group(2) + "/issues/" + m.group(3));
    }
    m = REPO_COMMIT.matcher(id);
    if (m.matches()) {
      return Optional.of(
          "https://github.com/" + m.group(1) + "/" + m.group(2) + "/commit/" + m.group(3));
    }
    return Optional.empty();
  }
}
