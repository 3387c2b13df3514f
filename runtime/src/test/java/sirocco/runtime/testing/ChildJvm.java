package sirocco.runtime.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class in a fresh JVM with this JVM's class path, for tests that need JVM flags. */
public final class ChildJvm {
  /** How a child ended: exit status (-1 when it was killed after the timeout), stdout, stderr. */
  public record Result(int exitCode, boolean timedOut, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit "
          + exitCode
          + (timedOut ? " (timed out)" : "")
          + "\n--- stdout ---\n"
          + stdout
          + "--- stderr ---\n"
          + stderr;
    }
  }

  private ChildJvm() {}

  public static Result run(
      List<String> jvmOptions, Class<?> main, List<String> args, long timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Path out = java.nio.file.Files.createTempFile("sirocco-child", ".out");
    Path err = java.nio.file.Files.createTempFile("sirocco-child", ".err");
    try {
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!finished) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      return new Result(
          finished ? p.exitValue() : -1,
          !finished,
          java.nio.file.Files.readString(out, StandardCharsets.UTF_8),
          java.nio.file.Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      java.nio.file.Files.deleteIfExists(out);
      java.nio.file.Files.deleteIfExists(err);
    }
  }
}
