package sirocco.jit;

/**
 * What ptxas reported for a kernel compiled to SASS.
 *
 * @param registers registers per thread
 * @param spillStoreBytes bytes of spill stores
 * @param spillLoadBytes bytes of spill loads
 * @param stackFrameBytes bytes of stack frame per thread
 * @param sharedBytes bytes of static shared memory
 * @param log the full info log
 */
public record PtxResources(
    int registers,
    int spillStoreBytes,
    int spillLoadBytes,
    int stackFrameBytes,
    int sharedBytes,
    String log) {}
