package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;

/**
 * A kernel entry point in a loaded module, with the resources the driver's compiler gave it. Looked
 * up once per module and cached: the launch path never calls {@code cuModuleGetFunction}.
 *
 * @param registers registers per thread
 * @param localBytes local memory per thread (spills and stack)
 * @param staticSharedBytes statically declared shared memory
 * @param maxThreadsPerBlock the most threads a block of this kernel may have
 */
public record CudaFunction(
    MemorySegment handle,
    String name,
    int registers,
    int localBytes,
    int staticSharedBytes,
    int maxThreadsPerBlock,
    String jitLog) {

  static CudaFunction lookup(MemorySegment module, String name, String jitLog) {
    MemorySegment f = Cu.moduleGetFunction(module, name);
    return new CudaFunction(
        f,
        name,
        Cu.functionAttribute(f, Cu.FUNC_ATTR_NUM_REGS),
        Cu.functionAttribute(f, Cu.FUNC_ATTR_LOCAL_SIZE_BYTES),
        Cu.functionAttribute(f, Cu.FUNC_ATTR_SHARED_SIZE_BYTES),
        Cu.functionAttribute(f, Cu.FUNC_ATTR_MAX_THREADS_PER_BLOCK),
        jitLog);
  }

  /**
   * Resident blocks per multiprocessor at this block size, from the driver's occupancy calculator.
   */
  public int blocksPerMultiprocessor(int blockSize, long dynamicSharedBytes) {
    return Cu.occupancyMaxActiveBlocksPerMultiprocessor(handle, blockSize, dynamicSharedBytes);
  }
}
