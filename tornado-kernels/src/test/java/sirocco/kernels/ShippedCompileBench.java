package sirocco.kernels;

import java.io.File;
import java.io.IOException;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sirocco.api.Kernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.Target;
import sirocco.kernels.attention.MaskToBias;

/**
 * Cold compile time of every shipped kernel: in a fresh JVM, finds the {@code @Kernel} methods
 * under {@code sirocco/kernels} (in the directory or jar {@link MaskToBias} was loaded from), then
 * compiles every {@code validateWith} specialization of each for sm_90, in order, once. Prints one
 * line: the compile loop's wall time, the main thread's CPU time during it (less sensitive to other
 * load on the machine than wall time), the whole process's CPU time during it (JIT compiler and GC
 * threads included), the bytes the main thread allocated (with one compiling thread) and the
 * classes loaded during it. The scan before the loop is not timed. {@code bin/compile-bench} runs
 * it in several fresh JVMs and prints the medians.
 *
 * <p>Options, all for investigation (the recorded figure is the plain run):
 *
 * <ul>
 *   <li>{@code --dump DIR} writes each specialization's PTX to {@code DIR} after the timing (file
 *       names are the entry names), to check that a compiler change keeps the PTX byte-identical;
 *   <li>{@code --each} prints each specialization's time;
 *   <li>{@code --by-pass} sums the compiler's own timing by pass (its formatting adds time);
 *   <li>{@code --passes N} compiles everything N times in the same JVM and prints the later passes
 *       (warmed-up code, the compiler's caches filled);
 *   <li>{@code --threads N} compiles on N threads, each taking the next kernel method with all its
 *       specializations (the main thread only waits then: see the process CPU time).
 * </ul>
 */
public final class ShippedCompileBench {
  private ShippedCompileBench() {}

