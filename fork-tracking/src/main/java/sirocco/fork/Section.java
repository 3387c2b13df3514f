package sirocco.fork;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A section of a {@code fork.yaml}: {@code title}, {@code description} (Markdown), {@code globs},
 * {@code ignore}, {@code sub} sections and Sirocco's {@code upstream} ids.
 *
 * @param number the section's position, "" for {@code def}, "2" for its second sub section, "2.1"
 *     for that one's first, ...
 * @param line 1-based line where the section's mapping starts, 0 when unknown
 */
public record Section(
    String title,
    String description,
    List<GlobEntry> globs,
    List<GlobEntry> ignore,
    List<UpstreamRef> upstream,
    List<Section> sub,
    String number,
    int line) {
  public Section {
    title = title == null ? "" : title;
    description = description == null ? "" : description;
    globs = List.copyOf(globs);
    ignore = List.copyOf(ignore);
    upstream = List.copyOf(upstream);
    sub = List.copyOf(sub);
    Objects.requireNonNull(number, "number");
  }

  /** Depth below {@code def}: 0 for {@code def}, 1 for its sub sections, ... */
  public int depth() {
    return number.isEmpty() ? 0 : (int) number.chars().filter(c -> c == '.').count() + 1;
  }

  /** A name for messages: the number and the title, e.g. {@code section 2.1 "Completion"}. */
  public String displayName() {
    String where = number.isEmpty() ? "def" : "section " + number;
    return title.isBlank() ? where : where + " \"" + title.strip() + "\"";
  }

  /** This section and all below it, parents before children (document order). */
  public List<Section> preOrder() {
    List<Section> out = new ArrayList<>();
    walk(this, out::add, true);
    return out;
  }

  /**
   * This section and all below it, children before parents: the order in which forkdiff lets
   * sections claim files (a file goes to the first section in this order whose globs match).
   */
  public List<Section> postOrder() {
    List<Section> out = new ArrayList<>();
    walk(this, out::add, false);
    return out;
  }

  private static void walk(Section s, Consumer<Section> visit, boolean pre) {
    if (pre) {
      visit.accept(s);
    }
    for (Section c : s.sub) {
      walk(c, visit, pre);
    }
    if (!pre) {
      visit.accept(s);
    }
  }
}
