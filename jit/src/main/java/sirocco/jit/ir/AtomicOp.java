package sirocco.jit.ir;

/** Atomic operations of the kernel context. */
public enum AtomicOp {
  ADD_I("add.s32"),
  ADD_F("add.f32"),
  MAX_I("max.s32"),
  MIN_I("min.s32"),
  CAS("cas.b32"),
  EXCH("exch.b32");

  public final String ptx;

  AtomicOp(String ptx) {
    this.ptx = ptx;
  }
}
