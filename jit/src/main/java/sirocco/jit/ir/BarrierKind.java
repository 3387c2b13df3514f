package sirocco.jit.ir;

/** Barrier scope. */
public enum BarrierKind {
  /** {@code bar.sync 0}. */
  BLOCK,
  /** {@code bar.warp.sync -1}. */
  WARP,
  /**
   * {@code fence.acq_rel.gpu} ({@code KernelContext.threadFence()}): a device-scope memory fence,
   * not a barrier. Kept as a BARRIER instruction so that it has side effects: never moved, merged
   * or removed by the passes.
   */
  FENCE_GPU
}
