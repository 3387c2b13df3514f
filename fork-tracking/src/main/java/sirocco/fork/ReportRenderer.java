package sirocco.fork;

import java.util.List;
import java.util.Locale;
import sirocco.fork.ForkReport.FileStat;
import sirocco.fork.ForkReport.Lines;
import sirocco.fork.ForkReport.SectionReport;
import sirocco.fork.internal.Markdown;

/**
 * Renders a {@link ForkReport} as Markdown or as one self-contained HTML file (inline CSS, no
 * scripts, no network assets; the logo, when any, embedded as a data URI). The HTML is also
 * well-formed XML.
 */
public final class ReportRenderer {
  /** Output formats of {@code fork report --format}. */
  public enum Format {
    MD,
    HTML;

    /**
     * {@code md}/{@code markdown} or {@code html}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Format parse(String name) {
      return switch (name.toLowerCase(Locale.ROOT)) {
        case "md", "markdown" -> MD;
        case "html", "htm" -> HTML;
        default ->
            throw new IllegalArgumentException(
                "unknown report format '" + name + "' (expected md or html)");
      };
    }
  }

  private ReportRenderer() {}

  /** The report in {@code format}. */
  public static String render(ForkReport report, Format format) {
    return switch (format) {
      case MD -> markdown(report);
      case HTML -> html(report);
    };
  }

  // ---- Markdown --------------------------------------------------------------------------

  /** The report as GitHub-flavoured Markdown. */
  public static String markdown(ForkReport r) {
    ForkSpec spec = r.spec();
    StringBuilder sb = new StringBuilder();
    sb.append("# ").append(oneLine(pageTitle(spec))).append("\n\n");
    spec.base()
        .ifPresent(
            b ->
                sb.append("- **Base:** ")
                    .append(mdRepo(b))
                    .append(' ')
                    .append(code(r.baseCommit()))
                    .append(b.refIfSet().map(ref -> " (" + code(ref) + ")").orElse(""))
                    .append('\n'));
    sb.append("- **Fork:** ")
        .append(spec.fork().map(ReportRenderer::mdRepo).orElse("HEAD"))
        .append(' ')
        .append(code(r.headCommit()))
        .append('\n');
    sb.append("- **Summary:** ").append(r.summaryLine()).append('\n');
    sb.append("- **Lines:** ").append(mdLines(r.describedLines())).append(" in described files");
    if (!r.undescribed().isEmpty()) {
      sb.append("; ").append(mdLines(r.undescribedLines())).append(" undescribed");
    }
    sb.append("; ").append(mdLines(r.ignoredLines())).append(" ignored\n\n");
    if (!r.problems().isEmpty()) {
      sb.append("> **Problems:**\n");
      for (Violation v : r.problems()) {
        sb.append("> - ").append(mdEscape(v.format(spec.source()))).append('\n');
      }
      sb.append('\n');
    }
    for (SectionReport s : r.sections()) {
      mdSection(s, sb);
    }
    if (!r.undescribed().isEmpty()) {
      sb.append("## Other changes (undescribed)\n\n");
      sb.append("No section or ignore glob matches these files.\n\n");
      mdTable(r.undescribed(), sb);
    }
    if (!r.ignored().isEmpty()) {
      sb.append("## Ignored changes\n\n");
      mdTable(r.ignored(), sb);
    }
    if (!spec.footer().isBlank()) {
      sb.append("---\n\n").append(spec.footer().strip()).append('\n');
    }
    return sb.toString();
  }

  private static void mdSection(SectionReport s, StringBuilder sb) {
    Section sec = s.section();
    int level = Math.min(6, sec.depth() + 2);
    sb.append("#".repeat(level)).append(' ').append(oneLine(heading(sec)));
    sb.append(" (").append(mdLines(s.total())).append(")\n\n");
    if (!sec.description().isBlank()) {
      sb.append(sec.description().strip()).append("\n\n");
    }
    if (!sec.upstream().isEmpty()) {
      sb.append("Upstream:\n\n");
      for (UpstreamRef u : sec.upstream()) {
        sb.append("- ");
        String id = code(u.id());
        sb.append(u.githubUrl().map(url -> "[" + id + "](" + url + ")").orElse(id));
        sb.append(" (").append(u.kind().yamlName()).append(')');
        if (!u.note().isBlank()) {
          sb.append(" — ").append(oneLine(u.note()));
        }
        sb.append('\n');
      }
      sb.append('\n');
    }
    List<FileStat> all = new java.util.ArrayList<>(s.files());
    all.addAll(s.ignoredFiles());
    if (!all.isEmpty()) {
      mdTable(all, sb);
    }
  }

