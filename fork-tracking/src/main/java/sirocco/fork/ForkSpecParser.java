package sirocco.fork;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import sirocco.fork.internal.YamlTree;
import sirocco.fork.internal.YamlTree.Entry;
import sirocco.fork.internal.YamlTree.ListNode;
import sirocco.fork.internal.YamlTree.MapNode;
import sirocco.fork.internal.YamlTree.Node;
import sirocco.fork.internal.YamlTree.ScalarNode;

/**
 * Reads {@code fork.yaml} files (protolambda/forkdiff's schema plus Sirocco's {@code upstream}
 * lists).
 *
 * <p>Unknown keys are errors, reported with their line (typos must not pass silently), except keys
 * starting with {@code x-}, which are ignored anywhere. Every schema error of the file is reported
 * at once, in a {@link ForkSpecException}. The parser checks structure only; well-formed upstream
 * ids and glob syntax are checked by {@link ForkChecker} and {@link ProvenanceValidator}, so that
 * they are listed together with the other violations.
 */
public final class ForkSpecParser {
  private static final List<String> TOP_KEYS =
      List.of("title", "logo", "footer", "base", "fork", "def", "ignore");
  private static final List<String> REPO_KEYS = List.of("name", "url", "ref", "hash");
  private static final List<String> SECTION_KEYS =
      List.of("title", "description", "globs", "ignore", "sub", "upstream");
  private static final List<String> UPSTREAM_KEYS = List.of("id", "kind", "note");

  private ForkSpecParser() {}

  /**
   * Reads and parses {@code file}.
   *
   * @throws IOException when the file cannot be read
   * @throws ForkSpecException listing every schema error, each with its line
   */
  public static ForkSpec parse(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Path name = file.getFileName();
    return parse(text, name == null ? file.toString() : name.toString());
  }

  /**
   * Parses {@code yaml}; {@code source} names it in messages.
   *
   * @throws ForkSpecException listing every schema error, each with its line
   */
  public static ForkSpec parse(String yaml, String source) {
    Ctx ctx = new Ctx();
    YamlTree.Result tree = YamlTree.read(yaml);
    for (YamlTree.SyntaxProblem p : tree.problems()) {
      ctx.error(p.line(), p.message());
    }
    if (tree.root() == null) {
      if (ctx.problems.isEmpty()) {
        ctx.error(1, "the document is empty: expected a mapping with at least 'def'");
      }
      throw new ForkSpecException(source, ctx.problems);
    }
    if (!(tree.root() instanceof MapNode root)) {
      ctx.error(
          tree.root().line(), "the document is " + tree.root().describe() + ", expected a mapping");
      throw new ForkSpecException(source, ctx.problems);
    }
    ctx.checkKeys(root, TOP_KEYS, "at the top level");
    Map<String, Entry> e = root.entries();
    String title = ctx.string(e.get("title"));
    String logo = ctx.string(e.get("logo"));
    String footer = ctx.string(e.get("footer"));
    Optional<RepoRef> base = ctx.repoRef(e.get("base"));
    Optional<RepoRef> fork = ctx.repoRef(e.get("fork"));
    List<GlobEntry> ignore = ctx.globs(e.get("ignore"));
    Section def = null;
    Entry defEntry = e.get("def");
    if (defEntry == null) {
      ctx.error(root.line(), "missing required key 'def' (the root section)");
    } else if (defEntry.value() instanceof ScalarNode s && s.isNull()) {
      ctx.error(defEntry.keyLine(), "'def' is empty: expected a section mapping");
    } else {
      def = ctx.section(defEntry.value(), "", "def");
    }
    if (!ctx.problems.isEmpty() || def == null) {
      throw new ForkSpecException(source, ctx.problems);
    }
    return new ForkSpec(source, title, logo, footer, base, fork, def, ignore);
  }

  /** Collects problems while walking the tree. */
  private static final class Ctx {
    final List<Violation> problems = new ArrayList<>();

    void error(int line, String message) {
      problems.add(new Violation(Violation.Kind.SCHEMA, message, "", line));
    }

    void checkKeys(MapNode map, List<String> known, String where) {
      Set<String> knownSet = Set.copyOf(known);
      for (Entry entry : map.entries().values()) {
        String key = entry.key();
        if (knownSet.contains(key) || key.startsWith("x-")) {
          continue;
        }
        StringBuilder msg = new StringBuilder();
        msg.append("unknown key '").append(key).append("' ").append(where);
        String suggestion = closest(key, known);
        if (suggestion != null) {
          msg.append("; did you mean '").append(suggestion).append("'?");
        }
        msg.append(" (known keys: ")
            .append(String.join(", ", known))
            .append("; keys starting with x- are ignored)");
        error(entry.keyLine(), msg.toString());
      }
    }

    /** A string-valued key: any scalar is taken as written; null or absent gives "". */
    String string(Entry entry) {
      if (entry == null) {
        return "";
      }
      if (entry.value() instanceof ScalarNode s) {
        return s.isNull() ? "" : s.text();
      }
      error(
          entry.keyLine(),
          "'" + entry.key() + "' must be a string, not " + entry.value().describe());
      return "";
    }

