package sirocco.jit.pass;

import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.api.Intrinsics;
import sirocco.jit.ir.Cmp;
import sirocco.jit.ir.Cmp3;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Conv;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;

/**
 * Evaluates pure instructions on constants with Java semantics (the semantics the PTX emitter
 * reproduces), so folding never changes a result. Returns null where folding is not possible or not
 * wanted (integer division by zero, approximate functions).
 */
public final class Evaluator {
  private Evaluator() {}

  /** True for opcodes {@link #eval} may fold. */
  public static boolean foldable(Op op) {
    return switch (op) {
      case ADD,
          SUB,
          MUL,
          DIV,
          REM,
          NEG,
          AND,
          OR,
          XOR,
          SHL,
          SHR,
          USHR,
          CONV,
          CMP3,
          SETP,
          SELECT,
          MATH ->
          true;
      default -> false;
    };
  }

  public static Const eval(Op op, Type type, Object aux, Const[] a) {
    return switch (op) {
      case ADD, SUB, MUL, DIV, REM, AND, OR, XOR, SHL, SHR, USHR -> binary(op, type, a[0], a[1]);
      case NEG -> neg(type, a[0]);
      case CONV -> conv((Conv) aux, a[0]);
      case CMP3 -> Const.ofInt(cmp3((Cmp3) aux, a[0], a[1]));
      case SETP -> Const.ofPred(setp((Cmp) aux, a[0], a[1]));
      case SELECT -> a[0].asPred() ? a[1] : a[2];
      case MATH -> math((MathFn) aux, a);
      default -> null;
    };
  }

  private static Const binary(Op op, Type t, Const x, Const y) {
    switch (t.kind) {
      case INT -> {
        int a = x.asInt();
        int b = y.asInt();
        return switch (op) {
          case ADD -> Const.ofInt(a + b);
          case SUB -> Const.ofInt(a - b);
          case MUL -> Const.ofInt(a * b);
          case DIV -> b == 0 ? null : Const.ofInt(a / b);
          case REM -> b == 0 ? null : Const.ofInt(a % b);
          case AND -> Const.ofInt(a & b);
          case OR -> Const.ofInt(a | b);
          case XOR -> Const.ofInt(a ^ b);
          case SHL -> Const.ofInt(a << b);
          case SHR -> Const.ofInt(a >> b);
          case USHR -> Const.ofInt(a >>> b);
          default -> null;
        };
      }
      case LONG -> {
        long a = x.asLong();
        if (op == Op.SHL || op == Op.SHR || op == Op.USHR) {
          int s = y.asInt();
          return Const.ofLong(op == Op.SHL ? a << s : op == Op.SHR ? a >> s : a >>> s);
        }
        long b = y.asLong();
        return switch (op) {
          case ADD -> Const.ofLong(a + b);
          case SUB -> Const.ofLong(a - b);
          case MUL -> Const.ofLong(a * b);
          case DIV -> b == 0 ? null : Const.ofLong(a / b);
          case REM -> b == 0 ? null : Const.ofLong(a % b);
          case AND -> Const.ofLong(a & b);
          case OR -> Const.ofLong(a | b);
          case XOR -> Const.ofLong(a ^ b);
          default -> null;
        };
      }
      case FLOAT -> {
        float a = x.asFloat();
        float b = y.asFloat();
        return switch (op) {
          case ADD -> Const.ofFloat(a + b);
          case SUB -> Const.ofFloat(a - b);
          case MUL -> Const.ofFloat(a * b);
          case DIV -> Const.ofFloat(a / b);
          default -> null;
        };
      }
      case DOUBLE -> {
        double a = x.asDouble();
        double b = y.asDouble();
        return switch (op) {
          case ADD -> Const.ofDouble(a + b);
          case SUB -> Const.ofDouble(a - b);
          case MUL -> Const.ofDouble(a * b);
          case DIV -> Const.ofDouble(a / b);
          default -> null;
        };
      }
      default -> {
        return null;
      }
    }
  }

  private static Const neg(Type t, Const x) {
    return switch (t.kind) {
      case INT -> Const.ofInt(-x.asInt());
      case LONG -> Const.ofLong(-x.asLong());
      case FLOAT -> Const.ofFloat(-x.asFloat());
      case DOUBLE -> Const.ofDouble(-x.asDouble());
      default -> null;
    };
  }

