package sirocco.runtime.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import sirocco.runtime.ElementType;
import sirocco.runtime.MappedBuffer;

/**
 * The Java backend's mapped memory: an array the kernels and the host share, accessed from the host
 * with volatile semantics (as kernels read it with {@code ctx.loadVolatile}). Not counted as device
 * memory, as CUDA's pinned host memory is not.
 */
public final class HostMappedBuffer extends HostBuffer implements MappedBuffer {
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle FLOATS = MethodHandles.arrayElementVarHandle(float[].class);

  HostMappedBuffer(HostDevice device, ElementType type, Object array) {
    super(device, type, array, false);
  }

  @Override
  public int getIntVolatile(long index) {
    Object a = array();
    return a instanceof int[] ints
        ? (int) INTS.getVolatile(ints, Math.toIntExact(index))
        : Float.floatToRawIntBits((float) FLOATS.getVolatile((float[]) a, Math.toIntExact(index)));
  }

  @Override
  public void setIntVolatile(long index, int value) {
    Object a = array();
    if (a instanceof int[] ints) {
      INTS.setVolatile(ints, Math.toIntExact(index), value);
    } else {
      FLOATS.setVolatile((float[]) a, Math.toIntExact(index), Float.intBitsToFloat(value));
    }
  }
}
