package sirocco.jit.pass;

import java.util.ArrayList;
import java.util.List;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Signed integer division and remainder by a constant power of two 2<sup>n</sup> (n >= 1) as
 * shifts, with Java's rounding toward zero: {@code t = x + ((x >> w-1) >>> w-n)} (adds
 * 2<sup>n</sup> - 1 to negative x), {@code x / 2^n = t >> n}, {@code x % 2^n = x - (t & -2^n)}.
 * ptxas 12.x was seen to leave some {@code div.s32 x, 64} and {@code rem.s32 x, 2} as the general
 * division sequence (an integer-to-float conversion, a reciprocal and about a dozen integer
 * instructions: H200 SASS of the tiled qmm kernel, where specialization had made the divisors
 * constant), so the compiler does not rely on it. Runs after specialization and unrolling, when
 * divisors are folded.
 */
public final class PowerOfTwoDivision implements Pass {
  @Override
  public String name() {
    return "pow2-division";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    for (int j = 0, m = fn.blocks.size(); j < m; j++) {
      Block b = fn.blocks.get(j);
      List<Inst> out = null;
      for (int q = 0, len = b.insts.size(); q < len; q++) {
        Inst i = b.insts.get(q);
        int n = shift(i);
        if (n < 0) {
          if (out != null) {
            out.add(i);
          }
          continue;
        }
        if (out == null) {
          out = new ArrayList<>(b.insts.subList(0, q));
        }
        rewrite(fn, b, i, n, out);
        out.add(i);
      }
      if (out != null) {
        b.insts.clear();
        b.insts.addAll(out);
      }
    }
  }

  /** n where {@code i} is an int or long DIV or REM by 2<sup>n</sup>, n >= 1; else -1. */
  static int shift(Inst i) {
    if ((i.op != Op.DIV && i.op != Op.REM) || (i.type != Type.INT && i.type != Type.LONG)) {
      return -1;
    }
    if (!(i.args[1] instanceof Const c)) {
      return -1;
    }
    long d = i.type == Type.INT ? c.asInt() : c.asLong();
    if (d < 2 || Long.bitCount(d) != 1) {
      return -1;
    }
    return Long.numberOfTrailingZeros(d);
  }

  private static void rewrite(Function fn, Block b, Inst i, int n, List<Inst> out) {
    Type t = i.type;
    int w = t == Type.INT ? 32 : 64;
    Value x = i.args[0];
    Inst sign = add(fn, b, out, Op.SHR, t, x, Const.ofInt(w - 1), i);
    Inst bias = add(fn, b, out, Op.USHR, t, sign, Const.ofInt(w - n), i);
    Inst sum = add(fn, b, out, Op.ADD, t, x, bias, i);
    if (i.op == Op.DIV) {
      i.op = Op.SHR;
      i.args = new Value[] {sum, Const.ofInt(n)};
    } else {
      Value mask = t == Type.INT ? Const.ofInt(-(1 << n)) : Const.ofLong(-(1L << n));
      Inst down = add(fn, b, out, Op.AND, t, sum, mask, i);
      i.op = Op.SUB;
      i.args = new Value[] {x, down};
    }
    i.aux = null;
  }

  private static Inst add(
      Function fn, Block b, List<Inst> out, Op op, Type t, Value x, Value y, Inst at) {
    Inst r = fn.newInst(op, t, new Value[] {x, y}, null, at.pos);
    r.block = b;
    out.add(r);
    return r;
  }
}
