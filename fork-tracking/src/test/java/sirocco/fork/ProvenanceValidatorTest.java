package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProvenanceValidatorTest {
  @TempDir Path tmp;

  private static final String GOOD =
      """
      title: Provenance
      def:
        title: Ported behaviour
        sub:
          - title: Completion worker busy loop
            globs: ["runtime/src/**/CompletionWorker.java"]
            upstream:
              - {id: ml-explore/mlx#4452, kind: partial, note: re-implemented in Java}
          - title: Caches
            upstream:
              - {id: ml-explore/mlx#4661, kind: partial}
            sub:
              - title: LRU consecutive misses
                globs: ["runtime/src/**/Lru*.java"]
      """;

  private TestRepo repoWithFiles() throws Exception {
    TestRepo repo = TestRepo.create(tmp.resolve("repo"));
    repo.write("runtime/src/main/java/x/CompletionWorker.java", "class A {}\n")
        .write("runtime/src/main/java/x/LruCache.java", "class B {}\n")
        .write("runtime/src/main/java/x/Other.java", "class C {}\n")
        .write("README.md", "r\n");
    repo.commit("files");
    return repo;
  }

  private static List<Violation.Kind> kinds(ProvenanceResult r) {
    return r.violations().stream().map(Violation::kind).toList();
  }

  @Test
  void validFileAgainstTrackedFiles() throws Exception {
    try (TestRepo repo = repoWithFiles()) {
      ProvenanceResult r =
          ProvenanceValidator.validate(repo.dir, ForkSpecParser.parse(GOOD, "PROVENANCE.yaml"));
      assertTrue(r.ok(), r.toText());
      assertEquals(0, r.exitCode());
      assertEquals(
          "4 sections, 2 upstream ids, 2 of 4 tracked files described, 0 stale globs",
          r.summaryLine());
      assertEquals(List.of("runtime/src/main/java/x/LruCache.java"), r.sections().get(3).files());
    }
  }

  @Test
  void staleGlobIsAViolationWithItsLine() throws Exception {
    try (TestRepo repo = repoWithFiles()) {
      repo.delete("runtime/src/main/java/x/LruCache.java"); // deleted on disk, still in the index
      ProvenanceResult r =
          ProvenanceValidator.validate(repo.dir, ForkSpecParser.parse(GOOD, "PROVENANCE.yaml"));
      assertEquals(List.of(Violation.Kind.STALE_GLOB), kinds(r), r.toText());
      assertEquals(14, r.violations().getFirst().line());
      assertTrue(
          r.toText()
              .contains(
                  "PROVENANCE.yaml:14: glob 'runtime/src/**/Lru*.java' of section 2.1 \"LRU"
                      + " consecutive misses\" matches no tracked file"),
          r.toText());
      assertEquals(1, r.exitCode());
    }
  }

  @Test
  void stagedFilesCountUntrackedDoNot() throws Exception {
    try (TestRepo repo = repoWithFiles()) {
      String spec = GOOD.replace("Lru*.java", "Staged*.java");
      repo.write("runtime/src/main/java/x/StagedThing.java", "class S {}\n");
      ProvenanceResult untracked =
          ProvenanceValidator.validate(repo.dir, ForkSpecParser.parse(spec, "P.yaml"));
      assertEquals(List.of(Violation.Kind.STALE_GLOB), kinds(untracked));
      repo.git.add().addFilepattern("runtime").call();
      ProvenanceResult staged =
          ProvenanceValidator.validate(repo.dir, ForkSpecParser.parse(spec, "P.yaml"));
      assertTrue(staged.ok(), staged.toText());
    }
  }

  @Test
  void sectionsWithGlobsNeedUpstreamIds() throws Exception {
    String spec =
        GOOD.replace(
            "      upstream:\n        - {id: ml-explore/mlx#4452, kind: partial, note:"
                + " re-implemented in Java}\n",
            "");
    ProvenanceResult r =
        ProvenanceValidator.validate(
            ForkSpecParser.parse(spec, "P.yaml"),
            List.of("runtime/src/main/java/x/CompletionWorker.java", "runtime/src/LruCache.java"));
    assertEquals(List.of(Violation.Kind.MISSING_UPSTREAM), kinds(r), r.toText());
    assertEquals(
        "section 1 \"Completion worker busy loop\" has globs but no upstream id (on itself or an"
            + " enclosing section): say where the behaviour comes from",
        r.violations().getFirst().message());
    assertEquals(5, r.violations().getFirst().line());
  }

  @Test
  void baseIsNotAllowedAndIdsMustBeWellFormed() {
    String spec =
        "base: {name: x, hash: 0123456789abcdef0123456789abcdef01234567}\n"
            + GOOD.replace("ml-explore/mlx#4661", "mlx#4661")
                .replace("ml-explore/mlx#4452", "JuliaGPU/GPUToolbox.jl");
    ProvenanceResult r =
        ProvenanceValidator.validate(
            ForkSpecParser.parse(spec, "P.yaml"),
            List.of("runtime/src/main/java/x/CompletionWorker.java", "runtime/src/LruCache.java"));
    assertEquals(
        List.of(
            Violation.Kind.MALFORMED_UPSTREAM,
            Violation.Kind.MALFORMED_UPSTREAM,
            Violation.Kind.BASE),
        kinds(r),
        r.toText());
  }

  @Test
  void validateFileReportsSchemaErrorsAsViolations() throws Exception {
    try (TestRepo repo = repoWithFiles()) {
      Path file = tmp.resolve("PROVENANCE.yaml");
      Files.writeString(file, GOOD.replace("    - title: Caches", "    - titel: Caches"));
      ProvenanceResult r = ProvenanceValidator.validateFile(repo.dir, file);
      assertEquals(List.of(Violation.Kind.SCHEMA), kinds(r), r.toText());
      assertEquals(9, r.violations().getFirst().line());
    }
  }

  @Test
  void json() throws Exception {
    try (TestRepo repo = repoWithFiles()) {
      ProvenanceResult r =
          ProvenanceValidator.validate(repo.dir, ForkSpecParser.parse(GOOD, "PROVENANCE.yaml"));
      JsonNode json = new ObjectMapper().readTree(r.toJson());
      assertEquals("pass", json.get("status").asText());
      assertEquals("1", json.at("/sections/1/section").asText());
      assertEquals("ml-explore/mlx#4452", json.at("/sections/1/upstream/0/id").asText());
      assertEquals(
          "runtime/src/main/java/x/CompletionWorker.java", json.at("/sections/1/files/0").asText());
    }
  }

  /** Sirocco's own provenance file, at the repository root, validated with the same code as CI. */
  @Test
  void siroccoProvenanceFileIsValid() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Path file = root.resolve("PROVENANCE.yaml");
    assertTrue(Files.isRegularFile(file), file + " is missing");
    ProvenanceResult r = ProvenanceValidator.validateFile(root, file);
    assertTrue(r.ok(), r.toText());
    assertTrue(r.upstreamIds() > 0 && r.describedFiles() > 0, r.summaryLine());
  }
}
