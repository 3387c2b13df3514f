/**
 * Fork tracking.
 *
 * <ul>
 *   <li>{@link sirocco.fork.ForkSpecParser} reads a {@code fork.yaml} into a {@link
 *       sirocco.fork.ForkSpec}; schema errors carry line numbers.
 *   <li>{@link sirocco.fork.ForkChecker} checks a repository against a spec ({@code fork check});
 *       the {@link sirocco.fork.CheckResult} lists every violation and the summary line.
 *   <li>{@link sirocco.fork.ForkReport} and {@link sirocco.fork.ReportRenderer} build the review
 *       overview ({@code fork report}) in Markdown or self-contained HTML.
 *   <li>{@link sirocco.fork.ProvenanceValidator} validates a provenance file (same schema, no base)
 *       against a repository's tracked files.
 * </ul>
 *
 * Library code never prints and never exits: it returns results, throws {@link
 * java.lang.IllegalArgumentException} for bad arguments and {@link java.io.IOException} for I/O.
 */
package sirocco.fork;
