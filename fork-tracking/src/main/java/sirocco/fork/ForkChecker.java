package sirocco.fork;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import sirocco.fork.internal.CompiledSpec;
import sirocco.fork.internal.GitOps;
import sirocco.fork.internal.Glob;

/**
 * {@code fork check}: a repository against its {@code fork.yaml}, with check_forkdiff semantics.
 *
 * <p>The check passes only if all of these hold; otherwise every violation is listed:
 *
 * <ul>
 *   <li>{@code base.hash} is 40 hex characters, names a commit of the repository and is an ancestor
 *       of HEAD; with an upstream ref, it is an ancestor of that ref and equals {@code
 *       merge-base(HEAD, upstream-ref)}.
 *   <li>Every path of {@code git diff --name-only base.hash HEAD} (renames and copies counted at
 *       their new path, deletions included) matches a section glob or an ignore glob (top-level, or
 *       a section's own {@code ignore}).
 *   <li>Every glob (section globs and ignores, top-level ignores) matches at least one changed
 *       path, every glob is well-formed, and every upstream id is well-formed.
 * </ul>
 */
public final class ForkChecker {
  private static final Pattern FULL_HASH = Pattern.compile("[0-9a-fA-F]{40}");

  private ForkChecker() {}

  /**
   * Checks HEAD of the repository at {@code repo} against {@code spec}.
   *
   * @param repo a directory in the repository's work tree, or a bare repository
   * @param upstreamRef the upstream branch or tag ({@code --upstream-ref}), if given
   * @throws IllegalArgumentException when {@code repo} is not a git repository, HEAD names no
   *     commit (empty repository), or {@code upstreamRef} names no commit
   * @throws IOException when the repository cannot be read
   */
  public static CheckResult check(Path repo, ForkSpec spec, Optional<String> upstreamRef)
      throws IOException {
    return check(repo, spec, upstreamRef, "HEAD");
  }

  /** As {@link #check(Path, ForkSpec, Optional)}, checking {@code headRev} instead of HEAD. */
  public static CheckResult check(
      Path repo, ForkSpec spec, Optional<String> upstreamRef, String headRev) throws IOException {
    Objects.requireNonNull(repo, "repo");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(upstreamRef, "upstreamRef");
    Objects.requireNonNull(headRev, "headRev");
    CompiledSpec compiled = CompiledSpec.compile(spec);
    List<Violation> violations = new ArrayList<>(compiled.problems());
    try (Repository r = GitOps.open(repo)) {
      RevCommit head = GitOps.resolveCommit(r, headRev);
      if (head == null) {
        throw new IllegalArgumentException(
            headRev + " does not name a commit in " + repo + " (empty repository?)");
      }
      RevCommit upstream = null;
      if (upstreamRef.isPresent()) {
        upstream = GitOps.resolveCommit(r, upstreamRef.get());
        if (upstream == null) {
          throw new IllegalArgumentException(
              "upstream ref '" + upstreamRef.get() + "' does not name a commit in " + repo);
        }
      }
      List<RevCommit> mergeBases =
          upstream == null ? List.of() : GitOps.mergeBases(r, head, upstream);
      RevCommit base =
          checkBase(r, spec, head, upstreamRef.orElse(null), upstream, mergeBases, violations);

      List<CheckResult.FileStatus> files = new ArrayList<>();
      if (base != null) {
        List<GitOps.Change> changes;
        try (GitOps.Differ differ = new GitOps.Differ(r)) {
          changes = differ.changes(base, head);
        }
        List<Glob.Subject> subjects = new ArrayList<>(changes.size());
        for (GitOps.Change c : changes) {
          Glob.Subject subject = Glob.Subject.of(c.path());
          subjects.add(subject);
          CompiledSpec.Claim claim = compiled.claim(subject);
          Section s = claim.section();
          files.add(
              new CheckResult.FileStatus(
                  c.path(),
                  c.oldPath(),
                  c.change(),
                  claim.coverage(),
                  s == null ? Optional.empty() : Optional.of(s.number()),
                  s == null ? "" : s.title()));
          if (claim.coverage() == Coverage.UNDESCRIBED) {
            String how =
                c.oldPath().isEmpty()
                    ? c.change().word()
                    : c.change().word() + " from '" + c.oldPath() + "'";
            violations.add(
                new Violation(
                    Violation.Kind.UNDESCRIBED,
                    "changed file '"
                        + c.path()
                        + "' ("
                        + how
                        + ") matches no section glob and no ignore glob",
                    c.path(),
                    0));
          }
        }
        violations.addAll(compiled.staleGlobs(subjects, "changed file"));
      }
      return new CheckResult(
          spec.source(),
          violations,
          files,
          base != null,
          spec.base().flatMap(RepoRef::hashIfSet),
          head.name(),
          upstreamRef,
          Optional.ofNullable(upstream).map(ObjectId::name),
          mergeBases.stream().map(ObjectId::name).toList());
    }
  }

