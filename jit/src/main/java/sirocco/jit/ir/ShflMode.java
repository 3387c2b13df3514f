package sirocco.jit.ir;

/** Warp shuffle modes and their PTX clamp operand. */
public enum ShflMode {
  BFLY("bfly", "0x1f"),
  DOWN("down", "0x1f"),
  UP("up", "0"),
  IDX("idx", "0x1f");

  public final String ptx;
  public final String clamp;

  ShflMode(String ptx, String clamp) {
    this.ptx = ptx;
    this.clamp = clamp;
  }
}
