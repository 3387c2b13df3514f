package sirocco.cli;

import sirocco.Backend;
import sirocco.Sirocco;
import sirocco.runtime.Device;
import sirocco.runtime.Devices;

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

  /** The runtime device for commands that measure the runtime itself (bench, exit-variants). */
  static Device device() {
    String b = System.getProperty("sirocco.backend");
    if (b == null || b.isBlank()) {
      return Devices.best().device();
    }
    return switch (b.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "java" -> Devices.java();
      case "cuda" -> Devices.cuda(0);
      default ->
          throw new IllegalArgumentException("--backend must be java or cuda, got '" + b + "'");
    };
  }
}
