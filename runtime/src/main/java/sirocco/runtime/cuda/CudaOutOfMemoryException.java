package sirocco.runtime.cuda;

/** The device (or pinned host memory) ran out of memory: {@code CUDA_ERROR_OUT_OF_MEMORY}. */
public class CudaOutOfMemoryException extends CudaException {
  private static final long serialVersionUID = 1L;
  private final long requestedBytes;

  public CudaOutOfMemoryException(
      String call, int code, String errorName, String description, long requestedBytes) {
    super(
        call,
        code,
        errorName,
        description,
        requestedBytes > 0 ? "requested " + requestedBytes + " bytes" : null);
    this.requestedBytes = requestedBytes;
  }

  /** Bytes the failing call asked for, or 0 when unknown. */
  public long requestedBytes() {
    return requestedBytes;
  }
}
