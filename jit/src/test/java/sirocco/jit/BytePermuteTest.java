package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import sirocco.api.Intrinsics;

/**
 * {@link Intrinsics#bytePermute} (the Java definition that the JIT's {@code prmt.b32} must match,
 * and that the constant folder uses) against a reference written from PTX's description of the
 * default mode, byte by byte through an array: the eight source bytes {@code b:a}, each result byte
 * picked by a selector nibble's low three bits, or that byte's sign replicated where the nibble's
 * bit 3 is set.
 */
class BytePermuteTest {
  private static int reference(int a, int b, int selector) {
    int[] bytes = new int[8];
    for (int i = 0; i < 4; i++) {
      bytes[i] = (a >> (8 * i)) & 0xFF;
      bytes[4 + i] = (b >> (8 * i)) & 0xFF;
    }
    int result = 0;
    for (int i = 0; i < 4; i++) {
      int nibble = (selector >> (4 * i)) & 0xF;
      int v = bytes[nibble % 8];
      if (nibble >= 8) {
        v = v >= 128 ? 255 : 0;
      }
      result += v << (8 * i);
    }
    return result;
  }

  @Test
  void matchesTheByteByByteDefinition() {
    Random r = new Random(5);
    for (int n = 0; n < 200_000; n++) {
      int a = r.nextInt();
      int b = r.nextInt();
      int sel = r.nextInt();
      assertEquals(reference(a, b, sel), Intrinsics.bytePermute(a, b, sel), () -> "a, b, sel");
    }
  }

  @Test
  void knownSelectors() {
    int a = 0x44332211;
    int b = 0x88776655;
    assertEquals(a, Intrinsics.bytePermute(a, b, 0x3210), "identity");
    assertEquals(b, Intrinsics.bytePermute(a, b, 0x7654), "the second word");
    assertEquals(0x11223344, Intrinsics.bytePermute(a, b, 0x0123), "byte swap");
    assertEquals(0x00110011, Intrinsics.bytePermute(a, 0, 0x4040), "a byte into both halves");
    assertEquals(0xFF00FF00, Intrinsics.bytePermute(a, b, 0xF8F8), "signs of 0x11 and 0x88");
    assertEquals(a, Intrinsics.bytePermute(a, b, 0xABCD3210), "bits 16-31 ignored");
  }
}
