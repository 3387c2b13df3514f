package sirocco.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** Reads and writes {@link BenchRecord}s as JSON, and finds the version and commit to stamp. */
public final class BenchRecords {
  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private static volatile String commit;

  private BenchRecords() {}

  /** Writes {@code r} to {@code target}, a file path or {@code -} for {@code out}. */
  public static void write(BenchRecord r, String target, PrintWriter out) {
    try {
      String text = MAPPER.writeValueAsString(r);
      if (target.equals("-")) {
        out.println(text);
        out.flush();
      } else {
        Path p = Path.of(target);
        if (p.toAbsolutePath().getParent() != null) {
          Files.createDirectories(p.toAbsolutePath().getParent());
        }
        Files.writeString(p, text + "\n", StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write the benchmark record to " + target + ": " + e.getMessage(), e);
    }
  }

  /** Reads a record; the message names the file and what is wrong. */
  public static BenchRecord read(Path p) {
    BenchRecord r;
    try {
      r = MAPPER.readValue(Files.readString(p, StandardCharsets.UTF_8), BenchRecord.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          p + " is not a readable benchmark record: " + e.getMessage(), e);
    }
    if (r == null || r.format() == null || !r.format().startsWith("sirocco-bench/")) {
      throw new IllegalArgumentException(
          p + " is not a benchmark record (format must be " + BenchRecord.FORMAT + ")");
    }
    return r;
  }

  /** Sirocco's version, from the build. */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in = BenchRecords.class.getResourceAsStream("bench-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }

  /**
   * The commit measured: {@code -Dsirocco.commit}, else {@code $SIROCCO_COMMIT} (bin/gpu-bundle
   * stamps it), else {@code git rev-parse} in the working directory, else "unknown".
   */
  public static String commit() {
    String c = commit;
    if (c == null) {
      c = System.getProperty("sirocco.commit");
      if (c == null || c.isBlank()) {
        c = System.getenv("SIROCCO_COMMIT");
      }
      if (c == null || c.isBlank()) {
        c = fromGit();
      }
      commit = c = c == null || c.isBlank() ? "unknown" : c.trim();
    }
    return c;
  }

  private static String fromGit() {
    String head = run("git", "rev-parse", "--short=12", "HEAD");
    if (head == null) {
      return null;
    }
    String status = run("git", "status", "--porcelain", "--untracked-files=no");
    return status != null && !status.isBlank() ? head + "-dirty" : head;
  }

  private static String run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      p.getErrorStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return null;
      }
      return new String(out, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
