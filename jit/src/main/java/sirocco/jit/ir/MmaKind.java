package sirocco.jit.ir;

/** Input element type of an m16n8k16 tensor-core product. */
public enum MmaKind {
  BF16("bf16"),
  F16("f16");

  public final String ptx;

  MmaKind(String ptx) {
    this.ptx = ptx;
  }
}
