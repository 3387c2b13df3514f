package sirocco.jit.ir;

import static sirocco.jit.ir.Type.DOUBLE;
import static sirocco.jit.ir.Type.FLOAT;
import static sirocco.jit.ir.Type.INT;
import static sirocco.jit.ir.Type.LONG;

/**
 * Functions of {@link Op#MATH}: JDK methods with an exact PTX counterpart, the approximate
 * intrinsics of {@code sirocco.api.Intrinsics}, and bit manipulation. {@link #exact} functions are
 * folded by the constant folder with their Java definition; approximate ones never are.
 */
public enum MathFn {
  FMA_F(FLOAT, true, FLOAT, FLOAT, FLOAT),
  FMA_D(DOUBLE, true, DOUBLE, DOUBLE, DOUBLE),
  MAX_I(INT, true, INT, INT),
  MIN_I(INT, true, INT, INT),
  MAX_L(LONG, true, LONG, LONG),
  MIN_L(LONG, true, LONG, LONG),
  MAX_F(FLOAT, true, FLOAT, FLOAT),
  MIN_F(FLOAT, true, FLOAT, FLOAT),
  MAX_D(DOUBLE, true, DOUBLE, DOUBLE),
  MIN_D(DOUBLE, true, DOUBLE, DOUBLE),
  ABS_I(INT, true, INT),
  ABS_L(LONG, true, LONG),
  ABS_F(FLOAT, true, FLOAT),
  ABS_D(DOUBLE, true, DOUBLE),
  /** {@code (float) Math.sqrt((double) f)}, recognised by the peephole pass. */
  SQRT_F(FLOAT, true, FLOAT),
  SQRT_D(DOUBLE, true, DOUBLE),
  /** {@code (float) Math.exp((double) f)}: an f32 sequence within 2 ulp; never folded. */
  EXP_F(FLOAT, false, FLOAT),
  /** {@code Math.exp(double)}: rejected unless the peephole pass turns it into {@link #EXP_F}. */
  EXP_D(DOUBLE, false, DOUBLE),
  FLOOR_F(FLOAT, true, FLOAT),
  CEIL_F(FLOAT, true, FLOAT),
  RINT_F(FLOAT, true, FLOAT),
  FLOOR_D(DOUBLE, true, DOUBLE),
  CEIL_D(DOUBLE, true, DOUBLE),
  RINT_D(DOUBLE, true, DOUBLE),
  EX2_APPROX(FLOAT, false, FLOAT),
  LG2_APPROX(FLOAT, false, FLOAT),
  RSQRT_APPROX(FLOAT, false, FLOAT),
  DIV_APPROX(FLOAT, false, FLOAT, FLOAT),
  FLOAT_TO_RAW_INT_BITS(INT, true, FLOAT),
  FLOAT_TO_INT_BITS(INT, true, FLOAT),
  INT_BITS_TO_FLOAT(FLOAT, true, INT),
  DOUBLE_TO_RAW_LONG_BITS(LONG, true, DOUBLE),
  DOUBLE_TO_LONG_BITS(LONG, true, DOUBLE),
  LONG_BITS_TO_DOUBLE(DOUBLE, true, LONG),
  /** {@code Float.float16ToFloat(short)}: argument is the (sign-extended) short. */
  HALF_TO_FLOAT(FLOAT, true, INT),
  /** {@code Float.floatToFloat16(float)}: result is the sign-extended short. */
  FLOAT_TO_HALF(INT, true, FLOAT),
  POPC_I(INT, true, INT),
  CLZ_I(INT, true, INT),
  CTZ_I(INT, true, INT),
  BREV_I(INT, true, INT),
  ROTL_I(INT, true, INT, INT),
  ROTR_I(INT, true, INT, INT),
  POPC_L(INT, true, LONG),
  CLZ_L(INT, true, LONG),
  CTZ_L(INT, true, LONG),
  TO_UNSIGNED_LONG(LONG, true, INT),
  /**
   * {@code Bf16.fma2} / {@code F16.fma2}: packed-pair fused multiply-add, each half rounded once
   * (canonical NaN); one {@code fma.rn.bf16x2} / {@code fma.rn.f16x2} (sm_80+).
   */
  FMA_BF16X2(INT, true, INT, INT, INT),
  FMA_F16X2(INT, true, INT, INT, INT),
  /** {@code Intrinsics.bytePermute}: one {@code prmt.b32} (default mode). */
  BYTE_PERM(INT, true, INT, INT, INT),
  DIVU_I(INT, true, INT, INT),
  REMU_I(INT, true, INT, INT);

  /** Result type. */
  public final Type result;

  /** Argument types. */
  public final Type[] args;

  /** True when the GPU result equals the Java definition bit for bit (so folding is safe). */
  public final boolean exact;

  MathFn(Type result, boolean exact, Type... args) {
    this.result = result;
    this.exact = exact;
    this.args = args;
  }
}
