package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large synthetic fork: 5,000 changed files (2,000 modified, 2,000 added, 1,000 deleted) in 200
 * module folders, described by 200 module sections (in 20 group sections) with 600 globs, plus a
 * top-level ignore. Asserts the check's results; measures and prints its time (recorded in
 * fork-tracking/README.md) without asserting it, since machines are noisy. The numbers are also
 * written to {@code target/fork-check-benchmark.txt}.
 */
class LargeForkBenchmarkTest {
  static final int GROUPS = 20;
  static final int MODULES_PER_GROUP = 10;

  @TempDir static Path tmp;
  static Path repoDir;
  static ObjectId baseCommit;
  static String yaml;
  static long buildMillis;

  @BeforeAll
  static void buildRepository() throws Exception {
    long t0 = System.nanoTime();
    repoDir = tmp.resolve("large");
    try (Git git = Git.init().setDirectory(repoDir.toFile()).setInitialBranch("main").call();
        ObjectInserter ins = git.getRepository().newObjectInserter()) {
      Repository repo = git.getRepository();
      TreeMap<String, byte[]> base = new TreeMap<>();
      TreeMap<String, byte[]> forked = new TreeMap<>();
      for (int g = 0; g < GROUPS; g++) {
        for (int m = 0; m < MODULES_PER_GROUP; m++) {
          String mod = "g%02d/m%02d/".formatted(g, m);
          String pkg = mod + "src/main/java/g%02d/m%02d/".formatted(g, m);
          for (int k = 0; k < 10; k++) { // modified
            String path = pkg + "Class" + k + ".java";
            base.put(path, text(path, 20));
            forked.put(
                path,
                (new String(text(path, 20), StandardCharsets.UTF_8).replace(" 5\n", " five\n")
                        + "extra\n")
                    .getBytes(StandardCharsets.UTF_8));
          }
          for (int k = 0; k < 4; k++) { // added sources
            String path = pkg + "New" + k + ".java";
            forked.put(path, text(path, 15));
          }
          for (int k = 0; k < 5; k++) { // added resources, nested
            String path = mod + "res/deep/data" + k + ".txt";
            forked.put(path, text(path, 3));
          }
          forked.put(mod + "res/blob.bin", new byte[] {0, 1, 2, (byte) g, (byte) m, 0}); // ignored
          for (int k = 0; k < 5; k++) { // deleted
            String path = mod + "old/old" + k + ".txt";
            base.put(path, text(path, 8));
          }
          for (int k = 0; k < 5; k++) { // unchanged
            String path = mod + "doc/readme" + k + ".md";
            base.put(path, text(path, 4));
            forked.put(path, text(path, 4));
          }
        }
      }
      TreeMap<String, byte[]> upstream = new TreeMap<>(base);
      upstream.put("UPSTREAM_ONLY.md", text("UPSTREAM_ONLY.md", 2));
      baseCommit = commit(ins, tree(ins, base), null, "base");
      ObjectId forkCommit = commit(ins, tree(ins, forked), baseCommit, "fork");
      ObjectId upstreamCommit = commit(ins, tree(ins, upstream), baseCommit, "upstream");
      ins.flush();
      setRef(repo, "refs/heads/main", upstreamCommit);
      setRef(repo, "refs/heads/fork", forkCommit);
      RefUpdate head = repo.updateRef(Constants.HEAD);
      head.link("refs/heads/fork");
    }
    yaml = spec(baseCommit.name());
    buildMillis = (System.nanoTime() - t0) / 1_000_000;
  }

