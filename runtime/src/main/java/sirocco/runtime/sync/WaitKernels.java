package sirocco.runtime.sync;

import java.lang.reflect.Method;
import sirocco.api.Intrinsics;
import sirocco.api.KernelContext;

/**
 * Kernels with a known duration, for measuring and testing waits (bench sync, the exit variants,
 * the cooperative-wait tests). Ordinary Java kernels: the same methods run on the Java backend and,
 * compiled by Sirocco's JIT, on the GPU. Launch them with one block of one thread.
 */
public final class WaitKernels {
  /** {@link #spinOnFlag} wrote this: the flag was seen set. */
  public static final int FLAG_SEEN = 1;

  /** {@link #spinOnFlag} wrote this: it gave up waiting. */
  public static final int GAVE_UP = 2;

  private WaitKernels() {}

  /**
   * Busy-waits for {@code nanos} nanoseconds of the device's clock, then writes the elapsed
   * nanoseconds (saturated to int) to {@code out[0]}. {@code nanos = 0} is an empty kernel that
   * still writes its output.
   */
  public static void busyWait(KernelContext ctx, int[] out, long nanos) {
    long start = Intrinsics.globalTimerNanos();
    long elapsed = 0;
    while (elapsed < nanos) {
      elapsed = Intrinsics.globalTimerNanos() - start;
    }
    if (ctx.globalIdx == 0) {
      out[0] = (int) Math.min(elapsed, Integer.MAX_VALUE);
    }
  }

  /**
   * Spins until {@code flag[0]} is non-zero (read with {@code ld.volatile}, so a host write to
   * mapped memory is seen) or {@code timeoutNanos} have passed, so a regression fails instead of
   * hanging the device. Writes {@link #FLAG_SEEN} or {@link #GAVE_UP} to {@code out[0]}.
   */
  public static void spinOnFlag(KernelContext ctx, int[] flag, int[] out, long timeoutNanos) {
    long start = Intrinsics.globalTimerNanos();
    int result = GAVE_UP;
    while (Intrinsics.globalTimerNanos() - start < timeoutNanos) {
      if (ctx.loadVolatile(flag, 0) != 0) {
        result = FLAG_SEEN;
        break;
      }
    }
    if (ctx.globalIdx == 0) {
      out[0] = result;
    }
  }

  /** The kernel method {@code name} of this class. */
  public static Method method(String name) {
    for (Method m : WaitKernels.class.getMethods()) {
      if (m.getName().equals(name)
          && m.getParameterCount() > 0
          && m.getParameterTypes()[0] == KernelContext.class) {
        return m;
      }
    }
    throw new IllegalArgumentException("no kernel " + name + " in WaitKernels");
  }

  /** {@link #busyWait}. */
  public static Method busyWaitKernel() {
    return method("busyWait");
  }

  /** {@link #spinOnFlag}. */
  public static Method spinOnFlagKernel() {
    return method("spinOnFlag");
  }
}
