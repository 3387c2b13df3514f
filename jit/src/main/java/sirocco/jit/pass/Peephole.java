package sirocco.jit.pass;

import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Conv;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Value;

/**
 * Recognises float computations written through double JDK methods: {@code (float)
 * Math.sqrt((double) f)} becomes {@code sqrt.rn.f32} (the same result: rounding the double square
 * root of a float to float is correctly rounded), likewise {@code floor}, {@code ceil}, {@code
 * rint}, and {@code (float) Math.exp((double) f)} becomes the f32 exp sequence (see {@link
 * MathFn#EXP_F}).
 */
public final class Peephole implements Pass {
  @Override
  public String name() {
    return "peephole";
  }

  /** The f32 form of {@code (float) m(double)}, or null. */
  private static MathFn floatForm(Inst m) {
    return switch ((MathFn) m.aux) {
      case SQRT_D -> MathFn.SQRT_F;
      case EXP_D -> MathFn.EXP_F;
      case FLOOR_D -> MathFn.FLOOR_F;
      case CEIL_D -> MathFn.CEIL_F;
      case RINT_D -> MathFn.RINT_F;
      default -> null;
    };
  }

  /** True when {@link #run} may rewrite {@code i} (a superset of what it rewrites). */
  static boolean mayRewrite(Inst i) {
    return i.op == Op.CONV
        && i.aux == Conv.D2F
        && i.args[0] instanceof Inst m
        && m.op == Op.MATH
        && floatForm(m) != null;
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    for (int j = 0, n = fn.blocks.size(); j < n; j++) {
      Block b = fn.blocks.get(j);
      for (int q = 0, len = b.insts.size(); q < len; q++) {
        Inst i = b.insts.get(q);
        if (i.op != Op.CONV || i.aux != Conv.D2F || !(i.args[0] instanceof Inst m)) {
          continue;
        }
        if (m.op != Op.MATH) {
          continue;
        }
        MathFn f = floatForm(m);
        if (f == null) {
          continue;
        }
        Value x = m.args[0];
        Value arg = null;
        if (x instanceof Inst c && c.op == Op.CONV && c.aux == Conv.F2D) {
          arg = c.args[0];
        } else if (x instanceof Const k && (double) (float) k.asDouble() == k.asDouble()) {
          arg = Const.ofFloat((float) k.asDouble());
        } else if (x instanceof Const k && Double.isNaN(k.asDouble())) {
          arg = Const.ofFloat(Float.NaN);
        }
        if (arg == null) {
          continue;
        }
        i.op = Op.MATH;
        i.aux = f;
        i.args = new Value[] {arg};
      }
    }
  }
}
