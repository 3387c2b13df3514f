package sirocco.jit.ir;

/** Address space of an array reference, determined after inlining. */
public enum Space {
  /** A kernel parameter: a 64-bit global address. */
  GLOBAL,
  /** A block-shared array: a 32-bit shared-window address. */
  SHARED,
  /** Either, at a merge point: a 64-bit generic address. */
  GENERIC;

  /** Least upper bound. */
  public Space join(Space o) {
    if (o == null || o == this) {
      return this;
    }
    return GENERIC;
  }
}
