package sirocco.runtime.cuda;

import sirocco.runtime.KernelLaunch;

/**
 * The kernel cache of one CUDA device: compiled, loaded kernels keyed by method, specialization and
 * target.
 */
public final class CudaKernels {
  private final CudaDevice device;

  CudaKernels(CudaDevice device) {
    this.device = device;
  }

  void launch(KernelLaunch launch, CudaStream stream) {
    throw new UnsupportedOperationException(
        "launching Java kernels on CUDA is not implemented yet (the compiler is not merged); "
            + "launch "
            + launch
            + " on "
            + device.info().name());
  }

  /** Drops loaded modules no launch is using. */
  void trimIdle() {}
}
