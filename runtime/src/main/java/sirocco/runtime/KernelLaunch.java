package sirocco.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * One launch of a kernel method: the grid, the block, dynamic shared memory and the arguments after
 * the context. Array parameters take a {@link DeviceBuffer} of the matching {@link ElementType};
 * scalar parameters take the boxed value. Values of {@link Specialize} parameters select the
 * compiled variant on the GPU.
 *
 * <p>{@code dynamicSharedBytes} reserves shared memory per block on the GPU (which limits how many
 * blocks share an SM); kernels cannot address it. A kernel's own shared arrays need nothing here:
 * when they exceed 48 KiB in all the compiler puts them in dynamic shared memory and the CUDA
 * backend adds their size to these bytes, the arrays first (see {@code CudaKernels}). The Java
 * backend ignores it.
 *
 * <p>{@code minBlocksPerSm} is an occupancy hint for the GPU compiler (0, the default: none): with
 * {@code n > 0} the CUDA backend compiles a variant for this block size that tells NVIDIA's PTX
 * compiler at least {@code n} blocks of it should fit one SM ({@code .maxntid} and {@code
 * .minnctapersm}; see {@code sirocco.jit.LaunchBounds}), which caps its registers per thread, and
 * caches it apart from the unhinted one. The Java backend ignores it.
 *
 * <p>{@code earlyStart} lets the launch begin before the previous kernel in its stream has finished
 * (CUDA's programmatic dependent launch, sm_90+): its blocks may become resident while that
 * kernel's last blocks run, and wait in {@link KernelContext#waitForPriorGrids()} for it to finish.
 * The kernel must call that before it touches memory the previous kernel uses; the CUDA backend
 * refuses an early-start launch of a kernel that never calls it. Before sm_90 and on the Java
 * backend the launch runs after the previous one, as any other.
 *
 * <p>The constructor checks everything it can without a device, so a bad launch fails the same way
 * on both backends, with a message naming the argument.
 */
public record KernelLaunch(
    Method kernel,
    Dim3 grid,
    Dim3 block,
    int dynamicSharedBytes,
    Object[] args,
    int minBlocksPerSm,
    boolean earlyStart) {
  /** The most blocks per SM a hint may ask for (sm_80 and sm_90 hold at most 32). */
  public static final int MAX_MIN_BLOCKS_PER_SM = 32;

  public KernelLaunch {
    if (kernel == null || grid == null || block == null || args == null) {
      throw new IllegalArgumentException("kernel, grid, block and args must not be null");
    }
    if (!Modifier.isStatic(kernel.getModifiers())
        || kernel.getReturnType() != void.class
        || kernel.getParameterCount() == 0
        || kernel.getParameterTypes()[0] != KernelContext.class) {
      throw new IllegalArgumentException(
          "kernel "
              + kernel
              + " must be a static void method whose first parameter is KernelContext");
    }
    if (dynamicSharedBytes < 0) {
      throw new IllegalArgumentException(
          "dynamicSharedBytes must be >= 0, got " + dynamicSharedBytes);
    }
    if (block.count() > 1024) {
      throw new IllegalArgumentException(
          "block must have at most 1024 threads, got " + block.count());
    }
    if (minBlocksPerSm < 0 || minBlocksPerSm > MAX_MIN_BLOCKS_PER_SM) {
      throw new IllegalArgumentException(
          "minBlocksPerSm must be 0 (no hint) .. "
              + MAX_MIN_BLOCKS_PER_SM
              + ", got "
              + minBlocksPerSm);
    }
    Class<?>[] types = kernel.getParameterTypes();
    if (args.length != types.length - 1) {
      throw new IllegalArgumentException(
          "kernel "
              + name(kernel)
              + " takes "
              + (types.length - 1)
              + " arguments after the context, got "
              + args.length);
    }
    args = args.clone();
    for (int i = 0; i < args.length; i++) {
      Class<?> type = types[i + 1];
      Object arg = args[i];
      String what =
          "argument "
              + (i + 1)
              + " ("
              + kernel.getParameters()[i + 1].getName()
              + ") of "
              + name(kernel);
      if (type.isArray()) {
        if (!(arg instanceof DeviceBuffer buffer)) {
          throw new IllegalArgumentException(
              what
                  + " must be a DeviceBuffer of "
                  + type.getSimpleName()
                  + ", got "
                  + describe(arg));
        }
        if (buffer.type().arrayType() != type) {
          throw new IllegalArgumentException(
              what
                  + " must hold "
                  + type.getSimpleName()
                  + " elements, got a "
                  + buffer.type()
                  + " buffer");
        }
        if (buffer.isClosed()) {
          throw new IllegalArgumentException(what + " is a closed buffer");
        }
      } else if (arg == null || box(type) != arg.getClass()) {
        throw new IllegalArgumentException(
            what + " must be " + type.getSimpleName() + ", got " + describe(arg));
      }
    }
  }

  /** A launch without dynamic shared memory, occupancy hint or early start. */
  public KernelLaunch(
      Method kernel,
      Dim3 grid,
      Dim3 block,
      int dynamicSharedBytes,
      Object[] args,
      int minBlocksPerSm) {
    this(kernel, grid, block, dynamicSharedBytes, args, minBlocksPerSm, false);
  }

  public static KernelLaunch of(Method kernel, Dim3 grid, Dim3 block, Object... args) {
    return new KernelLaunch(kernel, grid, block, 0, args, 0, false);
  }

  /**
   * This launch starting early ({@code true}) or only after the previous kernel in its stream has
   * finished ({@code false}, the default); see the class comment.
   */
  public KernelLaunch withEarlyStart(boolean early) {
    return new KernelLaunch(kernel, grid, block, dynamicSharedBytes, args, minBlocksPerSm, early);
  }

  /**
   * This launch with occupancy hint {@code n}: at least {@code n} blocks per SM (0 removes the
   * hint).
   *
   * @throws IllegalArgumentException unless {@code 0 <= n <= 32}
   */
  public KernelLaunch withMinBlocksPerSm(int n) {
    return new KernelLaunch(kernel, grid, block, dynamicSharedBytes, args, n, earlyStart);
  }

  /**
   * True when parameter {@code index} (counting after the context) is marked {@link Specialize}.
   */
  public boolean isSpecialized(int index) {
    return kernel.getParameters()[index + 1].isAnnotationPresent(Specialize.class);
  }

  public static String name(Method m) {
    return m.getDeclaringClass().getSimpleName() + "." + m.getName();
  }

  private static String describe(Object o) {
    return o == null ? "null" : o.getClass().getSimpleName();
  }

  static Class<?> box(Class<?> primitive) {
    return java.lang.invoke.MethodType.methodType(primitive).wrap().returnType();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KernelLaunch l
        && kernel.equals(l.kernel)
        && grid.equals(l.grid)
        && block.equals(l.block)
        && dynamicSharedBytes == l.dynamicSharedBytes
        && Arrays.equals(args, l.args)
        && minBlocksPerSm == l.minBlocksPerSm
        && earlyStart == l.earlyStart;
  }

  @Override
  public int hashCode() {
    return ((kernel.hashCode() * 31 + Arrays.hashCode(args)) * 31 + minBlocksPerSm) * 2
        + (earlyStart ? 1 : 0);
  }

  @Override
  public String toString() {
    return name(kernel)
        + " grid "
        + grid
        + " block "
        + block
        + (minBlocksPerSm > 0 ? " min blocks/SM " + minBlocksPerSm : "")
        + (earlyStart ? " early start" : "");
  }
}
