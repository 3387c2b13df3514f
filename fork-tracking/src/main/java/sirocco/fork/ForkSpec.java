package sirocco.fork;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed {@code fork.yaml} (or provenance file): the forkdiff schema plus Sirocco's optional
 * {@code upstream} lists.
 *
 * @param source the file name the spec was read from, for messages
 * @param title page title, empty when absent
 * @param logo logo path (relative to the repository) or address, empty when absent
 * @param footer footer Markdown, empty when absent
 * @param base the upstream the fork starts from; {@code base.hash} is what {@code fork check} uses
 * @param fork the fork itself
 * @param def the root section
 * @param ignore top-level ignore globs: files matching them are listed greyed and count as ignored
 */
public record ForkSpec(
    String source,
    String title,
    String logo,
    String footer,
    Optional<RepoRef> base,
    Optional<RepoRef> fork,
    Section def,
    List<GlobEntry> ignore) {
  public ForkSpec {
    source = source == null ? "fork.yaml" : source;
    title = title == null ? "" : title;
    logo = logo == null ? "" : logo;
    footer = footer == null ? "" : footer;
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(fork, "fork");
    Objects.requireNonNull(def, "def");
    ignore = List.copyOf(ignore);
  }

  /** All sections, parents before children (document order), {@code def} first. */
  public List<Section> sections() {
    return def.preOrder();
  }
}
