package sirocco.jit;

/**
 * ptxas rejected generated PTX: a compiler bug or an unsupported target. The message carries
 * ptxas's error log.
 */
public class PtxCompilationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String errorLog;

  public PtxCompilationException(String message, String errorLog) {
    super(message + (errorLog == null || errorLog.isBlank() ? "" : ":\n" + errorLog));
    this.errorLog = errorLog;
  }

  /** ptxas's error log, possibly empty. */
  public String errorLog() {
    return errorLog;
  }
}
