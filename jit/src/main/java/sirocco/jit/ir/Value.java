package sirocco.jit.ir;

/** An SSA value: a constant or the result of an instruction. */
public abstract sealed class Value permits Const, Inst {
  Value() {}

  /** The value's type. */
  public abstract Type type();
}
