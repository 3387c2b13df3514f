package sirocco.fork;

import java.util.Objects;

/**
 * One glob of a {@code globs} or {@code ignore} list, with the line of {@code fork.yaml} it is on.
 *
 * @param pattern the glob as written (doublestar syntax)
 * @param line 1-based line in the spec file, 0 when unknown (a spec built in code)
 */
public record GlobEntry(String pattern, int line) {
  public GlobEntry {
    Objects.requireNonNull(pattern, "pattern");
  }
}
