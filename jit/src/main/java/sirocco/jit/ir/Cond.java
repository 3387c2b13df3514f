package sirocco.jit.ir;

/** Relational conditions. */
public enum Cond {
  EQ,
  NE,
  LT,
  GE,
  GT,
  LE;

  /** The condition that holds exactly when this one does not (for ordered integers). */
  public Cond negate() {
    return switch (this) {
      case EQ -> NE;
      case NE -> EQ;
      case LT -> GE;
      case GE -> LT;
      case GT -> LE;
      case LE -> GT;
    };
  }

  /** The condition with operands swapped. */
  public Cond swap() {
    return switch (this) {
      case EQ, NE -> this;
      case LT -> GT;
      case GE -> LE;
      case GT -> LT;
      case LE -> GE;
    };
  }

  /** Whether {@code c <this> 0} holds for a three-way comparison result c. */
  public boolean test(int c) {
    return switch (this) {
      case EQ -> c == 0;
      case NE -> c != 0;
      case LT -> c < 0;
      case GE -> c >= 0;
      case GT -> c > 0;
      case LE -> c <= 0;
    };
  }

  public String ptx() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
