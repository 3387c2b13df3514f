package sirocco.jit.pass;

import java.util.ArrayDeque;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Value;

/** Removes instructions and phis whose results are never used and that have no side effects. */
public final class Dce implements Pass {
  @Override
  public String name() {
    return "dce";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    boolean[] live = new boolean[fn.instIdLimit()];
    ArrayDeque<Inst> work = new ArrayDeque<>();
    for (int k = 0, n = fn.blocks.size(); k < n; k++) {
      Block b = fn.blocks.get(k);
      for (int j = 0, m = b.insts.size(); j < m; j++) {
        Inst i = b.insts.get(j);
        if (i.hasSideEffects()) {
          live[i.id] = true;
          work.add(i);
        }
      }
    }
    while (!work.isEmpty()) {
      Inst i = work.pop();
      for (Value a : i.args) {
        if (a instanceof Inst x && !live[x.id]) {
          live[x.id] = true;
          work.add(x);
        }
      }
    }
    for (int q = 0, len = fn.blocks.size(); q < len; q++) {
      Block b = fn.blocks.get(q);
      Inst.removeDead(b.phis, live);
      Inst.removeDead(b.insts, live);
    }
  }
}
