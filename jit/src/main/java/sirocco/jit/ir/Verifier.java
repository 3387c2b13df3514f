package sirocco.jit.ir;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Checks the IR's invariants: block structure, predecessor/successor symmetry, phi arity, that
 * every used value is defined in the function and dominates its uses. Run after every pass when
 * Java assertions are on (as in tests).
 */
public final class Verifier {
  private Verifier() {}

  /** Returns true or throws {@link IllegalStateException} naming the pass and the problem. */
  public static boolean verify(Function fn, String after) {
    try {
      check(fn);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "IR invalid after " + after + ": " + e.getMessage() + "\n" + IrPrinter.print(fn), e);
    }
    return true;
  }

  private static void check(Function fn) {
    Set<Block> blocks = Collections.newSetFromMap(new IdentityHashMap<>());
    blocks.addAll(fn.blocks);
    Map<Inst, Integer> index = new IdentityHashMap<>();
    if (!fn.entry().preds.isEmpty()) {
      fail("entry " + fn.entry() + " has predecessors");
    }
    for (Block b : fn.blocks) {
      if (b.insts.isEmpty()) {
        fail(b + " is empty");
      }
      for (int k = 0; k < b.insts.size(); k++) {
        Inst i = b.insts.get(k);
        if (i.block != b) {
          fail(i + " in " + b + " claims block " + i.block);
        }
        if (i.isTerminator() != (k == b.insts.size() - 1)) {
          fail(b + ": terminator misplaced at " + IrPrinter.print(i));
        }
        if (i.op == Op.PHI) {
          fail("phi among instructions in " + b);
        }
        index.put(i, k);
      }
      for (Inst p : b.phis) {
        if (p.block != b || p.op != Op.PHI) {
          fail("bad phi " + p + " in " + b);
        }
        if (p.args.length != b.preds.size()) {
          fail(
              "phi "
                  + p
                  + " in "
                  + b
                  + " has "
                  + p.args.length
                  + " args for "
                  + b.preds.size()
                  + " preds");
        }
        index.put(p, -1);
      }
      Inst t = b.terminator();
      int want =
          switch (t.op) {
            case BR -> 1;
            case CBR -> 2;
            case SWITCH -> ((int[]) t.aux).length + 1;
            default -> 0;
          };
      if (b.succs.size() != want) {
        fail(b + " has " + b.succs.size() + " successors for " + t.op);
      }
      for (Block s : b.succs) {
        if (!blocks.contains(s)) {
          fail(b + " -> " + s + " which is not in the function");
        }
        if (Collections.frequency(s.preds, b) != Collections.frequency(b.succs, s)) {
          fail("edge " + b + " -> " + s + " not mirrored in preds " + s.preds);
        }
      }
      for (Block p : b.preds) {
        if (!blocks.contains(p)) {
          fail(b + " has predecessor " + p + " which is not in the function");
        }
        if (!p.succs.contains(b)) {
          fail(b + " lists " + p + " as predecessor but not vice versa");
        }
      }
    }
    Dominators dom = new Dominators(fn);
    for (Block b : dom.reversePostOrder()) {
      for (Inst p : b.phis) {
        for (int k = 0; k < p.args.length; k++) {
          if (p.args[k] instanceof Inst d) {
            checkDef(d, index, b.preds.get(k), Integer.MAX_VALUE, dom, p);
          }
        }
      }
      for (int k = 0; k < b.insts.size(); k++) {
        Inst i = b.insts.get(k);
        for (Value a : i.args) {
          if (a instanceof Inst d) {
            checkDef(d, index, b, k, dom, i);
          }
        }
      }
    }
  }

  private static void checkDef(
      Inst d, Map<Inst, Integer> index, Block useBlock, int usePos, Dominators dom, Inst user) {
    Integer at = index.get(d);
    if (at == null) {
      fail(IrPrinter.print(user) + " uses " + d + ", which is not in the function");
    }
    if (d.block == useBlock) {
      if (at >= usePos) {
        fail(IrPrinter.print(user) + " uses " + d + " before its definition");
      }
    } else if (!dom.dominates(d.block, useBlock)) {
      fail(
          IrPrinter.print(user)
              + " uses "
              + d
              + " from "
              + d.block
              + ", which does not dominate "
              + useBlock);
    }
  }

  private static void fail(String s) {
    throw new IllegalStateException(s);
  }
}
