package sirocco.fork;

import java.util.Arrays;
import java.util.Optional;

/**
 * How a fork's change relates to an upstream id (the {@code kind} of an {@code upstream} entry).
 */
public enum UpstreamKind {
  /** The upstream change applied as it is. */
  CHERRY_PICK("cherry-pick"),
  /** An upstream change adapted to the fork's older base. */
  BACKPORT("backport"),
  /** Only part of the upstream change, or its behaviour re-implemented in part. */
  PARTIAL("partial"),
  /** The fork's own change; the id is where it was proposed upstream (e.g. the fork's PR). */
  ORIGINAL("original");

  private final String yamlName;

  UpstreamKind(String yamlName) {
    this.yamlName = yamlName;
  }

  /** The spelling used in {@code fork.yaml}. */
  public String yamlName() {
    return yamlName;
  }

  /** The kind spelled {@code name} in {@code fork.yaml}, if any. */
  public static Optional<UpstreamKind> fromYaml(String name) {
    return Arrays.stream(values()).filter(k -> k.yamlName.equals(name)).findFirst();
  }

  @Override
  public String toString() {
    return yamlName;
  }
}
