package sirocco.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelKey;
import sirocco.jit.LaunchBounds;
import sirocco.jit.Target;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.cache.LruCache;
import sirocco.runtime.host.HostDevice;

/**
 * How the CUDA kernel cache keys and compiles launches, without a GPU: {@link CudaKernels#keyOf}
 * and {@link CudaKernels#compile} are what {@link CudaKernels#load} uses, in front of the same
 * {@link LruCache}. Launches that differ only in the occupancy hint are two variants; an unhinted
 * launch keys as before, whatever its block.
 */
public class KernelVariantKeyTest {
  /** A kernel with a specialized parameter. */
  public static void scaled(KernelContext ctx, float[] x, int n, @Specialize int factor) {
    int i = ctx.globalIdx;
    if (i < n) {
      x[i] *= factor;
    }
  }

  private static Method kernel() throws NoSuchMethodException {
    for (Method m : KernelVariantKeyTest.class.getMethods()) {
      if (m.getName().equals("scaled")) {
        return m;
      }
    }
    throw new NoSuchMethodException("scaled");
  }

  @Test
  void launchesDifferingOnlyInTheHintAreTwoVariants() throws Exception {
    DeviceBuffer x = new HostDevice().allocate(ElementType.F32, 256);
    Method m = kernel();
    Target t = Target.sm90();
    KernelLaunch plain = KernelLaunch.of(m, Dim3.of(2), Dim3.of(128), x, 256, 3);
    KernelLaunch otherGridAndBlock = KernelLaunch.of(m, Dim3.of(1), Dim3.of(256), x, 256, 3);
    KernelLaunch hinted = plain.withMinBlocksPerSm(4);
    KernelLaunch hintedOtherGrid =
        KernelLaunch.of(m, Dim3.of(7), Dim3.of(128), x, 100, 3).withMinBlocksPerSm(4);
    KernelLaunch hintedOtherBlock = otherGridAndBlock.withMinBlocksPerSm(4);
    KernelLaunch otherHint = plain.withMinBlocksPerSm(6);
    KernelLaunch otherValue = KernelLaunch.of(m, Dim3.of(2), Dim3.of(128), x, 256, 5);

    KernelKey k = CudaKernels.keyOf(plain, t);
    assertNull(k.bounds());
    assertEquals(new KernelKey(m, List.of(3), t), k, "an unhinted launch keys as before");
    assertEquals(k, CudaKernels.keyOf(otherGridAndBlock, t), "grid and block are not in it");
    KernelKey h = CudaKernels.keyOf(hinted, t);
    assertEquals(new LaunchBounds(128, 1, 1, 4), h.bounds());
    assertNotEquals(k, h);
    assertEquals(h, CudaKernels.keyOf(hintedOtherGrid, t), "the grid and scalars are not in it");
    assertNotEquals(h, CudaKernels.keyOf(hintedOtherBlock, t), "the block is, when hinted");
    assertNotEquals(h, CudaKernels.keyOf(otherHint, t));
    assertNotEquals(k, CudaKernels.keyOf(otherValue, t));
    assertNotEquals(h, CudaKernels.keyOf(hinted, Target.sm80()));

    // The cache in front of the compiler, as CudaKernels.load uses it.
    LruCache<KernelKey, CompiledKernel> cache = new LruCache<>("test", 16, v -> {});
    AtomicInteger compiles = new AtomicInteger();
    List<CompiledKernel> got = new ArrayList<>();
    for (KernelLaunch l :
        List.of(plain, hinted, otherGridAndBlock, hintedOtherGrid, hinted, otherHint)) {
      got.add(
          cache.getOrCreate(
              CudaKernels.keyOf(l, t),
              key -> {
                compiles.incrementAndGet();
                return CudaKernels.compile(key, l.args());
              }));
    }
    assertEquals(3, compiles.get(), "plain, hinted (4 blocks of 128) and hinted with 6");
    String p = got.get(0).ptx();
    String ph = got.get(1).ptx();
    assertFalse(p.contains(".maxntid") || p.contains(".minnctapersm"), p);
    assertTrue(ph.contains("\n)\n.maxntid 128, 1, 1\n.minnctapersm 4\n{\n"), ph);
    assertTrue(got.get(5).ptx().contains(".minnctapersm 6\n"), got.get(5).ptx());
    assertEquals(k, got.get(0).key());
    assertEquals(h, got.get(1).key());
  }
}
