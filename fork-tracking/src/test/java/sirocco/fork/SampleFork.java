package sirocco.fork;

import java.nio.file.Path;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * An upstream history and a fork of it, in a real repository.
 *
 * <pre>
 * main:  u1 -- u2 -- u3            (u3 only touches README.md)
 *                \
 * fork:           f1 -- f2  = HEAD
 * </pre>
 *
 * base..HEAD, with u2 as base: 7 changed files:
 *
 * <pre>
 * assets/data.bin           added, binary
 * docs/guide.md             deleted        -4
 * go.sum                    modified       +1
 * lib/new_name.c            renamed from lib/old_name.c   +1 -1
 * src/core/b.c              modified       +3 -2
 * src/gpu/kernel.cu         added          +8
 * src/gpu/nested/deep/x.cu  added          +2
 * </pre>
 */
final class SampleFork implements AutoCloseable {
  final TestRepo repo;
  final RevCommit u1;
  final RevCommit u2;
  final RevCommit u3;
  final RevCommit f1;
  final RevCommit f2;

  SampleFork(Path dir) throws Exception {
    repo = TestRepo.create(dir);
    repo.write("README.md", TestRepo.lines("readme", 3))
        .write("src/core/a.c", TestRepo.lines("a", 10))
        .write("src/core/b.c", TestRepo.lines("b", 10))
        .write("src/util/u.c", TestRepo.lines("u", 5))
        .write("docs/guide.md", TestRepo.lines("guide", 4))
        .write("go.sum", TestRepo.lines("sum", 2))
        .write("lib/old_name.c", TestRepo.lines("lib", 20));
    u1 = repo.commit("upstream: initial");
    repo.write("src/core/a.c", TestRepo.lines("a", 12));
    u2 = repo.commit("upstream: grow a.c");

    repo.branch("fork");
    String b = TestRepo.lines("b", 10).replace("b 3\n", "B 3\n").replace("b 4\n", "B 4\n");
    repo.write("src/core/b.c", b + "b 11\n")
        .write("src/gpu/kernel.cu", TestRepo.lines("k", 7))
        .write("src/gpu/nested/deep/x.cu", TestRepo.lines("x", 2))
        .move("lib/old_name.c", "lib/new_name.c")
        .write("lib/new_name.c", TestRepo.lines("lib", 19) + "lib twenty\n")
        .delete("docs/guide.md")
        .write("assets/data.bin", new byte[] {0, 1, 2, 3, 0, 0, 'x', 0, (byte) 0xff, 10, 0})
        .write("go.sum", TestRepo.lines("sum", 3));
    f1 = repo.commit("fork: gpu backend, fixes");
    repo.write("src/gpu/kernel.cu", TestRepo.lines("k", 8));
    f2 = repo.commit("fork: one more kernel line");

    repo.checkout("main");
    repo.write("README.md", TestRepo.lines("readme", 4));
    u3 = repo.commit("upstream: after the fork point");
    repo.checkout("fork");
  }

  Path dir() {
    return repo.dir;
  }

  /** A spec describing every change; line numbers of globs are noted. */
  String yaml(String baseHash) {
    return """
        title: Test fork
        base:
          name: upstream/project
          url: https://example.org/upstream
          ref: refs/heads/main
          hash: %s
        fork:
          name: us/project
        def:
          title: Test fork changes
          description: Everything the fork changes.
          sub:
            - title: GPU backend
              description: New **GPU** kernels, see [the PR](https://example.org/pr/12).
              globs:
                - "src/gpu/**"
              upstream:
                - {id: upstream/project#12, kind: backport, note: from v2}
            - title: Core fixes
              globs:
                - "src/core/*.c"
                - "lib/*.c"
              upstream:
                - {id: 0123abc, kind: cherry-pick}
            - title: Docs and data
              globs:
                - "docs/**"
              ignore:
                - "assets/*.bin"
        ignore:
          - "*.sum"
        """
        .formatted(baseHash);
  }

  ForkSpec spec(String baseHash) {
    return ForkSpecParser.parse(yaml(baseHash), "fork.yaml");
  }

  ForkSpec spec() {
    return spec(u2.name());
  }

  @Override
  public void close() {
    repo.close();
  }
}
