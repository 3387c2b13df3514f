package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The suite runs on the class path; this runs one check in a fresh JVM with {@code sirocco.fork}
 * and its dependencies on the module path, so that a missing {@code requires} (JGit is an automatic
 * module and declares none) fails the build.
 */
class ModulePathTest {
  @TempDir Path tmp;

  @Test
  void checkRunsWithTheModuleOnTheModulePath() throws Exception {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> modulePath = new ArrayList<>();
    String testClasses = null;
    for (String entry : cp.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (p.endsWith("test-classes")) {
        testClasses = entry;
      } else if (p.endsWith("classes")
          || (entry.endsWith(".jar")
              && !entry.contains("junit")
              && !entry.contains("opentest4j")
              && !entry.contains("apiguardian"))) {
        modulePath.add(entry);
      }
    }
    assertTrue(testClasses != null && modulePath.size() > 3, cp);
    try (SampleFork fork = new SampleFork(tmp.resolve("repo"))) {
      fork.repo.git.gc().call(); // packed, with bitmaps, as real repositories are
      Path yaml = tmp.resolve("fork.yaml");
      Files.writeString(yaml, fork.yaml(fork.u2.name()));
      List<String> command =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "--module-path",
              String.join(File.pathSeparator, modulePath),
              "--add-modules",
              "sirocco.fork",
              "-cp",
              testClasses,
              sirocco.fork.probe.ColdCheckMain.class.getName(),
              fork.dir().toString(),
              yaml.toString(),
              "main");
      Process proc = new ProcessBuilder(command).redirectErrorStream(true).start();
      proc.getOutputStream().close();
      String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(proc.waitFor(120, TimeUnit.SECONDS), "timed out");
      assertEquals(0, proc.exitValue(), out);
      assertTrue(
          out.contains(
              "exit=0 7 changed files, 7 described (2 ignored), 0 stale globs [module sirocco.fork]"),
          out);
    }
  }
}
