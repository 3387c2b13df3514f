package sirocco.runtime.cuda;

/** Memory a kernel can address: device buffers and mapped host buffers. */
interface CudaMemory extends sirocco.runtime.DeviceBuffer {
  /** The device address of element 0. */
  long pointer();
}
