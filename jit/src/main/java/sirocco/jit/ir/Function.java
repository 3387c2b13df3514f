package sirocco.jit.ir;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A function in SSA form: the kernel (after inlining, the only one) or a helper template. Blocks
 * are kept in a list whose first element is the entry; the entry has no predecessors.
 */
public final class Function {
  public final MethodId method;
  public final Pos pos;

  /** JVM parameter types (descriptor order, the context included for kernels). */
  public final List<Type> paramTypes;

  /** Java parameter descriptors ("I", "[F", "Z"...), aligned with {@link #paramTypes}. */
  public final List<String> paramDescriptors;

  public final Type returnType;
  public final List<Block> blocks = new ArrayList<>();
  private int nextInst;
  private int nextBlock;

  public Function(
      MethodId method,
      Pos pos,
      List<Type> paramTypes,
      List<String> paramDescriptors,
      Type returnType) {
    this.method = method;
    this.pos = pos;
    this.paramTypes = List.copyOf(paramTypes);
    this.paramDescriptors = List.copyOf(paramDescriptors);
    this.returnType = returnType;
  }

  public Block entry() {
    return blocks.get(0);
  }

  public Block newBlock() {
    Block b = new Block(nextBlock++);
    blocks.add(b);
    return b;
  }

  /**
   * As {@link #newBlock()}, with room for as many phis, instructions and edges as {@code like} (for
   * a clone of it: no list grows while it is filled).
   */
  public Block newBlockLike(Block like) {
    Block b = new Block(nextBlock++, like);
    blocks.add(b);
    return b;
  }

  /** A new instruction, not yet placed in a block. */
  public Inst newInst(Op op, Type type, Value[] args, Object aux, Pos pos) {
    return new Inst(nextInst++, op, type, args, aux, pos);
  }

  /** A new instruction appended to {@code b}. */
  public Inst append(Block b, Op op, Type type, Value[] args, Object aux, Pos pos) {
    Inst i = newInst(op, type, args, aux, pos);
    i.block = b;
    b.insts.add(i);
    return i;
  }

  /** A new phi in {@code b} with no arguments yet. */
  public Inst newPhi(Block b, Type type, Pos pos) {
    Inst i = newInst(Op.PHI, type, null, null, pos);
    i.block = b;
    b.phis.add(i);
    return i;
  }

  /** Upper bound (exclusive) of instruction ids. */
  public int instIdLimit() {
    return nextInst;
  }

  public int blockIdLimit() {
    return nextBlock;
  }

  /**
   * Numbers the blocks and their phis and instructions again from 0, in layout order, so that the
   * id space (which sizes the tables the passes index by id) is no larger than the function. After
   * specialization a kernel keeps a small part of its generic IR but all of its ids: for the
   * shipped kernels about a tenth of the instruction ids and a thirtieth of the block ids are left
   * when {@code simplify} has run. Relative order and everything else stay as they are. Does
   * nothing (and returns false) when an argument, predecessor or successor is not in the function.
   */
  public boolean renumber() {
    boolean[] placedInst = new boolean[nextInst];
    boolean[] placedBlock = new boolean[nextBlock];
    int nb = blocks.size();
    for (int k = 0; k < nb; k++) {
      Block b = blocks.get(k);
      placedBlock[b.id] = true;
      markPlaced(b.phis, placedInst);
      markPlaced(b.insts, placedInst);
    }
    for (int k = 0; k < nb; k++) {
      Block b = blocks.get(k);
      if (!allPlaced(b.preds, placedBlock)
          || !allPlaced(b.succs, placedBlock)
          || !argsPlaced(b.phis, placedInst)
          || !argsPlaced(b.insts, placedInst)) {
        return false;
      }
    }
    int ni = 0;
    for (int k = 0; k < nb; k++) {
      Block b = blocks.get(k);
      b.id = k;
      for (int j = 0, m = b.phis.size(); j < m; j++) {
        b.phis.get(j).id = ni++;
      }
      for (int j = 0, m = b.insts.size(); j < m; j++) {
        b.insts.get(j).id = ni++;
      }
    }
    nextBlock = nb;
    nextInst = ni;
    return true;
  }

  private static void markPlaced(List<Inst> list, boolean[] placed) {
    for (int j = 0, m = list.size(); j < m; j++) {
      placed[list.get(j).id] = true;
    }
  }

  private static boolean allPlaced(List<Block> list, boolean[] placed) {
    for (int j = 0, m = list.size(); j < m; j++) {
      Block b = list.get(j);
      if (b.id >= placed.length || !placed[b.id]) {
        return false;
      }
    }
    return true;
  }

