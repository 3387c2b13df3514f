package sirocco.jit.ir;

import java.util.ArrayDeque;
import java.util.List;

/** SSA utilities shared by the builder and the passes. */
public final class SsaCleanup {
  private SsaCleanup() {}

  private static final Value[] NONE = new Value[0];

  /**
   * Removes phis whose arguments are all one value (or the phi itself), replacing their uses;
   * repeats for phis that become trivial in turn. Returns true when something changed.
   */
  public static boolean removeTrivialPhis(Function fn) {
    Users users = null;
    ArrayDeque<Inst> work = new ArrayDeque<>();
    for (int k = 0, n = fn.blocks.size(); k < n; k++) {
      List<Inst> phis = fn.blocks.get(k).phis;
      // Not ArrayDeque.addAll: it walks the list with a method reference (a lambda bootstrap).
      for (int j = 0, m = phis.size(); j < m; j++) {
        work.add(phis.get(j));
      }
    }
    if (work.isEmpty()) {
      return false;
    }
    // Allocated at the first trivial phi: most calls find none, and the table is as large as the
    // whole id space (that of the generic kernel after specialization).
    Value[] replace = NONE;
    boolean any = false;
    while (!work.isEmpty()) {
      Inst phi = work.pop();
      if (phi.id < replace.length && replace[phi.id] != null) {
        continue;
      }
      Value same = null;
      boolean trivial = true;
      for (Value a : phi.args) {
        Value r = Function.resolve(a, replace);
        if (r == phi || (same != null && same.equals(r))) {
          continue;
        }
        if (same != null) {
          trivial = false;
          break;
        }
        same = r;
      }
      if (!trivial) {
        continue;
      }
      if (same == null) {
        same = Const.zero(phi.type);
      }
      if (!any) {
        replace = new Value[fn.instIdLimit()];
      }
      replace[phi.id] = same;
      any = true;
      if (users == null) {
        users = fn.users();
      }
      for (int k = users.from(phi.id), e = users.to(phi.id); k < e; k++) {
        Inst u = users.get(k);
        if (u.op == Op.PHI && u != phi) {
          work.add(u);
        }
      }
    }
    if (!any) {
      return false;
    }
    for (int j = 0, m = fn.blocks.size(); j < m; j++) {
      Block b = fn.blocks.get(j);
      Inst.removeReplaced(b.phis, replace);
    }
    fn.replaceUses(replace);
    return true;
  }
}
