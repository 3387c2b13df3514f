package sirocco.jit.pass;

import sirocco.jit.ir.Block;
import sirocco.jit.ir.Errors;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;

/**
 * Rejects what is still unsupported after specialization and dead-code elimination: reachable traps
 * (unsupported constructs found by the front end) and functions with no PTX mapping.
 */
public final class Legalize implements Pass {
  @Override
  public String name() {
    return "legalize";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    for (Block b : fn.reversePostOrder()) {
      for (int k = 0, n = b.insts.size(); k < n; k++) {
        Inst i = b.insts.get(k);
        switch (i.op) {
          case TRAP -> throw Errors.at(i.pos, (String) i.aux);
          case CALL -> throw Errors.at(i.pos, "call to " + i.aux + " was not inlined");
          case MATH -> {
            if (i.aux == MathFn.EXP_D) {
              throw Errors.at(
                  i.pos,
                  "Math.exp on a double value is not supported in kernels; write (float)"
                      + " Math.exp(floatValue) (float accuracy, within 2 ulp) or"
                      + " Intrinsics.exp2(x * 1.442695f) (approximate)");
            }
          }
          default -> {}
        }
      }
    }
  }
}
