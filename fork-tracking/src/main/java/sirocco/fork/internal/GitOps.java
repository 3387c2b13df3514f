package sirocco.fork.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.patch.FileHeader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.io.DisabledOutputStream;
import sirocco.fork.FileChange;

/** The git operations fork tracking needs, through JGit (no {@code git} process). */
public final class GitOps {
  /** Like git's default diff.renameLimit. */
  public static final int RENAME_LIMIT = 1000;

  private GitOps() {}

  /**
   * Opens the repository containing {@code dir} (searching upwards like git), or the bare
   * repository {@code dir} is.
   *
   * @throws IllegalArgumentException when {@code dir} is not in a git repository
   */
  public static Repository open(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("repository directory does not exist: " + dir);
    }
    FileRepositoryBuilder builder = new FileRepositoryBuilder().setMustExist(true);
    builder.findGitDir(dir.toAbsolutePath().toFile());
    if (builder.getGitDir() == null) {
      if (RepositoryCache.FileKey.isGitRepository(dir.toFile(), FS.DETECTED)) {
        builder.setGitDir(dir.toFile());
      } else {
        throw new IllegalArgumentException("not a git repository (or inside one): " + dir);
      }
    }
    return builder.build();
  }

  /** The commit {@code rev} names ({@code HEAD}, a branch, a tag, a hash...), or null. */
  public static RevCommit resolveCommit(Repository repo, String rev) throws IOException {
    ObjectId id;
    try {
      id = repo.resolve(rev + "^{commit}");
    } catch (org.eclipse.jgit.errors.RevisionSyntaxException
        | org.eclipse.jgit.errors.AmbiguousObjectException
        | org.eclipse.jgit.errors.IncorrectObjectTypeException e) {
      return null;
    }
    if (id == null) {
      return null;
    }
    try (RevWalk walk = new RevWalk(repo)) {
      return walk.parseCommit(id);
    }
  }

  /** What a full object id names: "commit", "tree", "blob", "tag", or null when absent. */
  public static String objectType(Repository repo, ObjectId id) throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      RevObject o = walk.parseAny(id);
      return Constants.typeString(o.getType());
    } catch (MissingObjectException e) {
      return null;
    }
  }

  /** Whether {@code ancestor} is reachable from {@code tip} (a commit is its own ancestor). */
  public static boolean isAncestor(Repository repo, ObjectId ancestor, ObjectId tip)
      throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      return walk.isMergedInto(walk.parseCommit(ancestor), walk.parseCommit(tip));
    }
  }

  /** The merge bases of {@code a} and {@code b} (usually one; none for unrelated histories). */
  public static List<RevCommit> mergeBases(Repository repo, ObjectId a, ObjectId b)
      throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      walk.setRevFilter(RevFilter.MERGE_BASE);
      walk.markStart(walk.parseCommit(a));
      walk.markStart(walk.parseCommit(b));
      List<RevCommit> out = new ArrayList<>();
      for (RevCommit c = walk.next(); c != null; c = walk.next()) {
        out.add(c);
      }
      return out;
    }
  }

  /** A file changed between two commits; {@code path} is the new path (old one for deletions). */
  public record Change(String path, String oldPath, FileChange change, DiffEntry entry) {}

  /** Added and removed lines of one change; {@code binary} changes have no line counts. */
  public record Lines(int added, int removed, boolean binary) {}

  /** A diff session over one repository; close it when done. */
  public static final class Differ implements AutoCloseable {
    private final DiffFormatter formatter;

    public Differ(Repository repo) {
      formatter = new DiffFormatter(DisabledOutputStream.INSTANCE);
      formatter.setRepository(repo);
      formatter.setDiffComparator(RawTextComparator.DEFAULT);
      formatter.setDetectRenames(true);
      formatter.getRenameDetector().setRenameLimit(RENAME_LIMIT);
    }

    /**
     * What {@code git diff --name-status base head} lists, with renames detected: each rename and
     * copy once at its new path, deletions at their old path. Sorted by path.
     */
    public List<Change> changes(RevCommit base, RevCommit head) throws IOException {
      List<DiffEntry> entries = formatter.scan(base.getTree(), head.getTree());
      List<Change> out = new ArrayList<>(entries.size());
      for (DiffEntry e : entries) {
        FileChange kind =
            switch (e.getChangeType()) {
              case ADD -> FileChange.ADDED;
              case MODIFY -> FileChange.MODIFIED;
              case DELETE -> FileChange.DELETED;
              case RENAME -> FileChange.RENAMED;
              case COPY -> FileChange.COPIED;
            };
        String path = kind == FileChange.DELETED ? e.getOldPath() : e.getNewPath();
        String oldPath =
            kind == FileChange.RENAMED || kind == FileChange.COPIED ? e.getOldPath() : "";
        out.add(new Change(path, oldPath, kind, e));
      }
      out.sort((x, y) -> x.path().compareTo(y.path()));
      return out;
    }

    /** Added and removed line counts of {@code change}, or binary. */
    public Lines lines(Change change) throws IOException {
      FileHeader header = formatter.toFileHeader(change.entry());
      if (header.getPatchType() != FileHeader.PatchType.UNIFIED) {
        return new Lines(0, 0, true);
      }
      int added = 0;
      int removed = 0;
      for (Edit edit : header.toEditList()) {
        added += edit.getLengthB();
        removed += edit.getLengthA();
      }
      return new Lines(added, removed, false);
    }

    @Override
    public void close() {
      formatter.close();
    }
  }

  /**
   * The files git tracks in the work tree of {@code repo}, from its index (what {@code git
   * ls-files} lists), skipping files deleted from disk, and gitlinks (submodules) as their path.
   */
  public static List<String> trackedFiles(Repository repo) throws IOException {
    DirCache index = repo.readDirCache();
    List<String> out = new ArrayList<>(index.getEntryCount());
    Path workTree = repo.isBare() ? null : repo.getWorkTree().toPath();
    for (int i = 0; i < index.getEntryCount(); i++) {
      var entry = index.getEntry(i);
      if (entry.getStage() > 1) {
        // Conflicted entries appear once per stage: keep the first.
        continue;
      }
      String path = entry.getPathString();
      if (workTree != null && !Files.exists(workTree.resolve(path))) {
        continue;
      }
      out.add(path);
    }
    return out;
  }
}
