package sirocco.fork;

import java.util.Objects;

/**
 * One reason a check fails.
 *
 * @param kind what kind of problem
 * @param message a complete sentence for people, naming the file, glob, id or hash concerned
 * @param path the changed or tracked file concerned, empty when none
 * @param line the 1-based line of the spec file concerned, 0 when none
 */
public record Violation(Kind kind, String message, String path, int line) {
  /** Kinds of violation. */
  public enum Kind {
    /** The spec file is not valid YAML or does not follow the schema (unknown key, wrong type). */
    SCHEMA,
    /** A glob is malformed (unclosed '[' or '{', ...). */
    INVALID_GLOB,
    /** An upstream id is not a commit, {@code owner/repo#N} or {@code owner/repo@HEX}. */
    MALFORMED_UPSTREAM,
    /** {@code base} is missing, malformed, unknown, or not where it should be in the history. */
    BASE,
    /** A changed file matches no section glob and no ignore glob. */
    UNDESCRIBED,
    /** A glob matches no changed file (check) or no tracked file (provenance). */
    STALE_GLOB,
    /** A provenance section with globs has no upstream id, on itself or an enclosing section. */
    MISSING_UPSTREAM
  }

  public Violation {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    path = path == null ? "" : path;
  }

  /** {@code message}, prefixed with {@code source:line: } when the violation has a line. */
  public String format(String source) {
    return line > 0 ? source + ":" + line + ": " + message : message;
  }
}
