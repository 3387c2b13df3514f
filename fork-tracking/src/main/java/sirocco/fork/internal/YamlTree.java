package sirocco.fork.internal;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document read into a small tree whose every node and key knows its line, so that schema
 * errors (unknown keys, wrong types) can name the line they are on. Read with Jackson's streaming
 * YAML parser.
 */
public final class YamlTree {
  private YamlTree() {}

  /** A node of the tree; {@code line} is 1-based. */
  public sealed interface Node permits MapNode, ListNode, ScalarNode {
    int line();

    /** What the node is, for messages: "a mapping", "a list", "a string", ... */
    String describe();
  }

  /** One key of a mapping, with the line the key is on. */
  public record Entry(String key, int keyLine, Node value) {}

  public record MapNode(int line, Map<String, Entry> entries) implements Node {
    @Override
    public String describe() {
      return "a mapping";
    }
  }

  public record ListNode(int line, List<Node> items) implements Node {
    @Override
    public String describe() {
      return "a list";
    }
  }

  /** A scalar; {@code text} is the scalar as written (numbers keep their digits), null for null. */
  public record ScalarNode(int line, String text, JsonToken token) implements Node {
    public boolean isNull() {
      return token == JsonToken.VALUE_NULL;
    }

    @Override
    public String describe() {
      return switch (token) {
        case VALUE_NULL -> "null";
        case VALUE_TRUE, VALUE_FALSE -> "a boolean";
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
        default -> "a string";
      };
    }
  }

  /** A YAML syntax error, or a duplicate key, at a line. */
  public record SyntaxProblem(int line, String message) {}

  /** The tree (null for an empty document) and the problems met reading it. */
  public record Result(Node root, List<SyntaxProblem> problems) {}

  // The plain constructor, not the builder: it reads an empty value ("key:") as null.
  private static final YAMLFactory FACTORY = new YAMLFactory();

  /** Reads {@code text}; a syntax error stops the read and is returned as the only problem. */
  public static Result read(String text) {
    List<SyntaxProblem> problems = new ArrayList<>();
    try (JsonParser p = FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return new Result(null, problems);
      }
      Node root = readNode(p, t, problems);
      return new Result(root, problems);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      int line = loc == null ? 0 : loc.getLineNr();
      String msg = e.getOriginalMessage();
      problems.clear();
      problems.add(new SyntaxProblem(Math.max(line, 0), "YAML syntax error: " + firstLine(msg)));
      return new Result(null, problems);
    } catch (IOException e) {
      throw new IllegalStateException("reading YAML from a string failed", e);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable document";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  private static int lineOf(JsonParser p) {
    JsonLocation loc = p.currentTokenLocation();
    return loc == null ? 0 : loc.getLineNr();
  }

  private static Node readNode(JsonParser p, JsonToken t, List<SyntaxProblem> problems)
      throws IOException {
    int line = lineOf(p);
    switch (t) {
      case START_OBJECT -> {
        Map<String, Entry> entries = new LinkedHashMap<>();
        JsonToken k;
        while ((k = p.nextToken()) == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          int keyLine = lineOf(p);
          JsonToken v = p.nextToken();
          Node value = readNode(p, v, problems);
          Entry previous = entries.putIfAbsent(key, new Entry(key, keyLine, value));
          if (previous != null) {
            problems.add(
                new SyntaxProblem(
                    keyLine,
                    "duplicate key '" + key + "' (first at line " + previous.keyLine() + ")"));
          }
        }
        if (k != JsonToken.END_OBJECT) {
          throw new IllegalStateException("unexpected token " + k + " in a mapping");
        }
        return new MapNode(line, entries);
      }
      case START_ARRAY -> {
        List<Node> items = new ArrayList<>();
        JsonToken i;
        while ((i = p.nextToken()) != JsonToken.END_ARRAY) {
          if (i == null) {
            throw new IllegalStateException("unterminated list");
          }
          items.add(readNode(p, i, problems));
        }
        return new ListNode(line, items);
      }
      case VALUE_NULL -> {
        return new ScalarNode(line, null, t);
      }
      default -> {
        return new ScalarNode(line, p.getText(), t);
      }
    }
  }
}