    Optional<RepoRef> repoRef(Entry entry) {
      if (entry == null) {
        return Optional.empty();
      }
      if (entry.value() instanceof ScalarNode s && s.isNull()) {
        return Optional.empty();
      }
      if (!(entry.value() instanceof MapNode map)) {
        error(
            entry.keyLine(),
            "'"
                + entry.key()
                + "' must be a mapping with name, url, ref, hash, not "
                + entry.value().describe());
        return Optional.empty();
      }
      checkKeys(map, REPO_KEYS, "in '" + entry.key() + "'");
      Map<String, Entry> e = map.entries();
      return Optional.of(
          new RepoRef(
              string(e.get("name")),
              string(e.get("url")),
              string(e.get("ref")),
              string(e.get("hash")),
              entry.keyLine(),
              e.containsKey("hash") ? e.get("hash").keyLine() : entry.keyLine()));
    }

    List<GlobEntry> globs(Entry entry) {
      List<GlobEntry> out = new ArrayList<>();
      if (entry == null) {
        return out;
      }
      Node v = entry.value();
      if (v instanceof ScalarNode s && s.isNull()) {
        return out;
      }
      if (!(v instanceof ListNode list)) {
        error(
            entry.keyLine(),
            "'" + entry.key() + "' must be a list of glob strings, not " + v.describe());
        return out;
      }
      for (Node item : list.items()) {
        if (item instanceof ScalarNode s && !s.isNull()) {
          out.add(new GlobEntry(s.text(), s.line()));
        } else {
          error(
              item.line(),
              "each entry of '" + entry.key() + "' must be a glob string, not " + item.describe());
        }
      }
      return out;
    }

    Section section(Node node, String number, String where) {
      if (!(node instanceof MapNode map)) {
        error(node.line(), where + " must be a section mapping, not " + node.describe());
        return null;
      }
      String label = number.isEmpty() ? "in 'def'" : "in section " + number;
      checkKeys(map, SECTION_KEYS, label);
      Map<String, Entry> e = map.entries();
      String title = string(e.get("title"));
      String description = string(e.get("description"));
      List<GlobEntry> globs = globs(e.get("globs"));
      List<GlobEntry> ignore = globs(e.get("ignore"));
      List<UpstreamRef> upstream = upstream(e.get("upstream"));
      List<Section> sub = new ArrayList<>();
      Entry subEntry = e.get("sub");
      if (subEntry != null && !(subEntry.value() instanceof ScalarNode s && s.isNull())) {
        if (subEntry.value() instanceof ListNode list) {
          int i = 0;
          for (Node item : list.items()) {
            i++;
            String childNumber = number.isEmpty() ? Integer.toString(i) : number + "." + i;
            Section child = section(item, childNumber, "section " + childNumber);
            if (child != null) {
              sub.add(child);
            }
          }
        } else {
          error(
              subEntry.keyLine(),
              "'sub' " + label + " must be a list of sections, not " + subEntry.value().describe());
        }
      }
      return new Section(title, description, globs, ignore, upstream, sub, number, map.line());
    }

    List<UpstreamRef> upstream(Entry entry) {
      List<UpstreamRef> out = new ArrayList<>();
      if (entry == null) {
        return out;
      }
      Node v = entry.value();
      if (v instanceof ScalarNode s && s.isNull()) {
        return out;
      }
      if (!(v instanceof ListNode list)) {
        error(
            entry.keyLine(),
            "'upstream' must be a list of {id, kind, note} mappings, not " + v.describe());
        return out;
      }
      for (Node item : list.items()) {
        if (!(item instanceof MapNode map)) {
          error(
              item.line(),
              "each 'upstream' entry must be a mapping {id, kind, note}, not " + item.describe());
          continue;
        }
        checkKeys(map, UPSTREAM_KEYS, "in an 'upstream' entry");
        Map<String, Entry> e = map.entries();
        String id = string(e.get("id")).strip();
        String kindText = string(e.get("kind")).strip();
        String note = string(e.get("note"));
        if (id.isEmpty()) {
          error(map.line(), "an 'upstream' entry has no 'id'");
        }
        UpstreamKind kind = null;
        if (kindText.isEmpty()) {
          error(map.line(), "upstream entry '" + id + "' has no 'kind' (" + kindList() + ")");
        } else {
          kind = UpstreamKind.fromYaml(kindText).orElse(null);
          if (kind == null) {
            Entry k = e.get("kind");
            error(
                k.keyLine(),
                "upstream entry '"
                    + id
                    + "' has an unknown kind '"
                    + kindText
                    + "' (expected "
                    + kindList()
                    + ")");
          }
        }
        if (!id.isEmpty() && kind != null) {
          out.add(new UpstreamRef(id, kind, note, map.line()));
        }
      }
      return out;
    }

    private static String kindList() {
      StringBuilder sb = new StringBuilder();
      for (UpstreamKind k : UpstreamKind.values()) {
        if (!sb.isEmpty()) {
          sb.append(", ");
        }
        sb.append(k.yamlName());
      }
      return "one of " + sb;
    }
  }

  /** The known key nearest to {@code key}, when near enough to be a likely typo. */
  private static String closest(String key, List<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key.toLowerCase(java.util.Locale.ROOT), k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    int allowed = Math.max(1, Math.min(3, key.length() / 3));
    return bestDistance <= allowed ? best : null;
  }

  /** Optimal string alignment distance: edits, with a transposition counting as one. */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
