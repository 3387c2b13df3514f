package sirocco.jit;

import java.util.List;
import java.util.Locale;

/**
 * Measures compile times of all test kernels in a fresh JVM: the first kernel (class loading and
 * JIT warm-up of the compiler itself included), all kernels once (cold), and all kernels again
 * (warm). Run by {@link CompileTimeTest}; prints one line per measurement.
 */
public final class CompileBench {
  private CompileBench() {}

  public static void main(String[] args) {
    List<TestKernels.Case> cases = TestKernels.cases();
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long c0 = threads.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    TestKernels.Case first = cases.get(0);
    KernelCompiler.compile(first.method(), first.specs(), Target.sm90());
    long t1 = System.nanoTime();
    long bytes = 0;
    for (TestKernels.Case c : cases.subList(1, cases.size())) {
      bytes += KernelCompiler.compile(c.method(), c.specs(), Target.sm90()).ptx().length();
    }
    long t2 = System.nanoTime();
    long c2 = threads.getCurrentThreadCpuTime();
    long warmBest = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long s = System.nanoTime();
      for (TestKernels.Case c : cases) {
        KernelCompiler.compile(c.method(), c.specs(), Target.sm90());
      }
      warmBest = Math.min(warmBest, System.nanoTime() - s);
    }
    System.out.printf(
        Locale.ROOT,
        "kernels=%d first=%.1fms cold_all=%.1fms (main-thread cpu %.1fms) warm_all=%.1fms"
            + " warm_per_kernel=%.2fms ptx_bytes=%d%n",
        cases.size(),
        (t1 - t0) / 1e6,
        (t2 - t0) / 1e6,
        (c2 - c0) / 1e6,
        warmBest / 1e6,
        warmBest / 1e6 / cases.size(),
        bytes);
    long warmNoUnroll = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long s = System.nanoTime();
      for (TestKernels.Case c : cases) {
        KernelCompiler.compile(
            c.method(), c.specs(), Target.sm90(), CompileOptions.defaults().withUnroll(false));
      }
      warmNoUnroll = Math.min(warmNoUnroll, System.nanoTime() - s);
    }
    System.out.printf(Locale.ROOT, "warm_all_without_unroll=%.1fms%n", warmNoUnroll / 1e6);
  }
}
