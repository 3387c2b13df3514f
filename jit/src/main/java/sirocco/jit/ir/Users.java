package sirocco.jit.ir;

/**
 * The instructions that use each instruction as an argument (see {@link Function#users()}), in one
 * flat array: the users of the instruction with id {@code d} are {@code get(from(d))} up to {@code
 * get(to(d) - 1)}. Immutable.
 */
public final class Users {
  private final int[] start;
  private final Inst[] uses;

  Users(int[] start, Inst[] uses) {
    this.start = start;
    this.uses = uses;
  }

  /** Index of the first user of the instruction with id {@code id}. */
  public int from(int id) {
    return id + 1 < start.length ? start[id] : 0;
  }

  /** Index after the last user of the instruction with id {@code id}. */
  public int to(int id) {
    return id + 1 < start.length ? start[id + 1] : 0;
  }

  public Inst get(int k) {
    return uses[k];
  }
}
