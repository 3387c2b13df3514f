package sirocco.jit.ptx;

import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.MmaKind;
import sirocco.jit.ir.Value;
import sirocco.jit.ptx.PtxEmitter.Cls;

/**
 * Instruction selection for intrinsics: the {@link MathFn} functions (with Java's NaN, signed-zero
 * and float16 semantics where PTX differs, and {@code Math.exp(float)} as {@link ExpF32}'s
 * sequence) and the tensor-core {@code mma}. Static helpers of {@link PtxEmitter}, which owns the
 * registers and the text.
 */
final class PtxMath {
  private PtxMath() {}

  static void math(PtxEmitter em, Inst i) {
    MathFn f = (MathFn) i.aux;
    String d = em.name(i);
    Value[] a = i.args;
    switch (f) {
      case FMA_F ->
          em.line("fma.rn.f32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]), ", ", em.op(a[2]));
      case FMA_D ->
          em.line("fma.rn.f64 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]), ", ", em.op(a[2]));
      case MAX_I -> em.line("max.s32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MIN_I -> em.line("min.s32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MAX_L -> em.line("max.s64 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MIN_L -> em.line("min.s64 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MAX_F -> em.line("max.NaN.f32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MIN_F -> em.line("min.NaN.f32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case MAX_D, MIN_D -> minMaxDouble(em, d, em.reg(a[0]), em.reg(a[1]), f == MathFn.MAX_D);
      case ABS_I -> em.line("abs.s32 ", d, ", ", em.op(a[0]));
      case ABS_L -> em.line("abs.s64 ", d, ", ", em.op(a[0]));
      case ABS_F -> {
        String t = em.fresh(Cls.R32);
        em.line("mov.b32 ", t, ", ", em.op(a[0]));
        em.line("and.b32 ", t, ", ", t, ", 2147483647");
        em.line("mov.b32 ", d, ", ", t);
      }
      case ABS_D -> {
        String t = em.fresh(Cls.R64);
        em.line("mov.b64 ", t, ", ", em.op(a[0]));
        em.line("and.b64 ", t, ", ", t, ", 9223372036854775807");
        em.line("mov.b64 ", d, ", ", t);
      }
      case SQRT_F -> em.line("sqrt.rn.f32 ", d, ", ", em.op(a[0]));
      case SQRT_D -> em.line("sqrt.rn.f64 ", d, ", ", em.op(a[0]));
      case EXP_F -> expF(em, d, em.op(a[0]));
      case FLOOR_F -> em.line("cvt.rmi.f32.f32 ", d, ", ", em.op(a[0]));
      case CEIL_F -> em.line("cvt.rpi.f32.f32 ", d, ", ", em.op(a[0]));
      case RINT_F -> em.line("cvt.rni.f32.f32 ", d, ", ", em.op(a[0]));
      case FLOOR_D -> em.line("cvt.rmi.f64.f64 ", d, ", ", em.op(a[0]));
      case CEIL_D -> em.line("cvt.rpi.f64.f64 ", d, ", ", em.op(a[0]));
      case RINT_D -> em.line("cvt.rni.f64.f64 ", d, ", ", em.op(a[0]));
      case EX2_APPROX -> em.line("ex2.approx.f32 ", d, ", ", em.op(a[0]));
      case LG2_APPROX -> em.line("lg2.approx.f32 ", d, ", ", em.op(a[0]));
      case RSQRT_APPROX -> em.line("rsqrt.approx.f32 ", d, ", ", em.op(a[0]));
      case DIV_APPROX -> em.line("div.approx.f32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      // Packed half instructions take .b32 registers only, no immediates.
      case FMA_BF16X2 ->
          em.line("fma.rn.bf16x2 ", d, ", ", em.reg(a[0]), ", ", em.reg(a[1]), ", ", em.reg(a[2]));
      case FMA_F16X2 ->
          em.line("fma.rn.f16x2 ", d, ", ", em.reg(a[0]), ", ", em.reg(a[1]), ", ", em.reg(a[2]));
      case BYTE_PERM ->
          em.line("prmt.b32 ", d, ", ", em.reg(a[0]), ", ", em.reg(a[1]), ", ", em.op(a[2]));
      case FLOAT_TO_RAW_INT_BITS, INT_BITS_TO_FLOAT -> em.line("mov.b32 ", d, ", ", em.op(a[0]));
      case DOUBLE_TO_RAW_LONG_BITS, LONG_BITS_TO_DOUBLE ->
          em.line("mov.b64 ", d, ", ", em.op(a[0]));
      case FLOAT_TO_INT_BITS -> {
        String x = em.reg(a[0]);
        String t = em.fresh(Cls.R32);
        String p = em.fresh(Cls.PRED);
        em.line("mov.b32 ", t, ", ", x);
        em.line("setp.nan.f32 ", p, ", ", x, ", ", x);
        em.line("selp.b32 ", d, ", 2143289344, ", t, ", ", p);
      }
      case DOUBLE_TO_LONG_BITS -> {
        String x = em.reg(a[0]);
        String t = em.fresh(Cls.R64);
        String p = em.fresh(Cls.PRED);
        em.line("mov.b64 ", t, ", ", x);
        em.line("setp.nan.f64 ", p, ", ", x, ", ", x);
        em.line("selp.b64 ", d, ", 9221120237041090560, ", t, ", ", p);
      }
      case HALF_TO_FLOAT -> halfToFloat(em, d, em.reg(a[0]));
      case FLOAT_TO_HALF -> floatToHalf(em, d, em.reg(a[0]));
      case POPC_I -> em.line("popc.b32 ", d, ", ", em.op(a[0]));
      case CLZ_I -> em.line("clz.b32 ", d, ", ", em.op(a[0]));
      case CTZ_I -> {
        String t = em.fresh(Cls.R32);
        em.line("brev.b32 ", t, ", ", em.op(a[0]));
        em.line("clz.b32 ", d, ", ", t);
      }
      case BREV_I -> em.line("brev.b32 ", d, ", ", em.op(a[0]));
      case ROTL_I, ROTR_I -> {
        String x = em.reg(a[0]);
        em.line(
            (f == MathFn.ROTL_I ? "shf.l.wrap.b32 " : "shf.r.wrap.b32 "),
            d,
            ", ",
            x,
            ", ",
            x,
            ", ",
            em.op(a[1]));
      }
      case POPC_L -> em.line("popc.b64 ", d, ", ", em.op(a[0]));
      case CLZ_L -> em.line("clz.b64 ", d, ", ", em.op(a[0]));
      case CTZ_L -> {
        String t = em.fresh(Cls.R64);
        em.line("brev.b64 ", t, ", ", em.op(a[0]));
        em.line("clz.b64 ", d, ", ", t);
      }
      case TO_UNSIGNED_LONG -> em.line("cvt.u64.u32 ", d, ", ", em.op(a[0]));
      case DIVU_I -> em.line("div.u32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case REMU_I -> em.line("rem.u32 ", d, ", ", em.op(a[0]), ", ", em.op(a[1]));
      case EXP_D -> throw new IllegalStateException("Math.exp(double) reached emission");
    }
  }

  /**
   * Java's Math.max/min for doubles. {@code max.f64}/{@code min.f64} already order -0.0 below +0.0
   * (measured on an H200, driver 580), but return the other operand for a NaN, which Java
   * propagates.
   */
  static void minMaxDouble(PtxEmitter em, String d, String a, String b, boolean max) {
    String m = em.fresh(Cls.F64);
    String nan = em.fresh(Cls.PRED);
    String s = em.fresh(Cls.F64);
    em.line((max ? "max.f64 " : "min.f64 "), m, ", ", a, ", ", b);
    em.line("setp.nan.f64 ", nan, ", ", a, ", ", b);
    em.line("add.rn.f64 ", s, ", ", a, ", ", b);
    em.line("selp.f64 ", d, ", ", s, ", ", m, ", ", nan);
  }

  /** The sequence mirrored by {@link ExpF32#exp(float)}. */
  static void expF(PtxEmitter em, String d, String x) {
    String x1 = em.fresh(Cls.F32);
    String x2 = em.fresh(Cls.F32);
    String t = em.fresh(Cls.F32);
    String kf = em.fresh(Cls.F32);
    String r1 = em.fresh(Cls.F32);
    String r = em.fresh(Cls.F32);
    em.line("max.NaN.f32 ", x1, ", ", x, ", ", ExpF32.hex(ExpF32.LO));
    em.line("min.NaN.f32 ", x2, ", ", x1, ", ", ExpF32.hex(ExpF32.HI));
    em.line("mul.rn.f32 ", t, ", ", x2, ", ", ExpF32.hex(ExpF32.LOG2E));
    em.line("cvt.rni.f32.f32 ", kf, ", ", t);
    em.line("fma.rn.f32 ", r1, ", ", kf, ", ", ExpF32.hex(-ExpF32.LN2_HI), ", ", x2);
    em.line("fma.rn.f32 ", r, ", ", kf, ", ", ExpF32.hex(-ExpF32.LN2_LO), ", ", r1);
    String p = em.fresh(Cls.F32);
    em.line("mov.f32 ", p, ", ", ExpF32.hex(ExpF32.C[7]));
    for (int k = 6; k >= 0; k--) {
      String q = em.fresh(Cls.F32);
      em.line("fma.rn.f32 ", q, ", ", p, ", ", r, ", ", ExpF32.hex(ExpF32.C[k]));
      p = q;
    }
    String k = em.fresh(Cls.R32);
    String k1 = em.fresh(Cls.R32);
    String k2 = em.fresh(Cls.R32);
    em.line("cvt.rzi.s32.f32 ", k, ", ", kf);
    em.line("shr.s32 ", k1, ", ", k, ", 1");
    em.line("sub.s32 ", k2, ", ", k, ", ", k1);
    String e1 = em.fresh(Cls.R32);
    String e2 = em.fresh(Cls.R32);
    em.line("add.s32 ", e1, ", ", k1, ", 127");
    em.line("shl.b32 ", e1, ", ", e1, ", 23");
    em.line("add.s32 ", e2, ", ", k2, ", 127");
    em.line("shl.b32 ", e2, ", ", e2, ", 23");
    String s1 = em.fresh(Cls.F32);
    String s2 = em.fresh(Cls.F32);
    String y = em.fresh(Cls.F32);
    em.line("mov.b32 ", s1, ", ", e1);
    em.line("mov.b32 ", s2, ", ", e2);
    em.line("mul.rn.f32 ", y, ", ", p, ", ", s1);
    em.line("mul.rn.f32 ", d, ", ", y, ", ", s2);
  }

  /** Float.float16ToFloat: cvt.f32.f16, with NaN significand bits kept as the JDK does. */
  static void halfToFloat(PtxEmitter em, String d, String h) {
    String hb = em.fresh(Cls.B16);
    String f = em.fresh(Cls.F32);
    em.line("cvt.u16.u32 ", hb, ", ", h);
    em.line("cvt.f32.f16 ", f, ", ", hb);
    String mag = em.fresh(Cls.R32);
    String nan = em.fresh(Cls.PRED);
    em.line("and.b32 ", mag, ", ", h, ", 32767");
    em.line("setp.gt.u32 ", nan, ", ", mag, ", 31744");
    String s = em.fresh(Cls.R32);
    String m = em.fresh(Cls.R32);
    String bits = em.fresh(Cls.R32);
    String nf = em.fresh(Cls.F32);
    em.line("and.b32 ", s, ", ", h, ", 32768");
    em.line("shl.b32 ", s, ", ", s, ", 16");
    em.line("and.b32 ", m, ", ", h, ", 1023");
    em.line("shl.b32 ", m, ", ", m, ", 13");
    em.line("or.b32 ", bits, ", ", s, ", ", m);
    em.line("or.b32 ", bits, ", ", bits, ", 2139095040");
    em.line("mov.b32 ", nf, ", ", bits);
    em.line("selp.f32 ", d, ", ", nf, ", ", f, ", ", nan);
  }

  /** Float.floatToFloat16: cvt.rn.f16.f32, sign-extended, with the JDK's NaN bit mapping. */
  static void floatToHalf(PtxEmitter em, String d, String x) {
    String hb = em.fresh(Cls.B16);
    String v = em.fresh(Cls.R32);
    em.line("cvt.rn.f16.f32 ", hb, ", ", x);
    em.line("cvt.s32.s16 ", v, ", ", hb);
    String bits = em.fresh(Cls.R32);
    String sg = em.fresh(Cls.R32);
    String a = em.fresh(Cls.R32);
    String b = em.fresh(Cls.R32);
    String c = em.fresh(Cls.R32);
    String n = em.fresh(Cls.R32);
    em.line("mov.b32 ", bits, ", ", x);
    em.line("shr.s32 ", sg, ", ", bits, ", 16");
    em.line("and.b32 ", sg, ", ", sg, ", -32768");
    em.line("and.b32 ", a, ", ", bits, ", 8380416");
    em.line("shr.u32 ", a, ", ", a, ", 13");
    em.line("and.b32 ", b, ", ", bits, ", 8176");
    em.line("shr.u32 ", b, ", ", b, ", 4");
    em.line("and.b32 ", c, ", ", bits, ", 15");
    em.line("or.b32 ", n, ", ", sg, ", 31744");
    em.line("or.b32 ", n, ", ", n, ", ", a);
    em.line("or.b32 ", n, ", ", n, ", ", b);
    em.line("or.b32 ", n, ", ", n, ", ", c);
    String p = em.fresh(Cls.PRED);
    em.line("setp.nan.f32 ", p, ", ", x, ", ", x);
    em.line("selp.b32 ", d, ", ", n, ", ", v, ", ", p);
  }

  static void mma(PtxEmitter em, Inst i) {
    MmaKind k = (MmaKind) i.aux;
    String[] d = new String[4];
    for (int n = 0; n < 4; n++) {
      d[n] = em.fresh(Cls.F32);
    }
    em.tuples.put(i, d);
    String[] a = new String[4];
    String[] b = new String[2];
    String[] c = new String[4];
    for (int n = 0; n < 4; n++) {
      a[n] = em.reg(i.args[n]);
    }
    for (int n = 0; n < 2; n++) {
      b[n] = em.reg(i.args[4 + n]);
    }
    for (int n = 0; n < 4; n++) {
      c[n] = em.reg(i.args[6 + n]);
    }
    em.line(
        "mma.sync.aligned.m16n8k16.row.col.f32.",
        k.ptx,
        ".",
        k.ptx,
        ".f32 {",
        String.join(", ", d),
        "}, {",
        String.join(", ", a),
        "}, {",
        String.join(", ", b),
        "}, {",
        String.join(", ", c),
        "}");
  }
}
