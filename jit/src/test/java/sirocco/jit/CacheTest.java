package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import sirocco.jit.testkernels.RecordKernels;

/**
 * The caches shared by compilations (helper templates per class loader, kernel IR after records per
 * kernel method) change nothing in the output, are safe to use from several threads, and do not
 * keep a kernel's class loader alive.
 */
class CacheTest {
  /** Dumping the IR of build bypasses the kernel IR cache. */
  private static CompileOptions uncached() {
    return CompileOptions.defaults().withDumpAfter(Set.of("build"), s -> {});
  }

  @Test
  void cachedAndUncachedCompilationsEmitTheSamePtx() {
    for (TestKernels.Case c : TestKernels.cases()) {
      String fresh = KernelCompiler.compile(c.method(), c.specs(), Target.sm90(), uncached()).ptx();
      String first = KernelCompiler.compile(c.method(), c.specs(), Target.sm90()).ptx();
      String again = KernelCompiler.compile(c.method(), c.specs(), Target.sm90()).ptx();
      assertEquals(fresh, first, c.label());
      assertEquals(fresh, again, c.label());
    }
  }

  private static final Set<String> LATER =
      Set.of("fold", "simplify", "unroll", "cse", "dce", "memory", "legalize", "ptx");

  /** The dumps after {@link #LATER} passes, compiling with {@code extra} dumps too (dropped). */
  private static List<String> laterDumps(TestKernels.Case c, String extra) {
    List<String> dumps = new ArrayList<>();
    Set<String> passes = new java.util.HashSet<>(LATER);
    if (extra != null) {
      passes.add(extra);
    }
    KernelCompiler.compile(
        c.method(),
        c.specs(),
        Target.sm90(),
        CompileOptions.defaults()
            .withDumpAfter(
                passes,
                d -> {
                  if (extra == null || !d.startsWith("=== IR after " + extra + "\n")) {
                    dumps.add(d);
                  }
                }));
    return dumps;
  }

  /**
   * From the first fold on, the IR is the same whether the kernel was built from bytecode (dumping
   * build bypasses the cache), copied whole from the cache (dumping specialize asks for a full
   * copy) or copied without the blocks fold removes (the default).
   */
  @Test
  void prunedCopiesGiveTheSameIrFromFoldOn() {
    for (TestKernels.Case c : TestKernels.cases()) {
      KernelCompiler.compile(c.method(), c.specs(), Target.sm90()); // fills the cache
      List<String> fresh = laterDumps(c, "build");
      assertEquals(fresh, laterDumps(c, "specialize"), c.label());
      assertEquals(fresh, laterDumps(c, null), c.label());
      assertEquals(LATER.size(), fresh.size(), c.label());
    }
  }

  @Test
  void concurrentCompilationsAgreeWithSequentialOnes() throws Exception {
    List<TestKernels.Case> cases = TestKernels.cases();
    List<String> expected = new ArrayList<>();
    for (TestKernels.Case c : cases) {
      expected.add(KernelCompiler.compile(c.method(), c.specs(), Target.sm90(), uncached()).ptx());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
          order.add(i);
        }
        Collections.shuffle(order, new Random(t));
        futures.add(
            pool.submit(
                () -> {
                  for (int i : order) {
                    TestKernels.Case c = cases.get(i);
                    String ptx = KernelCompiler.compile(c.method(), c.specs(), Target.sm90()).ptx();
                    assertEquals(expected.get(i), ptx, c.label());
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Loads the test kernels (and their helpers) itself; everything else from its parent. */
  private static final class KernelLoader extends ClassLoader {
    KernelLoader(ClassLoader parent) {
      super(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("sirocco.jit.testkernels.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          try (InputStream in =
              getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
              throw new ClassNotFoundException(name);
            }
            byte[] b = in.readAllBytes();
            c = defineClass(name, b, 0, b.length);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return c;
      }
    }
  }

  private static WeakReference<ClassLoader> compileInOwnLoader() throws Exception {
    KernelLoader loader = new KernelLoader(CacheTest.class.getClassLoader());
    Class<?> k = loader.loadClass(RecordKernels.class.getName());
    assertTrue(k != RecordKernels.class);
    Method m = null;
    for (Method x : k.getDeclaredMethods()) {
      if (x.getName().equals("records")) {
        m = x;
      }
    }
    for (Map<String, Object> s : KernelCompiler.validationSets(m)) {
      KernelCompiler.compile(m, s, Target.sm90());
      KernelCompiler.compile(m, s, Target.sm90());
    }
    return new WeakReference<>(loader);
  }

  @Test
  void cachesDoNotKeepAKernelClassLoaderAlive() throws Exception {
    WeakReference<ClassLoader> ref = compileInOwnLoader();
    for (int i = 0; i < 100 && ref.get() != null; i++) {
      System.gc();
      Thread.sleep(20);
    }
    assertNull(ref.get(), "the kernel's class loader is still reachable after compiling");
  }
}