  /**
   * Reads {@code forkYaml} and checks the repository against it; schema errors become violations of
   * the result (exit code 1) instead of an exception.
   *
   * @throws IOException when {@code forkYaml} or the repository cannot be read
   * @throws IllegalArgumentException as {@link #check(Path, ForkSpec, Optional)}
   */
  public static CheckResult checkFile(Path repo, Path forkYaml, Optional<String> upstreamRef)
      throws IOException {
    ForkSpec spec;
    try {
      spec = ForkSpecParser.parse(forkYaml);
    } catch (ForkSpecException e) {
      return new CheckResult(
          e.source(),
          e.problems(),
          List.of(),
          false,
          Optional.empty(),
          "",
          upstreamRef,
          Optional.empty(),
          List.of());
    }
    return check(repo, spec, upstreamRef);
  }

  /** Adds the base violations; returns the base commit when the diff can be taken from it. */
  private static RevCommit checkBase(
      Repository r,
      ForkSpec spec,
      RevCommit head,
      String upstreamRef,
      RevCommit upstream,
      List<RevCommit> mergeBases,
      List<Violation> out)
      throws IOException {
    if (spec.base().isEmpty()) {
      out.add(
          base(
              "no 'base' in "
                  + spec.source()
                  + ": fork check needs base.hash, the upstream commit the fork starts from",
              0));
      return null;
    }
    RepoRef b = spec.base().get();
    int line = b.hashLine();
    Optional<String> hashOpt = b.hashIfSet();
    if (hashOpt.isEmpty()) {
      String why =
          b.refIfSet()
              .map(
                  ref ->
                      ": base.ref '"
                          + ref
                          + "' moves, so pin the commit: set base.hash to merge-base(HEAD,"
                          + " upstream)")
              .orElse(": set it to merge-base(HEAD, upstream), 40 hex characters");
      out.add(base("base.hash is missing" + why, line));
      return null;
    }
    String hash = hashOpt.get();
    if (!FULL_HASH.matcher(hash).matches()) {
      out.add(
          base(
              "base.hash '"
                  + hash
                  + "' is not a commit id of 40 hex characters (it has "
                  + hash.length()
                  + " characters"
                  + (hash.chars().allMatch(ForkChecker::isHex) ? "" : ", not all hex")
                  + ")",
              line));
      return null;
    }
    ObjectId id = ObjectId.fromString(hash.toLowerCase(java.util.Locale.ROOT));
    String type = GitOps.objectType(r, id);
    if (type == null) {
      out.add(
          base(
              "base.hash "
                  + id.name()
                  + " names no commit of the repository (is the upstream history fetched?)",
              line));
      return null;
    }
    if (!type.equals("commit")) {
      out.add(base("base.hash " + id.name() + " names a " + type + ", not a commit", line));
      return null;
    }
    RevCommit base = GitOps.resolveCommit(r, id.name());
    if (!GitOps.isAncestor(r, base, head)) {
      out.add(
          base(
              "base.hash "
                  + id.name()
                  + " is not an ancestor of HEAD ("
                  + head.name()
                  + "): the fork's history does not contain its base",
              line));
    }
    if (upstream != null) {
      if (!GitOps.isAncestor(r, base, upstream)) {
        out.add(
            base(
                "base.hash "
                    + id.name()
                    + " is not an ancestor of upstream ref '"
                    + upstreamRef
                    + "' ("
                    + upstream.name()
                    + "): it is not an upstream commit",
                line));
      }
      if (mergeBases.isEmpty()) {
        out.add(
            base(
                "HEAD and upstream ref '"
                    + upstreamRef
                    + "' share no history, so base.hash cannot be their merge-base",
                line));
      } else if (mergeBases.stream().noneMatch(m -> m.equals(base))) {
        RevCommit mb = mergeBases.getFirst();
        String hint =
            GitOps.isAncestor(r, base, mb)
                ? " (base.hash is older: the fork has merged newer upstream commits since)"
                : "";
        out.add(
            base(
                "base.hash "
                    + id.name()
                    + " is not merge-base(HEAD, "
                    + upstreamRef
                    + ") = "
                    + mb.name()
                    + hint
                    + "; set base.hash to "
                    + mb.name(),
                line));
      }
    }
    return base;
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static Violation base(String message, int line) {
    return new Violation(Violation.Kind.BASE, message, "", line);
  }
}
