package sirocco.jit.ir;

import java.util.Arrays;
import java.util.List;

/** Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm) of reachable blocks. */
public final class Dominators {
  /** Immediate dominator by block id; null for unreachable blocks. */
  private final Block[] idom;

  /** Position in {@link #rpo} by block id; -1 for unreachable blocks. */
  private final int[] order;

  private final List<Block> rpo;

  public Dominators(Function fn) {
    rpo = fn.reversePostOrder();
    int n = fn.blockIdLimit();
    idom = new Block[n];
    order = new int[n];
    Arrays.fill(order, -1);
    for (int i = 0; i < rpo.size(); i++) {
      order[rpo.get(i).id] = i;
    }
    Block entry = rpo.get(0);
    idom[entry.id] = entry;
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int i = 1; i < rpo.size(); i++) {
        Block b = rpo.get(i);
        Block n2 = null;
        List<Block> preds = b.preds;
        for (int k = 0, m = preds.size(); k < m; k++) {
          Block p = preds.get(k);
          if (idom[p.id] == null) {
            continue;
          }
          n2 = n2 == null ? p : intersect(p, n2);
        }
        if (n2 != null && idom[b.id] != n2) {
          idom[b.id] = n2;
          changed = true;
        }
      }
    }
  }

  private Block intersect(Block a, Block b) {
    while (a != b) {
      while (order[a.id] > order[b.id]) {
        a = idom[a.id];
      }
      while (order[b.id] > order[a.id]) {
        b = idom[b.id];
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
    return idom[b.id];
  }

  /** Whether {@code a} dominates {@code b} (every block dominates itself). */
  public boolean dominates(Block a, Block b) {
    int oa = order[a.id];
    if (oa < 0 || order[b.id] < 0) {
      return false;
    }
    Block x = b;
    while (true) {
      if (x == a) {
        return true;
      }
      Block up = idom[x.id];
      if (up == null || up == x || order[x.id] < oa) {
        return false;
      }
      x = up;
    }
  }
}
