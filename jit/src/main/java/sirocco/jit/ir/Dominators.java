package sirocco.jit.ir;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm) of reachable blocks. */
public final class Dominators {
  private final Map<Block, Block> idom = new IdentityHashMap<>();
  private final Map<Block, Integer> order = new IdentityHashMap<>();
  private final List<Block> rpo;

  public Dominators(Function fn) {
    rpo = fn.reversePostOrder();
    for (int i = 0; i < rpo.size(); i++) {
      order.put(rpo.get(i), i);
    }
    Block entry = rpo.get(0);
    idom.put(entry, entry);
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int i = 1; i < rpo.size(); i++) {
        Block b = rpo.get(i);
        Block n = null;
        for (Block p : b.preds) {
          if (idom.get(p) == null) {
            continue;
          }
          n = n == null ? p : intersect(p, n);
        }
        if (n != null && idom.get(b) != n) {
          idom.put(b, n);
          changed = true;
        }
      }
    }
  }

  private Block intersect(Block a, Block b) {
    while (a != b) {
      while (order.get(a) > order.get(b)) {
        a = idom.get(a);
      }
      while (order.get(b) > order.get(a)) {
        b = idom.get(b);
      }
    }
    return a;
  }

  /** Reachable blocks in reverse post-order (dominators before the blocks they dominate). */
  public List<Block> reversePostOrder() {
    return rpo;
  }

  /** The immediate dominator (the entry for the entry itself), or null if unreachable. */
  public Block idom(Block b) {
    return idom.get(b);
  }

  /** Whether {@code a} dominates {@code b} (every block dominates itself). */
  public boolean dominates(Block a, Block b) {
    Integer oa = order.get(a);
    if (oa == null || !order.containsKey(b)) {
      return false;
    }
    Block x = b;
    while (true) {
      if (x == a) {
        return true;
      }
      Block up = idom.get(x);
      if (up == null || up == x || order.get(x) < oa) {
        return false;
      }
      x = up;
    }
  }
}
