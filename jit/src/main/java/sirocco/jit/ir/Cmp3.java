package sirocco.jit.ir;

/** Three-way comparisons; the {@code L}/{@code G} variants give -1/+1 when an operand is NaN. */
public enum Cmp3 {
  LCMP,
  FCMPL,
  FCMPG,
  DCMPL,
  DCMPG;

  /** The value the comparison gives when an operand is NaN (0 for lcmp, which has no NaN). */
  public int nanResult() {
    return switch (this) {
      case FCMPL, DCMPL -> -1;
      case FCMPG, DCMPG -> 1;
      case LCMP -> 0;
    };
  }
}