  private static void mdTable(List<FileStat> files, StringBuilder sb) {
    sb.append("| File | Change | + | − |\n|---|---|--:|--:|\n");
    for (FileStat f : files) {
      boolean ign = f.coverage() == Coverage.IGNORED;
      String path = code(f.path());
      if (!f.oldPath().isEmpty()) {
        path = code(f.oldPath()) + " → " + path;
      }
      String change = f.change().word();
      if (ign) {
        path = "_" + path + "_";
        change = "_" + change + ", ignored_";
      }
      sb.append("| ").append(tableCell(path)).append(" | ").append(change).append(" | ");
      if (f.binary()) {
        sb.append("binary | binary |\n");
      } else {
        sb.append(f.added()).append(" | ").append(f.removed()).append(" |\n");
      }
    }
    sb.append('\n');
  }

  private static String mdRepo(RepoRef ref) {
    String name = ref.name().isBlank() ? ref.url() : ref.name();
    if (name.isBlank()) {
      return "(unnamed)";
    }
    return ref.url().isBlank() || !Markdown.safeUrl(ref.url())
        ? mdEscape(name)
        : "[" + mdEscape(name) + "](" + ref.url().strip().replace(")", "%29") + ")";
  }

  private static String mdLines(Lines l) {
    return "+" + l.added() + " −" + l.removed();
  }

