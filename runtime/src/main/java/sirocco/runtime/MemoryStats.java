package sirocco.runtime;

/**
 * Memory a device holds for Sirocco.
 *
 * @param usedBytes bytes in live buffers
 * @param reservedBytes bytes the allocator holds from the device (live buffers plus cached free
 *     memory)
 * @param peakUsedBytes highest {@code usedBytes} since the device was opened
 */
public record MemoryStats(long usedBytes, long reservedBytes, long peakUsedBytes) {}
