package sirocco.cli;

import sirocco.Backend;
import sirocco.Sirocco;

/** Opens Sirocco on the backend the user asked for with --backend, else the best available. */
final class Backends {
  private Backends() {}

  static Sirocco open() {
    String b = System.getProperty("sirocco.backend");
    if (b == null || b.isBlank()) {
      return Sirocco.open();
    }
    return switch (b.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "java" -> Sirocco.open(Backend.JAVA);
      case "cuda" -> Sirocco.open(Backend.CUDA);
      default ->
          throw new IllegalArgumentException("--backend must be java or cuda, got '" + b + "'");
    };
  }
}
