package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.fork.internal.Glob;

/** Doublestar semantics, table-driven: pattern, path, expected. */
class GlobTest {
  static Stream<Arguments> cases() {
    return Stream.of(
        // literals
        Arguments.of("a/b/c.go", "a/b/c.go", true),
        Arguments.of("a/b/c.go", "a/b/c.goo", false),
        Arguments.of("a/b/c.go", "x/a/b/c.go", false),
        Arguments.of("README.md", "README.md", true),
        Arguments.of("README.md", "readme.md", false), // case-sensitive
        // '*' stays within a segment
        Arguments.of("*", "a", true),
        Arguments.of("*", "a/b", false),
        Arguments.of("*.go", "main.go", true),
        Arguments.of("*.go", "cmd/main.go", false),
        Arguments.of("hello/util/*", "hello/util/x.go", true),
        Arguments.of("hello/util/*", "hello/util/sub/x.go", false),
        Arguments.of("a/*/c", "a/b/c", true),
        Arguments.of("a/*/c", "a/c", false),
        Arguments.of("a/*/c", "a/b/b/c", false),
        Arguments.of("a*b", "ab", true),
        Arguments.of("a*b", "axxb", true),
        Arguments.of("a*b", "ax/xb", false),
        Arguments.of("*.sum", "go.sum", true),
        Arguments.of("*.sum", "sub/go.sum", false),
        Arguments.of("*", ".gitignore", true), // dotfiles are not special
        Arguments.of("a*b*c", "abc", true),
        Arguments.of("a*b*c", "aXbYbZc", true),
        Arguments.of("a*b*c", "aXbYbZ", false),
        Arguments.of("*x", "xxxxxxxxxxxxxxxxxxxxy", false),
        // '?' is one character, never '/'
        Arguments.of("?.txt", "a.txt", true),
        Arguments.of("?.txt", "ab.txt", false),
        Arguments.of("a?b", "a/b", false),
        Arguments.of("??", "é1", true), // code points, not bytes
        Arguments.of("?", "😀", true), // a code point outside the BMP is one character
        // '**' spans zero or more directories
        Arguments.of("**", "a", true),
        Arguments.of("**", "a/b/c", true),
        Arguments.of("**/*.go", "main.go", true),
        Arguments.of("**/*.go", "a/b/main.go", true),
        Arguments.of("**/*.go", "a/b/main.py", false),
        Arguments.of("a/**/b", "a/b", true),
        Arguments.of("a/**/b", "a/x/b", true),
        Arguments.of("a/**/b", "a/x/y/z/b", true),
        Arguments.of("a/**/b", "a/x/y/z/c", false),
        Arguments.of("a/**/b", "b", false),
        Arguments.of("a/**", "a/b", true),
        Arguments.of("a/**", "a/b/c/d", true),
        Arguments.of("a/**", "a", true), // zero segments, as doublestar
        Arguments.of("a/**", "ab/c", false),
        Arguments.of("hello/printer/display/**", "hello/printer/display/x/y.go", true),
        Arguments.of("**/testdata/**", "pkg/testdata/in.txt", true),
        Arguments.of("**/testdata/**", "testdata/in.txt", true),
        Arguments.of("**/testdata/**", "pkg/testdatas/in.txt", false),
        Arguments.of("a/**/**/b", "a/b", true), // repeated globstars collapse
        Arguments.of("**/a/**/b/**/c", "x/a/y/b/z/c", true),
        Arguments.of("**/a/**/b/**/c", "x/a/y/c/z/b", false),
        Arguments.of("a**b", "axb", true), // '**' inside a segment is '*'
        Arguments.of("a**b", "ax/b", false),
        Arguments.of("a/**/*_test.go", "a/x/y_test.go", true),
        Arguments.of("a/**/*_test.go", "a/y_test.go", true),
        // classes
        Arguments.of("[abc].txt", "b.txt", true),
        Arguments.of("[abc].txt", "d.txt", false),
        Arguments.of("[a-c]x", "bx", true),
        Arguments.of("[a-c]x", "dx", false),
        Arguments.of("[!a-c]x", "dx", true),
        Arguments.of("[!a-c]x", "ax", false),
        Arguments.of("[^a-c]x", "dx", true),
        Arguments.of("[a-]", "-", true),
        Arguments.of("[\\]]", "]", true),
        Arguments.of("v[0-9][0-9]", "v42", true),
        Arguments.of("v[0-9][0-9]", "v4a", false),
        Arguments.of("hello/util/*[!_test].go", "hello/util/x.go", true), // forkdiff's README
        Arguments.of("hello/util/*[!t].go", "hello/util/test.go", false),
        // alternatives
        Arguments.of("*.{go,mod}", "go.mod", true),
        Arguments.of("*.{go,mod}", "main.go", true),
        Arguments.of("*.{go,mod}", "go.sum", false),
        Arguments.of("{a,b/c}/x", "b/c/x", true), // alternatives may contain '/'
        Arguments.of("{a,b/c}/x", "c/x", false),
        Arguments.of("{a,{b,c}d}", "cd", true), // nested
        Arguments.of("{a,{b,c}d}", "d", false),
        Arguments.of("x{,.bak}", "x", true), // empty alternative
        Arguments.of("x{,.bak}", "x.bak", true),
        Arguments.of("[{]", "{", true), // '{' in a class is literal
        // escapes
        Arguments.of("\\*", "*", true),
        Arguments.of("\\*", "a", false),
        Arguments.of("a\\?", "a?", true),
        Arguments.of("\\{a,b}", "{a,b}", true),
        // others
        Arguments.of("dir/", "dir/x", false), // a trailing '/' matches directories only
        Arguments.of("a b/c", "a b/c", true));
  }

  @ParameterizedTest(name = "{0} ~ {1} = {2}")
  @MethodSource("cases")
  void matches(String pattern, String path, boolean expected) {
    assertEquals(expected, Glob.compile(pattern).matches(path), pattern + " vs " + path);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "/abs/*", "a[bc", "a/[b/c]", "{a,b", "x\\", "[]", "[!]", "[z-a]", "[!/]"})
  void rejectsMalformed(String pattern) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Glob.compile(pattern));
    assertTrue(!e.getMessage().isBlank());
  }

  @Test
  void messagesSayWhatIsWrong() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Glob.compile("src/[ab"))
            .getMessage()
            .contains("unclosed '['"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Glob.compile("{a,b"))
            .getMessage()
            .contains("unclosed '{'"));
  }

  @Test
  void braceExplosionIsBounded() {
    String p = "{a,b}".repeat(11); // 2048 alternatives
    assertThrows(IllegalArgumentException.class, () -> Glob.compile(p));
    assertTrue(Glob.compile("{a,b}".repeat(10)).matches("ab".repeat(5).substring(0, 10)));
  }

  @Test
  void pathologicalPatternsStayFast() {
    Glob g = Glob.compile("**/a/**/a/**/a/**/a/**/b");
    String path = "a/".repeat(200) + "c";
    long t0 = System.nanoTime();
    assertEquals(false, g.matches(path));
    Glob star = Glob.compile("*a*a*a*a*a*a*b");
    assertEquals(false, star.matches("a".repeat(5000)));
    assertTrue((System.nanoTime() - t0) < 2_000_000_000L, "linear-time backtracking");
  }
}
