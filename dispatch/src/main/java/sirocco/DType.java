package sirocco;

import sirocco.runtime.ElementType;

/** Element types of tensors. 16-bit floats travel as their bits in {@code short[]}. */
public enum DType {
  F32(4, ElementType.F32),
  F16(2, ElementType.I16),
  BF16(2, ElementType.I16),
  U32(4, ElementType.I32),
  U8(1, ElementType.I8),
  I32(4, ElementType.I32);

  private final int bytes;
  private final ElementType storage;

  DType(int bytes, ElementType storage) {
    this.bytes = bytes;
    this.storage = storage;
  }

  public int bytes() {
    return bytes;
  }

  /** True for F32, F16 and BF16. */
  public boolean isFloating() {
    return this == F32 || this == F16 || this == BF16;
  }

  ElementType storage() {
    return storage;
  }
}
