package sirocco.runtime.cuda;

import java.lang.reflect.Method;
import sirocco.api.KernelContext;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;

/**
 * A kernel with 80 KiB of shared arrays (40 KiB of floats, 40 KiB of ints: dynamic shared memory on
 * the GPU, per-block Java arrays on the Java backend), and the launch the runtime tests give it.
 * Block {@code g} of {@link #BLOCK} threads fills {@code k[j] = in[j] + g} and {@code f[j] = 2 *
 * in[j]} (small integers: exact as floats), thread {@code t} taking every {@code BLOCK}-th element,
 * then after a barrier writes {@code out[g * WORDS + j] = 3 * k[WORDS - 1 - j] + (int) f[(7 * j) %
 * WORDS]}, elements other threads wrote in both arrays.
 */
public final class LargeSharedKernel {
  private LargeSharedKernel() {}

  /** Elements per shared array (40 KiB each). */
  public static final int WORDS = 10 * 1024;

  /** Threads per block. */
  public static final int BLOCK = 256;

  public static void largeShared(KernelContext ctx, int[] in, int[] out) {
    float[] f = ctx.allocateFloatLocalArray(WORDS);
    int[] k = ctx.allocateIntLocalArray(WORDS);
    int g = ctx.groupIdx;
    for (int j = ctx.localIdx; j < WORDS; j += BLOCK) {
      k[j] = in[j] + g;
      f[j] = 2f * in[j];
    }
    ctx.localBarrier();
    for (int j = ctx.localIdx; j < WORDS; j += BLOCK) {
      out[g * WORDS + j] = 3 * k[WORDS - 1 - j] + (int) f[(7 * j) % WORDS];
    }
  }

  static Method method() {
    for (Method m : LargeSharedKernel.class.getMethods()) {
      if (m.getName().equals("largeShared")) {
        return m;
      }
    }
    throw new IllegalStateException("largeShared");
  }

  /** The inputs: small integers, so that {@code 2f * in[j]} is exact. */
  static int[] input() {
    int[] in = new int[WORDS];
    for (int j = 0; j < WORDS; j++) {
      in[j] = (j * 37) % 1001 - 500;
    }
    return in;
  }

  /** What {@code blocks} blocks write, computed straight from the inputs. */
  static int[] expected(int[] in, int blocks) {
    int[] want = new int[blocks * WORDS];
    for (int g = 0; g < blocks; g++) {
      for (int j = 0; j < WORDS; j++) {
        want[g * WORDS + j] = 3 * (in[WORDS - 1 - j] + g) + 2 * in[(7 * j) % WORDS];
      }
    }
    return want;
  }

  /**
   * Runs {@code blocks} blocks on {@code d} with {@code extraDynamic} dynamic shared bytes of the
   * launch's own and returns {@code out}.
   */
  static int[] run(Device d, int blocks, int extraDynamic) {
    int[] in = input();
    try (DeviceBuffer x = d.allocate(ElementType.I32, WORDS);
        DeviceBuffer y = d.allocate(ElementType.I32, (long) blocks * WORDS)) {
      d.upload(in, 0, x, 0, WORDS, d.defaultStream());
      d.launch(
          new KernelLaunch(
              method(), Dim3.of(blocks), Dim3.of(BLOCK), extraDynamic, new Object[] {x, y}, 0));
      int[] out = new int[blocks * WORDS];
      d.download(y, 0, out, 0, out.length, d.defaultStream());
      d.synchronize();
      return out;
    }
  }
}
