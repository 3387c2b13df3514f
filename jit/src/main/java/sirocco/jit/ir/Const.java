package sirocco.jit.ir;

/**
 * A constant of a scalar type, held as raw bits: ints and predicates in the low 32 bits, floats as
 * their IEEE bits, doubles as theirs. Record and array "constants" only appear as placeholders for
 * undefined values ({@link #zero}).
 */
public final class Const extends Value {
  private final Type type;
  private final long bits;

  private Const(Type type, long bits) {
    this.type = type;
    this.bits = bits;
  }

  public static Const ofInt(int v) {
    return new Const(Type.INT, v);
  }

  public static Const ofLong(long v) {
    return new Const(Type.LONG, v);
  }

  public static Const ofFloat(float v) {
    return new Const(Type.FLOAT, Float.floatToRawIntBits(v) & 0xFFFFFFFFL);
  }

  public static Const ofDouble(double v) {
    return new Const(Type.DOUBLE, Double.doubleToRawLongBits(v));
  }

  public static Const ofPred(boolean v) {
    return new Const(Type.PRED, v ? 1 : 0);
  }

  /**
   * The constant of a boxed primitive ({@code Boolean}, {@code Byte}, {@code Short} and {@code
   * Character} as ints), or null for anything else.
   */
  public static Const ofBoxed(Object v) {
    // instanceof rather than a pattern switch: its bootstrap costs milliseconds when cold.
    if (v instanceof Integer i) {
      return ofInt(i);
    } else if (v instanceof Long l) {
      return ofLong(l);
    } else if (v instanceof Float f) {
      return ofFloat(f);
    } else if (v instanceof Double d) {
      return ofDouble(d);
    } else if (v instanceof Boolean b) {
      return ofInt(b ? 1 : 0);
    } else if (v instanceof Byte b) {
      return ofInt(b);
    } else if (v instanceof Short s) {
      return ofInt(s);
    } else if (v instanceof Character c) {
      return ofInt(c);
    }
    return null;
  }

  /** Zero (or false, or an undefined placeholder) of any type. */
  public static Const zero(Type t) {
    return new Const(t, 0);
  }

  @Override
  public Type type() {
    return type;
  }

  public long bits() {
    return bits;
  }

  public int asInt() {
    return (int) bits;
  }

  public long asLong() {
    return bits;
  }

  public float asFloat() {
    return Float.intBitsToFloat((int) bits);
  }

  public double asDouble() {
    return Double.longBitsToDouble(bits);
  }

  public boolean asPred() {
    return bits != 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Const c && c.type == type && c.bits == bits;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(bits) * 31 + type.code;
  }

  @Override
  public String toString() {
    return switch (type.kind) {
      case INT -> Integer.toString(asInt());
      case LONG -> asLong() + "L";
      case FLOAT -> asFloat() + "f";
      case DOUBLE -> asDouble() + "d";
      case PRED -> asPred() ? "true" : "false";
      default -> "undef:" + type;
    };
  }
}
