package sirocco.fork.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small, safe Markdown to HTML converter for section descriptions and footers: paragraphs,
 * headings, fenced and indented-free code blocks, block quotes, nested lists, rules; inline code,
 * emphasis, links and autolinks. Raw HTML is escaped, not rendered; images become links (a report
 * loads nothing from the network); only http, https, mailto and relative link targets are kept. The
 * output is well-formed XML as well as HTML.
 */
public final class Markdown {
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([^`\\s]*).*$");
  private static final Pattern HEADING =
      Pattern.compile("^ {0,3}(#{1,6})(?:\\s+(.*?))?\\s*#*\\s*$");
  private static final Pattern RULE =
      Pattern.compile("^ {0,3}(?:(?:\\*\\s*){3,}|(?:-\\s*){3,}|(?:_\\s*){3,})$");
  private static final Pattern BULLET = Pattern.compile("^( {0,3})([-*+])(\\s+)(.*)$");
  private static final Pattern ORDERED = Pattern.compile("^( {0,3})(\\d{1,9})([.)])(\\s+)(.*)$");
  private static final Pattern QUOTE = Pattern.compile("^ {0,3}> ?(.*)$");
  private static final Pattern AUTOLINK = Pattern.compile("<((?:https?|mailto):[^\\s<>]+)>");
  private static final Map<String, Integer> ENTITIES =
      Map.ofEntries(
          Map.entry("amp", (int) '&'),
          Map.entry("lt", (int) '<'),
          Map.entry("gt", (int) '>'),
          Map.entry("quot", (int) '"'),
          Map.entry("apos", (int) '\''),
          Map.entry("nbsp", 0xA0),
          Map.entry("middot", 0xB7),
          Map.entry("copy", 0xA9),
          Map.entry("reg", 0xAE),
          Map.entry("trade", 0x2122),
          Map.entry("mdash", 0x2014),
          Map.entry("ndash", 0x2013),
          Map.entry("hellip", 0x2026),
          Map.entry("rarr", 0x2192),
          Map.entry("larr", 0x2190),
          Map.entry("times", 0xD7));

  private final int headingOffset;

  private Markdown(int headingOffset) {
    this.headingOffset = headingOffset;
  }

  /**
   * Converts {@code md}; Markdown headings are demoted by {@code headingOffset} levels (max h6).
   */
  public static String toHtml(String md, int headingOffset) {
    if (md == null || md.isBlank()) {
      return "";
    }
    List<String> lines = List.of(md.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1));
    StringBuilder out = new StringBuilder();
    new Markdown(headingOffset).blocks(lines, out);
    return out.toString();
  }

  /** Escapes text for HTML element content and attribute values. */
  public static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 16);
    escapeInto(s, sb);
    return sb.toString();
  }

  private static void escapeInto(String s, StringBuilder sb) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> sb.append("&amp;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> {
          // Control characters are not allowed in XML; drop them (keep tab and newline).
          if (c >= 0x20 || c == '\n' || c == '\t') {
            sb.append(c);
          }
        }
      }
    }
  }

  /** Whether {@code url} is safe to link to: http(s), mailto, or relative. */
  public static boolean safeUrl(String url) {
    String u = url.strip();
    if (u.isEmpty()) {
      return false;
    }
    int colon = u.indexOf(':');
    if (colon < 0) {
      return true;
    }
    int cut = u.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = u.indexOf(c);
      if (i >= 0) {
        cut = Math.min(cut, i);
      }
    }
    if (colon > cut) {
      return true; // the colon is in the path, query or fragment: relative
    }
    String scheme = u.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
    return scheme.equals("http") || scheme.equals("https") || scheme.equals("mailto");
  }

  // ---- blocks ----------------------------------------------------------------------------

  private void blocks(List<String> lines, StringBuilder out) {
    int i = 0;
    List<String> para = new ArrayList<>();
    while (i < lines.size()) {
      String line = lines.get(i);
      Matcher m;
      if (line.isBlank()) {
        flushParagraph(para, out);
        i++;
      } else if ((m = FENCE.matcher(line)).matches()) {
        flushParagraph(para, out);
        String fence = m.group(1);
        String lang = m.group(2);
        StringBuilder code = new StringBuilder();
        i++;
        while (i < lines.size() && !isClosingFence(lines.get(i), fence)) {
          code.append(lines.get(i)).append('\n');
          i++;
        }
        i++; // the closing fence (or the end)
        out.append("<pre><code");
        if (!lang.isEmpty()) {
          out.append(" class=\"language-").append(escape(lang)).append('"');
        }
        out.append('>');
        escapeInto(code.toString(), out);
        out.append("</code></pre>\n");
      } else if ((m = HEADING.matcher(line)).matches()) {
        flushParagraph(para, out);
        int level = Math.min(6, m.group(1).length() + headingOffset);
        out.append("<h").append(level).append('>');
        inline(m.group(2) == null ? "" : m.group(2), out);
        out.append("</h").append(level).append(">\n");
        i++;
      } else if (RULE.matcher(line).matches()) {
        flushParagraph(para, out);
        out.append("<hr/>\n");
        i++;
      } else if (QUOTE.matcher(line).matches()) {
        flushParagraph(para, out);
        List<String> quoted = new ArrayList<>();
        while (i < lines.size() && (m = QUOTE.matcher(lines.get(i))).matches()) {
          quoted.add(m.group(1));
          i++;
        }
        out.append("<blockquote>\n");
        blocks(quoted, out);
        out.append("</blockquote>\n");
      } else if (BULLET.matcher(line).matches() || ORDERED.matcher(line).matches()) {
        flushParagraph(para, out);
        i = list(lines, i, out);
      } else {
        // Keep a trailing double space: it is a hard line break.
        String kept = line.stripLeading();
        para.add(kept.endsWith("  ") ? kept.stripTrailing() + "  " : kept.stripTrailing());
        i++;
      }
    }
    flushParagraph(para, out);
  }

  private static boolean isClosingFence(String line, String fence) {
    String s = line.strip();
    return s.length() >= fence.length()
        && s.chars().allMatch(c -> c == fence.charAt(0))
        && line.indexOf(fence.charAt(0)) <= 3;
  }

  private void flushParagraph(List<String> para, StringBuilder out) {
    if (para.isEmpty()) {
      return;
    }
    out.append("<p>");
    inline(String.join("\n", para), out);
    out.append("</p>\n");
    para.clear();
  }

  /** A list starting at {@code start}; returns the index after it. */
  private int list(List<String> lines, int start, StringBuilder out) {
    boolean ordered = !BULLET.matcher(lines.get(start)).matches();
    String tag = ordered ? "ol" : "ul";
    out.append('<').append(tag);
    if (ordered) {
      Matcher m = ORDERED.matcher(lines.get(start));
      m.matches();
      long first = Long.parseLong(m.group(2));
      if (first != 1) {
        out.append(" start=\"").append(first).append('"');
      }
    }
    out.append(">\n");
    int i = start;
    while (i < lines.size()) {
      Matcher m = ordered ? ORDERED.matcher(lines.get(i)) : BULLET.matcher(lines.get(i));
      if (!m.matches()) {
        break;
      }
      int indent =
          ordered
              ? m.group(1).length() + m.group(2).length() + m.group(3).length() + 1
              : m.group(1).length() + 2;
      List<String> item = new ArrayList<>();
      item.add(ordered ? m.group(5) : m.group(4));
      i++;
      boolean loose = false;
      while (i < lines.size()) {
        String l = lines.get(i);
        if (l.isBlank()) {
          // A blank line continues the item only when indented content follows.
          int j = i;
          while (j < lines.size() && lines.get(j).isBlank()) {
            j++;
          }
          if (j < lines.size() && leadingSpaces(lines.get(j)) >= indent) {
            loose = true;
            for (int k = i; k < j; k++) {
              item.add("");
            }
            i = j;
            continue;
          }
          break;
        }
        if (leadingSpaces(l) >= Math.min(indent, 2)
            && !(BULLET.matcher(l).matches() && leadingSpaces(l) < indent)
            && !(ORDERED.matcher(l).matches() && leadingSpaces(l) < indent)) {
          item.add(l.substring(Math.min(leadingSpaces(l), indent)));
          i++;
        } else if (!BULLET.matcher(l).matches()
            && !ORDERED.matcher(l).matches()
            && !HEADING.matcher(l).matches()
            && !FENCE.matcher(l).matches()
            && !QUOTE.matcher(l).matches()) {
          item.add(l.strip()); // lazy continuation of the item's paragraph
          i++;
        } else {
          break;
        }
      }
      out.append("<li>");
      boolean simple = !loose && item.stream().noneMatch(Markdown::startsBlock);
      if (simple) {
        inline(String.join("\n", item.stream().map(String::strip).toList()), out);
      } else {
        out.append('\n');
        blocks(item, out);
      }
      out.append("</li>\n");
    }
    out.append("</").append(tag).append(">\n");
    return i;
  }

  private static boolean startsBlock(String l) {
    return BULLET.matcher(l).matches()
        || ORDERED.matcher(l).matches()
        || FENCE.matcher(l).matches()
        || HEADING.matcher(l).matches()
        || QUOTE.matcher(l).matches();
  }

  private static int leadingSpaces(String s) {
    int n = 0;
    while (n < s.length() && s.charAt(n) == ' ') {
      n++;
    }
    return n;
  }

  // ---- inlines ---------------------------------------------------------------------------

  private void inline(String s, StringBuilder out) {
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < n && isPunct(s.charAt(i + 1))) {
        escapeInto(String.valueOf(s.charAt(i + 1)), out);
        i += 2;
      } else if (c == '\\' && i + 1 < n && s.charAt(i + 1) == '\n') {
        out.append("<br/>\n");
        i += 2;
      } else if (c == '`') {
        int run = runLength(s, i, '`');
        int close = findRun(s, i + run, '`', run);
        if (close < 0) {
          escapeInto(s.substring(i, i + run), out);
          i += run;
        } else {
          String code = s.substring(i + run, close).replace('\n', ' ');
          if (code.length() >= 2 && code.startsWith(" ") && code.endsWith(" ") && !code.isBlank()) {
            code = code.substring(1, code.length() - 1);
          }
          out.append("<code>");
          escapeInto(code, out);
          out.append("</code>");
          i = close + run;
        }
      } else if (c == '[' || (c == '!' && i + 1 < n && s.charAt(i + 1) == '[')) {
        int next = link(s, i, out);
        if (next < 0) {
          escapeInto(String.valueOf(c), out);
          i++;
        } else {
          i = next;
        }
      } else if (c == '<') {
        Matcher m = AUTOLINK.matcher(s).region(i, n);
        if (m.lookingAt()) {
          String url = m.group(1);
          out.append("<a href=\"").append(escape(url)).append("\">");
          escapeInto(url, out);
          out.append("</a>");
          i = m.end();
        } else {
          out.append("&lt;");
          i++;
        }
      } else if (c == '*' || c == '_') {
        int next = emphasis(s, i, out);
        if (next < 0) {
          int run = runLength(s, i, c);
          escapeInto(s.substring(i, i + run), out);
          i += run;
        } else {
          i = next;
        }
      } else if (c == '&') {
        i = entity(s, i, out);
      } else if (c == ' ' && s.startsWith("  \n", i)) {
        out.append("<br/>\n");
        i += 3;
      } else {
        escapeInto(String.valueOf(c), out);
        i++;
      }
    }
  }

  private static boolean isPunct(char c) {
    return "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".indexOf(c) >= 0;
  }

  private static int runLength(String s, int i, char c) {
    int j = i;
    while (j < s.length() && s.charAt(j) == c) {
      j++;
    }
    return j - i;
  }

  /** Index of the next run of exactly {@code len} {@code c} from {@code from}, or -1. */
  private static int findRun(String s, int from, char c, int len) {
    int i = from;
    while (i < s.length()) {
      if (s.charAt(i) == c) {
        int run = runLength(s, i, c);
        if (run == len) {
          return i;
        }
        i += run;
      } else {
        i++;
      }
    }
    return -1;
  }

  /** A link or image at {@code i}; returns the index after it, or -1 when there is none. */
  private int link(String s, int i, StringBuilder out) {
    boolean image = s.charAt(i) == '!';
    int open = image ? i + 1 : i;
    int depth = 0;
    int close = -1;
    for (int j = open; j < s.length(); j++) {
      char c = s.charAt(j);
      if (c == '\\') {
        j++;
      } else if (c == '[') {
        depth++;
      } else if (c == ']') {
        if (--depth == 0) {
          close = j;
          break;
        }
      }
    }
    if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != '(') {
      return -1;
    }
    // The destination ends at the ')' that balances the '(' (parentheses may nest in it).
    int end = -1;
    int parens = 0;
    for (int j = close + 2; j < s.length(); j++) {
      char c = s.charAt(j);
      if (c == '\\') {
        j++;
      } else if (c == '(') {
        parens++;
      } else if (c == ')') {
        if (parens == 0) {
          end = j;
          break;
        }
        parens--;
      }
    }
    if (end < 0) {
      return -1;
    }
    String target = s.substring(close + 2, end).strip();
    // Drop an optional title: url "title"
    int space = target.indexOf(' ');
    String url = space < 0 ? target : target.substring(0, space);
    if (url.startsWith("<") && url.endsWith(">")) {
      url = url.substring(1, url.length() - 1);
    }
    String text = s.substring(open + 1, close);
    if (image) {
      // Never load an image: show its text, linked when the target is a safe address.
      text = text.isEmpty() ? "image" : text;
    }
    if (safeUrl(url)) {
      out.append("<a href=\"").append(escape(url)).append("\">");
      inline(text, out);
      out.append("</a>");
    } else {
      inline(text, out);
    }
    return end + 1;
  }

  /** Emphasis at {@code i}: *em*, **strong**, ***both***; returns the index after, or -1. */
  private int emphasis(String s, int i, StringBuilder out) {
    char c = s.charAt(i);
    int run = Math.min(3, runLength(s, i, c));
    int start = i + run;
    if (start >= s.length() || Character.isWhitespace(s.charAt(start))) {
      return -1;
    }
    if (c == '_' && i > 0 && Character.isLetterOrDigit(s.charAt(i - 1))) {
      return -1; // snake_case words are not emphasis
    }
    String delim = String.valueOf(c).repeat(run);
    int j = start;
    while (true) {
      int close = s.indexOf(delim, j);
      if (close < 0) {
        return -1;
      }
      boolean okLeft = !Character.isWhitespace(s.charAt(close - 1));
      int after = close + run;
      boolean okRight =
          c != '_' || after >= s.length() || !Character.isLetterOrDigit(s.charAt(after));
      boolean exact = after >= s.length() || s.charAt(after) != c;
      if (close > start && okLeft && okRight && exact) {
        String inner = s.substring(start, close);
        String[] tags =
            switch (run) {
              case 1 -> new String[] {"<em>", "</em>"};
              case 2 -> new String[] {"<strong>", "</strong>"};
              default -> new String[] {"<strong><em>", "</em></strong>"};
            };
        out.append(tags[0]);
        inline(inner, out);
        out.append(tags[1]);
        return after;
      }
      j = close + 1;
      if (j >= s.length()) {
        return -1;
      }
    }
  }

  /** An entity at {@code i} (named from a small set, or numeric) as a numeric reference. */
  private static int entity(String s, int i, StringBuilder out) {
    int semi = s.indexOf(';', i);
    if (semi > i + 1 && semi - i <= 10) {
      String name = s.substring(i + 1, semi);
      Integer cp = ENTITIES.get(name);
      if (cp == null && name.matches("#[0-9]{1,7}")) {
        cp = Integer.parseInt(name.substring(1));
      } else if (cp == null && name.matches("#[xX][0-9a-fA-F]{1,6}")) {
        cp = Integer.parseInt(name.substring(2), 16);
      }
      if (cp != null && validXmlChar(cp)) {
        out.append("&#").append(cp).append(';');
        return semi + 1;
      }
    }
    out.append("&amp;");
    return i + 1;
  }

  private static boolean validXmlChar(int cp) {
    return cp == 0x9
        || cp == 0xA
        || cp == 0xD
        || (cp >= 0x20 && cp <= 0xD7FF)
        || (cp >= 0xE000 && cp <= 0xFFFD)
        || (cp >= 0x10000 && cp <= 0x10FFFF);
  }
}
