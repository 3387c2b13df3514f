package sirocco.runtime;

/**
 * How a buffer's elements are stored, and the Java array type a kernel parameter uses for them.
 * Public dtypes map onto these: bf16 and f16 are {@link #I16} (bits in a {@code short[]}), u32 and
 * i32 are {@link #I32}.
 */
public enum ElementType {
  F32(4, float[].class),
  I32(4, int[].class),
  I16(2, short[].class),
  I8(1, byte[].class),
  I64(8, long[].class),
  F64(8, double[].class),
  /** {@code char[]}: unsigned 16-bit. */
  U16(2, char[].class),
  /** {@code boolean[]}: one byte per element, 0 or 1. */
  BOOL(1, boolean[].class);

  private final int bytes;
  private final Class<?> arrayType;

  ElementType(int bytes, Class<?> arrayType) {
    this.bytes = bytes;
    this.arrayType = arrayType;
  }

  public int bytes() {
    return bytes;
  }

  /** The Java array class that holds elements of this type: a kernel's parameter type. */
  public Class<?> arrayType() {
    return arrayType;
  }

  /** The element type a Java array class holds. */
  public static ElementType ofArray(Class<?> arrayClass) {
    for (ElementType t : values()) {
      if (t.arrayType == arrayClass) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "no device element type for "
            + arrayClass.getSimpleName()
            + "; kernels take float[], int[], short[], byte[], long[], double[], char[] or boolean[]");
  }

  /** A new Java array of this type. */
  public Object newArray(int length) {
    return switch (this) {
      case F32 -> new float[length];
      case I32 -> new int[length];
      case I16 -> new short[length];
      case I8 -> new byte[length];
      case I64 -> new long[length];
      case F64 -> new double[length];
      case U16 -> new char[length];
      case BOOL -> new boolean[length];
    };
  }
}
