package sirocco.jit.pass;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.SReg;
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
    Map<Inst, long[]> memo = new IdentityHashMap<>();
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
        rewrite(fn, b, i, n, out, memo);
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

  private static void rewrite(
      Function fn, Block b, Inst i, int n, List<Inst> out, Map<Inst, long[]> memo) {
    Type t = i.type;
    int w = t == Type.INT ? 32 : 64;
    Value x = i.args[0];
    long[] r = t == Type.INT ? bounds(x, 0, memo) : null;
    if (r != null && r[0] >= 0) {
      // A dividend known not to be negative (thread and block indices, masks, their sums):
      // truncation is the floor, so one shift or one mask, as ptxas itself would emit from the
      // same knowledge.
      if (i.op == Op.DIV) {
        i.op = Op.SHR;
        i.args = new Value[] {x, Const.ofInt(n)};
      } else {
        i.op = Op.AND;
        i.args = new Value[] {x, Const.ofInt((1 << n) - 1)};
      }
      i.aux = null;
      return;
    }
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

  /**
   * Inclusive bounds of the int value {@code v} that hold in every execution, or null when not
   * known: constants, the special registers' ranges, and arithmetic on bounded values where no step
   * can overflow. Looks at most 16 instructions deep; phis are not followed.
   */
  static long[] bounds(Value v, int depth, Map<Inst, long[]> memo) {
    if (v instanceof Const c) {
      return c.type() == Type.INT ? new long[] {c.asInt(), c.asInt()} : null;
    }
    if (!(v instanceof Inst i) || i.type != Type.INT || depth > 16) {
      return null;
    }
    // Shared subexpressions are visited once (a result cut short by the depth limit is null, which
    // is only less precise).
    long[] known = memo.get(i);
    if (known != null) {
      return known == UNKNOWN ? null : known;
    }
    long[] r = compute(i, depth, memo);
    memo.put(i, r == null ? UNKNOWN : r);
    return r;
  }

  private static final long[] UNKNOWN = new long[0];

  private static long[] compute(Inst i, int depth, Map<Inst, long[]> memo) {
    if (i.op == Op.SREG) {
      return switch ((SReg) i.aux) {
        case TID_X, TID_Y, TID_Z -> new long[] {0, 1023};
        case NTID_X, NTID_Y, NTID_Z -> new long[] {1, 1024};
        case CTAID_X -> new long[] {0, Integer.MAX_VALUE};
        case CTAID_Y, CTAID_Z -> new long[] {0, 65534};
        case NCTAID_X -> new long[] {1, Integer.MAX_VALUE};
        case NCTAID_Y, NCTAID_Z -> new long[] {1, 65535};
        default -> null;
      };
    }
    if (i.args.length != 2) {
      return null;
    }
    long[] a = bounds(i.args[0], depth + 1, memo);
    long[] b = i.op == Op.AND ? bounds(i.args[1], depth + 1, memo) : null;
    if (i.op == Op.AND) {
      // x & m is within [0, m] for a non-negative m whatever x is.
      long hi =
          Math.min(
              a != null && a[0] >= 0 ? a[1] : Long.MAX_VALUE,
              b != null && b[0] >= 0 ? b[1] : Long.MAX_VALUE);
      return hi == Long.MAX_VALUE ? null : new long[] {0, hi};
    }
    if (a == null) {
      return null;
    }
    if (i.op == Op.USHR || i.op == Op.SHR || i.op == Op.SHL) {
      if (!(i.args[1] instanceof Const k)) {
        return null;
      }
      int sh = k.asInt() & 31;
      return switch (i.op) {
        case SHR -> new long[] {a[0] >> sh, a[1] >> sh};
        case USHR -> a[0] >= 0 ? new long[] {a[0] >> sh, a[1] >> sh} : null;
        default -> fit(a[0] << sh, a[1] << sh);
      };
    }
    if (i.op == Op.DIV || i.op == Op.REM) {
      if (!(i.args[1] instanceof Const k) || k.asInt() <= 0) {
        return null;
      }
      long d = k.asInt();
      if (i.op == Op.DIV) {
        return new long[] {a[0] / d, a[1] / d};
      }
      return a[0] >= 0 ? new long[] {0, Math.min(a[1], d - 1)} : null;
    }
    b = bounds(i.args[1], depth + 1, memo);
    if (b == null) {
      return null;
    }
    return switch (i.op) {
      case ADD -> fit(a[0] + b[0], a[1] + b[1]);
      case SUB -> fit(a[0] - b[1], a[1] - b[0]);
      case MUL -> a[0] >= 0 && b[0] >= 0 ? fit(a[0] * b[0], a[1] * b[1]) : null;
      case MATH ->
          i.aux == MathFn.MIN_I
              ? new long[] {Math.min(a[0], b[0]), Math.min(a[1], b[1])}
              : i.aux == MathFn.MAX_I
                  ? new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])}
                  : null;
      default -> null;
    };
  }

  /** [lo, hi] when both lie in the int range (no overflow on the way there), else null. */
  private static long[] fit(long lo, long hi) {
    boolean in = lo >= Integer.MIN_VALUE && hi <= Integer.MAX_VALUE && lo <= hi;
    return in ? new long[] {lo, hi} : null;
  }
}