  private static byte[] text(String path, int lines) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= lines; i++) {
      sb.append(path).append(' ').append(i).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectId tree(ObjectInserter ins, TreeMap<String, byte[]> files)
      throws IOException {
    DirCache dc = DirCache.newInCore();
    DirCacheBuilder b = dc.builder();
    for (var e : files.entrySet()) {
      DirCacheEntry entry = new DirCacheEntry(e.getKey());
      entry.setFileMode(FileMode.REGULAR_FILE);
      entry.setObjectId(ins.insert(Constants.OBJ_BLOB, e.getValue()));
      b.add(entry);
    }
    b.finish();
    return dc.writeTree(ins);
  }

  private static ObjectId commit(ObjectInserter ins, ObjectId tree, ObjectId parent, String msg)
      throws IOException {
    CommitBuilder c = new CommitBuilder();
    PersonIdent who =
        new PersonIdent(
            "Bench",
            "bench@example.org",
            java.time.Instant.ofEpochSecond(1_700_000_000L),
            java.time.ZoneOffset.UTC);
    c.setAuthor(who);
    c.setCommitter(who);
    c.setTreeId(tree);
    if (parent != null) {
      c.setParentId(parent);
    }
    c.setMessage(msg);
    return ins.insert(c);
  }

  private static void setRef(Repository repo, String name, ObjectId id) throws IOException {
    RefUpdate u = repo.updateRef(name);
    u.setNewObjectId(id);
    u.setForceUpdate(true);
    RefUpdate.Result r = u.update();
    assertTrue(r == RefUpdate.Result.NEW || r == RefUpdate.Result.FORCED, r.toString());
  }

  static String spec(String base) {
    StringBuilder sb = new StringBuilder();
    sb.append("title: Large synthetic fork\n");
    sb.append("base:\n  name: upstream\n  hash: ").append(base).append('\n');
    sb.append("def:\n  title: All changes\n  sub:\n");
    for (int g = 0; g < GROUPS; g++) {
      sb.append("    - title: Group ").append(g).append('\n');
      sb.append("      description: Modules of group ").append(g).append(".\n");
      sb.append("      sub:\n");
      for (int m = 0; m < MODULES_PER_GROUP; m++) {
        String mod = "g%02d/m%02d/".formatted(g, m);
        sb.append("        - title: Module ").append(mod).append('\n');
        sb.append("          globs:\n");
        sb.append("            - \"").append(mod).append("src/**/*.java\"\n");
        sb.append("            - \"").append(mod).append("res/**/*.{txt,json}\"\n");
        sb.append("            - \"").append(mod).append("old/old[0-9].txt\"\n");
        sb.append("          upstream:\n");
        sb.append("            - {id: upstream/project#")
            .append(1000 + g * MODULES_PER_GROUP + m)
            .append(", kind: backport}\n");
      }
    }
    sb.append("ignore:\n  - \"**/*.bin\"\n");
    return sb.toString();
  }

  @Test
  void checksFiveThousandChangedFilesAgainstTwoHundredSections() throws Exception {
    long p0 = System.nanoTime();
    ForkSpec spec = ForkSpecParser.parse(yaml, "fork.yaml");
    long parseMillis = (System.nanoTime() - p0) / 1_000_000;
    int moduleSections = GROUPS * MODULES_PER_GROUP;
    assertEquals(1 + GROUPS + moduleSections, spec.sections().size());

    long c0 = System.nanoTime();
    CheckResult first = ForkChecker.check(repoDir, spec, Optional.of("main"));
    long firstMillis = (System.nanoTime() - c0) / 1_000_000;
    assertTrue(first.ok(), first.toText());
    assertEquals(5000, first.changedFiles());
    assertEquals(5000, first.described());
    assertEquals(200, first.ignored());
    assertEquals(
        "5000 changed files, 5000 described (200 ignored), 0 stale globs", first.summaryLine());
    assertEquals(List.of(baseCommit.name()), first.mergeBases());

    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t = System.nanoTime();
      CheckResult again = ForkChecker.check(repoDir, spec, Optional.of("main"));
      best = Math.min(best, (System.nanoTime() - t) / 1_000_000);
      assertTrue(again.ok());
    }

    // The same fork with one module's resources undescribed: the check must notice.
    String broken = yaml.replace("            - \"g07/m03/res/**/*.{txt,json}\"\n", "");
    CheckResult bad =
        ForkChecker.check(repoDir, ForkSpecParser.parse(broken, "fork.yaml"), Optional.of("main"));
    assertEquals(5, bad.undescribed(), bad.summaryLine());
    assertTrue(
        bad.violations().stream().allMatch(v -> v.path().startsWith("g07/m03/res/deep/data")),
        bad.toText());

    long r0 = System.nanoTime();
    ForkReport report = ForkReport.build(repoDir, spec);
    String html = ReportRenderer.html(report);
    long reportMillis = (System.nanoTime() - r0) / 1_000_000;
    // Per module: 10 modified (+2 -1 each), 4 new sources (+15), 5 new resources (+3), 5 deleted
    // (-8): 24 files, +95 -50; the binary files are ignored.
    assertEquals(new ForkReport.Lines(4800, 19_000, 10_000), report.describedLines());
    assertEquals(200, report.ignored().size());
    assertTrue(html.length() > 100_000);

    // Once more in a fresh JVM, as the CLI runs it: JIT and class loading cold.
    Path yamlFile = tmp.resolve("fork.yaml");
    Files.writeString(yamlFile, yaml);
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            sirocco.fork.probe.ColdCheckMain.class.getName(),
            repoDir.toString(),
            yamlFile.toString(),
            "main");
    long j0 = System.nanoTime();
    Process proc = new ProcessBuilder(command).redirectErrorStream(true).start();
    proc.getOutputStream().close();
    String output = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(proc.waitFor(120, TimeUnit.SECONDS), "fresh JVM timed out");
    long processMillis = (System.nanoTime() - j0) / 1_000_000;
    assertEquals(0, proc.exitValue(), output);
    Matcher m = Pattern.compile("coldCheckMillis=(\\d+) exit=0 5000 changed files").matcher(output);
    assertTrue(m.find(), output);
    long coldMillis = Long.parseLong(m.group(1));

    String line =
        "fork check benchmark: %d changed files, %d sections (%d module sections), %d globs;"
                .formatted(
                    first.changedFiles(),
                    spec.sections().size(),
                    moduleSections,
                    3 * moduleSections + 1)
            + " check in a fresh JVM: %d ms (parse + check), %d ms for the whole process;"
                .formatted(coldMillis, processMillis)
            + " in the test JVM: first run %d ms, best of 3 warm runs %d ms; parse %d ms; report (line counts + HTML) %d ms; repository build %d ms; %d cores, Java %s"
                .formatted(
                    firstMillis,
                    best,
                    parseMillis,
                    reportMillis,
                    buildMillis,
                    Runtime.getRuntime().availableProcessors(),
                    Runtime.version());
    System.out.println(line);
    Path out = Path.of("target", "fork-check-benchmark.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, line + "\n");
  }
}
