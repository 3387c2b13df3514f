package sirocco.jit.ir;

/** PTX special registers read by context fields. */
public enum SReg {
  TID_X("%tid.x"),
  TID_Y("%tid.y"),
  TID_Z("%tid.z"),
  NTID_X("%ntid.x"),
  NTID_Y("%ntid.y"),
  NTID_Z("%ntid.z"),
  CTAID_X("%ctaid.x"),
  CTAID_Y("%ctaid.y"),
  CTAID_Z("%ctaid.z"),
  NCTAID_X("%nctaid.x"),
  NCTAID_Y("%nctaid.y"),
  NCTAID_Z("%nctaid.z"),
  /** 64-bit nanosecond timer; changes between reads, so it is never merged or folded. */
  GLOBALTIMER("%globaltimer", true);

  public final String ptx;

  /** True for 64-bit registers (read with {@code mov.u64}). */
  public final boolean wide;

  SReg(String ptx) {
    this(ptx, false);
  }

  SReg(String ptx, boolean wide) {
    this.ptx = ptx;
    this.wide = wide;
  }
}