  private static boolean argsPlaced(List<Inst> list, boolean[] placed) {
    for (int j = 0, m = list.size(); j < m; j++) {
      Value[] args = list.get(j).args;
      for (Value a : args) {
        if (a instanceof Inst x && (x.id >= placed.length || !placed[x.id])) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Blocks reachable from the entry in reverse post-order; the last successor is laid out next.
   * Leaves {@code mark} 1 on reachable blocks and 0 on the others.
   */
  public List<Block> reversePostOrder() {
    int n = blocks.size();
    for (int k = 0; k < n; k++) {
      blocks.get(k).mark = 0;
    }
    Block[] stack = new Block[n + 1];
    int[] next = new int[n + 1];
    Block[] post = new Block[n + 1];
    int np = 0;
    Block e = entry();
    e.mark = 1;
    stack[0] = e;
    int sp = 1;
    while (sp > 0) {
      Block b = stack[sp - 1];
      int i = next[sp - 1];
      if (i < b.succs.size()) {
        next[sp - 1] = i + 1;
        Block s = b.succs.get(i);
        if (s.mark == 0) {
          s.mark = 1;
          if (sp == stack.length) { // a successor outside the block list
            stack = Arrays.copyOf(stack, sp * 2);
            next = Arrays.copyOf(next, sp * 2);
          }
          stack[sp] = s;
          next[sp] = 0;
          sp++;
        }
      } else {
        sp--;
        if (np == post.length) {
          post = Arrays.copyOf(post, np * 2);
        }
        post[np++] = b;
      }
    }
    Block[] rpo = new Block[np];
    for (int i = 0; i < np; i++) {
      rpo[i] = post[np - 1 - i];
    }
    return Arrays.asList(rpo);
  }

  /**
   * Removes blocks not reachable from the entry (and their edges into reachable blocks). Returns
   * true when something was removed. Leaves {@code mark} 1 on the remaining blocks.
   */
  public boolean removeUnreachable() {
    int n = blocks.size();
    for (int k = 0; k < n; k++) {
      blocks.get(k).mark = 0;
    }
    Block[] stack = new Block[n + 1];
    Block e = entry();
    e.mark = 1;
    stack[0] = e;
    int sp = 1;
    int reached = 0;
    while (sp > 0) {
      Block b = stack[--sp];
      reached++;
      List<Block> succs = b.succs;
      for (int i = 0, m = succs.size(); i < m; i++) {
        Block s = succs.get(i);
        if (s.mark == 0) {
          s.mark = 1;
          if (sp == stack.length) {
            stack = Arrays.copyOf(stack, sp * 2);
          }
          stack[sp++] = s;
        }
      }
    }
    if (reached == n) {
      return false;
    }
    for (int j = 0, len = blocks.size(); j < len; j++) {
      Block b = blocks.get(j);
      if (b.mark == 0) {
        for (int q = 0, cnt = b.succs.size(); q < cnt; q++) {
          Block s = b.succs.get(q);
          if (s.mark == 1) {
            s.removePred(b);
          }
        }
      }
    }
    removeBlocksMarked(0);
    return true;
  }

  /** Removes the blocks whose {@code keep[id]} is false, keeping the order of the others. */
  public void retainBlocks(boolean[] keep) {
    int n = blocks.size();
    int w = 0;
    for (int r = 0; r < n; r++) {
      Block b = blocks.get(r);
      if (keep[b.id]) {
        if (w != r) {
          blocks.set(w, b);
        }
        w++;
      }
    }
    if (w < n) {
      blocks.subList(w, n).clear();
    }
  }

  /** Removes the blocks whose {@code mark} is {@code mark}, keeping the order of the others. */
  public void removeBlocksMarked(int mark) {
    int n = blocks.size();
    int w = 0;
    for (int r = 0; r < n; r++) {
      Block b = blocks.get(r);
      if (b.mark != mark) {
        if (w != r) {
          blocks.set(w, b);
        }
        w++;
      }
    }
    if (w < n) {
      blocks.subList(w, n).clear();
    }
  }

  /**
   * Replaces every use of the keys of {@code map} by their values (following chains), in all
   * instructions of all blocks.
   */
  public void replaceUses(Map<Inst, Value> map) {
    if (map.isEmpty()) {
      return;
    }
    Value[] r = new Value[nextInst];
    for (Map.Entry<Inst, Value> e : map.entrySet()) {
      r[e.getKey().id] = e.getValue();
    }
    replaceUses(r);
  }

  /**
   * Replaces every use of an instruction {@code x} with {@code r[x.id] != null} by that value
   * (following chains), in all instructions of all blocks. {@code r} is indexed by instruction id
   * and may be shorter than {@link #instIdLimit()}.
   */
  public void replaceUses(Value[] r) {
    for (int k = 0, m = blocks.size(); k < m; k++) {
      Block b = blocks.get(k);
      for (int j = 0, len = b.phis.size(); j < len; j++) {
        Inst p = b.phis.get(j);
        rewriteArgs(p, r);
      }
      for (int q = 0, cnt = b.insts.size(); q < cnt; q++) {
        Inst i = b.insts.get(q);
        rewriteArgs(i, r);
      }
    }
  }

  private static void rewriteArgs(Inst i, Value[] r) {
    Value[] a = i.args;
    for (int k = 0; k < a.length; k++) {
      if (a[k] instanceof Inst x && x.id < r.length && r[x.id] != null) {
        a[k] = resolve(x, r);
      }
    }
  }

  /** Follows replacement chains. */
  public static Value resolve(Value v, Map<Inst, Value> map) {
    int guard = 0;
    while (v instanceof Inst x) {
      Value n = map.get(x);
      if (n == null || n == v) {
        return v;
      }
      v = n;
      if (++guard > 1_000_000) {
        throw new IllegalStateException("replacement cycle at " + x);
      }
    }
    return v;
  }

  /** Follows replacement chains in a table indexed by instruction id. */
  public static Value resolve(Value v, Value[] r) {
    int guard = 0;
    while (v instanceof Inst x) {
      Value n = x.id < r.length ? r[x.id] : null;
      if (n == null || n == v) {
        return v;
      }
      v = n;
      if (++guard > 1_000_000) {
        throw new IllegalStateException("replacement cycle at " + x);
      }
    }
    return v;
  }

  /**
   * The instructions that use each instruction as an argument: in block order, phis before
   * instructions, once per use.
   */
  public Users users() {
    int[] start = new int[nextInst + 1];
    for (int u = 0, n2 = blocks.size(); u < n2; u++) {
      Block b = blocks.get(u);
      countUses(b.phis, start);
      countUses(b.insts, start);
    }
    // start[id + 1] holds the count of id; turn into starts (start[id] = first index of id).
    int total = 0;
    for (int k = 1; k < start.length; k++) {
      int c = start[k];
      start[k] = total;
      total += c;
    }
    // Fill: start[id + 1] advances through id's range and ends at the start of id + 1.
    Inst[] uses = new Inst[total];
    for (int j = 0, m = blocks.size(); j < m; j++) {
      Block b = blocks.get(j);
      addUses(b.phis, start, uses);
      addUses(b.insts, start, uses);
    }
    return new Users(start, uses);
  }

  private static void countUses(List<Inst> list, int[] start) {
    for (int j = 0, m = list.size(); j < m; j++) {
      for (Value a : list.get(j).args) {
        if (a instanceof Inst x) {
          start[x.id + 1]++;
        }
      }
    }
  }

  private static void addUses(List<Inst> list, int[] start, Inst[] uses) {
    for (int j = 0, m = list.size(); j < m; j++) {
      Inst i = list.get(j);
      for (Value a : i.args) {
        if (a instanceof Inst x) {
          uses[start[x.id + 1]++] = i;
        }
      }
    }
  }

  /**
   * A deep copy: the same blocks and instructions in the same order, with the same ids and id
   * counters, so that passes run on the copy exactly as on the original. Instruction {@code aux}
   * data and positions are immutable and shared.
   */
  public Function copy() {
    return copy(null);
  }

  /**
   * As {@link #copy()}, but only with the blocks whose {@code keep[id]} is true, for a following
   * {@code Fold} that removes all others as never executed: edges from left-out blocks are gone
   * (with their phi arguments, as that pass removes them), and a left-out block that a kept one
   * branches to is a stub (no phis, one {@link Op#TRAP} with the id of the block's terminator, no
   * successors, only kept predecessors), which that pass removes with the same edges. The result of
   * the pass is then the same as from a full copy.
   *
   * @throws IllegalStateException when a kept instruction uses one from a left-out block
   */
  public Function copy(boolean[] keep) {
    Function f = new Function(method, pos, paramTypes, paramDescriptors, returnType);
    f.nextInst = nextInst;
    f.nextBlock = nextBlock;
    // Arrays and indexed loops: a cold JVM interprets this, and most blocks may be left out.
    Block[] all = blocks.toArray(new Block[0]);
    Block[] bm = new Block[nextBlock];
    Inst[] im = new Inst[nextInst];
    Block[] kept = new Block[all.length];
    int nk = 0;
    for (Block b : all) {
      if (keep == null || keep[b.id]) {
        Block nb = new Block(b);
        bm[b.id] = nb;
        kept[nk++] = b;
        copyInsts(b.phis, nb.phis, nb, im);
        copyInsts(b.insts, nb.insts, nb, im);
      }
    }
    boolean stubs = false;
    if (keep != null) {
      // Stubs: left-out successors of kept blocks.
      for (int k = 0; k < nk; k++) {
        List<Block> succs = kept[k].succs;
        for (int j = 0, m = succs.size(); j < m; j++) {
          Block s = succs.get(j);
          if (!keep[s.id] && bm[s.id] == null) {
            Block nb = new Block(s.id);
            nb.mark = s.mark;
            Inst t = s.terminator();
            Inst trap = new Inst(t.id, Op.TRAP, Type.VOID, null, "never executed", t.pos);
            trap.block = nb;
            nb.insts.add(trap);
            bm[s.id] = nb;
            stubs = true;
            for (int q = 0, n = s.preds.size(); q < n; q++) {
              Block p = s.preds.get(q);
              if (keep[p.id]) {
                nb.preds.add(bm[p.id]);
              }
            }
          }
        }
      }
    }
    List<Block> fb = f.blocks;
    if (stubs) {
      for (Block b : all) {
        Block nb = bm[b.id];
        if (nb != null) {
          fb.add(nb);
        }
      }
    } else {
      for (int k = 0; k < nk; k++) {
        fb.add(bm[kept[k].id]);
      }
    }
    for (int k = 0; k < nk; k++) {
      Block b = kept[k];
      Block nb = bm[b.id];
      List<Block> preds = b.preds;
      int np = preds.size();
      int removed = 0;
      for (int j = 0; j < np; j++) {
        Block p = preds.get(j);
        if (keep == null || keep[p.id]) {
          nb.preds.add(bm[p.id]);
        } else {
          removed++;
        }
      }
      List<Block> succs = b.succs;
      for (int j = 0, m = succs.size(); j < m; j++) {
        nb.succs.add(bm[succs.get(j).id]);
      }
      List<Inst> phis = b.phis;
      for (int j = 0, m = phis.size(); j < m; j++) {
        Inst p = phis.get(j);
        Value[] a = p.args;
        if (removed > 0) {
          Value[] r = new Value[a.length - removed];
          int w = 0;
          for (int q = 0; q < a.length; q++) {
            if (keep[preds.get(q).id]) {
              r[w++] = a[q];
            }
          }
          a = r;
        }
        im[p.id].args = mapArgs(p, a, im);
      }
      List<Inst> insts = b.insts;
      for (int j = 0, m = insts.size(); j < m; j++) {
        Inst i = insts.get(j);
        im[i.id].args = mapArgs(i, i.args, im);
      }
    }
    return f;
  }

  /** Copies {@code from} into {@code to} (arguments are set later by {@link #mapArgs}). */
  private static void copyInsts(List<Inst> from, List<Inst> to, Block nb, Inst[] im) {
    for (int j = 0, m = from.size(); j < m; j++) {
      Inst i = from.get(j);
      Inst n = new Inst(i.id, i.op, i.type, null, i.aux, i.pos);
      n.space = i.space;
      n.block = nb;
      to.add(n);
      im[i.id] = n;
    }
  }

  /** {@code args} of {@code i} with instructions replaced by their copies. */
  private static Value[] mapArgs(Inst i, Value[] args, Inst[] im) {
    if (args.length == 0) {
      return args;
    }
    Value[] a = new Value[args.length];
    for (int k = 0; k < a.length; k++) {
      Value v = args[k];
      if (v instanceof Inst x) {
        Inst m = im[x.id];
        if (m == null) {
          throw new IllegalStateException("%" + i.id + " uses %" + x.id + ", which is in no block");
        }
        a[k] = m;
      } else {
        a[k] = v;
      }
    }
    return a;
  }

  /** Number of instructions (phis included). */
  public int size() {
    int n = 0;
    for (int u = 0, len = blocks.size(); u < len; u++) {
      Block b = blocks.get(u);
      n += b.phis.size() + b.insts.size();
    }
    return n;
  }
}
