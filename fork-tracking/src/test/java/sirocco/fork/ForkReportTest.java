package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import sirocco.fork.ForkReport.FileStat;
import sirocco.fork.ForkReport.Lines;
import sirocco.fork.ForkReport.SectionReport;

class ForkReportTest {
  @TempDir static Path tmp;
  static SampleFork fork;
  static ForkReport report;

  @BeforeAll
  static void setUp() throws Exception {
    fork = new SampleFork(tmp.resolve("repo"));
    report = ForkReport.build(fork.dir(), fork.spec());
  }

  @AfterAll
  static void tearDown() {
    fork.close();
  }

  private static String stat(FileStat f) {
    return f.path()
        + (f.oldPath().isEmpty() ? "" : "<" + f.oldPath())
        + " "
        + f.change().word()
        + " "
        + (f.binary() ? "binary" : "+" + f.added() + " -" + f.removed())
        + (f.coverage() == Coverage.IGNORED ? " ignored" : "");
  }

  private static String stats(List<FileStat> files) {
    return files.stream().map(ForkReportTest::stat).collect(Collectors.joining("\n"));
  }

  @Test
  void linesPerFileAndPerSection() {
    assertEquals(fork.u2.name(), report.baseCommit());
    assertEquals(fork.f2.name(), report.headCommit());
    List<SectionReport> s = report.sections();
    assertEquals(List.of("", "1", "2", "3"), s.stream().map(x -> x.section().number()).toList());
    assertEquals(
        """
        src/gpu/kernel.cu added +8 -0
        src/gpu/nested/deep/x.cu added +2 -0""",
        stats(s.get(1).files()));
    assertEquals(
        """
        lib/new_name.c<lib/old_name.c renamed +1 -1
        src/core/b.c modified +3 -2""",
        stats(s.get(2).files()));
    assertEquals("docs/guide.md deleted +0 -4", stats(s.get(3).files()));
    assertEquals("assets/data.bin added binary ignored", stats(s.get(3).ignoredFiles()));
    assertEquals("go.sum modified +1 -0 ignored", stats(report.ignored()));
    assertEquals(List.of(), report.undescribed());

    assertEquals(new Lines(2, 10, 0), s.get(1).total());
    assertEquals(new Lines(2, 4, 3), s.get(2).own());
    assertEquals(new Lines(1, 0, 4), s.get(3).total());
    assertEquals(new Lines(1, 0, 0), s.get(3).ignoredTotal());
    assertEquals(new Lines(0, 0, 0), s.get(0).own());
    assertEquals(new Lines(5, 14, 7), s.get(0).total()); // def: all sections below it
    assertEquals(new Lines(5, 14, 7), report.describedLines());
    assertEquals(new Lines(2, 1, 0), report.ignoredLines());
    assertEquals(7, report.changedFiles());
    assertEquals("7 changed files, 7 described (2 ignored), 0 stale globs", report.summaryLine());
    assertEquals(List.of(), report.problems());
  }

  @Test
  void undescribedFilesAreListedAsOtherChanges() throws Exception {
    String yaml = fork.yaml(fork.u2.name()).replace("        - \"lib/*.c\"\n", "");
    ForkReport r = ForkReport.build(fork.dir(), ForkSpecParser.parse(yaml, "fork.yaml"));
    assertEquals("lib/new_name.c<lib/old_name.c renamed +1 -1", stats(r.undescribed()));
    String md = ReportRenderer.markdown(r);
    assertTrue(md.contains("## Other changes (undescribed)"), md);
    String html = ReportRenderer.html(r);
    assertTrue(html.contains("<section class=\"fork-section undescribed\" id=\"undescribed\">"));
  }

