package sirocco.runtime.host;

import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;

/** A Java-backend buffer: a Java array that kernels receive as their array parameter. */
public class HostBuffer implements DeviceBuffer {
  private final HostDevice device;
  private final ElementType type;
  private final Object array;
  private final boolean counted;
  private volatile boolean closed;

  HostBuffer(HostDevice device, ElementType type, Object array) {
    this(device, type, array, true);
  }

  HostBuffer(HostDevice device, ElementType type, Object array, boolean counted) {
    this.device = device;
    this.type = type;
    this.array = array;
    this.counted = counted;
  }

  /** The array kernels see. */
  public Object array() {
    if (closed) {
      throw new IllegalStateException("buffer is closed");
    }
    return array;
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public ElementType type() {
    return type;
  }

  @Override
  public long length() {
    return java.lang.reflect.Array.getLength(array);
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (counted) {
        device.released(bytes());
      }
    }
  }
}
