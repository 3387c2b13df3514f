package sirocco.fork;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The outcome of validating a provenance file.
 *
 * @param source the provenance file name
 * @param violations every violation: schema, malformed globs and ids, base, missing upstream ids,
 *     stale globs
 * @param trackedFiles how many files the repository tracks
 * @param sections every section (document order) with the tracked files its globs match; empty when
 *     the file had schema errors
 */
public record ProvenanceResult(
    String source, List<Violation> violations, int trackedFiles, List<SectionFiles> sections) {

  /** A section and the tracked files matching its globs (less ignores), sorted. */
  public record SectionFiles(Section section, List<String> files) {
    public SectionFiles {
      files = List.copyOf(files);
    }
  }

  public ProvenanceResult {
    violations = List.copyOf(violations);
    sections = List.copyOf(sections);
  }

  public boolean ok() {
    return violations.isEmpty();
  }

  /** {@code 0} when {@link #ok()}, else {@code 1}. */
  public int exitCode() {
    return ok() ? 0 : 1;
  }

  /** Distinct tracked files matched by some section. */
  public int describedFiles() {
    Set<String> all = new HashSet<>();
    sections.forEach(s -> all.addAll(s.files()));
    return all.size();
  }

  /** Upstream ids cited, over all sections. */
  public int upstreamIds() {
    return sections.stream().mapToInt(s -> s.section().upstream().size()).sum();
  }

  public int staleGlobs() {
    return (int) violations.stream().filter(v -> v.kind() == Violation.Kind.STALE_GLOB).count();
  }

  /** E.g. {@code 6 sections, 5 upstream ids, 41 of 230 tracked files described, 0 stale globs}. */
  public String summaryLine() {
    return sections.size()
        + (sections.size() == 1 ? " section, " : " sections, ")
        + upstreamIds()
        + (upstreamIds() == 1 ? " upstream id, " : " upstream ids, ")
        + describedFiles()
        + " of "
        + trackedFiles
        + " tracked files described, "
        + staleGlobs()
        + (staleGlobs() == 1 ? " stale glob" : " stale globs");
  }

  /** Each violation on its own line, the summary line, then {@code OK} or {@code FAILED: N}. */
  public String toText() {
    StringBuilder sb = new StringBuilder();
    for (Violation v : violations) {
      sb.append(v.format(source)).append('\n');
    }
    sb.append(summaryLine()).append('\n');
    sb.append(
        ok()
            ? "OK\n"
            : "FAILED: "
                + violations.size()
                + (violations.size() == 1 ? " violation\n" : " violations\n"));
    return sb.toString();
  }

  /** Machine-readable status (format 1). */
  public String toJson() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("format", "sirocco-provenance/1");
    root.put("status", ok() ? "pass" : "fail");
    root.put("exitCode", exitCode());
    root.put("summary", summaryLine());
    root.put("spec", source);
    ArrayNode vs = root.putArray("violations");
    for (Violation v : violations) {
      ObjectNode o = vs.addObject();
      o.put("kind", v.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      o.put("message", v.message());
      if (v.line() > 0) {
        o.put("line", v.line());
      }
    }
    ArrayNode ss = root.putArray("sections");
    for (SectionFiles sf : sections) {
      ObjectNode o = ss.addObject();
      o.put("section", sf.section().number());
      o.put("title", sf.section().title());
      ArrayNode ups = o.putArray("upstream");
      for (UpstreamRef u : sf.section().upstream()) {
        ObjectNode uo = ups.addObject();
        uo.put("id", u.id());
        uo.put("kind", u.kind().yamlName());
        if (!u.note().isEmpty()) {
          uo.put("note", u.note());
        }
      }
      ArrayNode fs = o.putArray("files");
      sf.files().forEach(fs::add);
    }
    try {
      return mapper.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("serializing a JSON tree failed", e);
    }
  }
}