  public static void main(String[] args) throws Exception {
    Path dump = null;
    boolean each = false;
    int passes = 1;
    int nThreads = 1;
    Map<String, double[]> byPass = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--dump")) {
        dump = Path.of(args[++i]);
      } else if (args[i].equals("--each")) {
        each = true;
      } else if (args[i].equals("--by-pass")) {
        byPass = new java.util.LinkedHashMap<>();
      } else if (args[i].equals("--threads")) {
        nThreads = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--passes")) {
        passes = Integer.parseInt(args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    ClassLoadingMXBean loading = ManagementFactory.getClassLoadingMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    List<Method> kernels = shippedKernels();
    List<Method> methods = new ArrayList<>();
    List<Map<String, Object>> specs = new ArrayList<>();
    for (Method m : kernels) {
      for (Map<String, Object> s : KernelCompiler.validationSets(m)) {
        methods.add(m);
        specs.add(s);
      }
    }
    Target target = Target.sm90();
    int n = methods.size();
    String[] names = new String[n];
    String[] ptx = new String[n];
    long[] nanos = new long[n];

    new LoopStart(); // marks the timed section in -Xlog:class+load
    long loaded0 = loading.getTotalLoadedClassCount();
    long c0 = threads.getCurrentThreadCpuTime();
    long a0 = ((com.sun.management.ThreadMXBean) threads).getCurrentThreadAllocatedBytes();
    long p0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    if (nThreads > 1) {
      compileInParallel(nThreads, methods, specs, target, names, ptx, nanos);
    } else {
      for (int i = 0; i < n; i++) {
        long s = System.nanoTime();
        var k =
            byPass == null
                ? KernelCompiler.compile(methods.get(i), specs.get(i), target)
                : KernelCompiler.compile(
                    methods.get(i),
                    specs.get(i),
                    target,
                    sirocco.jit.CompileOptions.defaults().withTiming(true, sink(byPass)));
        nanos[i] = System.nanoTime() - s;
        names[i] = k.entryName();
        ptx[i] = k.ptx();
      }
    }
    long t1 = System.nanoTime();
    long c1 = threads.getCurrentThreadCpuTime();
    long a1 = ((com.sun.management.ThreadMXBean) threads).getCurrentThreadAllocatedBytes();
    long p1 = os.getProcessCpuTime();
    long loaded1 = loading.getTotalLoadedClassCount();
    new LoopEnd();

    int slowest = 0;
    long bytes = 0;
    for (int i = 0; i < n; i++) {
      bytes += ptx[i].length();
      if (nanos[i] > nanos[slowest]) {
        slowest = i;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "kernels=%d specializations=%d wall_ms=%.1f cpu_ms=%.1f process_cpu_ms=%.1f"
            + " allocated_mb=%.1f classes_loaded=%d"
            + " first_ms=%.1f slowest_ms=%.1f (%s.%s%s) ptx_bytes=%d%n",
        kernels.size(),
        n,
        (t1 - t0) / 1e6,
        (c1 - c0) / 1e6,
        (p1 - p0) / 1e6,
        (a1 - a0) / 1e6,
        loaded1 - loaded0,
        nanos[0] / 1e6,
        nanos[slowest] / 1e6,
        methods.get(slowest).getDeclaringClass().getSimpleName(),
        methods.get(slowest).getName(),
        specs.get(slowest),
        bytes);
    for (int p = 2; p <= passes; p++) {
      long s = System.nanoTime();
      long c = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < n; i++) {
        KernelCompiler.compile(methods.get(i), specs.get(i), target);
      }
      System.out.printf(
          Locale.ROOT,
          "pass %d: wall_ms=%.1f cpu_ms=%.1f%n",
          p,
          (System.nanoTime() - s) / 1e6,
          (threads.getCurrentThreadCpuTime() - c) / 1e6);
    }
    if (byPass != null) {
      for (Map.Entry<String, double[]> e : byPass.entrySet()) {
        System.out.printf(
            Locale.ROOT,
            "%-10s %8.1f ms %6d runs %9d instructions after%n",
            e.getKey(),
            e.getValue()[0],
            (long) e.getValue()[1],
            (long) e.getValue()[2]);
      }
    }
    if (each) {
      for (int i = 0; i < n; i++) {
        System.out.printf(
            Locale.ROOT,
            "%8.1f ms %s.%s%s%n",
            nanos[i] / 1e6,
            methods.get(i).getDeclaringClass().getSimpleName(),
            methods.get(i).getName(),
            specs.get(i));
      }
    }
    if (dump != null) {
      Files.createDirectories(dump);
      for (int i = 0; i < n; i++) {
        Files.writeString(dump.resolve(names[i] + ".ptx"), ptx[i], StandardCharsets.UTF_8);
      }
    }
  }

  /**
   * Compiles on {@code nThreads} threads, each taking the next kernel method (all its
   * specializations, in order, so that they share its cached IR).
   */
  private static void compileInParallel(
      int nThreads,
      List<Method> methods,
      List<Map<String, Object>> specs,
      Target target,
      String[] names,
      String[] ptx,
      long[] nanos)
      throws InterruptedException {
    int n = methods.size();
    java.util.concurrent.atomic.AtomicInteger next =
        new java.util.concurrent.atomic.AtomicInteger();
    Thread[] threads = new Thread[nThreads];
    for (int t = 0; t < nThreads; t++) {
      threads[t] =
          new Thread(
              () -> {
                for (int start = next.getAndIncrement();
                    start < n;
                    start = next.getAndIncrement()) {
                  // claim the run of specializations of one method that starts here
                  if (start > 0 && methods.get(start - 1) == methods.get(start)) {
                    continue;
                  }
                  for (int i = start; i < n && methods.get(i) == methods.get(start); i++) {
                    long s = System.nanoTime();
                    var k = KernelCompiler.compile(methods.get(i), specs.get(i), target);
                    nanos[i] = System.nanoTime() - s;
                    names[i] = k.entryName();
                    ptx[i] = k.ptx();
                  }
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  /** Sums the timing lines ("pass: 1.234 ms, 5 blocks, 67 instructions") by pass. */
  private static java.util.function.Consumer<String> sink(Map<String, double[]> byPass) {
    return line -> {
      String pass = line.substring(0, line.indexOf(':'));
      String[] w = line.substring(line.indexOf(':') + 1).trim().split("[ ,]+");
      double[] t = byPass.computeIfAbsent(pass, x -> new double[3]);
      t[0] += Double.parseDouble(w[0]);
      t[1]++;
      if (w.length >= 5) {
        t[2] += Double.parseDouble(w[4]);
      }
    };
  }

  private static final class LoopStart {}

  private static final class LoopEnd {}

  /** The {@code @Kernel} methods under {@code sirocco/kernels}, sorted by class and name. */
  static List<Method> shippedKernels() throws IOException, java.net.URISyntaxException {
    Path root =
        Path.of(MaskToBias.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> classNames = new ArrayList<>();
    if (Files.isDirectory(root)) {
      collect(root.toFile(), "", classNames);
    } else {
      try (var jar = new java.util.jar.JarFile(root.toFile())) {
        for (var e = jar.entries(); e.hasMoreElements(); ) {
          String name = e.nextElement().getName();
          if (name.startsWith("sirocco/kernels/") && name.endsWith(".class")) {
            classNames.add(name.substring(0, name.length() - 6).replace('/', '.'));
          }
        }
      }
    }
    List<String> keys = new ArrayList<>();
    List<Method> found = new ArrayList<>();
    for (String name : classNames) {
      Class<?> c;
      try {
        c = Class.forName(name, false, MaskToBias.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Kernel.class)) {
          keys.add(c.getName() + "." + m.getName() + "\u0000" + found.size());
          found.add(m);
        }
      }
    }
    String[] sorted = keys.toArray(new String[0]);
    Arrays.sort(sorted);
    List<Method> out = new ArrayList<>();
    for (String k : sorted) {
      out.add(found.get(Integer.parseInt(k.substring(k.indexOf('\u0000') + 1))));
    }
    return out;
  }

  private static void collect(File dir, String prefix, List<String> out) {
    File[] files = dir.listFiles();
    if (files == null) {
      return;
    }
    for (File f : files) {
      if (f.isDirectory()) {
        collect(f, prefix + f.getName() + ".", out);
      } else if (f.getName().endsWith(".class") && prefix.startsWith("sirocco.kernels.")) {
        out.add(prefix + f.getName().substring(0, f.getName().length() - 6));
      }
    }
  }
}
