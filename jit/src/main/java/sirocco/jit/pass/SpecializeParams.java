package sirocco.jit.pass;

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
    Value[] replace = new Value[fn.instIdLimit()];
    boolean any = false;
    for (Inst i : fn.entry().insts) {
      if (i.op == Op.PARAM) {
        Const c = ctx.specializations.get((Integer) i.aux);
        if (c != null) {
          replace[i.id] = c;
          any = true;
        }
      }
    }
    if (any) {
      Inst.removeReplaced(fn.entry().insts, replace);
      fn.replaceUses(replace);
    }
  }
}
