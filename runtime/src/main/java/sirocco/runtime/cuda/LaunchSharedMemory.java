package sirocco.runtime.cuda;

import java.lang.reflect.Method;
import sirocco.runtime.KernelLaunch;

/**
 * The shared memory of a launch of a JIT-compiled kernel. A kernel whose shared arrays exceed 48
 * KiB in all keeps them in dynamic shared memory from offset 0 ({@code
 * CompiledKernel.dynamicSharedBytes()}); a launch may ask for dynamic bytes of its own ({@code
 * KernelLaunch.dynamicSharedBytes()}, {@code Launch.sharedBytes}), which no Sirocco kernel can
 * address (the kernel language has no unsized shared array): they only reserve shared memory per
 * block, as before. So {@code cuLaunchKernel} gets the sum, the kernel's arrays first and the
 * launch's bytes after them, and a block needs the function's static shared memory plus that sum,
 * which must fit the device's opt-in limit ({@code
 * CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}). Checked here, before the driver would
 * fail the load or launch with a bare {@code CUDA_ERROR_INVALID_VALUE}.
 */
final class LaunchSharedMemory {
  private LaunchSharedMemory() {}

  /**
   * The dynamic shared bytes to launch {@code kernel} with: {@code kernelDynamic + launchDynamic}.
   *
   * @param kernel the kernel, named in the message (only then: this runs on every launch)
   * @param staticBytes the function's static shared memory
   * @param kernelDynamic the dynamic shared memory its shared arrays occupy (0 when static)
   * @param launchDynamic the dynamic shared bytes the launch asks for
   * @param optInLimit the most shared memory a block may use on the device
   * @throws IllegalArgumentException naming the kernel, what it needs and the device's limit when a
   *     block does not fit
   */
  static int dynamicBytes(
      Method kernel, long staticBytes, long kernelDynamic, long launchDynamic, long optInLimit) {
    long dynamic = kernelDynamic + launchDynamic;
    long total = staticBytes + dynamic;
    if (total > optInLimit) {
      throw new IllegalArgumentException(
          "kernel "
              + KernelLaunch.name(kernel)
              + " needs "
              + total
              + " bytes of shared memory per block ("
              + staticBytes
              + " static, "
              + kernelDynamic
              + " for its shared arrays in dynamic shared memory, "
              + launchDynamic
              + " dynamic bytes the launch asks for), more than the "
              + optInLimit
              + " bytes this device allows a block"
              + " (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
    }
    return (int) dynamic;
  }
}
