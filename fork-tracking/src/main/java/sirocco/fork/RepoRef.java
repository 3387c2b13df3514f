package sirocco.fork;

import java.util.Optional;

/**
 * The {@code base} or {@code fork} mapping of a {@code fork.yaml}: {@code name}, {@code url},
 * {@code ref}, {@code hash}. Absent keys are empty strings.
 *
 * @param line 1-based line of the mapping's key in the spec file, 0 when unknown
 * @param hashLine 1-based line of the {@code hash} key, else {@code line}
 */
public record RepoRef(String name, String url, String ref, String hash, int line, int hashLine) {
  public RepoRef {
    name = name == null ? "" : name;
    url = url == null ? "" : url;
    ref = ref == null ? "" : ref;
    hash = hash == null ? "" : hash;
  }

  /** {@code hash}, when set. */
  public Optional<String> hashIfSet() {
    return hash.isBlank() ? Optional.empty() : Optional.of(hash.strip());
  }

  /** {@code ref}, when set. */
  public Optional<String> refIfSet() {
    return ref.isBlank() ? Optional.empty() : Optional.of(ref.strip());
  }
}
