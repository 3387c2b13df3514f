package sirocco.jit.ptx;

import sirocco.jit.ir.Cmp;
import sirocco.jit.ir.Cmp3;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Conv;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Type;
import sirocco.jit.ptx.PtxEmitter.Cls;

/**
 * Instruction selection for arithmetic: the binary operators, shifts (counts masked as Java does),
 * conversions, three-way compares and {@code setp}, and the PTX type names they use. Static helpers
 * of {@link PtxEmitter}, which owns the registers and the text.
 */
final class PtxArith {
  private PtxArith() {}

  static String intType(Type t) {
    return t.kind == Type.Kind.LONG ? "s64" : "s32";
  }

  static String bitType(Type t) {
    return t.kind == Type.Kind.LONG || t.kind == Type.Kind.DOUBLE ? "b64" : "b32";
  }

  static String fType(Type t) {
    return t.kind == Type.Kind.DOUBLE ? "f64" : "f32";
  }

  static void arith(PtxEmitter em, Inst i) {
    Type t = i.type;
    String o;
    if (t.isFloating()) {
      String ft = fType(t);
      o =
          switch (i.op) {
            case ADD -> "add.rn." + ft;
            case SUB -> "sub.rn." + ft;
            case MUL -> "mul.rn." + ft;
            case DIV -> "div.rn." + ft;
            default -> throw new IllegalStateException("float " + i.op);
          };
    } else {
      String it = intType(t);
      o =
          switch (i.op) {
            case ADD -> "add." + it;
            case SUB -> "sub." + it;
            case MUL -> "mul.lo." + it;
            case DIV -> "div." + it;
            case REM -> "rem." + it;
            default -> throw new IllegalStateException();
          };
    }
    em.line(o, " ", em.name(i), ", ", em.op(i.args[0]), ", ", em.op(i.args[1]));
  }

  static void shift(PtxEmitter em, Inst i) {
    boolean wide = i.type == Type.LONG;
    int mask = wide ? 63 : 31;
    String count;
    if (i.args[1] instanceof Const c) {
      count = Integer.toString(c.asInt() & mask);
    } else {
      count = em.fresh(Cls.R32);
      em.line("and.b32 ", count, ", ", em.op(i.args[1]), ", ", mask);
    }
    String o =
        switch (i.op) {
          case SHL -> wide ? "shl.b64" : "shl.b32";
          case SHR -> wide ? "shr.s64" : "shr.s32";
          default -> wide ? "shr.u64" : "shr.u32";
        };
    em.line(o, " ", em.name(i), ", ", em.op(i.args[0]), ", ", count);
  }

  static void conv(PtxEmitter em, Inst i) {
    String d = em.name(i);
    String a = em.op(i.args[0]);
    switch ((Conv) i.aux) {
      case I2L -> em.line("cvt.s64.s32 ", d, ", ", a);
      case I2F -> em.line("cvt.rn.f32.s32 ", d, ", ", a);
      case I2D -> em.line("cvt.rn.f64.s32 ", d, ", ", a);
      case L2I -> em.line("cvt.u32.u64 ", d, ", ", a);
      case L2F -> em.line("cvt.rn.f32.s64 ", d, ", ", a);
      case L2D -> em.line("cvt.rn.f64.s64 ", d, ", ", a);
      // Measured on an H200 (driver 580): cvt.rzi.s32.f32 gives 0 for NaN and saturates, as Java;
      // cvt.rzi.s32.f64 saturates but gives 0x80000000 for NaN, so it needs the NaN guard.
      case F2I -> em.line("cvt.rzi.s32.f32 ", d, ", ", a);
      case F2D -> em.line("cvt.f64.f32 ", d, ", ", a);
      case D2F -> em.line("cvt.rn.f32.f64 ", d, ", ", a);
      case F2L, D2L, D2I -> {
        Conv c = (Conv) i.aux;
        String ft = c == Conv.F2L ? "f32" : "f64";
        boolean wide = c != Conv.D2I;
        String x = em.reg(i.args[0]);
        String t = em.fresh(wide ? Cls.R64 : Cls.R32);
        String p = em.fresh(Cls.PRED);
        em.line("cvt.rzi.", (wide ? "s64." : "s32."), ft, " ", t, ", ", x);
        em.line("setp.nan.", ft, " ", p, ", ", x, ", ", x);
        em.line((wide ? "selp.b64 " : "selp.b32 "), d, ", 0, ", t, ", ", p);
      }
      case I2B -> em.line("cvt.s32.s8 ", d, ", ", em.reg(i.args[0]));
      case I2S -> em.line("cvt.s32.s16 ", d, ", ", em.reg(i.args[0]));
      case I2C -> em.line("and.b32 ", d, ", ", a, ", 65535");
    }
  }

  static void cmp3(PtxEmitter em, Inst i) {
    Cmp3 k = (Cmp3) i.aux;
    String t =
        switch (k) {
          case LCMP -> "s64";
          case FCMPL, FCMPG -> "f32";
          case DCMPL, DCMPG -> "f64";
        };
    String a = em.reg(i.args[0]);
    String b = em.op(i.args[1]);
    String lt = em.fresh(Cls.PRED);
    String gt = em.fresh(Cls.PRED);
    String r1 = em.fresh(Cls.R32);
    em.line("setp.lt.", t, " ", lt, ", ", a, ", ", b);
    em.line("setp.gt.", t, " ", gt, ", ", a, ", ", b);
    em.line("selp.b32 ", r1, ", -1, 0, ", lt);
    if (k == Cmp3.LCMP) {
      em.line("selp.b32 ", em.name(i), ", 1, ", r1, ", ", gt);
      return;
    }
    String r2 = em.fresh(Cls.R32);
    String nan = em.fresh(Cls.PRED);
    em.line("selp.b32 ", r2, ", 1, ", r1, ", ", gt);
    em.line("setp.nan.", t, " ", nan, ", ", a, ", ", b);
    em.line("selp.b32 ", em.name(i), ", ", k.nanResult(), ", ", r2, ", ", nan);
  }

  static void setp(PtxEmitter em, Inst i) {
    Cmp c = (Cmp) i.aux;
    Type t = i.args[0].type();
    String ty =
        switch (t.kind) {
          case INT -> "s32";
          case LONG -> "s64";
          case FLOAT -> "f32";
          case DOUBLE -> "f64";
          default -> throw new IllegalStateException("setp on " + t);
        };
    String cond = c.cond().ptx() + (c.unordered() && t.isFloating() ? "u" : "");
    em.line(
        "setp.", cond, ".", ty, " ", em.name(i), ", ", em.reg(i.args[0]), ", ", em.op(i.args[1]));
  }
}
