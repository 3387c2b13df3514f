package sirocco.dispatch;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Where dispatch decisions go: printed to standard output when {@code -Dsirocco.threadInfo=true}
 * (the CLI's {@code --threadInfo}), and to every registered listener (tests, {@code --explain}
 * tools).
 */
public final class Explain {
  private static final CopyOnWriteArrayList<Consumer<Decision>> LISTENERS =
      new CopyOnWriteArrayList<>();

  private Explain() {}

  /** Reports a decision; cheap when nobody listens. */
  public static void report(Decision d) {
    if (Boolean.getBoolean("sirocco.threadInfo")) {
      System.out.println("sirocco dispatch " + d.explain());
    }
    for (Consumer<Decision> l : LISTENERS) {
      l.accept(d);
    }
  }

  /** Adds a listener; the returned handle removes it. */
  public static AutoCloseable listen(Consumer<Decision> listener) {
    LISTENERS.add(listener);
    return () -> LISTENERS.remove(listener);
  }
}
