package sirocco.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes command results as JSON for machines ({@code --json FILE}, or {@code -} for standard
 * output).
 */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static void write(String target, Object value, java.io.PrintWriter out) {
    try {
      String text = MAPPER.writeValueAsString(value);
      if (target.equals("-")) {
        out.println(text);
      } else {
        Path p = Path.of(target);
        if (p.getParent() != null) {
          Files.createDirectories(p.getParent());
        }
        Files.writeString(p, text + "\n");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write JSON to " + target + ": " + e.getMessage(), e);
    }
  }
}
