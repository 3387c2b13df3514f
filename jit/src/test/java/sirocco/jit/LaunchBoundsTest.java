package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sirocco.jit.testkernels.SpecializeKernels;
import sirocco.jit.testkernels.WarpKernels;

/**
 * The occupancy hint ({@link LaunchBounds}): {@code .maxntid} and {@code .minnctapersm} between the
 * entry's parameter list and its body exactly when asked for, nothing else changed, and a key that
 * tells hinted variants apart.
 */
class LaunchBoundsTest {
  private static final Method GROUP_SUMS = TestKernels.method(SpecializeKernels.class, "groupSums");
  private static final Method FIELDS_3D = TestKernels.method(WarpKernels.class, "contextFields3d");
  private static final Map<String, Object> SPECS = Map.of("tile", 128, "group", 4);

  @Test
  void boundsAreValidated() {
    assertEquals(128, new LaunchBounds(128, 1, 1, 4).threads());
    assertEquals(1024, new LaunchBounds(8, 8, 16, 32).threads());
    assertThrows(IllegalArgumentException.class, () -> new LaunchBounds(0, 1, 1, 4));
    assertThrows(IllegalArgumentException.class, () -> new LaunchBounds(1, 1, 65, 4));
    IllegalArgumentException tooMany =
        assertThrows(IllegalArgumentException.class, () -> new LaunchBounds(1024, 2, 1, 1));
    assertTrue(tooMany.getMessage().contains("at most 1024 threads"), tooMany.getMessage());
    for (int bad : new int[] {0, -1, 33}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new LaunchBounds(128, 1, 1, bad));
      assertTrue(e.getMessage().contains("minBlocksPerSm must be 1..32"), e.getMessage());
    }
  }

  @Test
  void withoutBoundsThePtxHasNoDirectives() {
    for (TestKernels.Case c : TestKernels.cases()) {
      String p = KernelCompiler.compile(c.method(), c.specs(), Target.sm90()).ptx();
      assertFalse(p.contains(".maxntid"), c.label());
      assertFalse(p.contains(".minnctapersm"), c.label());
      assertFalse(p.contains("launch bounds"), c.label());
      assertTrue(p.contains("\n)\n{\n"), c.label() + ": the body follows the parameters");
    }
    // A null hint is no hint: the same text and the same key.
    CompiledKernel plain = KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90());
    CompiledKernel nullHint =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), (LaunchBounds) null);
    assertEquals(plain.ptx(), nullHint.ptx());
    assertEquals(plain.key(), nullHint.key());
    assertNull(plain.key().bounds());
  }

  @Test
  void boundsAddTheTwoDirectivesAndNothingElse() {
    CompiledKernel plain = KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90());
    CompiledKernel hinted =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(128, 1, 1, 4));
    String p = hinted.ptx();
    assertTrue(p.contains("\n)\n.maxntid 128, 1, 1\n.minnctapersm 4\n{\n"), p);
    assertEquals(1, p.split("\\.maxntid", -1).length - 1, "one .maxntid");
    assertEquals(1, p.split("\\.minnctapersm", -1).length - 1, "one .minnctapersm");
    String stripped =
        p.replace("// launch bounds: maxntid 128, 1, 1, minnctapersm 4\n", "")
            .replace(".maxntid 128, 1, 1\n.minnctapersm 4\n", "");
    assertEquals(plain.ptx(), stripped, "the header line and the directives are the only change");
    assertEquals(plain.entryName(), hinted.entryName());
    assertEquals(plain.staticSharedBytes(), hinted.staticSharedBytes());
    assertEquals(plain.launchParams(), hinted.launchParams());
  }

  @Test
  void threeDimensionalBounds() {
    String p =
        KernelCompiler.compile(FIELDS_3D, Map.of(), Target.sm80(), new LaunchBounds(4, 3, 2, 3))
            .ptx();
    assertTrue(p.contains("\n)\n.maxntid 4, 3, 2\n.minnctapersm 3\n{\n"), p);
  }

  @Test
  void keysTellHintedVariantsApart() {
    KernelKey plain = KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90()).key();
    KernelKey four =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(128, 1, 1, 4))
            .key();
    KernelKey fourAgain =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(128, 1, 1, 4))
            .key();
    KernelKey five =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(128, 1, 1, 5))
            .key();
    KernelKey wider =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(256, 1, 1, 4))
            .key();
    assertNotEquals(plain, four);
    assertEquals(four, fourAgain);
    assertEquals(four.hashCode(), fourAgain.hashCode());
    assertNotEquals(four, five);
    assertNotEquals(four, wider);
    assertEquals(new LaunchBounds(128, 1, 1, 4), four.bounds());
    assertEquals(plain, new KernelKey(GROUP_SUMS, plain.specializationValues(), Target.sm90()));
  }

  @Test
  void ptxasAcceptsTheDirectivesAndCapsRegisters() {
    // 1024 threads × 2 blocks = 2048 threads: at most 32 registers; nothing reported as ignored.
    for (Target t : new Target[] {Target.sm80(), Target.sm90()}) {
      CompiledKernel k =
          KernelCompiler.compile(GROUP_SUMS, SPECS, t, new LaunchBounds(1024, 1, 1, 2));
      PtxResources r = PtxValidator.validate(k);
      assertTrue(r.registers() <= 32, r.log());
      assertFalse(r.log().contains("ignored"), r.log());
    }
    // 3 × 1024 threads do not fit any SM: ptxas says it ignores the hint (which tests look for).
    CompiledKernel tooMany =
        KernelCompiler.compile(GROUP_SUMS, SPECS, Target.sm90(), new LaunchBounds(1024, 1, 1, 3));
    assertTrue(PtxValidator.validate(tooMany).log().contains("ignored"));
  }
}
