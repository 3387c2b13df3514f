package sirocco.jit.ir;

/**
 * The type of an IR value: a JVM computational type ({@code int long float double}; booleans,
 * bytes, shorts and chars are {@code int}s as on the JVM operand stack), a PTX predicate, a
 * primitive array reference, a value record, or the kernel context. Instances are interned: compare
 * with {@code ==}.
 */
public final class Type {
  /** Kinds of type. */
  public enum Kind {
    VOID,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    PRED,
    ARRAY,
    RECORD,
    CONTEXT
  }

  public static final Type VOID = new Type(Kind.VOID, null, null, 0);
  public static final Type INT = new Type(Kind.INT, null, null, 1);
  public static final Type LONG = new Type(Kind.LONG, null, null, 2);
  public static final Type FLOAT = new Type(Kind.FLOAT, null, null, 3);
  public static final Type DOUBLE = new Type(Kind.DOUBLE, null, null, 4);
  public static final Type PRED = new Type(Kind.PRED, null, null, 5);
  public static final Type CONTEXT = new Type(Kind.CONTEXT, null, null, 6);

  private static final Type[] ARRAYS = new Type[Elem.values().length];
  private static final Type[] RECORDS = new Type[RecordKind.values().length];

  static {
    for (Elem e : Elem.values()) {
      ARRAYS[e.ordinal()] = new Type(Kind.ARRAY, e, null, 8 + e.ordinal());
    }
    for (RecordKind r : RecordKind.values()) {
      RECORDS[r.ordinal()] = new Type(Kind.RECORD, null, r, 20 + r.ordinal());
    }
  }

  public final Kind kind;

  /** Element type for arrays, else null. */
  public final Elem elem;

  /** Record kind for records, else null. */
  public final RecordKind record;

  /** A small integer unique to this type (used in variable keys). */
  public final int code;

  private Type(Kind kind, Elem elem, RecordKind record, int code) {
    this.kind = kind;
    this.elem = elem;
    this.record = record;
    this.code = code;
  }

  public static Type array(Elem e) {
    return ARRAYS[e.ordinal()];
  }

  public static Type record(RecordKind r) {
    return RECORDS[r.ordinal()];
  }

  public boolean isArray() {
    return kind == Kind.ARRAY;
  }

  public boolean isRecord() {
    return kind == Kind.RECORD;
  }

  /** True for int, long, float and double. */
  public boolean isNumeric() {
    return kind == Kind.INT || kind == Kind.LONG || kind == Kind.FLOAT || kind == Kind.DOUBLE;
  }

  public boolean isFloating() {
    return kind == Kind.FLOAT || kind == Kind.DOUBLE;
  }

  /** True for long and double, which take two JVM local slots and stack words. */
  public boolean isWide() {
    return kind == Kind.LONG || kind == Kind.DOUBLE;
  }

  /** Java source spelling, for messages and dumps. */
  @Override
  public String toString() {
    return switch (kind) {
      case VOID -> "void";
      case INT -> "int";
      case LONG -> "long";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case PRED -> "pred";
      case CONTEXT -> "KernelContext";
      case ARRAY -> elem.javaName() + "[]";
      case RECORD -> record.simpleName();
    };
  }

  /**
   * The IR type for a field descriptor ({@code I}, {@code [F}, {@code Lsirocco/api/Int4;}), or null
   * when kernels cannot hold values of that type.
   */
  public static Type ofDescriptor(String d) {
    switch (d.charAt(0)) {
      case 'Z', 'B', 'C', 'S', 'I':
        return INT;
      case 'J':
        return LONG;
      case 'F':
        return FLOAT;
      case 'D':
        return DOUBLE;
      case 'V':
        return VOID;
      case '[':
        if (d.length() == 2) {
          Elem e = Elem.ofDescriptor(d.charAt(1));
          return e == null ? null : array(e);
        }
        return null;
      case 'L':
        String name = d.substring(1, d.length() - 1);
        if (name.equals("sirocco/api/KernelContext")) {
          return CONTEXT;
        }
        RecordKind r = RecordKind.ofInternalName(name);
        return r == null ? null : record(r);
      default:
        return null;
    }
  }
}
