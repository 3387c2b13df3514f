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

  Value read(long key, Type t, Block b) {
    Value v = defs.get(b.id).get(key);
    if (v != null) {
      return v;
    }
    return readRecursive(key, t, b);
  }

  private Value readRecursive(long key, Type t, Block b) {
    Value v;
    if (!sealed[b.id]) {
      Inst phi = fn.newPhi(b, t, null);
      incomplete.get(b.id).put(key, phi);
      v = phi;
    } else if (b.preds.size() == 1) {
      v = read(key, t, b.preds.get(0));
    } else if (b.preds.isEmpty()) {
      v = Const.zero(t);
    } else {
      Inst phi = fn.newPhi(b, t, null);
      defs.get(b.id).put(key, phi);
      addPhiOperands(key, t, phi);
      v = phi;
    }
    defs.get(b.id).put(key, v);
    return v;
  }

  private void addPhiOperands(long key, Type t, Inst phi) {
    for (Block p : phi.block.preds) {
      phi.addArg(read(key, t, p));
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
      addPhiOperands(e.getKey(), e.getValue().type, e.getValue());
    }
    incomplete.get(b.id).clear();
  }
}
