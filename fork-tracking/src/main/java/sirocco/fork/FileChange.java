package sirocco.fork;

/**
 * How a file changed between the base and the fork (renames and copies are counted at their new
 * path).
 */
public enum FileChange {
  ADDED,
  MODIFIED,
  DELETED,
  RENAMED,
  COPIED;

  /** Lower-case word for reports and JSON. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
