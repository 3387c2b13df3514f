package sirocco.jit.classfile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.LongMap;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * The builder's SSA variables, built on the fly (Braun et al., "Simple and Efficient Construction
 * of Static Single Assignment Form", 2013): JVM locals keyed by (slot, type) and operand-stack
 * entries live at a block boundary keyed by (depth, type), their definitions per block, and the
 * phis of blocks whose predecessors are not all filled yet (completed when the block is sealed).
 */
final class SsaVariables {
  private static final long STACK_VAR = 1L << 40;

  private final Function fn;

  // SSA construction state, indexed by IR block id.
  private final List<LongMap<Value>> defs = new ArrayList<>();
  private final List<Map<Long, Inst>> incomplete = new ArrayList<>();
  private boolean[] sealed = new boolean[16];

  SsaVariables(Function fn) {
    this.fn = fn;
  }

  static long localKey(int slot, Type t) {
    return ((long) slot << 8) | t.code;
  }

  static long stackKey(int depth, Type t) {
    return STACK_VAR | ((long) depth << 8) | t.code;
  }

  void growState(Block b) {
    while (defs.size() <= b.id) {
      defs.add(new LongMap<>());
      incomplete.add(new HashMap<>());
    }
    if (sealed.length <= b.id) {
      sealed = Arrays.copyOf(sealed, Math.max(b.id + 1, sealed.length * 2));
    }
  }

  void write(long key, Type t, Block b, Value v) {
    defs.get(b.id).put(key, v);
  }

  /**
   * The value of variable {@code key} (of type {@code t}) in block {@code b}, creating phis where
   * needed. The paper's recursion (read, then a phi's operands, then their reads...) runs here as a
   * loop with an explicit stack of phis whose operands are being read, in the same depth-first
   * order, so that phis are created and filled exactly as by the recursion: a cold JVM spent 0.3 s
   * of C2 time compiling the recursive form, inlined into itself.
   */
  Value read(long key, Type t, Block b) {
    Value v = defs.get(b.id).get(key);
    if (v != null) {
      return v;
    }
    v = walk(key, t, b);
    readOperands(key, t);
    return v;
  }

  /**
   * The value of {@code key} in {@code b}, which has no definition: follows sealed blocks with one
   * predecessor up to a definition or to a block that needs a phi (or, without predecessors, to
   * zero), and records the value in every block on the way. A phi in a sealed block is pushed on
   * the operand stack; {@link #readOperands} reads its operands.
   */
  private Value walk(long key, Type t, Block b) {
    Block cur = b;
    int n = 0;
    Value v;
    while (true) {
      if (!sealed[cur.id]) {
        Inst phi = fn.newPhi(cur, t, null);
        incomplete.get(cur.id).put(key, phi);
        v = phi;
        defs.get(cur.id).put(key, v);
        break;
      }
      List<Block> preds = cur.preds;
      if (preds.size() != 1) {
        if (preds.isEmpty()) {
          v = Const.zero(t);
        } else {
          Inst phi = fn.newPhi(cur, t, null);
          push(phi);
          v = phi;
        }
        defs.get(cur.id).put(key, v);
        break;
      }
      if (n == chain.length) {
        chain = Arrays.copyOf(chain, n * 2);
      }
      chain[n++] = cur;
      cur = preds.get(0);
      v = defs.get(cur.id).get(key);
      if (v != null) {
        break;
      }
    }
    for (int i = n - 1; i >= 0; i--) {
      defs.get(chain[i].id).put(key, v);
    }
    return v;
  }

  // Phis whose operands are being read (for one variable at a time), the next predecessor of each,
  // and the blocks walked by the current walk.
  private Inst[] stackPhi = new Inst[16];
  private int[] stackNext = new int[16];
  private int sp;
  private Block[] chain = new Block[16];

  private void push(Inst phi) {
    if (sp == stackPhi.length) {
      stackPhi = Arrays.copyOf(stackPhi, sp * 2);
      stackNext = Arrays.copyOf(stackNext, sp * 2);
    }
    stackPhi[sp] = phi;
    stackNext[sp] = 0;
    sp++;
  }

  /**
   * Reads the operands of the phis on the stack, depth first: one operand per step for the phi on
   * top, whose read may push another phi (read before the next operand of this one, as the
   * recursion did). Appending an operand as soon as its value is known, before a phi it names is
   * complete, ends with the same operands: nothing reads a phi's operands while they are built.
   */
  private void readOperands(long key, Type t) {
    while (sp > 0) {
      Inst phi = stackPhi[sp - 1];
      List<Block> preds = phi.block.preds;
      int i = stackNext[sp - 1];
      if (i == preds.size()) {
        stackPhi[--sp] = null;
        continue;
      }
      stackNext[sp - 1] = i + 1;
      Block p = preds.get(i);
      Value v = defs.get(p.id).get(key);
      phi.addArg(v != null ? v : walk(key, t, p));
    }
  }

  boolean isSealed(Block b) {
    return sealed[b.id];
  }

  /** Marks {@code b} sealed without completing phis (for a block that has none yet). */
  void markSealed(Block b) {
    sealed[b.id] = true;
  }

  void seal(Block b) {
    sealed[b.id] = true;
    for (Map.Entry<Long, Inst> e : incomplete.get(b.id).entrySet()) {
      push(e.getValue());
      readOperands(e.getKey(), e.getValue().type);
    }
    incomplete.get(b.id).clear();
  }
}
