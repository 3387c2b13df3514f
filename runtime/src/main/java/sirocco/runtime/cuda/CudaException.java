package sirocco.runtime.cuda;

/**
 * A CUDA driver call failed. Carries the call's name, the driver's numeric result, its error name
 * (e.g. {@code CUDA_ERROR_INVALID_PTX}) and description.
 */
public class CudaException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String call;
  private final int code;
  private final String errorName;

  public CudaException(String call, int code, String errorName, String description) {
    this(call, code, errorName, description, null);
  }

  public CudaException(String call, int code, String errorName, String description, String detail) {
    super(
        call
            + " failed: "
            + errorName
            + " ("
            + code
            + "): "
            + description
            + (detail == null || detail.isBlank() ? "" : "\n" + detail));
    this.call = call;
    this.code = code;
    this.errorName = errorName;
  }

  public String call() {
    return call;
  }

  public int code() {
    return code;
  }

  public String errorName() {
    return errorName;
  }
}
