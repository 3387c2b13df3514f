package sirocco.fork.internal;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import sirocco.fork.Coverage;
import sirocco.fork.ForkSpec;
import sirocco.fork.GlobEntry;
import sirocco.fork.Section;
import sirocco.fork.UpstreamRef;
import sirocco.fork.Violation;

/**
 * A spec with its globs compiled: validates glob syntax and upstream ids, assigns paths to sections
 * with forkdiff's precedence, and finds stale globs.
 *
 * <p>Precedence (forkdiff's): the top-level {@code ignore} first; then sections children before
 * parents, siblings in order; within a section its own {@code ignore} before its {@code globs}. A
 * path belongs to the first that matches.
 */
public final class CompiledSpec {
  /** A valid glob and where it is written. {@code section} is null for the top-level ignore. */
  public static final class GlobRef {
    final GlobEntry entry;
    final Glob glob;
    final Section section;
    final boolean ignore;
    boolean matched;

    GlobRef(GlobEntry entry, Glob glob, Section section, boolean ignore) {
      this.entry = entry;
      this.glob = glob;
      this.section = section;
      this.ignore = ignore;
    }

    String describe() {
      String kind = ignore ? "ignore glob" : "glob";
      String owner = section == null ? "(top-level ignore)" : "of " + section.displayName();
      return kind + " '" + entry.pattern() + "' " + owner;
    }
  }

  /** Where a path goes: its coverage and the section that claims it (null: top level or none). */
  public record Claim(Coverage coverage, Section section) {}

  private final ForkSpec spec;
  private final List<Violation> problems = new ArrayList<>();
  private final List<GlobRef> topIgnore = new ArrayList<>();
  private final List<SectionGlobs> order = new ArrayList<>();
  private final List<GlobRef> all = new ArrayList<>();

  private record SectionGlobs(Section section, List<GlobRef> ignore, List<GlobRef> globs) {}

  private CompiledSpec(ForkSpec spec) {
    this.spec = spec;
  }

  /** Compiles every glob and checks every upstream id of {@code spec}. */
  public static CompiledSpec compile(ForkSpec spec) {
    CompiledSpec c = new CompiledSpec(spec);
    Map<Section, SectionGlobs> bySection = new IdentityHashMap<>();
    // Document order for 'all' (so stale globs are reported in file order) ...
    for (GlobEntry g : spec.ignore()) {
      c.add(g, null, true, c.topIgnore);
    }
    for (Section s : spec.sections()) {
      List<GlobRef> ign = new ArrayList<>();
      List<GlobRef> globs = new ArrayList<>();
      for (GlobEntry g : s.globs()) {
        c.add(g, s, false, globs);
      }
      for (GlobEntry g : s.ignore()) {
        c.add(g, s, true, ign);
      }
      bySection.put(s, new SectionGlobs(s, ign, globs));
      for (UpstreamRef u : s.upstream()) {
        if (!u.isWellFormed()) {
          c.problems.add(
              new Violation(
                  Violation.Kind.MALFORMED_UPSTREAM,
                  "upstream id '"
                      + u.id()
                      + "' of "
                      + s.displayName()
                      + " is malformed: expected a commit (7-40 hex characters), owner/repo#N or"
                      + " owner/repo@COMMIT",
                  "",
                  u.line()));
        }
      }
    }
    // ... and claim order for matching.
    for (Section s : spec.def().postOrder()) {
      c.order.add(bySection.get(s));
    }
    return c;
  }

  private void add(GlobEntry g, Section s, boolean ignore, List<GlobRef> into) {
    try {
      GlobRef ref = new GlobRef(g, Glob.compile(g.pattern()), s, ignore);
      into.add(ref);
      all.add(ref);
    } catch (IllegalArgumentException e) {
      String owner = s == null ? "the top-level ignore" : s.displayName();
      problems.add(
          new Violation(
              Violation.Kind.INVALID_GLOB,
              "invalid " + (ignore ? "ignore " : "") + "glob in " + owner + ": " + e.getMessage(),
              "",
              g.line()));
    }
  }

  public ForkSpec spec() {
    return spec;
  }

  /** Malformed globs and upstream ids, in file order of discovery. */
  public List<Violation> problems() {
    return List.copyOf(problems);
  }

  /** Number of valid globs (section globs, section ignores and top-level ignores). */
  public int globCount() {
    return all.size();
  }

  /**
   * Which section claims {@code path}, with forkdiff's precedence; marks the matching glob used.
   */
  public Claim claim(Glob.Subject path) {
    for (GlobRef g : topIgnore) {
      if (g.glob.matches(path)) {
        g.matched = true;
        return new Claim(Coverage.IGNORED, null);
      }
    }
    for (SectionGlobs sg : order) {
      for (GlobRef g : sg.ignore) {
        if (g.glob.matches(path)) {
          g.matched = true;
          return new Claim(Coverage.IGNORED, sg.section);
        }
      }
      for (GlobRef g : sg.globs) {
        if (g.glob.matches(path)) {
          g.matched = true;
          return new Claim(Coverage.DESCRIBED, sg.section);
        }
      }
    }
    return new Claim(Coverage.UNDESCRIBED, null);
  }

  /**
   * Violations for every glob that matches none of {@code paths} (whether or not it claimed them: a
   * glob shadowed by an earlier one still counts as matching). {@code what} names the paths in
   * messages, e.g. "changed file".
   */
  public List<Violation> staleGlobs(List<Glob.Subject> paths, String what) {
    List<Violation> out = new ArrayList<>();
    for (GlobRef g : all) {
      if (g.matched) {
        continue;
      }
      for (Glob.Subject p : paths) {
        if (g.glob.matches(p)) {
          g.matched = true;
          break;
        }
      }
      if (!g.matched) {
        out.add(
            new Violation(
                Violation.Kind.STALE_GLOB,
                g.describe() + " matches no " + what,
                "",
                g.entry.line()));
      }
    }
    return out;
  }
}
