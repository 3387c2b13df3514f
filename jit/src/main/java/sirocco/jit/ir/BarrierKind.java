package sirocco.jit.ir;

/** Barrier scope. */
public enum BarrierKind {
  /** {@code bar.sync 0}. */
  BLOCK,
  /** {@code bar.warp.sync -1}. */
  WARP
}
