package sirocco.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import sirocco.api.KernelContext;

/**
 * End to end through the CLI's entry point (picocli parsing, exit codes, files written): {@code
 * fork check} and {@code fork report} on a real git repository built with JGit, and {@code ptx} on
 * a kernel class compiled at test time into a folder that is not on the class path.
 */
class ForkAndPtxCliTest {
  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TornadoCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * An upstream commit and a fork branch on top of it.
   *
   * <pre>
   * main: u1 (README.md, src/a.c)
   * fork:   f1: src/a.c modified (+1), gpu/k.cu added (+3)
   * </pre>
   *
   * The fork file lives outside the repository, so it is not itself a changed file.
   */
  private static final class Fork implements AutoCloseable {
    final Path repo;
    final Path forkYaml;
    final Git git;
    final RevCommit base;
    private int tick;

    Fork(Path dir) throws Exception {
      repo = dir.resolve("repo");
      forkYaml = dir.resolve("fork.yaml");
      git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call();
      var config = git.getRepository().getConfig();
      config.setBoolean("commit", null, "gpgsign", false);
      config.save();
      write("README.md", "readme\n");
      write("src/a.c", "a 1\na 2\n");
      base = commit("upstream: initial");
      git.checkout().setCreateBranch(true).setName("fork").call();
      write("src/a.c", "a 1\na 2\na 3\n");
      write("gpu/k.cu", "k 1\nk 2\nk 3\n");
      commit("fork: gpu kernel, a.c fix");
      Files.writeString(
          forkYaml,
          """
          title: CLI fork
          base:
            name: upstream/project
            url: https://example.org/upstream
            ref: refs/heads/main
            hash: %s
          fork:
            name: us/project
          def:
            title: CLI fork changes
            sub:
              - title: Core fixes
                globs:
                  - "src/*.c"
              - title: GPU kernels
                globs:
                  - "gpu/**"
          """
              .formatted(base.name()));
    }

    void write(String path, String content) throws IOException {
      Path p = repo.resolve(path);
      Files.createDirectories(p.getParent());
      Files.writeString(p, content);
    }

    RevCommit commit(String message) throws Exception {
      git.add().addFilepattern(".").call();
      PersonIdent who =
          new PersonIdent(
              "Test",
              "test@example.org",
              Instant.ofEpochSecond(1_700_000_000L + tick++ * 60),
              ZoneOffset.UTC);
      return git.commit()
          .setMessage(message)
          .setAuthor(who)
          .setCommitter(who)
          .setSign(false)
          .call();
    }

    @Override
    public void close() {
      git.close();
    }
  }

  @Test
  void forkCheckPassesWhenEveryFileIsDescribedAndWritesJson(@TempDir Path dir) throws Exception {
    try (Fork f = new Fork(dir)) {
      Path json = dir.resolve("out/check.json");
      Run r =
          run(
              "fork",
              "check",
              "--repo",
              f.repo.toString(),
              "--fork",
              f.forkYaml.toString(),
              "--json",
              json.toString());
      assertEquals(0, r.code(), r.out() + r.err());
      assertEquals(
          List.of("2 changed files, 2 described (0 ignored), 0 stale globs", "OK"),
          r.out().strip().lines().toList());
      JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
      assertEquals("sirocco-fork-check/1", doc.get("format").asText());
      assertEquals("pass", doc.get("status").asText());
      assertEquals(0, doc.get("exitCode").asInt());
      assertEquals(
          "2 changed files, 2 described (0 ignored), 0 stale globs", doc.get("summary").asText());
      assertEquals(f.base.name(), doc.get("base").get("hash").asText());
      JsonNode counts = doc.get("counts");
      assertEquals(2, counts.get("changed").asInt());
      assertEquals(2, counts.get("described").asInt());
      assertEquals(0, counts.get("undescribed").asInt());
      assertEquals(0, counts.get("violations").asInt());
      assertEquals(0, doc.get("violations").size());
      List<String> files = new ArrayList<>();
      for (JsonNode file : doc.get("files")) {
        files.add(
            file.get("path").asText()
                + " "
                + file.get("change").asText()
                + " "
                + file.get("coverage").asText()
                + " "
                + file.get("sectionTitle").asText());
      }
      assertEquals(
          List.of("gpu/k.cu added described GPU kernels", "src/a.c modified described Core fixes"),
          files.stream().sorted().toList());
    }
  }

  @Test
  void forkCheckFailsListingTheUndescribedFile(@TempDir Path dir) throws Exception {
    try (Fork f = new Fork(dir)) {
      f.write("tools/run.sh", "echo run\n");
      f.commit("fork: a script nobody described");
      Path json = dir.resolve("check.json");
      Run r =
          run(
              "fork",
              "check",
              "--repo",
              f.repo.toString(),
              "--fork",
              f.forkYaml.toString(),
              "--json",
              json.toString());
      assertEquals(1, r.code(), r.out() + r.err());
      assertEquals(
          List.of(
              "changed file 'tools/run.sh' (added) matches no section glob and no ignore glob",
              "3 changed files, 2 described (0 ignored), 0 stale globs",
              "FAILED: 1 violation"),
          r.out().strip().lines().toList());
      JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
      assertEquals("fail", doc.get("status").asText());
      assertEquals(1, doc.get("exitCode").asInt());
      assertEquals(3, doc.get("counts").get("changed").asInt());
      assertEquals(1, doc.get("counts").get("undescribed").asInt());
      JsonNode v = doc.get("violations").get(0);
      assertEquals("undescribed", v.get("kind").asText());
      assertEquals("tools/run.sh", v.get("path").asText());
    }
  }