  @Test
  void baseRefIsUsedWhenThereIsNoHash() throws Exception {
    String yaml =
        fork.yaml("").replace("  hash: \n", "").replace("refs/heads/main", fork.u2.name());
    ForkReport r = ForkReport.build(fork.dir(), ForkSpecParser.parse(yaml, "fork.yaml"));
    assertEquals(fork.u2.name(), r.baseCommit());
    String bad = fork.yaml("").replace("  hash: \n", "").replace("refs/heads/main", "nope");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ForkReport.build(fork.dir(), ForkSpecParser.parse(bad, "fork.yaml")));
    assertTrue(e.getMessage().contains("names a commit"), e.getMessage());
  }

  @Test
  void markdown() {
    String md = ReportRenderer.markdown(report);
    assertTrue(md.startsWith("# Test fork\n\n"), md);
    assertTrue(
        md.contains(
            "- **Base:** [upstream/project](https://example.org/upstream) `"
                + fork.u2.name()
                + "` (`refs/heads/main`)\n"),
        md);
    assertTrue(
        md.contains("- **Summary:** 7 changed files, 7 described (2 ignored), 0 stale globs"));
    assertTrue(md.contains("- **Lines:** +14 −7 in described files; +1 −0 ignored\n"), md);
    // Sections in order, with heading levels by depth and totals.
    int def = md.indexOf("## Test fork changes (+14 −7)");
    int gpu = md.indexOf("### 1 GPU backend (+10 −0)");
    int core = md.indexOf("### 2 Core fixes (+4 −3)");
    int docs = md.indexOf("### 3 Docs and data (+0 −4)");
    assertTrue(def > 0 && def < gpu && gpu < core && core < docs, md);
    assertTrue(md.contains("New **GPU** kernels, see [the PR](https://example.org/pr/12)."));
    assertTrue(
        md.contains(
            "- [`upstream/project#12`](https://github.com/upstream/project/issues/12) (backport) —"
                + " from v2\n"),
        md);
    assertTrue(md.contains("- `0123abc` (cherry-pick)\n"), md);
    assertTrue(md.contains("| `src/gpu/kernel.cu` | added | 8 | 0 |\n"), md);
    assertTrue(md.contains("| `lib/old_name.c` → `lib/new_name.c` | renamed | 1 | 1 |\n"), md);
    assertTrue(md.contains("| `docs/guide.md` | deleted | 0 | 4 |\n"), md);
    assertTrue(md.contains("| _`assets/data.bin`_ | _added, ignored_ | binary | binary |\n"), md);
    assertTrue(md.contains("## Ignored changes\n\n| File | Change | + | − |"), md);
    assertTrue(md.contains("| _`go.sum`_ | _modified, ignored_ | 1 | 0 |\n"), md);
  }

  private static Document parseXml(String html) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
    f.setExpandEntityReferences(false);
    return f.newDocumentBuilder()
        .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
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
  void htmlIsWellFormedSelfContainedAndStructured() throws Exception {
    String html = ReportRenderer.html(report);
    assertTrue(html.startsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
    Document d = parseXml(html); // well-formed XML, so every element is closed
    XPath xp = XPathFactory.newInstance().newXPath();
    // Self-contained: no scripts, no stylesheets or other fetched resources.
    assertEquals(List.of(), strings(xp, d, "//script | //link | //iframe | //object | //embed"));
    for (String src : strings(xp, d, "//@src")) {
      assertTrue(src.startsWith("data:"), src);
    }
    String css = strings(xp, d, "//style").getFirst();
    assertFalse(css.contains("url("), css);
    assertFalse(css.contains("@import"), css);
    assertEquals("Test fork", strings(xp, d, "/html/head/title").getFirst());
    assertEquals(
        "7 changed files, 7 described (2 ignored), 0 stale globs",
        strings(xp, d, "//p[@id='summary']").getFirst());
    // Sections nest as in the spec, in order.
    assertEquals(
        List.of("def", "s-1", "s-2", "s-3"),
        strings(xp, d, "//section[contains(@class,'fork-section')]/@id").stream()
            .filter(id -> !id.equals("ignored"))
            .toList());
    assertEquals(List.of("s-1", "s-2", "s-3"), strings(xp, d, "//section[@id='def']/section/@id"));
    assertEquals(
        List.of("Test fork changes", "1 GPU backend", "2 Core fixes", "3 Docs and data"),
        strings(xp, d, "//section/*[self::h2 or self::h3]/text()").stream()
            .map(String::strip)
            .filter(t -> !t.startsWith("Ignored"))
            .toList());
    // Description Markdown, upstream ids.
    assertEquals(
        "GPU", strings(xp, d, "//section[@id='s-1']/div[@class='description']//strong").getFirst());
    assertEquals(
        List.of("https://example.org/pr/12"),
        strings(xp, d, "//section[@id='s-1']/div[@class='description']//a/@href"));
    assertEquals(
        List.of("https://github.com/upstream/project/issues/12"),
        strings(xp, d, "//section[@id='s-1']/ul[@class='upstream']//a/@href"));
    assertEquals(
        List.of("backport", "cherry-pick"),
        strings(xp, d, "//ul[@class='upstream']//span[@class='kind']"));
    // Files with counts; ignored rows greyed through their class.
    assertEquals(
        List.of("+8", "−0"),
        strings(xp, d, "//tr[@data-path='src/gpu/kernel.cu']/td[contains(@class,'num')]"));
    assertEquals(
        List.of("binary"),
        strings(xp, d, "//tr[@data-path='assets/data.bin']/td[contains(@class,'binary')]"));
    assertEquals(
        List.of("assets/data.bin", "go.sum"),
        strings(xp, d, "//tr[contains(concat(' ',@class,' '),' ignored ')]/@data-path"));
    assertTrue(css.contains("tr.ignored"), css);
    Element renamed =
        (Element) xp.evaluate("//tr[@data-path='lib/new_name.c']", d, XPathConstants.NODE);
    assertTrue(renamed.getTextContent().contains("lib/old_name.c"));
    // Table of contents links every section.
    assertEquals(
        List.of("#def", "#s-1", "#s-2", "#s-3", "#ignored"), strings(xp, d, "//nav//a/@href"));
  }

  @Test
  void htmlEscapesEverythingFromTheSpec() throws Exception {
    String yaml =
        fork.yaml(fork.u2.name())
            .replace("title: Test fork\n", "title: \"<script>alert(1)</script> & co\"\n")
            .replace(
                "description: Everything the fork changes.",
                "description: \"<img src=x onerror=alert(1)> [x](javascript:alert(1)) ![i](http://example.org/i.png)\"");
    ForkReport r = ForkReport.build(fork.dir(), ForkSpecParser.parse(yaml, "fork.yaml"));
    String html = ReportRenderer.html(r);
    Document d = parseXml(html);
    XPath xp = XPathFactory.newInstance().newXPath();
    assertEquals(List.of(), strings(xp, d, "//script | //img"));
    assertEquals("<script>alert(1)</script> & co", strings(xp, d, "/html/head/title").getFirst());
    assertFalse(html.contains("javascript:"), html);
    // The image becomes a link: nothing is loaded.
    assertEquals(
        List.of("http://example.org/i.png"),
        strings(xp, d, "//section[@id='def']/div[@class='description']//a/@href"));
  }

  @Test
  void logoIsEmbeddedFromTheRepository() throws Exception {
    try (TestRepo repo = TestRepo.create(tmp.resolve("logo-repo"))) {
      repo.write("a.txt", "a\n");
      var base = repo.commit("base");
      repo.write("logo.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"1\"/>")
          .write("a.txt", "a\nb\n");
      repo.commit("fork");
      String yaml =
          "title: L\nlogo: logo.svg\nbase: {hash: %s}\ndef: {globs: ['*']}\n"
              .formatted(base.name());
      ForkReport r = ForkReport.build(repo.dir, ForkSpecParser.parse(yaml, "fork.yaml"));
      assertTrue(r.logoDataUri().orElseThrow().startsWith("data:image/svg+xml;base64,"));
      assertTrue(ReportRenderer.html(r).contains("<img class=\"logo\" alt=\"logo\" src=\"data:"));
      // An address is never fetched or linked as an asset.
      String remote = yaml.replace("logo.svg", "https://example.org/logo.png");
      ForkReport rr = ForkReport.build(repo.dir, ForkSpecParser.parse(remote, "fork.yaml"));
      assertEquals(Optional.empty(), rr.logoDataUri());
      assertFalse(ReportRenderer.html(rr).contains("example.org/logo.png"));
    }
  }

  @Test
  void formatNames() {
    assertEquals(ReportRenderer.Format.MD, ReportRenderer.Format.parse("md"));
    assertEquals(ReportRenderer.Format.HTML, ReportRenderer.Format.parse("HTML"));
    assertThrows(IllegalArgumentException.class, () -> ReportRenderer.Format.parse("pdf"));
    assertEquals(
        ReportRenderer.html(report), ReportRenderer.render(report, ReportRenderer.Format.HTML));
  }

  /**
   * Renders the HTML in headless Chromium where one is installed (Debian's {@code chromium});
   * skipped elsewhere. The structural test above always runs.
   */
  @Test
  void rendersInHeadlessChromiumWhereAvailable() throws Exception {
    Optional<Path> chromium =
        List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome").stream()
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst();
    Assumptions.assumeTrue(chromium.isPresent(), "no Chromium installed");
    Path page = tmp.resolve("report.html");
    Files.writeString(page, ReportRenderer.html(report));
    Path shot = tmp.resolve("report.png");
    Path profile = Files.createDirectories(tmp.resolve("chromium-profile"));
    List<String> common =
        List.of(
            chromium.get().toString(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--user-data-dir=" + profile,
            "--blink-settings=imagesEnabled=true");
    List<String> dump = new ArrayList<>(common);
    dump.add("--dump-dom");
    dump.add(page.toUri().toString());
    String dom = run(dump);
    assertTrue(dom.contains("id=\"summary\""), dom);
    assertTrue(dom.contains("7 changed files, 7 described (2 ignored), 0 stale globs"), dom);
    assertTrue(dom.contains("src/gpu/nested/deep/x.cu"), dom);
    List<String> screenshot = new ArrayList<>(common);
    screenshot.add("--window-size=1200,1600");
    screenshot.add("--screenshot=" + shot);
    screenshot.add(page.toUri().toString());
    run(screenshot);
    assertTrue(Files.size(shot) > 10_000, "screenshot of " + Files.size(shot) + " bytes");
    Path keep = Path.of("target", "fork-report-screenshot.png");
    Files.createDirectories(keep.getParent());
    Files.copy(shot, keep, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static String run(List<String> command) throws Exception {
    Path err = Files.createTempFile(tmp, "chromium", ".err");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "chromium timed out");
    assertEquals(0, p.exitValue(), Files.readString(err));
    return new String(out, StandardCharsets.UTF_8);
  }
}
