/**
 * Fork tracking: the {@code fork.yaml} model (compatible with protolambda/forkdiff), a checker with
 * check_forkdiff semantics, a review report (Markdown or self-contained HTML) and provenance-file
 * validation. Depends on nothing else of Sirocco.
 *
 * <p>JGit ships no module descriptor, so {@code org.eclipse.jgit} is an automatic module (named by
 * its manifest); the lint warning for requiring one is expected and suppressed.
 */
@SuppressWarnings("requires-automatic")
module sirocco.fork {
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires org.eclipse.jgit;
  // JGit, an automatic module, declares no dependencies; on the module path nothing would put
  // these (explicit) modules it loads into the graph, so they are required here on its behalf.
  requires org.slf4j;
  requires com.googlecode.javaewah;
  requires org.apache.commons.codec;

  exports sirocco.fork;
}