  @Test
  void forkReportWritesWellFormedHtmlWithTheSections(@TempDir Path dir) throws Exception {
    try (Fork f = new Fork(dir)) {
      Path html = dir.resolve("report/index.html");
      Run r =
          run(
              "fork",
              "report",
              "--repo",
              f.repo.toString(),
              "--fork",
              f.forkYaml.toString(),
              "--format",
              "html",
              "--out",
              html.toString());
      assertEquals(0, r.code(), r.out() + r.err());
      assertEquals("", r.out(), "the report goes to --out, not stdout");
      String text = Files.readString(html);
      assertTrue(text.startsWith("<!DOCTYPE html>\n<html lang=\"en\">"), text);
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      factory.setExpandEntityReferences(false);
      // Well-formed: parsing as XML fails on any unclosed or misnested element.
      Document d =
          factory
              .newDocumentBuilder()
              .parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
      XPath xp = XPathFactory.newInstance().newXPath();
      assertEquals(List.of("CLI fork"), strings(xp, d, "/html/head/title"));
      assertEquals(
          List.of("2 changed files, 2 described (0 ignored), 0 stale globs"),
          strings(xp, d, "//p[@id='summary']"));
      assertEquals(
          List.of("CLI fork changes", "1 Core fixes", "2 GPU kernels"),
          strings(xp, d, "//section/*[self::h2 or self::h3]/text()").stream()
              .map(String::strip)
              .toList());
      assertEquals(List.of("#def", "#s-1", "#s-2"), strings(xp, d, "//nav//a/@href"));
      assertEquals(List.of("src/a.c"), strings(xp, d, "//section[@id='s-1']//tr/@data-path"));
      assertEquals(List.of("gpu/k.cu"), strings(xp, d, "//section[@id='s-2']//tr/@data-path"));
    }
  }

  private static List<String> strings(XPath xp, Document d, String expr) throws Exception {
    NodeList nodes = (NodeList) xp.evaluate(expr, d, XPathConstants.NODESET);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent());
    }
    return out;
  }

  @Test
  void ptxCompilesAUserKernelFromTheClassPathOption(@TempDir Path dir) throws Exception {
    Path classes =
        compileUserKernels(
            dir,
            """
            package usr;

            import sirocco.api.KernelContext;

            public final class UserKernels {
              private UserKernels() {}

              public static void addOne(KernelContext ctx, float[] a, int n) {
                int i = ctx.globalIdx;
                if (i < n) {
                  a[i] = a[i] + 1f;
                }
              }
            }
            """);

    // Not on the test class path: without --class-path the class is not found.
    Run without = run("ptx", "usr.UserKernels::addOne");
    assertEquals(2, without.code(), without.out());
    assertTrue(without.err().contains("class usr.UserKernels not found"), without.err());

    Run r = run("ptx", "usr.UserKernels::addOne", "--class-path", classes.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains(".target sm_90"), r.out());
    assertTrue(
        Pattern.compile("\\.entry UserKernels_addOne_[0-9a-f]+\\(").matcher(r.out()).find(),
        r.out());
    // The kernel's one float addition, with Java's rounding and no fused multiply-add.
    assertTrue(r.out().contains("add.rn.f32"), r.out());
    assertFalse(r.out().contains("fma"), r.out());
  }

  /** Compiles {@code source} (class usr.UserKernels) against kernel-api; returns the classes. */
  private static Path compileUserKernels(Path dir, String source) throws Exception {
    Path src = dir.resolve("src/usr/UserKernels.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, source);
    Path classes = dir.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "the tests need a JDK (javax.tools compiler)");
    // kernel-api as the tests see it: its jar, or its classes folder in a reactor build.
    String api =
        Path.of(KernelContext.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    StringWriter log = new StringWriter();
    boolean compiled =
        javac
            .getTask(
                log,
                null,
                null,
                List.of("-parameters", "-classpath", api, "-d", classes.toString(), "-Xlint:none"),
                null,
                javac
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(src))
            .call();
    assertTrue(compiled, log.toString());
    assertTrue(Files.isRegularFile(classes.resolve("usr/UserKernels.class")));
    return classes;
  }

  @Test
  void ptxResourcesAddTheDynamicSharedMemoryPtxasDoesNotSee(@TempDir Path dir) throws Exception {
    Path classes =
        compileUserKernels(
            dir,
            """
            package usr;

            import sirocco.api.KernelContext;

            public final class UserKernels {
              private UserKernels() {}

              public static void big(KernelContext ctx, float[] a, int[] b) {
                float[] f = ctx.allocateFloatLocalArray(12 * 1024); // 48 KiB
                int[] k = ctx.allocateIntLocalArray(12 * 1024); // 48 KiB more
                int t = ctx.localIdx;
                f[t] = a[t];
                k[t] = b[t];
                ctx.localBarrier();
                a[t] = f[255 - t];
                b[t] = k[255 - t];
              }
            }
            """);
    for (String arch : List.of("sm_80", "sm_90")) {
      Run r =
          run(
              "ptx",
              "usr.UserKernels::big",
              "--class-path",
              classes.toString(),
              "--arch",
              arch,
              "--resources");
      assertEquals(0, r.code(), r.err());
      assertTrue(r.out().contains(".extern .shared .align 16 .b8 dsmem[];"), r.out());
      assertTrue(
          Pattern.compile(
                  "// resources \\("
                      + arch
                      + "\\): \\d+ registers, .*, 0 B shared \\(\\+ 98304 B"
                      + " dynamic\\)\n")
              .matcher(r.out())
              .find(),
          r.out());
    }
  }
}
