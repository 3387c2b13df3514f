package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.api.Float4;
import sirocco.api.Float4x16;
import sirocco.jit.testkernels.SpecializeKernels;
import sirocco.jit.testkernels.WgmmaKernels;

/** Float4x16's accessors and bad input, and which targets a kernel compiles for. */
class WarpgroupApiTest {
  @Test
  void quadsAreConsecutiveFours() {
    float[] v = new float[64];
    for (int i = 0; i < 64; i++) {
      v[i] = 100 + i;
    }
    Float4x16 a = Float4x16.of(v);
    v[0] = -1; // copied
    assertEquals(new Float4(100, 101, 102, 103), a.quad(0));
    assertEquals(new Float4(160, 161, 162, 163), a.quad(15));
    assertEquals(163f, a.get(63));
    assertEquals(0f, Float4x16.zero().get(17));
  }

  @Test
  void badInputNamesTheArgument() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Float4x16.of(new float[63]));
    assertTrue(e.getMessage().startsWith("values must hold 64 floats, got 63"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Float4x16.of(null));
    assertTrue(e.getMessage().contains("got null"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Float4x16.zero().quad(16));
    assertTrue(e.getMessage().startsWith("i must be 0..15, got 16"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Float4x16.zero().get(-1));
    assertTrue(e.getMessage().startsWith("i must be 0..63, got -1"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> KernelCompiler.compilesFor(null, Target.sm90()));
    assertTrue(e.getMessage().startsWith("kernel must be"), e.getMessage());
  }

  @Test
  void kernelArchsLimitTheTargets() {
    var any = TestKernels.method(SpecializeKernels.class, "groupSums");
    assertTrue(KernelCompiler.compilesFor(any, Target.sm80()));
    assertTrue(KernelCompiler.compilesFor(any, Target.sm90()));
    var hopper = TestKernels.method(WgmmaKernels.class, "hopperOnly");
    assertTrue(KernelCompiler.compilesFor(hopper, Target.sm90()));
    assertFalse(KernelCompiler.compilesFor(hopper, Target.sm80()));
  }
}
