package sirocco.jit;

import java.util.List;

/**
 * A kernel compiled to PTX.
 *
 * @param entryName the {@code .entry} name to look up after loading the module
 * @param ptx the module text
 * @param params the Java parameters after the context; the PTX parameters are those not
 *     specialized, in order
 * @param staticSharedBytes bytes of {@code .shared} memory the kernel declares (0 when its shared
 *     arrays are dynamic)
 * @param dynamicSharedBytes bytes of dynamic shared memory the kernel's shared arrays occupy when
 *     together they exceed the 48 KiB a kernel may declare statically (0 otherwise): the kernel
 *     must be launched with at least this many dynamic shared bytes, after opting in to them with
 *     {@code CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} (the CUDA runtime does both)
 * @param key the cache key this was compiled for
 */
public record CompiledKernel(
    String entryName,
    String ptx,
    List<KernelParam> params,
    long staticSharedBytes,
    long dynamicSharedBytes,
    KernelKey key) {
  public CompiledKernel {
    params = List.copyOf(params);
  }

  /** All the shared memory the kernel's arrays take, static or dynamic. */
  public long sharedBytes() {
    return staticSharedBytes + dynamicSharedBytes;
  }

  /** The parameters the launcher passes (the non-specialized ones), in PTX order. */
  public List<KernelParam> launchParams() {
    return params.stream().filter(p -> !p.specialized()).toList();
  }
}
