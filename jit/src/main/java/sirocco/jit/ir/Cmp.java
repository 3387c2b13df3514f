package sirocco.jit.ir;

/**
 * A comparison for {@link Op#SETP}: the condition and, for floating-point operands, whether it is
 * also true when either operand is NaN (PTX's {@code ltu}, {@code neu}, ...).
 */
public record Cmp(Cond cond, boolean unordered) {
  @Override
  public boolean equals(Object o) {
    return o instanceof Cmp c && c.cond == cond && c.unordered == unordered;
  }

  @Override
  public int hashCode() {
    return cond.ordinal() * 2 + (unordered ? 1 : 0);
  }

  @Override
  public String toString() {
    return cond.ptx() + (unordered ? "u" : "");
  }
}
