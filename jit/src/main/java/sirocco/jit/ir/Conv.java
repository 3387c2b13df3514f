package sirocco.jit.ir;

/** JVM conversions ({@code i2l} ... {@code i2s}) with Java semantics. */
public enum Conv {
  I2L(Type.INT, Type.LONG),
  I2F(Type.INT, Type.FLOAT),
  I2D(Type.INT, Type.DOUBLE),
  L2I(Type.LONG, Type.INT),
  L2F(Type.LONG, Type.FLOAT),
  L2D(Type.LONG, Type.DOUBLE),
  F2I(Type.FLOAT, Type.INT),
  F2L(Type.FLOAT, Type.LONG),
  F2D(Type.FLOAT, Type.DOUBLE),
  D2I(Type.DOUBLE, Type.INT),
  D2L(Type.DOUBLE, Type.LONG),
  D2F(Type.DOUBLE, Type.FLOAT),
  I2B(Type.INT, Type.INT),
  I2C(Type.INT, Type.INT),
  I2S(Type.INT, Type.INT);

  public final Type from;
  public final Type to;

  Conv(Type from, Type to) {
    this.from = from;
    this.to = to;
  }
}
