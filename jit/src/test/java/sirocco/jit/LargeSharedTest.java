package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sirocco.jit.rejects.Rejected;
import sirocco.jit.testkernels.LargeSharedKernels;
import sirocco.jit.testutil.Geometry;
import sirocco.jit.testutil.ThreadedContext;

/**
 * Shared arrays over 48 KiB in all ({@link LargeSharedKernels}): the kernel computes what its
 * javadoc says on Java threads (one per GPU thread, real barriers), ptxas accepts its dynamic
 * window for sm_80 and sm_90 without spills, and the layout switches from static arrays to the
 * window exactly past 48 KiB. (The PTX patterns are in {@link GoldenPtxTest}, the limits' messages
 * in {@link RejectionTest}; the GPU differential suite runs the kernel through {@link
 * TestKernels}.)
 */
class LargeSharedTest {
  private static final int W = LargeSharedKernels.WORDS;
  private static final int MASK = LargeSharedKernels.MASK;

  @Test
  void javaThreadsComputeWhatTheJavadocSays() {
    Method m = TestKernels.method(LargeSharedKernels.class, "largeShared");
    Random r = new Random(5);
    float[] in = new float[MASK + 1];
    int[] ints = new int[MASK + 1];
    for (int i = 0; i <= MASK; i++) {
      // Random bit patterns, NaN payloads included: the kernel only moves floats around.
      in[i] = Float.intBitsToFloat(r.nextInt());
      ints[i] = r.nextInt();
    }
    int blocks = LargeSharedKernels.BLOCKS;
    int outs = blocks * LargeSharedKernels.OUTS;
    int[] out = new int[outs];
    float[] fout = new float[outs];
    ThreadedContext.launch(
        Geometry.oneD(LargeSharedKernels.BLOCK, blocks * LargeSharedKernels.BLOCK),
        ctx -> {
          try {
            m.invoke(null, ctx, in, ints, out, fout);
          } catch (InvocationTargetException | IllegalAccessException e) {
            throw new IllegalStateException(e);
          }
        });
    int[] want = new int[outs];
    int[] wantF = new int[outs];
    for (int g = 0; g < blocks; g++) {
      for (int q = 0; q < LargeSharedKernels.OUTS; q++) {
        int ks = k(ints, g, q) + 3 * k(ints, g, W - 1 - q) + 5 * k(ints, g, q + 4096);
        int fb = 31 * bits(in, g, q) ^ bits(in, g, q + 4096);
        if (q < 2048) {
          ks += 7 * k(ints, g, q + 8192);
          fb ^= bits(in, g, q + 8192);
        }
        want[g * LargeSharedKernels.OUTS + q] = ks ^ fb;
        wantF[g * LargeSharedKernels.OUTS + q] = bits(in, g, W - 1 - q);
      }
    }
    assertArrayEquals(want, out);
    int[] gotF = new int[outs];
    for (int i = 0; i < outs; i++) {
      gotF[i] = Float.floatToRawIntBits(fout[i]);
    }
    assertArrayEquals(wantF, gotF, "floats moved bit for bit");
  }

  /** The int array's element {@code j} in block {@code g}: copied from {@code ints}. */
  private static int k(int[] ints, int g, int j) {
    return ints[(j + 512 * g) & MASK];
  }

  /** The bits of the float array's element {@code j} in block {@code g}. */
  private static int bits(float[] in, int g, int j) {
    return Float.floatToRawIntBits(in[(3 * j + 77 * g) & MASK]);
  }

  @Test
  void ptxasAcceptsTheWindowWithoutSpills() {
    Method m = TestKernels.method(LargeSharedKernels.class, "largeShared");
    for (Target t : List.of(Target.sm80(), Target.sm90())) {
      CompiledKernel k = KernelCompiler.compile(m, Map.of(), t);
      PtxResources r = PtxValidator.validate(k);
      assertEquals(0, r.spillStoreBytes(), r.log());
      assertEquals(0, r.spillLoadBytes(), r.log());
      assertEquals(0, r.sharedBytes(), "ptxas sees no static shared memory: " + r.log());
      assertEquals(81920, k.dynamicSharedBytes());
      assertEquals(81920, k.sharedBytes());
    }
  }

  @Test
  void theArraysTurnDynamicJustPast48KiB() {
    Method m = TestKernels.method(Rejected.class, "sharedLimit"); // 32 KiB + extra floats
    CompiledKernel at = KernelCompiler.compile(m, Map.of("extra", 4096), Target.sm90());
    assertEquals(48 * 1024, at.staticSharedBytes());
    assertEquals(0, at.dynamicSharedBytes());
    assertTrue(at.ptx().contains("\t.shared .align 16 .b8 smem1[16384];"), at.ptx());
    assertFalse(at.ptx().contains(".extern"), at.ptx());
    for (Target t : List.of(Target.sm80(), Target.sm90())) {
      CompiledKernel past = KernelCompiler.compile(m, Map.of("extra", 4097), t);
      assertEquals(0, past.staticSharedBytes());
      assertEquals(32768 + 16388, past.dynamicSharedBytes());
      String p = past.ptx();
      assertTrue(p.contains(".extern .shared .align 16 .b8 dsmem[];"), p);
      assertTrue(p.contains(", dsmem;") && p.contains(", dsmem+32768;"), p);
      assertFalse(p.contains("smem0") || p.contains("smem1"), p);
      PtxResources r = PtxValidator.validate(past);
      assertEquals(0, r.spillStoreBytes(), r.log());
    }
  }

  @Test
  void eachTargetHasTheOptInLimitTheGuideGives() {
    assertEquals(166912, Target.sm80().maxSharedBytesPerBlock()); // 163 KiB
    assertEquals(232448, Target.sm90().maxSharedBytesPerBlock()); // 227 KiB
    assertEquals(101376, new Target(8, 6, 8, 0).maxSharedBytesPerBlock()); // 99 KiB
    assertEquals(101376, new Target(8, 9, 8, 0).maxSharedBytesPerBlock());
    assertEquals(166912, new Target(8, 7, 8, 0).maxSharedBytesPerBlock());
    assertEquals(232448, new Target(10, 0, 8, 6).maxSharedBytesPerBlock());
    assertEquals(101376, new Target(12, 0, 8, 7).maxSharedBytesPerBlock());
    assertEquals(49152, new Target(11, 0, 9, 0).maxSharedBytesPerBlock(), "unknown: 48 KiB");
    assertEquals(49152, new Target(10, 3, 8, 8).maxSharedBytesPerBlock(), "unknown: 48 KiB");
  }
}
