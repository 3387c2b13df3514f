package sirocco.dispatch;

/** A {@code true|false} system property that overrides a policy, read at every call. */
public final class BooleanProperty {
  private BooleanProperty() {}

  /**
   * {@code -Dname}'s value, or {@code unset} when it is absent or blank.
   *
   * @throws IllegalArgumentException naming the property when it is neither true nor false
   */
  public static boolean get(String name, boolean unset) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      return unset;
    }
    return switch (v.strip()) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "-D" + name + " must be true or false, got '" + v + "'");
    };
  }
}
