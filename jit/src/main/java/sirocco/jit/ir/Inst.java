package sirocco.jit.ir;

import java.util.Arrays;

/**
 * An instruction; its result (if its type is not void) is an SSA value. Fields are public and
 * mutable: passes rewrite instructions in place.
 */
public final class Inst extends Value {
  private static final Value[] NO_ARGS = {};

  /**
   * Unique within its function, dense (used to index per-instruction tables); changed only by
   * {@link Function#renumber()}.
   */
  public int id;

  public Op op;
  public Type type;
  public Value[] args;

  /** Opcode-specific data; see {@link Op}. */
  public Object aux;

  public Block block;
  public Pos pos;

  /** Address space of an array-typed value (set by the address-space pass). */
  public Space space;

  Inst(int id, Op op, Type type, Value[] args, Object aux, Pos pos) {
    this.id = id;
    this.op = op;
    this.type = type;
    this.args = args == null ? NO_ARGS : args;
    this.aux = aux;
    this.pos = pos;
  }

  @Override
  public Type type() {
    return type;
  }

  public Value arg(int i) {
    return args[i];
  }

  /** Appends an argument (phis grow while SSA is built). */
  public void addArg(Value v) {
    args = Arrays.copyOf(args, args.length + 1);
    args[args.length - 1] = v;
  }

  /** Removes argument {@code i} (phis lose arguments with predecessors). */
  public void removeArg(int i) {
    Value[] n = new Value[args.length - 1];
    System.arraycopy(args, 0, n, 0, i);
    System.arraycopy(args, i + 1, n, i, args.length - i - 1);
    args = n;
  }

  /**
   * Removes from {@code list} the instructions {@code x} with {@code table[x.id] != null}, keeping
   * the order of the others (a loop, not {@code removeIf} with a lambda: no bootstrap cold).
   */
  public static void removeReplaced(java.util.List<Inst> list, Object[] table) {
    int n = list.size();
    int w = 0;
    for (int r = 0; r < n; r++) {
      Inst x = list.get(r);
      if (x.id >= table.length || table[x.id] == null) {
        if (w != r) {
          list.set(w, x);
        }
        w++;
      }
    }
    if (w < n) {
      list.subList(w, n).clear();
    }
  }

  /** Removes from {@code list} the instructions {@code x} with {@code !keep[x.id]}, in order. */
  public static void removeDead(java.util.List<Inst> list, boolean[] keep) {
    int n = list.size();
    int w = 0;
    for (int r = 0; r < n; r++) {
      Inst x = list.get(r);
      if (keep[x.id]) {
        if (w != r) {
          list.set(w, x);
        }
        w++;
      }
    }
    if (w < n) {
      list.subList(w, n).clear();
    }
  }

  public boolean isTerminator() {
    return op.isTerminator();
  }

  /**
   * True when removing an unused instance would change the program (stores, atomics, asynchronous
   * copies, barriers, volatile loads, control flow, calls).
   */
  public boolean hasSideEffects() {
    return switch (op) {
      case STORE,
          STORE_VEC,
          ATOMIC,
          COPY_ASYNC,
          TILE_COPY,
          MBARRIER,
          BARRIER,
          WGMMA,
          CALL,
          BR,
          CBR,
          SWITCH,
          RET,
          TRAP ->
          true;
      case LOAD -> aux == MemFlavor.VOLATILE;
      default -> false;
    };
  }

  public <T> T aux(Class<T> c) {
    return c.cast(aux);
  }

  public int auxInt() {
    return (Integer) aux;
  }

  @Override
  public String toString() {
    return "%" + id;
  }
}
