package sirocco.runtime;

/**
 * A kernel failed while running: on the Java backend an exception in one of its threads
 * (out-of-range index, division by zero, a barrier not reached by every thread), on the GPU a
 * launch or execution error reported by the driver. The message names the kernel and, where known,
 * the block and thread.
 */
public class KernelExecutionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KernelExecutionException(String message, Throwable cause) {
    super(message, cause);
  }

  public KernelExecutionException(String message) {
    super(message);
  }
}
