package sirocco.dispatch.cudnn;

/**
 * A cuDNN call failed. Carries the call, cuDNN's status code and name (from {@code
 * cudnnGetErrorString}), the descriptor type and attribute involved (when the call had them) and
 * cuDNN's own last-error message ({@code cudnnGetLastErrorString}), which usually says which
 * constraint failed.
 */
public class CudnnException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String call;
  private final int status;
  private final String statusName;
  private final String descriptor;
  private final String attribute;
  private final String detail;

  /**
   * @param call the cuDNN function, e.g. {@code cudnnBackendFinalize}
   * @param status cuDNN's status code
   * @param statusName its name, e.g. {@code CUDNN_STATUS_NOT_SUPPORTED_SHAPE}
   * @param descriptor the descriptor type's name, or null
   * @param attribute the attribute's name, or null
   * @param detail cuDNN's last-error message, or null
   */
  public CudnnException(
      String call,
      int status,
      String statusName,
      String descriptor,
      String attribute,
      String detail) {
    super(message(call, status, statusName, descriptor, attribute, detail));
    this.call = call;
    this.status = status;
    this.statusName = statusName;
    this.descriptor = descriptor;
    this.attribute = attribute;
    this.detail = detail;
  }

  private static String message(
      String call,
      int status,
      String statusName,
      String descriptor,
      String attribute,
      String detail) {
    StringBuilder b = new StringBuilder(call).append(" failed");
    if (descriptor != null) {
      b.append(" on ").append(descriptor);
    }
    if (attribute != null) {
      b.append(" setting ").append(attribute);
    }
    b.append(": ").append(statusName).append(" (").append(status).append(')');
    if (detail != null && !detail.isBlank()) {
      b.append(": ").append(detail.strip());
    }
    return b.toString();
  }

  public String call() {
    return call;
  }

  public int status() {
    return status;
  }

  public String statusName() {
    return statusName;
  }

  /**
   * The descriptor type involved, e.g. {@code CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR}, or null.
   */
  public String descriptor() {
    return descriptor;
  }

  /** The attribute involved, e.g. {@code CUDNN_ATTR_TENSOR_STRIDES}, or null. */
  public String attribute() {
    return attribute;
  }

  /** cuDNN's last-error message for the failing call, or null. */
  public String detail() {
    return detail;
  }

  /** True when cuDNN declined (the 3xxx "not supported" family) rather than failed. */
  public boolean notSupported() {
    return CudnnConstants.isNotSupported(status);
  }

  /** One line for reasons and logs: status name, then cuDNN's message. */
  public String shortReason() {
    String d = detail == null || detail.isBlank() ? "" : ": " + firstLine(detail);
    return statusName + d;
  }

  private static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }
}
