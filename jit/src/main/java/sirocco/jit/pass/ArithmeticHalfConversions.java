package sirocco.jit.pass;

import sirocco.jit.ir.Block;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Users;

/**
 * {@code Float.float16ToFloat} whose every use is float arithmetic ({@code + − × ÷}, {@code
 * Math.fma}) becomes a plain {@code cvt.f32.f16} ({@link MathFn#HALF_TO_FLOAT_ARITH}). The general
 * form rebuilds a NaN's significand bits as the JDK keeps them (~8 more instructions, measured 2.2×
 * the SASS of the bf16 path in the f16 quantized kernels); arithmetic cannot pass those bits on in
 * a way the backends promise to agree on (NaN payloads produced by arithmetic may differ from the
 * JVM's: compare NaN as NaN), so where only arithmetic sees the value, the payload is not
 * observable and the conversion is the hardware's. A value that is stored, compared bitwise,
 * converted back or merged in a phi keeps the exact form.
 */
public final class ArithmeticHalfConversions implements Pass {
  @Override
  public String name() {
    return "half-cvt";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    Users users = null;
    for (int k = 0, n = fn.blocks.size(); k < n; k++) {
      Block b = fn.blocks.get(k);
      for (int j = 0, m = b.insts.size(); j < m; j++) {
        Inst i = b.insts.get(j);
        if (i.op != Op.MATH || i.aux != MathFn.HALF_TO_FLOAT) {
          continue;
        }
        if (users == null) {
          users = fn.users();
        }
        if (onlyArithmetic(users, i)) {
          i.aux = MathFn.HALF_TO_FLOAT_ARITH;
        }
      }
    }
  }

  private static boolean onlyArithmetic(Users users, Inst i) {
    int from = users.from(i.id);
    int to = users.to(i.id);
    if (from >= to) {
      return false;
    }
    for (int q = from; q < to; q++) {
      if (!arithmetic(users.get(q))) {
        return false;
      }
    }
    return true;
  }

  private static boolean arithmetic(Inst u) {
    return switch (u.op) {
      case ADD, SUB, MUL, DIV -> u.type == Type.FLOAT;
      case MATH -> u.aux == MathFn.FMA_F;
      default -> false;
    };
  }
}
