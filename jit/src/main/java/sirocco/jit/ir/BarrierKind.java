package sirocco.jit.ir;

/** What a BARRIER instruction is: a barrier, a fence, or an asynchronous-copy group operation. */
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
  FENCE_GPU,
  /**
   * {@code cp.async.commit_group} ({@code Vec.commitAsync()}): closes this thread's group of
   * asynchronous copies. A BARRIER instruction for the same reason as {@link #FENCE_GPU}: the
   * grouping, and so the meaning of every later wait, depends on its place among the copies.
   */
  ASYNC_COMMIT,
  /**
   * {@code cp.async.wait_group N} ({@code Vec.waitAsync(N)}; args = [N], a constant 0..7 by {@code
   * legalize}): shared memory written by the copies it covers may be read only after it. No pass
   * reorders the instructions of a block, moves a load or store to another block or merges loads
   * (CSE takes pure instructions only), so accesses stay on their side of it.
   */
  ASYNC_WAIT,
  /**
   * {@code griddepcontrol.wait} ({@code KernelContext.waitForPriorGrids()}, sm_90+): waits for the
   * grids an early-start launch overlaps. Memory accesses must not cross it, which a BARRIER
   * instruction guarantees (see {@link #ASYNC_WAIT}). Emitted as nothing before sm_90, where no
   * launch starts early.
   */
  GRID_WAIT,
  /**
   * {@code griddepcontrol.launch_dependents} ({@code KernelContext.releaseDependentGrids()},
   * sm_90+): a scheduling hint that lets the next early-start launch begin. Nothing before sm_90.
   */
  GRID_RELEASE,
  /**
   * {@code wgmma.fence.sync.aligned} ({@code KernelContext.warpgroupFence()}, sm_90a): register
   * writes before it are seen by the warpgroup products after it.
   */
  WG_FENCE,
  /** {@code wgmma.commit_group.sync.aligned} ({@code KernelContext.warpgroupCommit()}). */
  WG_COMMIT,
  /**
   * {@code wgmma.wait_group.sync.aligned N} ({@code KernelContext.warpgroupWait(N)}; args = [N], a
   * constant 0..7 by {@code legalize}).
   */
  WG_WAIT,
  /**
   * {@code fence.proxy.async.shared::cta} ({@code KernelContext.fenceSharedAsync()}, sm_90+):
   * ordinary shared stores before it become visible to the asynchronous proxy (warpgroup products).
   */
  PROXY_ASYNC,
  /**
   * {@code fence.mbarrier_init.release.cluster} ({@code Mbarrier.fenceInit()}, sm_90+): barrier
   * initialisations before it become visible to the asynchronous proxy (tile copies).
   */
  MBARRIER_INIT
}
