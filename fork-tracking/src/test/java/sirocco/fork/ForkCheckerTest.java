package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForkCheckerTest {
  @TempDir static Path tmp;
  static SampleFork fork;

  @BeforeAll
  static void setUp() throws Exception {
    fork = new SampleFork(tmp.resolve("repo"));
  }

  @AfterAll
  static void tearDown() {
    fork.close();
  }

  private static CheckResult check(String yaml, Optional<String> upstream) throws Exception {
    return ForkChecker.check(fork.dir(), ForkSpecParser.parse(yaml, "fork.yaml"), upstream);
  }

  private static List<Violation> ofKind(CheckResult r, Violation.Kind kind) {
    return r.violations().stream().filter(v -> v.kind() == kind).toList();
  }

  private static String text(CheckResult r) {
    return r.toText();
  }

  @Test
  void allDescribedPasses() throws Exception {
    CheckResult r = check(fork.yaml(fork.u2.name()), Optional.of("main"));
    assertTrue(r.ok(), r.toText());
    assertEquals(0, r.exitCode());
    assertEquals("7 changed files, 7 described (2 ignored), 0 stale globs", r.summaryLine());
    assertEquals(List.of(fork.u2.name()), r.mergeBases());
    assertEquals(fork.f2.name(), r.head());
    assertEquals(Optional.of(fork.u3.name()), r.upstreamCommit());
    assertTrue(
        r.toText().endsWith("7 changed files, 7 described (2 ignored), 0 stale globs\nOK\n"));
    // Every changed file, with how it changed and who claims it.
    String table =
        r.files().stream()
            .map(
                f ->
                    f.path()
                        + " "
                        + f.change().word()
                        + (f.oldPath().isEmpty() ? "" : "<" + f.oldPath())
                        + " "
                        + f.coverage().word()
                        + " "
                        + f.section().orElse("-"))
            .collect(Collectors.joining("\n"));
    assertEquals(
        """
        assets/data.bin added ignored 3
        docs/guide.md deleted described 3
        go.sum modified ignored -
        lib/new_name.c renamed<lib/old_name.c described 2
        src/core/b.c modified described 2
        src/gpu/kernel.cu added described 1
        src/gpu/nested/deep/x.cu added described 1""",
        table);
  }

  @Test
  void passesWithoutUpstreamRefToo() throws Exception {
    CheckResult r = check(fork.yaml(fork.u2.name()), Optional.empty());
    assertTrue(r.ok(), r.toText());
    assertEquals(List.of(), r.mergeBases());
  }

  @Test
  void undescribedFileFailsNamingIt() throws Exception {
    String yaml = fork.yaml(fork.u2.name()).replace("        - \"lib/*.c\"\n", "");
    CheckResult r = check(yaml, Optional.of("main"));
    assertEquals(1, r.exitCode());
    List<Violation> v = ofKind(r, Violation.Kind.UNDESCRIBED);
    assertEquals(1, v.size(), text(r));
    assertEquals("lib/new_name.c", v.getFirst().path());
    assertEquals(
        "changed file 'lib/new_name.c' (renamed from 'lib/old_name.c') matches no section glob and"
            + " no ignore glob",
        v.getFirst().message());
    assertEquals("7 changed files, 6 described (2 ignored), 0 stale globs", r.summaryLine());
    assertTrue(text(r).contains("FAILED: 1 violation"), text(r));
  }

  @Test
  void deletionsMustBeDescribed() throws Exception {
    String yaml = fork.yaml(fork.u2.name()).replace("\"docs/**\"", "\"docs/*.txt\"");
    CheckResult r = check(yaml, Optional.empty());
    assertEquals(1, r.exitCode());
    assertEquals(
        List.of("docs/guide.md"),
        ofKind(r, Violation.Kind.UNDESCRIBED).stream().map(Violation::path).toList());
    assertTrue(ofKind(r, Violation.Kind.UNDESCRIBED).getFirst().message().contains("(deleted)"));
    // The replacement glob matches nothing changed: stale too.
    assertEquals(1, r.staleGlobs(), text(r));
  }

  @Test
  void renamesCountAtTheirNewPathOnly() throws Exception {
    String yaml = fork.yaml(fork.u2.name()).replace("\"lib/*.c\"", "\"lib/old_name.c\"");
    CheckResult r = check(yaml, Optional.empty());
    assertEquals(
        List.of("lib/new_name.c"),
        ofKind(r, Violation.Kind.UNDESCRIBED).stream().map(Violation::path).toList());
    List<Violation> stale = ofKind(r, Violation.Kind.STALE_GLOB);
    assertEquals(1, stale.size(), text(r));
    assertEquals(
        "glob 'lib/old_name.c' of section 2 \"Core fixes\" matches no changed file",
        stale.getFirst().message());
    assertEquals(22, stale.getFirst().line());
  }

  @Test
  void staleGlobFailsWithItsLine() throws Exception {
    String yaml =
        fork.yaml(fork.u2.name())
            .replace(
                "        - \"src/gpu/**\"\n",
                "        - \"src/gpu/**\"\n        - \"src/cuda/**/*.cu\"\n");
    CheckResult r = check(yaml, Optional.of("main"));
    assertEquals(1, r.exitCode());
    assertEquals(1, r.violations().size(), text(r));
    Violation v = r.violations().getFirst();
    assertEquals(Violation.Kind.STALE_GLOB, v.kind());
    assertEquals(17, v.line());
    assertTrue(
        text(r)
            .contains(
                "fork.yaml:17: glob 'src/cuda/**/*.cu' of section 1 \"GPU backend\" matches no"
                    + " changed file"),
        text(r));
    assertEquals("7 changed files, 7 described (2 ignored), 1 stale glob", r.summaryLine());
  }

  @Test
  void staleIgnoreGlobsAreReportedToo() throws Exception {
    String yaml = fork.yaml(fork.u2.name()) + "  - \"**/*.lock\"\n";
    CheckResult r = check(yaml, Optional.empty());
    assertEquals(1, r.staleGlobs(), text(r));
    assertTrue(
        ofKind(r, Violation.Kind.STALE_GLOB)
            .getFirst()
            .message()
            .equals("ignore glob '**/*.lock' (top-level ignore) matches no changed file"));
  }

  @Test
  void shadowedGlobIsNotStale() throws Exception {
    // 'src/gpu/kernel.cu' in the parent is shadowed by the sub section's 'src/gpu/**' (sub
    // sections claim first) but still matches a changed file: not stale.
    String yaml =
        fork.yaml(fork.u2.name())
            .replace(
                "  description: Everything the fork changes.\n",
                "  description: Everything the fork changes.\n  globs: [\"src/gpu/kernel.cu\"]\n");
    CheckResult r = check(yaml, Optional.empty());
    assertTrue(r.ok(), text(r));
    assertEquals(
        Optional.of("1"),
        r.files().stream()
            .filter(f -> f.path().equals("src/gpu/kernel.cu"))
            .findFirst()
            .orElseThrow()
            .section());
  }

  @Test
  void ignoreRules() throws Exception {
    // Top-level ignore wins over sections; a section's own ignore counts as ignored; sections
    // claim children-first (forkdiff), and a section's ignore is tried before its globs.
    String yaml =
        """
        base: {hash: %s}
        def:
          globs: ["**"]
          sub:
            - title: Kernels
              globs: ["src/gpu/**"]
              ignore: ["src/gpu/nested/**"]
        ignore: ["**/*.bin", "go.sum"]
        """
            .formatted(fork.u2.name());
    CheckResult r = check(yaml, Optional.of("main"));
    assertTrue(r.ok(), text(r));
    assertEquals(3, r.ignored());
    assertEquals("7 changed files, 7 described (3 ignored), 0 stale globs", r.summaryLine());
    var byPath = r.files().stream().collect(Collectors.toMap(CheckResult.FileStatus::path, f -> f));
    assertEquals(Coverage.IGNORED, byPath.get("assets/data.bin").coverage());
    assertEquals(Optional.empty(), byPath.get("assets/data.bin").section());
    assertEquals(Coverage.IGNORED, byPath.get("src/gpu/nested/deep/x.cu").coverage());
    assertEquals(Optional.of("1"), byPath.get("src/gpu/nested/deep/x.cu").section());
    assertEquals(Coverage.DESCRIBED, byPath.get("src/gpu/kernel.cu").coverage());
    assertEquals(Optional.of("1"), byPath.get("src/gpu/kernel.cu").section());
    assertEquals(Optional.of(""), byPath.get("src/core/b.c").section()); // def's "**"
  }

  @Test
  void ignoredFilesDoNotNeedASection() throws Exception {
    String yaml =
        """
        base: {hash: %s}
        def:
          globs: ["src/**", "lib/**", "docs/**"]
        ignore: ["assets/**", "*.sum"]
        """
            .formatted(fork.u2.name());
    CheckResult r = check(yaml, Optional.empty());
    assertTrue(r.ok(), text(r));
    assertEquals(2, r.ignored());
  }

  @Test
  void baseNotHex() throws Exception {
    CheckResult r = check(fork.yaml("not-a-hash-at-all"), Optional.of("main"));
    assertEquals(1, r.exitCode());
    Violation v = ofKind(r, Violation.Kind.BASE).getFirst();
    assertEquals(
        "base.hash 'not-a-hash-at-all' is not a commit id of 40 hex characters (it has 17"
            + " characters, not all hex)",
        v.message());
    assertEquals(6, v.line());
    assertFalse(r.filesChecked());
    assertEquals("changed files not checked: base.hash does not name a commit", r.summaryLine());
  }

  @Test
  void baseAbbreviated() throws Exception {
    CheckResult r = check(fork.yaml(fork.u2.name().substring(0, 12)), Optional.empty());
    assertEquals(1, r.exitCode());
    assertTrue(
        ofKind(r, Violation.Kind.BASE)
            .getFirst()
            .message()
            .contains("is not a commit id of 40 hex characters (it has 12 characters)"),
        text(r));
  }

  @Test
  void baseUnknownCommit() throws Exception {
    String hash = "0123456789abcdef0123456789abcdef01234567";
    CheckResult r = check(fork.yaml(hash), Optional.empty());
    assertEquals(1, r.exitCode());
    assertEquals(
        "base.hash "
            + hash
            + " names no commit of the repository (is the upstream history"
            + " fetched?)",
        ofKind(r, Violation.Kind.BASE).getFirst().message());
  }

  @Test
  void baseNamesATree() throws Exception {
    CheckResult r = check(fork.yaml(fork.u2.getTree().name()), Optional.empty());
    assertEquals(
        "base.hash " + fork.u2.getTree().name() + " names a tree, not a commit",
        ofKind(r, Violation.Kind.BASE).getFirst().message());
  }

  @Test
  void baseNotMergeBase() throws Exception {
    // u1 is an ancestor of both HEAD and main, but the fork started at u2.
    CheckResult r = check(fork.yaml(fork.u1.name()), Optional.of("main"));
    assertEquals(1, r.exitCode());
    List<Violation> base = ofKind(r, Violation.Kind.BASE);
    assertEquals(1, base.size(), text(r));
    assertEquals(
        "base.hash "
            + fork.u1.name()
            + " is not merge-base(HEAD, main) = "
            + fork.u2.name()
            + " (base.hash is older: the fork has merged newer upstream commits since); set"
            + " base.hash to "
            + fork.u2.name(),
        base.getFirst().message());
    // The diff is still taken from u1 (it names a commit): it also holds upstream's src/core/a.c.
    assertTrue(r.filesChecked());
    assertEquals(8, r.changedFiles());
  }

  @Test
  void baseNotAncestorOfUpstream() throws Exception {
    // f1 is a fork commit: in HEAD's history but not upstream's.
    CheckResult r = check(fork.yaml(fork.f1.name()), Optional.of("main"));
    List<String> msgs = ofKind(r, Violation.Kind.BASE).stream().map(Violation::message).toList();
    assertEquals(2, msgs.size(), text(r));
    assertEquals(
        "base.hash "
            + fork.f1.name()
            + " is not an ancestor of upstream ref 'main' ("
            + fork.u3.name()
            + "): it is not an upstream commit",
        msgs.get(0));
    assertTrue(msgs.get(1).contains("is not merge-base(HEAD, main) = " + fork.u2.name()));
  }

  @Test
  void baseNotAncestorOfHead() throws Exception {
    // u3 came after the fork point: the fork does not contain it.
    CheckResult r = check(fork.yaml(fork.u3.name()), Optional.empty());
    List<Violation> base = ofKind(r, Violation.Kind.BASE);
    assertEquals(1, base.size(), text(r));
    assertEquals(
        "base.hash "
            + fork.u3.name()
            + " is not an ancestor of HEAD ("
            + fork.f2.name()
            + "): the fork's history does not contain its base",
        base.getFirst().message());
  }

  @Test
  void baseMissing() throws Exception {
    CheckResult r =
        check("base: {name: x, ref: refs/heads/main}\ndef: {globs: ['**']}\n", Optional.empty());
    assertEquals(
        "base.hash is missing: base.ref 'refs/heads/main' moves, so pin the commit: set base.hash"
            + " to merge-base(HEAD, upstream)",
        ofKind(r, Violation.Kind.BASE).getFirst().message());
    CheckResult none = check("def: {globs: ['**']}\n", Optional.empty());
    assertTrue(
        ofKind(none, Violation.Kind.BASE)
            .getFirst()
            .message()
            .startsWith("no 'base' in fork.yaml"));
  }

  @Test
  void uppercaseHashIsAccepted() throws Exception {
    CheckResult r = check(fork.yaml(fork.u2.name().toUpperCase()), Optional.of("main"));
    assertTrue(r.ok(), text(r));
  }

  @Test
  void malformedUpstreamIdsAndGlobsAreAllListed() throws Exception {
    String yaml =
        fork.yaml(fork.u2.name())
            .replace("upstream/project#12", "project#12")
            .replace("0123abc", "xyz")
            .replace("\"docs/**\"", "\"docs/[**\"");
    CheckResult r = check(yaml, Optional.of("main"));
    assertEquals(1, r.exitCode());
    List<Violation> ids = ofKind(r, Violation.Kind.MALFORMED_UPSTREAM);
    assertEquals(List.of(18, 24), ids.stream().map(Violation::line).toList(), text(r));
    assertTrue(ids.getFirst().message().startsWith("upstream id 'project#12' of section 1"));
    List<Violation> globs = ofKind(r, Violation.Kind.INVALID_GLOB);
    assertEquals(1, globs.size());
    assertEquals(27, globs.getFirst().line());
    // ... and the file the broken glob was meant for is undescribed: listed as well.
    assertEquals(
        List.of("docs/guide.md"),
        ofKind(r, Violation.Kind.UNDESCRIBED).stream().map(Violation::path).toList());
  }

  @Test
  void everyViolationIsListedNeverOnlyTheFirst() throws Exception {
    String yaml =
        fork.yaml(fork.u1.name())
            .replace("0123abc", "not an id")
            .replace("        - \"lib/*.c\"\n", "        - \"lib/gone/*.c\"\n")
            .replace("\"*.sum\"", "\"*.lock\"");
    CheckResult r = check(yaml, Optional.of("main"));
    var kinds = r.violations().stream().map(Violation::kind).toList();
    assertEquals(
        List.of(
            Violation.Kind.MALFORMED_UPSTREAM,
            Violation.Kind.BASE,
            Violation.Kind.UNDESCRIBED,
            Violation.Kind.UNDESCRIBED,
            Violation.Kind.STALE_GLOB,
            Violation.Kind.STALE_GLOB),
        kinds,
        text(r));
    assertTrue(text(r).contains("FAILED: 6 violations"));
  }

  @Test
  void jsonReviewStatus() throws Exception {
    String yaml = fork.yaml(fork.u2.name()).replace("        - \"lib/*.c\"\n", "");
    CheckResult r = check(yaml, Optional.of("main"));
    JsonNode json = new ObjectMapper().readTree(r.toJson());
    assertEquals("sirocco-fork-check/1", json.get("format").asText());
    assertEquals("fail", json.get("status").asText());
    assertEquals(1, json.get("exitCode").asInt());
    assertEquals(r.summaryLine(), json.get("summary").asText());
    assertEquals(fork.u2.name(), json.at("/base/hash").asText());
    assertEquals(fork.f2.name(), json.at("/base/head").asText());
    assertEquals("main", json.at("/base/upstreamRef").asText());
    assertEquals(fork.u2.name(), json.at("/base/mergeBase/0").asText());
    assertEquals(7, json.at("/counts/changed").asInt());
    assertEquals(6, json.at("/counts/described").asInt());
    assertEquals(4, json.at("/counts/bySections").asInt());
    assertEquals(2, json.at("/counts/ignored").asInt());
    assertEquals(1, json.at("/counts/undescribed").asInt());
    assertEquals(0, json.at("/counts/staleGlobs").asInt());
    assertEquals("undescribed", json.at("/violations/0/kind").asText());
    assertEquals("lib/new_name.c", json.at("/violations/0/path").asText());
    JsonNode renamed = json.at("/files/3");
    assertEquals("lib/new_name.c", renamed.get("path").asText());
    assertEquals("lib/old_name.c", renamed.get("oldPath").asText());
    assertEquals("renamed", renamed.get("change").asText());
    assertEquals("undescribed", renamed.get("coverage").asText());
    assertEquals("GPU backend", json.at("/files/5/sectionTitle").asText());
    assertEquals("1", json.at("/files/5/section").asText());

    JsonNode ok =
        new ObjectMapper().readTree(check(fork.yaml(fork.u2.name()), Optional.empty()).toJson());
    assertEquals("pass", ok.get("status").asText());
    assertEquals(0, ok.get("violations").size());
  }

  @Test
  void checkFileTurnsSchemaErrorsIntoViolations() throws Exception {
    Path yaml = tmp.resolve("bad-fork.yaml");
    Files.writeString(
        yaml,
        fork.yaml(fork.u2.name())
            .replace("      globs:\n        - \"docs/**\"", "      glob:\n        - \"docs/**\""));
    CheckResult r = ForkChecker.checkFile(fork.dir(), yaml, Optional.empty());
    assertEquals(1, r.exitCode());
    assertEquals(1, r.violations().size(), text(r));
    assertEquals(26, r.violations().getFirst().line());
    assertTrue(
        text(r)
            .startsWith("bad-fork.yaml:26: unknown key 'glob' in section 3; did you mean 'globs'?"),
        text(r));
    assertEquals("changed files not checked: bad-fork.yaml has schema errors", r.summaryLine());

    Path good = tmp.resolve("fork.yaml");
    Files.writeString(good, fork.yaml(fork.u2.name()));
    assertEquals(0, ForkChecker.checkFile(fork.dir(), good, Optional.of("main")).exitCode());
  }

  @Test
  void packedRepositoryGivesTheSameResult() throws Exception {
    try (SampleFork packed = new SampleFork(tmp.resolve("packed"))) {
      packed.repo.git.gc().setAggressive(true).call();
      try (var objects = Files.list(packed.dir().resolve(".git/objects/pack"))) {
        assertTrue(objects.anyMatch(p -> p.toString().endsWith(".pack")));
      }
      CheckResult r = ForkChecker.check(packed.dir(), packed.spec(), Optional.of("main"));
      assertTrue(r.ok(), text(r));
      assertEquals("7 changed files, 7 described (2 ignored), 0 stale globs", r.summaryLine());
      ForkReport report = ForkReport.build(packed.dir(), packed.spec());
      assertEquals(new ForkReport.Lines(5, 14, 7), report.describedLines());
    }
  }

  @Test
  void worksFromASubdirectoryOfTheWorkTree() throws Exception {
    CheckResult r =
        ForkChecker.check(fork.dir().resolve("src/gpu"), fork.spec(), Optional.of("main"));
    assertTrue(r.ok(), text(r));
  }

  @Test
  void badArgumentsAreIllegalArgumentExceptions() throws Exception {
    Path notRepo = Files.createDirectories(tmp.resolve("plain"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ForkChecker.check(notRepo, fork.spec(), Optional.empty()));
    assertTrue(e.getMessage().contains("not a git repository"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ForkChecker.check(fork.dir(), fork.spec(), Optional.of("no-such-branch")));
    assertTrue(e.getMessage().contains("upstream ref 'no-such-branch' does not name a commit"));
    assertThrows(
        IllegalArgumentException.class,
        () -> ForkChecker.check(tmp.resolve("missing"), fork.spec(), Optional.empty()));
    try (TestRepo empty = TestRepo.create(tmp.resolve("empty"))) {
      e =
          assertThrows(
              IllegalArgumentException.class,
              () -> ForkChecker.check(empty.dir, fork.spec(), Optional.empty()));
      assertTrue(e.getMessage().contains("empty repository"), e.getMessage());
    }
  }
}
