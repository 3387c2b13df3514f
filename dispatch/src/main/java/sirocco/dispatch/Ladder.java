package sirocco.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One op's dispatch ladder: kernel variants in order of preference, each with a predicate that
 * returns why it cannot run these arguments (or null when it can). The first variant that accepts
 * runs; the {@link Decision} says which, and why every variant before it was rejected. The last
 * rung of every ladder should accept everything (the fallback), so that only bad input — rejected
 * earlier by validation — can fail.
 *
 * @param <A> the op's validated arguments
 */
public final class Ladder<A> {
  /** A variant and its support predicate ({@code null} = supported, else the reason it is not). */
  public record Rung<A>(String name, Function<A, String> rejects) {}

  private final String op;
  private final List<Rung<A>> rungs;

  public Ladder(String op, List<Rung<A>> rungs) {
    if (rungs.isEmpty()) {
      throw new IllegalArgumentException("a ladder needs at least one rung");
    }
    this.op = op;
    this.rungs = List.copyOf(rungs);
  }

  public String op() {
    return op;
  }

  /** The variant names, in order. */
  public List<String> names() {
    return rungs.stream().map(Rung::name).toList();
  }

  /** The first variant that accepts {@code args}, with the reasons of those before it. */
  public Decision choose(A args) {
    List<Decision.Rejection> rejected = new ArrayList<>();
    for (Rung<A> r : rungs) {
      String why = r.rejects().apply(args);
      if (why == null) {
        return new Decision(op, r.name(), rejected);
      }
      rejected.add(new Decision.Rejection(r.name(), why));
    }
    throw new IllegalStateException(
        op + ": no variant accepts these arguments: " + new Decision(op, null, rejected).explain());
  }

  /**
   * As {@link #choose}, restricted to {@code allowed} variants (e.g. only the fused ones); when
   * none of them accepts, throws {@link UnsupportedOperationException} listing every variant's
   * reason instead of falling back.
   */
  public Decision chooseAmong(A args, Set<String> allowed) {
    List<Decision.Rejection> rejected = new ArrayList<>();
    for (Rung<A> r : rungs) {
      if (!allowed.contains(r.name())) {
        rejected.add(new Decision.Rejection(r.name(), "not allowed (forced choice)"));
        continue;
      }
      String why = r.rejects().apply(args);
      if (why == null) {
        return new Decision(op, r.name(), rejected);
      }
      rejected.add(new Decision.Rejection(r.name(), why));
    }
    throw new UnsupportedOperationException(
        op
            + ": none of "
            + allowed
            + " can run these arguments: "
            + new Decision(op, null, rejected).explain());
  }
}