  private static Const conv(Conv c, Const x) {
    return switch (c) {
      case I2L -> Const.ofLong(x.asInt());
      case I2F -> Const.ofFloat(x.asInt());
      case I2D -> Const.ofDouble(x.asInt());
      case L2I -> Const.ofInt((int) x.asLong());
      case L2F -> Const.ofFloat(x.asLong());
      case L2D -> Const.ofDouble(x.asLong());
      case F2I -> Const.ofInt((int) x.asFloat());
      case F2L -> Const.ofLong((long) x.asFloat());
      case F2D -> Const.ofDouble(x.asFloat());
      case D2I -> Const.ofInt((int) x.asDouble());
      case D2L -> Const.ofLong((long) x.asDouble());
      case D2F -> Const.ofFloat((float) x.asDouble());
      case I2B -> Const.ofInt((byte) x.asInt());
      case I2C -> Const.ofInt((char) x.asInt());
      case I2S -> Const.ofInt((short) x.asInt());
    };
  }

  private static int cmp3(Cmp3 k, Const x, Const y) {
    if (k == Cmp3.LCMP) {
      return Long.compare(x.asLong(), y.asLong());
    }
    double a = k == Cmp3.FCMPL || k == Cmp3.FCMPG ? x.asFloat() : x.asDouble();
    double b = k == Cmp3.FCMPL || k == Cmp3.FCMPG ? y.asFloat() : y.asDouble();
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return k.nanResult();
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  private static boolean setp(Cmp c, Const x, Const y) {
    Type t = x.type();
    int r;
    switch (t.kind) {
      case INT -> r = Integer.compare(x.asInt(), y.asInt());
      case LONG -> r = Long.compare(x.asLong(), y.asLong());
      case FLOAT, DOUBLE -> {
        double a = t.kind == Type.Kind.FLOAT ? x.asFloat() : x.asDouble();
        double b = t.kind == Type.Kind.FLOAT ? y.asFloat() : y.asDouble();
        if (Double.isNaN(a) || Double.isNaN(b)) {
          return c.unordered();
        }
        r = a < b ? -1 : a > b ? 1 : 0;
      }
      case PRED -> r = Boolean.compare(x.asPred(), y.asPred());
      default -> throw new IllegalStateException("setp on " + t);
    }
    return c.cond().test(r);
  }

  private static Const math(MathFn fn, Const[] a) {
    if (!fn.exact) {
      return null;
    }
    return switch (fn) {
      case FMA_F -> Const.ofFloat(Math.fma(a[0].asFloat(), a[1].asFloat(), a[2].asFloat()));
      case FMA_D -> Const.ofDouble(Math.fma(a[0].asDouble(), a[1].asDouble(), a[2].asDouble()));
      case FMA_BF16X2 -> Const.ofInt(Bf16.fma2(a[0].asInt(), a[1].asInt(), a[2].asInt()));
      case FMA_F16X2 -> Const.ofInt(F16.fma2(a[0].asInt(), a[1].asInt(), a[2].asInt()));
      case BYTE_PERM ->
          Const.ofInt(Intrinsics.bytePermute(a[0].asInt(), a[1].asInt(), a[2].asInt()));
      case MAX_I -> Const.ofInt(Math.max(a[0].asInt(), a[1].asInt()));
      case MIN_I -> Const.ofInt(Math.min(a[0].asInt(), a[1].asInt()));
      case MAX_L -> Const.ofLong(Math.max(a[0].asLong(), a[1].asLong()));
      case MIN_L -> Const.ofLong(Math.min(a[0].asLong(), a[1].asLong()));
      case MAX_F -> Const.ofFloat(Math.max(a[0].asFloat(), a[1].asFloat()));
      case MIN_F -> Const.ofFloat(Math.min(a[0].asFloat(), a[1].asFloat()));
      case MAX_D -> Const.ofDouble(Math.max(a[0].asDouble(), a[1].asDouble()));
      case MIN_D -> Const.ofDouble(Math.min(a[0].asDouble(), a[1].asDouble()));
      case ABS_I -> Const.ofInt(Math.abs(a[0].asInt()));
      case ABS_L -> Const.ofLong(Math.abs(a[0].asLong()));
      case ABS_F -> Const.ofFloat(Math.abs(a[0].asFloat()));
      case ABS_D -> Const.ofDouble(Math.abs(a[0].asDouble()));
      case SQRT_F -> Const.ofFloat((float) Math.sqrt(a[0].asFloat()));
      case SQRT_D -> Const.ofDouble(Math.sqrt(a[0].asDouble()));
      case FLOOR_F -> Const.ofFloat((float) Math.floor(a[0].asFloat()));
      case CEIL_F -> Const.ofFloat((float) Math.ceil(a[0].asFloat()));
      case RINT_F -> Const.ofFloat((float) Math.rint(a[0].asFloat()));
      case FLOOR_D -> Const.ofDouble(Math.floor(a[0].asDouble()));
      case CEIL_D -> Const.ofDouble(Math.ceil(a[0].asDouble()));
      case RINT_D -> Const.ofDouble(Math.rint(a[0].asDouble()));
      case FLOAT_TO_RAW_INT_BITS -> Const.ofInt(Float.floatToRawIntBits(a[0].asFloat()));
      case FLOAT_TO_INT_BITS -> Const.ofInt(Float.floatToIntBits(a[0].asFloat()));
      case INT_BITS_TO_FLOAT -> Const.ofFloat(Float.intBitsToFloat(a[0].asInt()));
      case DOUBLE_TO_RAW_LONG_BITS -> Const.ofLong(Double.doubleToRawLongBits(a[0].asDouble()));
      case DOUBLE_TO_LONG_BITS -> Const.ofLong(Double.doubleToLongBits(a[0].asDouble()));
      case LONG_BITS_TO_DOUBLE -> Const.ofDouble(Double.longBitsToDouble(a[0].asLong()));
      case HALF_TO_FLOAT -> Const.ofFloat(halfToFloat((short) a[0].asInt()));
      case FLOAT_TO_HALF -> Const.ofInt(Float.floatToFloat16(a[0].asFloat()));
      case POPC_I -> Const.ofInt(Integer.bitCount(a[0].asInt()));
      case CLZ_I -> Const.ofInt(Integer.numberOfLeadingZeros(a[0].asInt()));
      case CTZ_I -> Const.ofInt(Integer.numberOfTrailingZeros(a[0].asInt()));
      case BREV_I -> Const.ofInt(Integer.reverse(a[0].asInt()));
      case ROTL_I -> Const.ofInt(Integer.rotateLeft(a[0].asInt(), a[1].asInt()));
      case ROTR_I -> Const.ofInt(Integer.rotateRight(a[0].asInt(), a[1].asInt()));
      case POPC_L -> Const.ofInt(Long.bitCount(a[0].asLong()));
      case CLZ_L -> Const.ofInt(Long.numberOfLeadingZeros(a[0].asLong()));
      case CTZ_L -> Const.ofInt(Long.numberOfTrailingZeros(a[0].asLong()));
      case TO_UNSIGNED_LONG -> Const.ofLong(Integer.toUnsignedLong(a[0].asInt()));
      case DIVU_I ->
          a[1].asInt() == 0
              ? null
              : Const.ofInt(Integer.divideUnsigned(a[0].asInt(), a[1].asInt()));
      case REMU_I ->
          a[1].asInt() == 0
              ? null
              : Const.ofInt(Integer.remainderUnsigned(a[0].asInt(), a[1].asInt()));
      default -> null;
    };
  }

  /**
   * {@code Float.float16ToFloat} as the JDK's Java code defines it (NaN significand bits kept as
   * they are), which is what the PTX sequence reproduces.
   */
  public static float halfToFloat(short h) {
    int bits = h;
    int sign = bits & 0x8000;
    int exp = bits & 0x7c00;
    int signif = bits & 0x03ff;
    if (exp == 0x7c00 && signif != 0) {
      return Float.intBitsToFloat((sign << 16) | 0x7f80_0000 | (signif << 13));
    }
    return Float.float16ToFloat(h);
  }
}
