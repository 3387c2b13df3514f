package sirocco.jit.ir;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** SSA utilities shared by the builder and the passes. */
public final class SsaCleanup {
  private SsaCleanup() {}

  /**
   * Removes phis whose arguments are all one value (or the phi itself), replacing their uses;
   * repeats for phis that become trivial in turn. Returns true when something changed.
   */
  public static boolean removeTrivialPhis(Function fn) {
    Map<Inst, List<Inst>> users = null;
    ArrayDeque<Inst> work = new ArrayDeque<>();
    for (Block b : fn.blocks) {
      work.addAll(b.phis);
    }
    if (work.isEmpty()) {
      return false;
    }
    Map<Inst, Value> replace = new HashMap<>();
    while (!work.isEmpty()) {
      Inst phi = work.pop();
      if (replace.containsKey(phi)) {
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
      replace.put(phi, same);
      if (users == null) {
        users = fn.users();
      }
      for (Inst u : users.getOrDefault(phi, List.of())) {
        if (u.op == Op.PHI && u != phi) {
          work.add(u);
        }
      }
    }
    if (replace.isEmpty()) {
      return false;
    }
    for (Block b : fn.blocks) {
      b.phis.removeIf(replace::containsKey);
    }
    fn.replaceUses(replace);
    return true;
  }
}
