package sirocco.fork;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sirocco.fork.internal.Markdown;

class MarkdownTest {
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("plain text", "<p>plain text</p>\n"),
        Arguments.of("a\nb\n\nc", "<p>a\nb</p>\n<p>c</p>\n"),
        Arguments.of(
            "**bold** and *em* and _em_",
            "<p><strong>bold</strong> and <em>em</em> and <em>em</em></p>\n"),
        Arguments.of("snake_case_name stays", "<p>snake_case_name stays</p>\n"),
        Arguments.of("2 * 3 * 4", "<p>2 * 3 * 4</p>\n"),
        Arguments.of("`a <b> & c`", "<p><code>a &lt;b&gt; &amp; c</code></p>\n"),
        Arguments.of("``has ` tick``", "<p><code>has ` tick</code></p>\n"),
        Arguments.of(
            "[x](https://e.org/a?b=1&c=2)",
            "<p><a href=\"https://e.org/a?b=1&amp;c=2\">x</a></p>\n"),
        Arguments.of("[rel](docs/x.md#y)", "<p><a href=\"docs/x.md#y\">rel</a></p>\n"),
        Arguments.of("[bad](javascript:alert(1))", "<p>bad</p>\n"),
        Arguments.of(
            "![alt](http://e.org/i.png)", "<p><a href=\"http://e.org/i.png\">alt</a></p>\n"),
        Arguments.of("<https://e.org>", "<p><a href=\"https://e.org\">https://e.org</a></p>\n"),
        Arguments.of("<b>raw</b>", "<p>&lt;b&gt;raw&lt;/b&gt;</p>\n"),
        Arguments.of(
            "a &middot; b &amp; c &bogus; d & e",
            "<p>a &#183; b &#38; c &amp;bogus; d &amp; e</p>\n"),
        Arguments.of("\\*not em\\*", "<p>*not em*</p>\n"),
        Arguments.of("# Title", "<h3># Title</h3>\n".replace("# ", "")),
        Arguments.of("- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"),
        Arguments.of("1. a\n2. b", "<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n"),
        Arguments.of("3. a", "<ol start=\"3\">\n<li>a</li>\n</ol>\n"),
        Arguments.of(
            "- a\n  - b\n  - c\n- d",
            "<ul>\n<li>\n<p>a</p>\n<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n</li>\n<li>d</li>\n</ul>\n"),
        Arguments.of("> quoted\n> more", "<blockquote>\n<p>quoted\nmore</p>\n</blockquote>\n"),
        Arguments.of(
            "```java\nint x = a < b;\n```",
            "<pre><code class=\"language-java\">int x = a &lt; b;\n</code></pre>\n"),
        Arguments.of("---", "<hr/>\n"),
        Arguments.of("line  \nbreak", "<p>line<br/>\nbreak</p>\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void converts(String md, String html) throws Exception {
    String out = Markdown.toHtml(md, 2);
    assertEquals(html, out);
    // Always well-formed XML.
    DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(
            new ByteArrayInputStream(("<div>" + out + "</div>").getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void unsafeSchemesAreDropped() {
    for (String url :
        new String[] {
          "javascript:x", "JavaScript:x", " javascript:x", "data:text/html,x", "vbscript:x"
        }) {
      assertFalse(Markdown.safeUrl(url), url);
    }
    for (String url : new String[] {"https://a", "http://a", "mailto:a@b", "a/b:c", "#x", "../x"}) {
      assertTrue(Markdown.safeUrl(url), url);
    }
  }

  @Test
  void controlCharactersAreDropped() {
    assertEquals("<p>ab</p>\n", Markdown.toHtml("a\u0001b", 0));
  }
}
