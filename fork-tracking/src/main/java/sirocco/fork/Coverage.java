package sirocco.fork;

/** How a changed file is accounted for by the spec. */
public enum Coverage {
  /** Matched by a section's {@code globs}. */
  DESCRIBED,
  /** Matched by the top-level {@code ignore} or a section's {@code ignore}. */
  IGNORED,
  /** Matched by nothing: a violation. */
  UNDESCRIBED;

  /** Lower-case word for reports and JSON. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
