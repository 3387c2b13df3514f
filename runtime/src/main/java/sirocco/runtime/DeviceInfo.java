package sirocco.runtime;

/**
 * What a device is: for CUDA the driver's answers, for the Java backend the host's cores and heap.
 *
 * @param backend "cuda" or "java"
 * @param name the device's name (the GPU's marketing name, or "Java backend (N cores)")
 * @param computeMajor compute capability major (0 for the Java backend)
 * @param computeMinor compute capability minor
 * @param multiprocessors streaming multiprocessors (host: cores)
 * @param totalMemoryBytes device memory (host: maximum heap)
 * @param l2Bytes L2 cache size (0 when unknown)
 * @param clockKhz SM clock in kHz (0 when unknown)
 * @param driverVersion CUDA driver version as the driver encodes it (12080 = 12.8), 0 for Java
 */
public record DeviceInfo(
    String backend,
    String name,
    int computeMajor,
    int computeMinor,
    int multiprocessors,
    long totalMemoryBytes,
    long l2Bytes,
    int clockKhz,
    int driverVersion) {

  /** "9.0" style compute capability, or "-" for the Java backend. */
  public String computeCapability() {
    return computeMajor == 0 ? "-" : computeMajor + "." + computeMinor;
  }

  /** "13.0" style driver version, or "-". */
  public String driverVersionString() {
    return driverVersion == 0 ? "-" : (driverVersion / 1000) + "." + (driverVersion % 1000) / 10;
  }
}
