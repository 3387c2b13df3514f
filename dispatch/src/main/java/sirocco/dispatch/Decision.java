package sirocco.dispatch;

import java.util.List;

/**
 * What a dispatch ladder chose for one call, and why each variant before it was rejected.
 *
 * @param op the op, e.g. "quantizedMatmul"
 * @param chosen the variant that runs, or null when none could
 * @param rejected the variants tried before it, each with its reason
 */
public record Decision(String op, String chosen, List<Rejection> rejected) {
  /** A variant that could not run the call, and why. */
  public record Rejection(String variant, String reason) {}

  public Decision {
    rejected = List.copyOf(rejected);
  }

  /** One line: {@code op → chosen (rejected: a: why; b: why)}. */
  public String explain() {
    StringBuilder sb =
        new StringBuilder(op).append(" -> ").append(chosen == null ? "(none)" : chosen);
    if (!rejected.isEmpty()) {
      sb.append(" (rejected: ");
      for (int i = 0; i < rejected.size(); i++) {
        Rejection r = rejected.get(i);
        sb.append(i == 0 ? "" : "; ").append(r.variant()).append(": ").append(r.reason());
      }
      sb.append(')');
    }
    return sb.toString();
  }
}
