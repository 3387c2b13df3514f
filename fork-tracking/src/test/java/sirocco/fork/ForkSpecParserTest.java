package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ForkSpecParserTest {
  /** forkdiff's README example, verbatim in structure (its keys and nesting). */
  static final String FORKDIFF_EXAMPLE =
      """
      title: "protolambda's Greeter fork"  # Define the HTML page title
      logo: "logo.png"
      footer: |  # define the footer with markdown
        [Greeter](https://github.com/protolambda/greeter) fork overview &middot; created with Forkdiff
      base:
        name: example/greeter
        url: https://github.com/example/greeter
        ref: refs/heads/master
      fork:
        name: protolambda/greeter
        url: https://github.com/protolambda/greeter
        ref: refs/heads/optimism-history
      def:
          title: "Example Fork diff"
          description: | # description in markdown
            These are some **really** important `code` modifications in the fork.
          globs:
            - "hello/world/greeter.go"
            - "hello/util/*"
            - "hello/util/*[!_test].go"
          sub:
            - title: ""
              description: "This fork tests the modifications to `greeter.go` and utils."
              globs:
                - "hello/world/greeter.go"
                - "hello/util/*_test.go"
            - title: "modifications to hello/printer"
              description: "The `printer` package prints greetings"
              globs:
                - "hello/printer/*"
                - "hello/printer/display/**"
              ignore:
                - "hello/printer/testdata/**"
            - title: "MOTD"
              description: "New package that generates a message of the day (MOTD)"
              globs:
                - "motd/*"
      ignore:
        - "*.sum"
      """;

  @Test
  void readsForkdiffSchema() {
    ForkSpec spec = ForkSpecParser.parse(FORKDIFF_EXAMPLE, "fork.yaml");
    assertEquals("protolambda's Greeter fork", spec.title());
    assertEquals("logo.png", spec.logo());
    assertTrue(spec.footer().startsWith("[Greeter]"));
    RepoRef base = spec.base().orElseThrow();
    assertEquals("example/greeter", base.name());
    assertEquals("refs/heads/master", base.ref());
    assertEquals("", base.hash());
    assertEquals(5, base.line());
    assertEquals("protolambda/greeter", spec.fork().orElseThrow().name());
    Section def = spec.def();
    assertEquals("Example Fork diff", def.title());
    assertEquals("", def.number());
    assertEquals(3, def.globs().size());
    assertEquals(new GlobEntry("hello/world/greeter.go", 18), def.globs().get(0));
    assertEquals(3, def.sub().size());
    Section printer = def.sub().get(1);
    assertEquals("2", printer.number());
    assertEquals(1, printer.depth());
    assertEquals(List.of(new GlobEntry("hello/printer/testdata/**", 33)), printer.ignore());
    assertEquals(List.of(new GlobEntry("*.sum", 39)), spec.ignore());
    assertEquals(4, spec.sections().size());
    // forkdiff's claim order: children before parents.
    assertEquals(
        List.of("1", "2", "3", ""), def.postOrder().stream().map(Section::number).toList());
  }

  @Test
  void readsUpstreamIdsAndHash() {
    String yaml =
        """
        base:
          name: ml-explore/mlx
          hash: 0123456789abcdef0123456789abcdef01234567
        def:
          title: Runtime
          sub:
            - title: Completion worker busy loop
              globs: ["runtime/**"]
              upstream:
                - id: ml-explore/mlx#4452
                  kind: cherry-pick
                  note: fixes the idle spin
                - {id: 1a2b3c4, kind: backport}
        """;
    ForkSpec spec = ForkSpecParser.parse(yaml, "fork.yaml");
    assertEquals("0123456789abcdef0123456789abcdef01234567", spec.base().orElseThrow().hash());
    assertEquals(3, spec.base().orElseThrow().hashLine());
    Section s = spec.def().sub().getFirst();
    assertEquals(
        List.of(
            new UpstreamRef(
                "ml-explore/mlx#4452", UpstreamKind.CHERRY_PICK, "fixes the idle spin", 10),
            new UpstreamRef("1a2b3c4", UpstreamKind.BACKPORT, "", 13)),
        s.upstream());
  }

  @Test
  void numericLookingScalarsKeepTheirText() {
    // A hash of digits only, or one YAML would read as a float, stays as written.
    String yaml =
        """
        base: {hash: 1234567890123456789012345678901234567890}
        def: {title: 2024, globs: [1e5]}
        """;
    ForkSpec spec = ForkSpecParser.parse(yaml, "f.yaml");
    assertEquals("1234567890123456789012345678901234567890", spec.base().orElseThrow().hash());
    assertEquals("2024", spec.def().title());
    assertEquals("1e5", spec.def().globs().getFirst().pattern());
  }

  @Test
  void unknownKeyIsAnErrorWithItsLine() {
    String yaml =
        """
        title: x
        def:
          title: Root
          sub:
            - title: A
              glob:
                - "a/**"
        """;
    ForkSpecException e =
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse(yaml, "fork.yaml"));
    assertEquals(1, e.problems().size());
    Violation v = e.problems().getFirst();
    assertEquals(Violation.Kind.SCHEMA, v.kind());
    assertEquals(6, v.line());
    assertTrue(v.message().contains("unknown key 'glob' in section 1"), v.message());
    assertTrue(v.message().contains("did you mean 'globs'?"), v.message());
    assertTrue(e.getMessage().contains("fork.yaml:6: unknown key 'glob'"), e.getMessage());
  }

  @Test
  void everySchemaErrorIsListedNotOnlyTheFirst() {
    String yaml =
        """
        titel: typo at the top
        base:
          name: up
          hsh: abc
        def:
          title: Root
          globs: "not-a-list"
          sub:
            - title: A
              upstream:
                - id: a/b#1
                  kind: cherrypick
                - kind: partial
                - id: c/d#2
              descripton: typo
            - just a string
        """;
    ForkSpecException e =
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse(yaml, "fork.yaml"));
    List<Integer> lines = e.problems().stream().map(Violation::line).toList();
    assertEquals(List.of(1, 4, 7, 12, 13, 14, 15, 16), lines, e.getMessage());
    String all = e.getMessage();
    assertTrue(all.contains("unknown key 'titel' at the top level; did you mean 'title'?"), all);
    assertTrue(all.contains("unknown key 'hsh' in 'base'; did you mean 'hash'?"), all);
    assertTrue(all.contains("'globs' must be a list of glob strings, not a string"), all);
    assertTrue(all.contains("unknown kind 'cherrypick'"), all);
    assertTrue(all.contains("an 'upstream' entry has no 'id'"), all);
    assertTrue(all.contains("upstream entry 'c/d#2' has no 'kind'"), all);
    assertTrue(all.contains("unknown key 'descripton' in section 1"), all);
    assertTrue(all.contains("section 2 must be a section mapping, not a string"), all);
  }

  @Test
  void xPrefixedKeysAreIgnoredEverywhere() {
    String yaml =
        """
        x-owner: team-gpu
        base: {name: up, x-mirror: somewhere}
        def:
          x-review: [alice]
          sub:
            - title: A
              globs: [a]
              x-notes: whatever
              upstream:
                - {id: a/b#1, kind: partial, x-jira: GPU-1}
        """;
    ForkSpec spec = ForkSpecParser.parse(yaml, "fork.yaml");
    assertEquals("A", spec.def().sub().getFirst().title());
  }

  @Test
  void duplicateKeysAreErrors() {
    String yaml =
        """
        def:
          title: a
          title: b
        """;
    ForkSpecException e =
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse(yaml, "fork.yaml"));
    assertEquals(3, e.problems().getFirst().line());
    assertTrue(e.problems().getFirst().message().contains("duplicate key 'title'"));
  }

  @Test
  void syntaxErrorsCarryALine() {
    String yaml = "def:\n  title: a\n  globs: [a, b\n  sub: []\n";
    ForkSpecException e =
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse(yaml, "fork.yaml"));
    Violation v = e.problems().getFirst();
    assertTrue(v.message().startsWith("YAML syntax error"), v.message());
    assertTrue(v.line() >= 3, "line " + v.line());
  }

  @Test
  void defIsRequiredAndTheDocumentMustBeAMapping() {
    assertTrue(
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse("title: x\n", "f.yaml"))
            .getMessage()
            .contains("missing required key 'def'"));
    assertTrue(
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse("- a\n- b\n", "f.yaml"))
            .getMessage()
            .contains("expected a mapping"));
    assertTrue(
        assertThrows(ForkSpecException.class, () -> ForkSpecParser.parse("", "f.yaml"))
            .getMessage()
            .contains("empty"));
  }

  @Test
  void nullValuesAreAbsent() {
    ForkSpec spec =
        ForkSpecParser.parse(
            "title:\nbase:\nignore:\ndef:\n  globs:\n  sub:\n  upstream:\n", "f.yaml");
    assertEquals("", spec.title());
    assertTrue(spec.base().isEmpty());
    assertTrue(spec.ignore().isEmpty());
    assertTrue(spec.def().globs().isEmpty());
  }
}
