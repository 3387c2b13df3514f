package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.api.Int2;
import sirocco.api.Vec;

/**
 * The Java bodies of {@link Vec}'s 8-byte loads, which the Java backend runs and the kernels' CPU
 * tests rely on: elements packed little-endian (the lower index in the low bits), and a misaligned
 * or negative index refused as the GPU would fault on it.
 */
class VecJavaBodyTest {
  @Test
  void eightByteLoadsPackLowIndexFirst() {
    int[] ints = {10, 11, 12, 13};
    assertEquals(new Int2(12, 13), Vec.load2(ints, 2));
    assertEquals(new Int2(10, 11), Vec.ldg2(ints, 0));
    short[] shorts = {1, 2, 3, 4, (short) 0xBEEF, 6, 7, (short) 0x8001};
    Int2 v = Vec.load2(shorts, 4);
    assertEquals(0x0006BEEF, v.x());
    assertEquals(0x80010007, v.y());
    assertEquals(Vec.ldg2(shorts, 4), v);
  }

  @Test
  void misalignedOrNegativeIndicesAreRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Vec.load2(new int[8], 3));
    assertTrue(e.getMessage().contains("not a non-negative multiple of 2"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Vec.load2(new short[8], 2));
    assertTrue(e.getMessage().contains("not a non-negative multiple of 4"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Vec.load2(new short[8], -4));
    assertThrows(ArrayIndexOutOfBoundsException.class, () -> Vec.load2(new short[8], 8));
  }
}
