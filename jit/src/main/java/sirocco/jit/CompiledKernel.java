package sirocco.jit;

import java.util.List;

/**
 * A kernel compiled to PTX.
 *
 * @param entryName the {@code .entry} name to look up after loading the module
 * @param ptx the module text
 * @param params the Java parameters after the context; the PTX parameters are those not
 *     specialized, in order
 * @param staticSharedBytes bytes of {@code .shared} memory the kernel declares
 * @param key the cache key this was compiled for
 */
public record CompiledKernel(
    String entryName, String ptx, List<KernelParam> params, long staticSharedBytes, KernelKey key) {
  public CompiledKernel {
    params = List.copyOf(params);
  }

  /** The parameters the launcher passes (the non-specialized ones), in PTX order. */
  public List<KernelParam> launchParams() {
    return params.stream().filter(p -> !p.specialized()).toList();
  }
}
