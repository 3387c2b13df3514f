package sirocco.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.runtime.testing.RequiresCuda;

/**
 * A consumer program ({@link ConsumerApp}) run against Sirocco's built modules, both as a named
 * module on the module path and on the class path: it opens Sirocco, round-trips a tensor, writes
 * and launches its own kernel through the public kernel API, and runs causal attention. It fails if
 * the program needs anything Sirocco does not export (the Java version of a dependent build that
 * broke on unexported internals), or if the JVM prints any warning, such as the one for a
 * restricted FFM method called from a module the documented {@code --enable-native-access} flag
 * leaves out.
 *
 * <p>{@code -Dsirocco.forceJava=true} skips the driver lookup, so the runs without it are the ones
 * that exercise the flag: here (no GPU) the lookup fails and the program falls back to Java; on the
 * GPU machine {@link ConsumerGpuTest} reaches the CUDA driver and cuDNN.
 */
class ConsumerTest {
  /** The flag README.md documents for the module path. */
  static final String MODULE_PATH_ACCESS = "--enable-native-access=sirocco.runtime,sirocco";

  static final String CLASS_PATH_ACCESS = "--enable-native-access=ALL-UNNAMED";

  private static ConsumerApp.Built consumer;
  @TempDir static Path scratch;

  @BeforeAll
  static void compile() throws IOException {
    consumer = ConsumerApp.obtain(scratch.resolve("consumer"));
  }

  record Result(String out, String err) {}

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static Result run(boolean modulePath, List<String> jvmOptions, String mode)
      throws IOException, InterruptedException {
    return run(consumer, scratch, modulePath, jvmOptions, mode);
  }

  /**
   * Runs {@code consumer} with {@code jvmOptions} and the program argument {@code mode}; asserts it
   * ended in time with status 0.
   */
  static Result run(
      ConsumerApp.Built consumer,
      Path scratch,
      boolean modulePath,
      List<String> jvmOptions,
      String mode)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(jvmOptions);
    List<Path> path = new ArrayList<>(ConsumerApp.siroccoModules());
    if (modulePath) {
      path.add(consumer.module());
      cmd.addAll(List.of("--module-path", ConsumerApp.join(path), "-m", "consumer/consumer.Main"));
    } else {
      path.add(consumer.classes());
      cmd.addAll(List.of("-cp", ConsumerApp.join(path), "consumer.Main"));
    }
    cmd.add(mode);
    // Files, not pipes: a chatty child cannot block on a full pipe the test is not reading.
    Path out = Files.createTempFile(scratch, "out", ".txt");
    Path err = Files.createTempFile(scratch, "err", ".txt");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    boolean done = p.waitFor(180, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    Result r = new Result(Files.readString(out), Files.readString(err));
    System.out.println(
        "$ " + String.join(" ", cmd) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err);
    assertTrue(done, "consumer timed out after 180 s:\n" + r.out + r.err);
    assertEquals(0, p.exitValue(), "consumer failed:\n" + r.out + r.err);
    return r;
  }

  static void assertCleanRunOn(String backend, Result r) {
    assertTrue(r.out.contains("consumer OK on " + backend), r.out);
    assertEquals("", r.err.strip(), "no warnings or errors on stderr");
  }

  // ---- the Java backend forced: no native code at all ----

  @Test
  void onTheModulePathWithJavaForced() throws Exception {
    assertCleanRunOn(
        "JAVA", run(true, List.of(MODULE_PATH_ACCESS, "-Dsirocco.forceJava=true"), "auto"));
  }

  @Test
  void onTheClassPathWithJavaForced() throws Exception {
    assertCleanRunOn(
        "JAVA", run(false, List.of(CLASS_PATH_ACCESS, "-Dsirocco.forceJava=true"), "auto"));
  }

  // ---- the default choice: the CUDA driver is looked up through FFM first ----

  /** What Sirocco.open() must choose here, checked against the test JVM's own driver lookup. */
  private static void assertDefaultChoice(Result r) {
    String why = RequiresCuda.unavailableReason();
    if (why == null) {
      assertCleanRunOn("CUDA", r);
    } else {
      assertCleanRunOn("JAVA", r);
      assertTrue(r.out.contains("no usable CUDA device"), "fell back after the lookup: " + r.out);
    }
  }

  @Test
  void onTheModulePathAfterTheDriverLookup() throws Exception {
    assertDefaultChoice(run(true, List.of(MODULE_PATH_ACCESS), "auto"));
  }

  @Test
  void onTheClassPathAfterTheDriverLookup() throws Exception {
    assertDefaultChoice(run(false, List.of(CLASS_PATH_ACCESS), "auto"));
  }

  /**
   * The runs above can catch a wrong flag only if the driver lookup calls a restricted method even
   * where no driver exists: leave {@code sirocco.runtime} out and the JDK must warn.
   */
  @Test
  void theDriverLookupWarnsWhenTheRuntimeLacksNativeAccess() throws Exception {
    Result r = run(true, List.of("--enable-native-access=sirocco"), "auto");
    assertTrue(r.err.contains("restricted method"), r.err);
    assertTrue(r.err.contains("--enable-native-access=sirocco.runtime to avoid"), r.err);
  }
}
