package sirocco.jit.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.SsaCleanup;
import sirocco.jit.ir.Value;

/**
 * Removes unreachable blocks, turns branches with identical targets into jumps, merges a block into
 * its only predecessor when that predecessor has no other successor, forwards empty blocks, and
 * removes trivial phis. Repeats until nothing changes.
 */
public final class SimplifyCfg implements Pass {
  @Override
  public String name() {
    return "simplify";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    boolean changed = true;
    int rounds = 0;
    while (changed && rounds++ < 10_000) {
      changed = fn.removeUnreachable();
      changed |= sameTargets(fn);
      changed |= merge(fn);
      changed |= forwardEmpty(fn);
      changed |= SsaCleanup.removeTrivialPhis(fn);
    }
  }

  private static boolean sameTargets(Function fn) {
    boolean changed = false;
    for (int j = 0, n = fn.blocks.size(); j < n; j++) {
      Block b = fn.blocks.get(j);
      Inst t = b.terminator();
      if ((t.op == Op.CBR || t.op == Op.SWITCH) && b.succs.size() > 1) {
        Block first = b.succs.get(0);
        boolean same = true;
        for (int k = 0, m = b.succs.size(); k < m; k++) {
          Block s = b.succs.get(k);
          same &= s == first;
        }
        if (same) {
          for (int k = 1; k < b.succs.size(); k++) {
            Fold.removeOnePred(first, b);
          }
          b.succs.clear();
          b.succs.add(first);
          t.op = Op.BR;
          t.args = new Value[0];
          t.aux = null;
          changed = true;
        }
      }
    }
    return changed;
  }

  /**
   * Only the merging step: each block that ends in a jump absorbs its successor when it is that
   * successor's only predecessor (the single-argument phis of the absorbed block are replaced by
   * their argument). Returns true when something was merged.
   */
  public static boolean mergeStraightLines(Function fn) {
    return merge(fn);
  }

  private static boolean merge(Function fn) {
    boolean changed = false;
    Map<Inst, Value> replace = new HashMap<>();
    for (int q = 0, len = fn.blocks.size(); q < len; q++) {
      Block b = fn.blocks.get(q);
      if (b.mark == -1) {
        continue;
      }
      while (true) {
        Inst t = b.terminator();
        if (t.op != Op.BR) {
          break;
        }
        Block s = b.succs.get(0);
        if (s == b || s == fn.entry() || s.preds.size() != 1) {
          break;
        }
        for (int u = 0, cnt = s.phis.size(); u < cnt; u++) {
          Inst p = s.phis.get(u);
          replace.put(p, p.args[0]);
        }
        s.phis.clear();
        b.insts.remove(b.insts.size() - 1);
        for (int w = 0, n2 = s.insts.size(); w < n2; w++) {
          Inst i = s.insts.get(w);
          i.block = b;
          b.insts.add(i);
        }
        s.insts.clear();
        b.succs.clear();
        for (int z = 0, m2 = s.succs.size(); z < m2; z++) {
          Block x = s.succs.get(z);
          b.succs.add(x);
          x.replacePred(s, b);
        }
        s.succs.clear();
        s.preds.clear();
        s.mark = -1;
        changed = true;
      }
    }
    if (changed) {
      fn.removeBlocksMarked(-1); // merged blocks (one pass: removeAll is quadratic)
      fn.replaceUses(replace);
    }
    for (int j = 0, n = fn.blocks.size(); j < n; j++) {
      Block b = fn.blocks.get(j);
      b.mark = 0;
    }
    return changed;
  }

  /** Redirects predecessors of blocks that hold only a jump (and no phis) to the jump's target. */
  private static boolean forwardEmpty(Function fn) {
    boolean changed = false;
    for (int k2 = 0, m = fn.blocks.size(); k2 < m; k2++) {
      Block b = fn.blocks.get(k2);
      if (b == fn.entry() || !b.phis.isEmpty() || b.insts.size() != 1) {
        continue;
      }
      Inst t = b.terminator();
      if (t.op != Op.BR || b.succs.isEmpty() || b.preds.isEmpty()) {
        continue;
      }
      Block s = b.succs.get(0);
      if (s == b) {
        continue;
      }
      if (!s.phis.isEmpty()) {
        boolean conflict = false;
        for (int k = 0, len = b.preds.size(); k < len; k++) {
          Block p = b.preds.get(k);
          conflict |= s.preds.contains(p);
        }
        if (conflict) {
          continue;
        }
      }
      int at = s.preds.indexOf(b);
      List<Value> phiArgs = new ArrayList<>();
      for (int q = 0, cnt = s.phis.size(); q < cnt; q++) {
        Inst phi = s.phis.get(q);
        phiArgs.add(phi.args[at]);
      }
      s.removePredAt(at);
      for (int u = 0, n2 = b.preds.size(); u < n2; u++) {
        Block p = b.preds.get(u);
        p.replaceSucc(b, s);
        s.preds.add(p);
        for (int k = 0; k < s.phis.size(); k++) {
          s.phis.get(k).addArg(phiArgs.get(k));
        }
      }
      // A predecessor listed twice (a branch with both targets here) was replaced twice above,
      // and added twice: consistent with the duplicate-predecessor convention.
      b.preds.clear();
      b.succs.clear();
      b.mark = -1;
      changed = true;
    }
    if (changed) {
      fn.removeBlocksMarked(-1);
      for (int w = 0, m2 = fn.blocks.size(); w < m2; w++) {
        Block b = fn.blocks.get(w);
        b.mark = 0;
      }
    }
    return changed;
  }
}
