package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.api.KernelCompileException;
import sirocco.jit.rejects.TileCopyRejected;
import sirocco.jit.testkernels.SwizzledWgmmaKernels;
import sirocco.jit.testkernels.TileCopyKernels;

/**
 * What {@code Vec.copyTileAsync} and {@code Mbarrier} compile to: the instructions of the PTX ISA
 * (8.0, sm_90) with their operands in the right spaces, shared arrays aligned to the swizzle's
 * period, ptxas' acceptance, and the compile errors for operands the instructions cannot take. (The
 * kernel's results, on the Java backend and a GPU, are checked in the tests module.)
 */
class TileCopyPtxTest {
  private static CompiledKernel compile(int swizzle) {
    return compile(swizzle, 2);
  }

  private static CompiledKernel compile(int swizzle, int stages) {
    Method m = TestKernels.method(TileCopyKernels.class, "copyTiles");
    return KernelCompiler.compile(m, Map.of("swizzle", swizzle, "stages", stages), Target.sm90());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 64, 128})
  void theCopyAndTheBarrierOperationsAreEmitted(int swizzle) {
    String p = compile(swizzle).ptx();
    assertTrue(
        p.contains(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
        p);
    assertTrue(p.contains("mbarrier.init.shared::cta.b64"), p);
    assertTrue(p.contains("fence.mbarrier_init.release.cluster;"), p);
    assertTrue(p.contains("mbarrier.arrive.expect_tx.shared::cta.b64 _, ["), p);
    assertTrue(p.contains("mbarrier.try_wait.parity.shared::cta.b64"), p);
    // The map's operand is its generic address, converted back from the parameter's global one.
    assertTrue(p.contains("cvta.global.u64"), p);
    // The wait loops back to its own try_wait until the phase ends.
    Matcher w =
        Pattern.compile(
                "(\\$W\\d+):\\n\\tmbarrier\\.try_wait[^\\n]*\\n\\t@!(%p\\d+) bra (\\$W\\d+);")
            .matcher(p);
    assertTrue(w.find(), p);
    assertEquals(w.group(1), w.group(3));
  }

  @Test
  void sharedArraysOfAKernelCopyingTilesAre1024Aligned() {
    String p = compile(128).ptx();
    assertTrue(p.contains("\t.shared .align 1024 .b8 smem0[8192];"), p);
    assertTrue(p.contains("\t.shared .align 1024 .b8 smem1[16];"), p);
    assertTrue(!p.contains(".align 16 "), p);
  }

  @Test
  void aDynamicWindowIsAligned1024AndSoAreItsArrays() {
    CompiledKernel k = compile(128, 16); // 64 KiB of stages: past the 48 KiB of static arrays
    String p = k.ptx();
    assertTrue(p.contains(".extern .shared .align 1024 .b8 dsmem[];"), p);
    assertTrue(p.contains(", dsmem+65536;"), p); // the barriers right after the stages
    assertEquals(65536 + 128, k.dynamicSharedBytes());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 64, 128})
  void ptxasAcceptsTheKernel(int swizzle) {
    Assumptions.assumeTrue(PtxValidator.isAvailable(), "JCuda's PTX compiler is not loadable");
    PtxResources r = PtxValidator.validate(compile(swizzle));
    assertEquals(0, r.spillStoreBytes(), r.log());
    assertTrue(r.sharedBytes() >= 8192 + 16, r.log());
  }

  /**
   * The B descriptor's constant half of a swizzled product, from the PTX ISA's matrix-descriptor
   * format: leading byte offset 16 (field value 1, unused for K-major swizzled B), stride byte
   * offset one 8-row group of swizzle-byte rows, layout type in bits 62-63 (128 B: 1, 64 B: 2, 32
   * B: 3).
   */
  @ParameterizedTest
  @ValueSource(ints = {32, 64, 128})
  void swizzledProductsCarryTheLayoutInTheirDescriptor(int swizzle) {
    long layout = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    long fields = (1L << 16) | ((8L * swizzle / 16) << 32) | (layout << 62);
    for (String kernel : new String[] {"storedTile", "copiedTile"}) {
      Method m = TestKernels.method(SwizzledWgmmaKernels.class, kernel);
      CompiledKernel k = KernelCompiler.compile(m, Map.of("swizzle", swizzle), Target.sm90());
      String p = k.ptx();
      assertTrue(
          p.contains(", " + fields + ";"), () -> kernel + ": no descriptor " + fields + "\n" + p);
      assertEquals(swizzle / 32, count(p, "wgmma.mma_async"), p);
      assertTrue(p.contains("\t.shared .align 1024 .b8 smem0[16384];"), p);
      if (PtxValidator.isAvailable()) {
        PtxResources r = PtxValidator.validate(k);
        assertEquals(0, r.spillStoreBytes(), r.log());
      }
    }
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int at = s.indexOf(what); at >= 0; at = s.indexOf(what, at + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void beforeSm90TheCallsAreRefusedByName() {
    Method m = TestKernels.method(TileCopyRejected.class, "hopperOnly");
    KernelCompiler.compile(m, Map.of(), Target.sm90()); // the same code compiles for sm_90
    KernelCompileException e =
        assertThrows(
            KernelCompileException.class, () -> KernelCompiler.compile(m, Map.of(), Target.sm80()));
    assertTrue(e.getMessage().contains("needs sm_90"), e.getMessage());
    assertTrue(e.getMessage().contains("the target is sm_80"), e.getMessage());
  }

  @Test
  void operandsInTheWrongSpaceAreRefused() {
    assertRejected(
        "globalBarrier",
        "the bars array of Mbarrier.init(long[] bars, index, ...) must be a shared array from ctx.allocateLongLocalArray");
    assertRejected(
        "globalDestination",
        "the dst array of Vec.copyTileAsync(short[] dst, dstIndex, map, col, row, bars, bar) must be a shared array");
    assertRejected(
        "sharedMap",
        "the map of Vec.copyTileAsync(short[] dst, dstIndex, map, col, row, bars, bar) must be a kernel parameter");
    assertRejected("misalignedDestination", "dstIndex");
    assertRejected(
        "variableSwizzle",
        "the swizzle argument of ctx.warpgroupMmaBf16Swizzled(a, short[] b, bIndex, swizzle, c)"
            + " must be");
  }

  private static void assertRejected(String method, String message) {
    Method m = TestKernels.method(TileCopyRejected.class, method);
    KernelCompileException e =
        assertThrows(
            KernelCompileException.class, () -> KernelCompiler.compile(m, Map.of(), Target.sm90()));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertTrue(e.getMessage().contains("TileCopyRejected." + method), e.getMessage());
  }
}
