package sirocco.api;

/**
 * A kernel method uses a construct that Sirocco's compiler cannot translate to PTX. The message
 * names the class, method, source line, bytecode offset and the construct, and says what to use
 * instead where there is an alternative.
 */
public class KernelCompileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KernelCompileException(String message) {
    super(message);
  }

  public KernelCompileException(String message, Throwable cause) {
    super(message, cause);
  }
}
