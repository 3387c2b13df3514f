package sirocco.runtime;

/**
 * A device could not provide memory, even after Sirocco dropped its cached memory and retried once.
 * The message gives the request and the device's memory counters; on CUDA the cause is the driver's
 * {@code CUDA_ERROR_OUT_OF_MEMORY}.
 */
public class DeviceOutOfMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long requestedBytes;

  public DeviceOutOfMemoryException(
      String device, long requestedBytes, MemoryStats stats, Throwable cause) {
    super(
        device
            + " is out of memory: requested "
            + requestedBytes
            + " bytes after clearing the cache and retrying once"
            + (stats == null
                ? ""
                : " (in use "
                    + stats.usedBytes()
                    + " bytes, reserved "
                    + stats.reservedBytes()
                    + " bytes, peak "
                    + stats.peakUsedBytes()
                    + " bytes)"),
        cause);
    this.requestedBytes = requestedBytes;
  }

  public long requestedBytes() {
    return requestedBytes;
  }
}
