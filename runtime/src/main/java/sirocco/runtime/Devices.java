package sirocco.runtime;

import java.util.concurrent.ConcurrentHashMap;
import sirocco.runtime.cuda.Cu;
import sirocco.runtime.cuda.CudaDevice;
import sirocco.runtime.host.HostDevice;

/**
 * Finds devices: a CUDA GPU when the driver library loads and reports a device, else the Java
 * backend, always with the reason for the choice.
 */
public final class Devices {
  private static final ConcurrentHashMap<Integer, Device> CUDA = new ConcurrentHashMap<>();
  private static volatile HostDevice java;

  private Devices() {}

  /** A chosen device and why it was chosen. */
  public record Choice(Device device, String reason) {}

  /** CUDA device 0 when usable, else the Java backend. */
  public static Choice best() {
    if (Boolean.getBoolean("sirocco.forceJava")) {
      return new Choice(java(), "Java backend forced by -Dsirocco.forceJava=true");
    }
    String why = cudaUnavailableReason();
    if (why == null) {
      Device d = cuda(0);
      return new Choice(d, "CUDA device 0 found: " + d.info().name());
    }
    return new Choice(java(), "no usable CUDA device (" + why + "); using the Java backend");
  }

  /** The process-wide Java backend. */
  public static HostDevice java() {
    HostDevice d = java;
    if (d == null) {
      synchronized (Devices.class) {
        d = java;
        if (d == null) {
          java = d = new HostDevice();
        }
      }
    }
    return d;
  }

  /** Why CUDA cannot be used here, or null when device 0 can be opened. */
  public static String cudaUnavailableReason() {
    if (!Cu.libraryAvailable()) {
      return Cu.libraryUnavailableReason();
    }
    int rc = Cu.tryInit();
    if (rc != Cu.SUCCESS) {
      return "cuInit failed: " + Cu.errorName(rc) + " (" + Cu.errorString(rc) + ")";
    }
    int count = Cu.deviceCount();
    return count == 0 ? "the CUDA driver reports no devices" : null;
  }

  /** The CUDA device with this ordinal, opened once per process. */
  public static Device cuda(int ordinal) {
    String why = cudaUnavailableReason();
    if (why != null) {
      throw new IllegalStateException("CUDA is not available: " + why);
    }
    int count = Cu.deviceCount();
    if (ordinal < 0 || ordinal >= count) {
      throw new IllegalArgumentException("ordinal must be in [0, " + count + "), got " + ordinal);
    }
    return CUDA.computeIfAbsent(ordinal, Devices::openCuda);
  }

  private static Device openCuda(int ordinal) {
    return CudaDevice.open(ordinal);
  }
}
