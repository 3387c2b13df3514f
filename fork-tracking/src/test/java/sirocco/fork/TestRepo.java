package sirocco.fork;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;

/** A real git repository in a temp folder, driven through JGit's porcelain (work tree, index). */
final class TestRepo implements AutoCloseable {
  final Path dir;
  final Git git;
  private int tick;

  private TestRepo(Path dir, Git git) {
    this.dir = dir;
    this.git = git;
  }

  static TestRepo create(Path dir) throws GitAPIException, IOException {
    Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call();
    StoredConfig config = git.getRepository().getConfig();
    config.setBoolean("commit", null, "gpgsign", false);
    config.save();
    return new TestRepo(dir, git);
  }

  TestRepo write(String path, String content) throws IOException {
    return write(path, content.getBytes(StandardCharsets.UTF_8));
  }

  TestRepo write(String path, byte[] content) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.write(p, content);
    return this;
  }

  TestRepo delete(String path) throws IOException {
    Files.delete(dir.resolve(path));
    return this;
  }

  TestRepo move(String from, String to) throws IOException {
    Path target = dir.resolve(to);
    Files.createDirectories(target.getParent());
    Files.move(dir.resolve(from), target);
    return this;
  }

  /** Stages everything (additions, modifications, deletions) and commits. */
  RevCommit commit(String message) throws GitAPIException {
    git.add().addFilepattern(".").call();
    git.add().addFilepattern(".").setUpdate(true).call();
    PersonIdent who =
        new PersonIdent(
            "Test",
            "test@example.org",
            Instant.ofEpochSecond(1_700_000_000L + tick++ * 60),
            ZoneOffset.UTC);
    return git.commit().setMessage(message).setAuthor(who).setCommitter(who).setSign(false).call();
  }

  /** Creates branch {@code name} at HEAD and checks it out. */
  void branch(String name) throws GitAPIException {
    git.checkout().setCreateBranch(true).setName(name).call();
  }

  void checkout(String name) throws GitAPIException {
    git.checkout().setName(name).call();
  }

  /** {@code n} numbered lines, "line 1\n" ... */
  static String lines(String prefix, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      sb.append(prefix).append(' ').append(i).append('\n');
    }
    return sb.toString();
  }

  @Override
  public void close() {
    git.close();
  }
}
