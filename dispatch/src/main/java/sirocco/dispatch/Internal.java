package sirocco.dispatch;

import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Stream;

/**
 * The ops in this package see tensors' buffers through this bridge, which the public package
 * installs; the public API itself exposes no runtime types. Not exported from the module.
 */
public final class Internal {
  /** What ops need from the public types. */
  public interface Bridge {
    DeviceBuffer buffer(Tensor t);

    Device device(Sirocco rt);

    Stream stream(Sirocco rt);

    /** A tensor owning {@code buffer}, contiguous, on {@code rt}. */
    Tensor wrap(Sirocco rt, DeviceBuffer buffer, sirocco.DType dtype, long[] shape);

    /** A new uninitialised contiguous tensor. */
    Tensor empty(Sirocco rt, sirocco.DType dtype, long[] shape);
  }

  private static volatile Bridge bridge;

  private Internal() {}

  public static void install(Bridge b) {
    if (bridge != null) {
      throw new IllegalStateException("bridge already installed");
    }
    bridge = b;
  }

  public static Bridge bridge() {
    if (bridge == null) {
      try {
        Class.forName("sirocco.Sirocco", true, Internal.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
    return bridge;
  }
}
