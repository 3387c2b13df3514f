package sirocco.jit.pass;

import java.util.HashMap;
import java.util.Map;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Value;

/** Replaces {@code @Specialize} parameters by their constant values. */
public final class SpecializeParams implements Pass {
  @Override
  public String name() {
    return "specialize";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    if (ctx.specializations.isEmpty()) {
      return;
    }
    Map<Inst, Value> replace = new HashMap<>();
    fn.entry()
        .insts
        .removeIf(
            i -> {
              if (i.op != Op.PARAM) {
                return false;
              }
              Const c = ctx.specializations.get((Integer) i.aux);
              if (c == null) {
                return false;
              }
              replace.put(i, c);
              return true;
            });
    fn.replaceUses(replace);
  }
}