  /** A code span that survives backticks in {@code s}. */
  private static String code(String s) {
    int longest = 0;
    int run = 0;
    for (int i = 0; i < s.length(); i++) {
      run = s.charAt(i) == '`' ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    String fence = "`".repeat(longest + 1);
    String pad = s.startsWith("`") || s.endsWith("`") ? " " : "";
    return fence + pad + s + pad + fence;
  }

  private static String tableCell(String s) {
    return s.replace("|", "\\|");
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s+", " ").strip();
  }

  private static String mdEscape(String s) {
    StringBuilder sb = new StringBuilder();
    for (char c : oneLine(s).toCharArray()) {
      if ("\\`*_[]<>#|".indexOf(c) >= 0) {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  private static String pageTitle(ForkSpec spec) {
    return spec.title().isBlank() ? "Fork overview" : spec.title();
  }

  private static String heading(Section s) {
    String title =
        s.title().isBlank() ? (s.number().isEmpty() ? "Changes" : "(untitled)") : s.title();
    return s.number().isEmpty() ? title : s.number() + " " + title;
  }

  // ---- HTML ------------------------------------------------------------------------------

  private static final String CSS =
      """
      :root { color-scheme: light; --fg: #1f2328; --muted: #8a8f98; --line: #d8dee4; \
      --add: #1a7f37; --del: #cf222e; --warn: #9a6700; --bg-soft: #f6f8fa; }
      * { box-sizing: border-box; }
      body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: var(--fg); \
      font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
      header { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
      header .logo { max-height: 4rem; float: right; }
      h1 { margin: 0 0 .5rem; font-size: 1.8rem; }
      code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; \
      font-size: .9em; }
      pre { background: var(--bg-soft); padding: .75rem; overflow-x: auto; border-radius: 6px; }
      a { color: #0969da; }
      .refs, .summary { margin: .25rem 0; }
      .summary { font-weight: 600; }
      .problems { border-left: 4px solid var(--warn); background: #fff8c5; padding: .5rem 1rem; }
      nav.toc { background: var(--bg-soft); border-radius: 6px; padding: .5rem 1rem; \
      margin-bottom: 1.5rem; }
      nav.toc ul { list-style: none; padding-left: 1.1rem; margin: .2rem 0; }
      nav.toc > ul { padding-left: 0; }
      section.fork-section { margin: 1.2rem 0 1.2rem 0; }
      section.fork-section section.fork-section { margin-left: 1rem; padding-left: 1rem; \
      border-left: 2px solid var(--line); }
      .stats { font-weight: normal; font-size: .85em; white-space: nowrap; }
      .added { color: var(--add); }
      .removed { color: var(--del); }
      .binary { color: var(--muted); font-style: italic; }
      ul.upstream { padding-left: 1.2rem; }
      .kind { display: inline-block; border: 1px solid var(--line); border-radius: 1em; \
      padding: 0 .5em; font-size: .8em; color: #57606a; }
      table.files { border-collapse: collapse; width: 100%; margin: .5rem 0; }
      table.files th, table.files td { border-bottom: 1px solid var(--line); padding: .2rem .5rem; \
      text-align: left; vertical-align: top; }
      table.files td.num, table.files th.num { text-align: right; white-space: nowrap; \
      font-variant-numeric: tabular-nums; }
      table.files td.path { word-break: break-all; }
      tr.ignored, tr.ignored td, tr.ignored code, tr.ignored .added, tr.ignored .removed, \
      section.ignored-changes { color: var(--muted); }
      section.undescribed h2 { color: var(--del); }
      .old-path { color: var(--muted); }
      footer { border-top: 1px solid var(--line); margin-top: 2rem; padding-top: .5rem; \
      color: #57606a; font-size: .9em; }
      """;

  /** The report as one self-contained HTML page. */
  public static String html(ForkReport r) {
    ForkSpec spec = r.spec();
    StringBuilder sb = new StringBuilder(64 * 1024);
    sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    sb.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    sb.append("<meta name=\"generator\" content=\"sirocco fork report\"/>\n");
    sb.append("<title>").append(esc(pageTitle(spec))).append("</title>\n");
    sb.append("<style>\n").append(CSS).append("</style>\n</head>\n<body>\n<header>\n");
    r.logoDataUri()
        .ifPresent(
            uri ->
                sb.append("<img class=\"logo\" alt=\"logo\" src=\"")
                    .append(esc(uri))
                    .append("\"/>\n"));
    sb.append("<h1>").append(esc(pageTitle(spec))).append("</h1>\n");
    sb.append("<p class=\"refs\">");
    spec.base()
        .ifPresent(
            b -> {
              sb.append("Base: ").append(htmlRepo(b)).append(" <code>");
              sb.append(esc(r.baseCommit())).append("</code>");
              b.refIfSet()
                  .ifPresent(ref -> sb.append(" (<code>").append(esc(ref)).append("</code>)"));
              sb.append(" &#183; ");
            });
    sb.append("Fork: ")
        .append(spec.fork().map(ReportRenderer::htmlRepo).orElse("HEAD"))
        .append(" <code>")
        .append(esc(r.headCommit()))
        .append("</code></p>\n");
    sb.append("<p class=\"summary\" id=\"summary\">").append(esc(r.summaryLine())).append("</p>\n");
    sb.append("<p class=\"lines\">")
        .append(htmlLines(r.describedLines()))
        .append(" in described files");
    if (!r.undescribed().isEmpty()) {
      sb.append(" &#183; ").append(htmlLines(r.undescribedLines())).append(" undescribed");
    }
    sb.append(" &#183; <span class=\"ignored-lines\">")
        .append(htmlLines(r.ignoredLines()))
        .append(" ignored</span></p>\n");
    sb.append("</header>\n");
    if (!r.problems().isEmpty()) {
      sb.append("<div class=\"problems\" id=\"problems\"><strong>Problems</strong><ul>\n");
      for (Violation v : r.problems()) {
        sb.append("<li>").append(esc(v.format(spec.source()))).append("</li>\n");
      }
      sb.append("</ul></div>\n");
    }
    // Table of contents.
    sb.append("<nav class=\"toc\" aria-label=\"Contents\">\n<strong>Contents</strong>\n");
    sb.append("<ul>\n");
    tocEntry(spec.def(), sb);
    if (!r.undescribed().isEmpty()) {
      sb.append("<li><a href=\"#undescribed\">Other changes (undescribed)</a></li>\n");
    }
    if (!r.ignored().isEmpty()) {
      sb.append("<li><a href=\"#ignored\">Ignored changes</a></li>\n");
    }
    sb.append("</ul>\n</nav>\n<main>\n");
    java.util.Map<Section, SectionReport> bySection = new java.util.IdentityHashMap<>();
    r.sections().forEach(s -> bySection.put(s.section(), s));
    htmlSection(spec.def(), bySection, sb);
    if (!r.undescribed().isEmpty()) {
      sb.append("<section class=\"fork-section undescribed\" id=\"undescribed\">\n");
      sb.append("<h2>Other changes (undescribed) <span class=\"stats\">")
          .append(htmlLines(r.undescribedLines()))
          .append("</span></h2>\n");
      sb.append("<p>No section or ignore glob matches these files.</p>\n");
      htmlTable(r.undescribed(), sb);
      sb.append("</section>\n");
    }
    if (!r.ignored().isEmpty()) {
      sb.append("<section class=\"fork-section ignored-changes\" id=\"ignored\">\n");
      sb.append("<h2>Ignored changes <span class=\"stats\">")
          .append(htmlLines(Lines.of(r.ignored())))
          .append("</span></h2>\n");
      htmlTable(r.ignored(), sb);
      sb.append("</section>\n");
    }
    sb.append("</main>\n");
    if (!spec.footer().isBlank()) {
      sb.append("<footer>\n").append(Markdown.toHtml(spec.footer(), 2)).append("</footer>\n");
    }
    sb.append("</body>\n</html>\n");
    return sb.toString();
  }

  private static void tocEntry(Section s, StringBuilder sb) {
    sb.append("<li><a href=\"#").append(anchor(s)).append("\">");
    sb.append(esc(heading(s))).append("</a>");
    if (!s.sub().isEmpty()) {
      sb.append("\n<ul>\n");
      for (Section c : s.sub()) {
        tocEntry(c, sb);
      }
      sb.append("</ul>\n");
    }
    sb.append("</li>\n");
  }

  private static void htmlSection(
      Section s, java.util.Map<Section, SectionReport> bySection, StringBuilder sb) {
    SectionReport sr = bySection.get(s);
    int level = Math.min(6, s.depth() + 2);
    sb.append("<section class=\"fork-section depth-")
        .append(s.depth())
        .append("\" id=\"")
        .append(anchor(s))
        .append("\">\n");
    sb.append("<h").append(level).append('>').append(esc(heading(s)));
    sb.append(" <span class=\"stats\">").append(htmlLines(sr.total()));
    if (sr.ignoredTotal().files() > 0) {
      sb.append(" <span class=\"ignored-lines\">(ignored ")
          .append(htmlLines(sr.ignoredTotal()))
          .append(")</span>");
    }
    sb.append("</span></h").append(level).append(">\n");
    if (!s.description().isBlank()) {
      sb.append("<div class=\"description\">\n")
          .append(Markdown.toHtml(s.description(), level))
          .append("</div>\n");
    }
    if (!s.upstream().isEmpty()) {
      sb.append("<ul class=\"upstream\">\n");
      for (UpstreamRef u : s.upstream()) {
        sb.append("<li>");
        String id = "<code>" + esc(u.id()) + "</code>";
        sb.append(
            u.githubUrl().map(url -> "<a href=\"" + esc(url) + "\">" + id + "</a>").orElse(id));
        sb.append(" <span class=\"kind\">").append(esc(u.kind().yamlName())).append("</span>");
        if (!u.note().isBlank()) {
          sb.append(" <span class=\"note\">").append(esc(u.note().strip())).append("</span>");
        }
        sb.append("</li>\n");
      }
      sb.append("</ul>\n");
    }
    List<FileStat> all = new java.util.ArrayList<>(sr.files());
    all.addAll(sr.ignoredFiles());
    if (!all.isEmpty()) {
      htmlTable(all, sb);
    }
    for (Section c : s.sub()) {
      htmlSection(c, bySection, sb);
    }
    sb.append("</section>\n");
  }

  private static void htmlTable(List<FileStat> files, StringBuilder sb) {
    sb.append("<table class=\"files\">\n<thead><tr><th>File</th><th>Change</th>");
    sb.append("<th class=\"num\">+</th><th class=\"num\">&#8722;</th></tr></thead>\n<tbody>\n");
    for (FileStat f : files) {
      boolean ign = f.coverage() == Coverage.IGNORED;
      sb.append("<tr class=\"file").append(ign ? " ignored" : "").append("\"");
      sb.append(" data-path=\"").append(esc(f.path())).append("\">");
      sb.append("<td class=\"path\">");
      if (!f.oldPath().isEmpty()) {
        sb.append("<span class=\"old-path\"><code>")
            .append(esc(f.oldPath()))
            .append("</code> &#8594; </span>");
      }
      sb.append("<code>").append(esc(f.path())).append("</code></td>");
      sb.append("<td class=\"change\">").append(f.change().word());
      if (ign) {
        sb.append(", ignored");
      }
      sb.append("</td>");
      if (f.binary()) {
        sb.append("<td class=\"num binary\" colspan=\"2\">binary</td>");
      } else {
        sb.append("<td class=\"num added\">+").append(f.added()).append("</td>");
        sb.append("<td class=\"num removed\">&#8722;").append(f.removed()).append("</td>");
      }
      sb.append("</tr>\n");
    }
    sb.append("</tbody>\n</table>\n");
  }

  private static String htmlRepo(RepoRef ref) {
    String name = ref.name().isBlank() ? ref.url() : ref.name();
    if (name.isBlank()) {
      return "(unnamed)";
    }
    return ref.url().isBlank() || !Markdown.safeUrl(ref.url())
        ? esc(name)
        : "<a href=\"" + esc(ref.url().strip()) + "\">" + esc(name) + "</a>";
  }

  private static String htmlLines(Lines l) {
    return "<span class=\"added\">+"
        + l.added()
        + "</span> <span class=\"removed\">&#8722;"
        + l.removed()
        + "</span>";
  }

  private static String anchor(Section s) {
    return s.number().isEmpty() ? "def" : "s-" + s.number().replace('.', '-');
  }

  private static String esc(String s) {
    return Markdown.escape(s);
  }
}
