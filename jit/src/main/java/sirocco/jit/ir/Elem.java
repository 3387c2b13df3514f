package sirocco.jit.ir;

/** Element type of a Java primitive array, with its size in bytes and the PTX load/store type. */
public enum Elem {
  BOOLEAN(1, "u8"),
  BYTE(1, "s8"),
  CHAR(2, "u16"),
  SHORT(2, "s16"),
  INT(4, "u32"),
  LONG(8, "u64"),
  FLOAT(4, "f32"),
  DOUBLE(8, "f64");

  /** Size of one element in bytes. */
  public final int size;

  /** PTX type suffix for a scalar load (sign- or zero-extending for sub-word types). */
  public final String ptxLoad;

  Elem(int size, String ptxLoad) {
    this.size = size;
    this.ptxLoad = ptxLoad;
  }

  /** The JVM computational type of a loaded element (sub-word types widen to int). */
  public Type valueType() {
    return switch (this) {
      case BOOLEAN, BYTE, CHAR, SHORT, INT -> Type.INT;
      case LONG -> Type.LONG;
      case FLOAT -> Type.FLOAT;
      case DOUBLE -> Type.DOUBLE;
    };
  }

  /** PTX type suffix for a store of this element. */
  public String ptxStore() {
    return switch (this) {
      case BOOLEAN, BYTE -> "u8";
      case CHAR, SHORT -> "u16";
      default -> ptxLoad;
    };
  }

  /** Java source name of the element type. */
  public String javaName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The element type for a JVM array descriptor character, or null. */
  public static Elem ofDescriptor(char c) {
    return switch (c) {
      case 'Z' -> BOOLEAN;
      case 'B' -> BYTE;
      case 'C' -> CHAR;
      case 'S' -> SHORT;
      case 'I' -> INT;
      case 'J' -> LONG;
      case 'F' -> FLOAT;
      case 'D' -> DOUBLE;
      default -> null;
    };
  }
}
