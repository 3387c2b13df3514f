package sirocco.fork.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * A doublestar glob over '/'-separated relative paths, matching the semantics forkdiff gets from
 * bmatcuk/doublestar.
 *
 * <ul>
 *   <li>{@code *} matches any run of characters within one path segment (never '/'); {@code ?}
 *       matches exactly one character that is not '/'.
 *   <li>{@code **} as a whole segment matches zero or more segments: {@code a/**}{@code /b} matches
 *       {@code a/b} and {@code a/x/y/b}; {@code **}{@code /x} matches {@code x}; {@code a/**}
 *       matches everything below {@code a} (and {@code a} itself). {@code **} inside a segment
 *       ({@code a**b}) is an ordinary {@code *}.
 *   <li>{@code [abc]}, {@code [a-z]}, {@code [!abc]} and {@code [^abc]} match one character of (or
 *       not of) the class; a class never matches '/'.
 *   <li>{@code {a,b}} matches either alternative; alternatives nest and may contain '/'.
 *   <li>{@code \} escapes the next character.
 * </ul>
 *
 * Matching is case-sensitive, and '*' matches names starting with '.', as in doublestar.
 */
public final class Glob {
  private static final int MAX_ALTERNATIVES = 1024;

  private final String pattern;
  private final Segment[][] alternatives;

  private Glob(String pattern, Segment[][] alternatives) {
    this.pattern = pattern;
    this.alternatives = alternatives;
  }

  /**
   * Compiles {@code pattern}.
   *
   * @throws IllegalArgumentException with a message saying what is wrong when the pattern is
   *     malformed (empty, absolute, unclosed '[' or '{', empty class, dangling '\').
   */
  public static Glob compile(String pattern) {
    if (pattern == null || pattern.isEmpty()) {
      throw new IllegalArgumentException("empty glob");
    }
    if (pattern.startsWith("/")) {
      throw new IllegalArgumentException(
          "glob '" + pattern + "' starts with '/': globs are relative to the repository root");
    }
    List<String> expanded = new ArrayList<>();
    expandBraces(pattern, expanded);
    Segment[][] alts = new Segment[expanded.size()][];
    for (int i = 0; i < alts.length; i++) {
      alts[i] = compileAlternative(pattern, expanded.get(i));
    }
    return new Glob(pattern, alts);
  }

  /** The pattern as written. */
  public String pattern() {
    return pattern;
  }

  /** Whether {@code path} (relative, '/'-separated, no leading '/') matches. */
  public boolean matches(String path) {
    return matches(Subject.of(path));
  }

  /** Whether the pre-split {@code subject} matches; use this when matching one path many times. */
  public boolean matches(Subject subject) {
    for (Segment[] alt : alternatives) {
      if (matchSegments(alt, subject.segments)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return pattern;
  }

  /** A path split into segments of code points, to be matched against many globs. */
  public static final class Subject {
    private final String path;
    private final int[][] segments;

    private Subject(String path, int[][] segments) {
      this.path = path;
      this.segments = segments;
    }

    public static Subject of(String path) {
      String[] parts = path.split("/", -1);
      int[][] segs = new int[parts.length][];
      for (int i = 0; i < parts.length; i++) {
        segs[i] = parts[i].codePoints().toArray();
      }
      return new Subject(path, segs);
    }

    public String path() {
      return path;
    }
  }

  // ---- brace expansion -------------------------------------------------------------------

  private static void expandBraces(String p, List<String> out) {
    int open = -1;
    boolean inClass = false;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '\\') {
        i++;
        continue;
      }
      if (inClass) {
        if (c == ']') {
          inClass = false;
        }
        continue;
      }
      if (c == '[') {
        inClass = true;
      } else if (c == '{') {
        open = i;
        break;
      }
    }
    if (open < 0) {
      out.add(p);
      return;
    }
    // Find the matching '}' and the top-level commas between.
    List<Integer> commas = new ArrayList<>();
    int depth = 0;
    int close = -1;
    inClass = false;
    for (int i = open + 1; i < p.length() && close < 0; i++) {
      char c = p.charAt(i);
      if (c == '\\') {
        i++;
        continue;
      }
      if (inClass) {
        if (c == ']') {
          inClass = false;
        }
        continue;
      }
      switch (c) {
        case '[' -> inClass = true;
        case '{' -> depth++;
        case '}' -> {
          if (depth == 0) {
            close = i;
          } else {
            depth--;
          }
        }
        case ',' -> {
          if (depth == 0) {
            commas.add(i);
          }
        }
        default -> {}
      }
    }
    if (close < 0) {
      throw new IllegalArgumentException("glob '" + p + "' has an unclosed '{'");
    }
    String prefix = p.substring(0, open);
    String suffix = p.substring(close + 1);
    int start = open + 1;
    commas.add(close);
    for (int comma : commas) {
      expandBraces(prefix + p.substring(start, comma) + suffix, out);
      if (out.size() > MAX_ALTERNATIVES) {
        throw new IllegalArgumentException(
            "glob '" + p + "' expands to more than " + MAX_ALTERNATIVES + " alternatives");
      }
      start = comma + 1;
    }
  }

  // ---- compilation -----------------------------------------------------------------------

  private sealed interface Token permits Lit, Any, Star, Cls {}

  private record Lit(int cp) implements Token {}

  private record Any() implements Token {}

  private record Star() implements Token {}

  private record Cls(int[] lo, int[] hi, boolean negated) implements Token {
    boolean test(int cp) {
      boolean in = false;
      for (int i = 0; i < lo.length; i++) {
        if (cp >= lo[i] && cp <= hi[i]) {
          in = true;
          break;
        }
      }
      return in != negated;
    }
  }

  /** One pattern segment: either the globstar or a token sequence. */
  private record Segment(boolean globstar, Token[] tokens, int[] literal) {}

  private static Segment[] compileAlternative(String original, String alt) {
    // Split on '/' outside classes and escapes.
    List<String> parts = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean inClass = false;
    for (int i = 0; i < alt.length(); i++) {
      char c = alt.charAt(i);
      if (c == '\\' && i + 1 < alt.length()) {
        cur.append(c).append(alt.charAt(++i));
        continue;
      }
      if (inClass) {
        if (c == ']') {
          inClass = false;
        } else if (c == '/') {
          throw new IllegalArgumentException(
              "glob '" + original + "' has an unclosed '[' (a class cannot contain '/')");
        }
        cur.append(c);
        continue;
      }
      if (c == '[') {
        inClass = true;
        cur.append(c);
      } else if (c == '/') {
        parts.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    parts.add(cur.toString());
    List<Segment> segs = new ArrayList<>();
    for (String part : parts) {
      if (part.equals("**")) {
        // Consecutive globstars are one.
        if (!segs.isEmpty() && segs.getLast().globstar()) {
          continue;
        }
        segs.add(new Segment(true, null, null));
      } else {
        Token[] tokens = compileSegment(original, part);
        segs.add(new Segment(false, tokens, literalOf(tokens)));
      }
    }
    return segs.toArray(Segment[]::new);
  }

  private static int[] literalOf(Token[] tokens) {
    int[] lit = new int[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      if (!(tokens[i] instanceof Lit l)) {
        return null;
      }
      lit[i] = l.cp();
    }
    return lit;
  }

  private static Token[] compileSegment(String original, String s) {
    List<Token> tokens = new ArrayList<>();
    int[] cps = s.codePoints().toArray();
    for (int i = 0; i < cps.length; i++) {
      int c = cps[i];
      switch (c) {
        case '\\' -> {
          if (i + 1 >= cps.length) {
            throw new IllegalArgumentException("glob '" + original + "' ends with a lone '\\'");
          }
          tokens.add(new Lit(cps[++i]));
        }
        case '?' -> tokens.add(new Any());
        case '*' -> {
          if (tokens.isEmpty() || !(tokens.getLast() instanceof Star)) {
            tokens.add(new Star());
          }
        }
        case '[' -> {
          int j = i + 1;
          boolean negated = false;
          if (j < cps.length && (cps[j] == '!' || cps[j] == '^')) {
            negated = true;
            j++;
          }
          List<int[]> ranges = new ArrayList<>();
          boolean closed = false;
          while (j < cps.length) {
            int a = cps[j];
            if (a == ']') {
              closed = true;
              break;
            }
            if (a == '\\') {
              if (++j >= cps.length) {
                break;
              }
              a = cps[j];
            }
            int b = a;
            if (j + 2 < cps.length && cps[j + 1] == '-' && cps[j + 2] != ']') {
              j += 2;
              b = cps[j];
              if (b == '\\') {
                if (++j >= cps.length) {
                  break;
                }
                b = cps[j];
              }
              if (b < a) {
                throw new IllegalArgumentException(
                    "glob '"
                        + original
                        + "' has a reversed range '"
                        + Character.toString(a)
                        + "-"
                        + Character.toString(b)
                        + "'");
              }
            }
            ranges.add(new int[] {a, b});
            j++;
          }
          if (!closed) {
            throw new IllegalArgumentException("glob '" + original + "' has an unclosed '['");
          }
          if (ranges.isEmpty()) {
            throw new IllegalArgumentException("glob '" + original + "' has an empty class '[]'");
          }
          int[] lo = new int[ranges.size()];
          int[] hi = new int[ranges.size()];
          for (int k = 0; k < lo.length; k++) {
            lo[k] = ranges.get(k)[0];
            hi[k] = ranges.get(k)[1];
          }
          tokens.add(new Cls(lo, hi, negated));
          i = j;
        }
        default -> tokens.add(new Lit(c));
      }
    }
    return tokens.toArray(Token[]::new);
  }

  // ---- matching --------------------------------------------------------------------------

  /** Segment-level wildcard match: the globstar plays the role '*' plays within a segment. */
  private static boolean matchSegments(Segment[] pat, int[][] path) {
    int p = 0;
    int s = 0;
    int starP = -1;
    int starS = -1;
    while (s < path.length) {
      if (p < pat.length && pat[p].globstar()) {
        starP = p++;
        starS = s;
      } else if (p < pat.length && matchSegment(pat[p], path[s])) {
        p++;
        s++;
      } else if (starP >= 0) {
        p = starP + 1;
        s = ++starS;
      } else {
        return false;
      }
    }
    while (p < pat.length && pat[p].globstar()) {
      p++;
    }
    return p == pat.length;
  }

  private static boolean matchSegment(Segment seg, int[] s) {
    int[] lit = seg.literal();
    if (lit != null) {
      return java.util.Arrays.equals(lit, s);
    }
    Token[] t = seg.tokens();
    int p = 0;
    int i = 0;
    int starP = -1;
    int starI = -1;
    while (i < s.length) {
      if (p < t.length) {
        Token tok = t[p];
        if (tok instanceof Star) {
          starP = p++;
          starI = i;
          continue;
        }
        boolean ok =
            switch (tok) {
              case Lit l -> l.cp() == s[i];
              case Any a -> true;
              case Cls c -> c.test(s[i]);
              case Star st -> false;
            };
        if (ok) {
          p++;
          i++;
          continue;
        }
      }
      if (starP >= 0) {
        p = starP + 1;
        i = ++starI;
      } else {
        return false;
      }
    }
    while (p < t.length && t[p] instanceof Star) {
      p++;
    }
    return p == t.length;
  }
}
