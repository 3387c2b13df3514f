package sirocco.runtime;

/**
 * Host memory the device reads and writes directly (CUDA: pinned, mapped host memory; Java backend:
 * an array shared with the kernels). Kernels take it as an ordinary array argument; the host reads
 * and writes elements with volatile semantics while kernels run, e.g. to set a flag a running
 * kernel polls with {@code ctx.loadVolatile}. Holds 32-bit elements ({@link ElementType#I32} or
 * {@link ElementType#F32}).
 */
public interface MappedBuffer extends DeviceBuffer {
  /** Reads element {@code index} as an int (volatile). */
  int getIntVolatile(long index);

  /** Writes element {@code index} (volatile: visible to the device promptly). */
  void setIntVolatile(long index, int value);
}
