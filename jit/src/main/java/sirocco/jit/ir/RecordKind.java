package sirocco.jit.ir;

/** The value records of {@code sirocco.api} that kernels keep in registers. */
public enum RecordKind {
  INT4("sirocco/api/Int4", Type.INT, 4),
  INT2("sirocco/api/Int2", Type.INT, 2),
  FLOAT4("sirocco/api/Float4", Type.FLOAT, 4),
  /**
   * The 64 accumulators of a warpgroup product ({@code Float4x16}): no accessors or constructor in
   * kernels, only {@code Float4x16.zero()} and {@code quad(constant)}.
   */
  FLOAT4X16("sirocco/api/Float4x16", Type.FLOAT, 64);

  private static final String[] NAMES = {"x", "y", "z", "w"};

  /** Internal (slash-separated) class name. */
  public final String internalName;

  /** Type of every component. */
  public final Type componentType;

  /** Number of components. */
  public final int count;

  RecordKind(String internalName, Type componentType, int count) {
    this.internalName = internalName;
    this.componentType = componentType;
    this.count = count;
  }

  /** Index of the accessor named {@code name}, or -1. */
  public int componentIndex(String name) {
    if (count > NAMES.length) {
      return -1; // no accessors (Float4x16)
    }
    for (int i = 0; i < count; i++) {
      if (NAMES[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** Accessor name of component {@code i}. */
  public static String componentName(int i) {
    return NAMES[i];
  }

  /** The record kind for an internal class name, or null. */
  public static RecordKind ofInternalName(String internalName) {
    for (RecordKind k : values()) {
      if (k.internalName.equals(internalName)) {
        return k;
      }
    }
    return null;
  }

  /** Simple class name ("Int4"). */
  public String simpleName() {
    return internalName.substring(internalName.lastIndexOf('/') + 1);
  }

  /** Constructor descriptor: one component type per component. */
  public String constructorDescriptor() {
    String c = componentType == Type.INT ? "I" : "F";
    return "(" + c.repeat(count) + ")V";
  }
}
