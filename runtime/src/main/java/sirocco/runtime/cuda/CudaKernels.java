package sirocco.runtime.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.api.Specialize;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.KernelKey;
import sirocco.jit.Target;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.cache.LruCache;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * The kernel cache of one CUDA device: Java kernel methods compiled by Sirocco's JIT, loaded as
 * modules, with their function handles looked up once. Keyed by (method, specialization values,
 * target) in the shared {@link LruCache} (capacity {@code -Dsirocco.kernelCache.capacity} / {@code
 * SIROCCO_KERNEL_CACHE_CAPACITY}, default 512). An evicted module is unloaded only once every
 * stream has passed the work queued before the eviction, and never once the JVM is exiting.
 *
 * <p>{@code -Dsirocco.printKernel=true} prints each kernel's PTX when it is first compiled; {@code
 * -Dsirocco.threadInfo=true} prints every launch's geometry and resources.
 */
public final class CudaKernels {
  /** A compiled, loaded kernel. */
  public record Loaded(
      CompiledKernel compiled, MemorySegment module, CudaFunction function, long compileNanos) {}

  /** Which parameters (after the context) are specialized, computed once per method. */
  private record Shape(boolean[] specialized, int launchArgs) {}

  private record Retired(MemorySegment module, List<CudaEvent> passed) {}

  private final CudaDevice device;
  private final Target target;
  private final LruCache<KernelKey, Loaded> cache;
  private final Map<Method, Shape> shapes = new ConcurrentHashMap<>();
  private final List<Retired> retired = new ArrayList<>();

  CudaKernels(CudaDevice device) {
    this.device = device;
    var info = device.info();
    this.target = Target.forDevice(info.computeMajor(), info.computeMinor(), info.driverVersion());
    this.cache =
        new LruCache<>(
            "kernel cache",
            LruCache.configuredCapacity(
                "sirocco.kernelCache.capacity", "SIROCCO_KERNEL_CACHE_CAPACITY", 512),
            this::retire);
  }

  /** The compilation target of this device (architecture and PTX ISA version). */
  public Target target() {
    return target;
  }

  private Shape shape(Method m) {
    return shapes.computeIfAbsent(
        m,
        k -> {
          Parameter[] ps = k.getParameters();
          boolean[] spec = new boolean[ps.length - 1];
          int n = 0;
          for (int i = 1; i < ps.length; i++) {
            spec[i - 1] = ps[i].isAnnotationPresent(Specialize.class);
            if (!spec[i - 1]) {
              n++;
            }
          }
          return new Shape(spec, n);
        });
  }

  /** Compiles (once) and loads the kernel for the specialization values in {@code launch}. */
  public Loaded load(KernelLaunch launch) {
    Method m = launch.kernel();
    Shape shape = shape(m);
    Object[] args = launch.args();
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (shape.specialized[i]) {
        values.add(args[i]);
      }
    }
    KernelKey key = new KernelKey(m, values, target);
    return cache.getOrCreate(key, k -> compileAndLoad(m, args, shape));
  }

  private Loaded compileAndLoad(Method m, Object[] args, Shape shape) {
    reapRetired();
    Map<String, Object> spec = new LinkedHashMap<>();
    Parameter[] ps = m.getParameters();
    for (int i = 0; i < args.length; i++) {
      if (shape.specialized[i]) {
        spec.put(ps[i + 1].getName(), args[i]);
      }
    }
    long t0 = System.nanoTime();
    CompiledKernel compiled = KernelCompiler.compile(m, spec, target);
    long compileNanos = System.nanoTime() - t0;
    if (Boolean.getBoolean("sirocco.printKernel")) {
      System.out.println(
          "// sirocco: "
              + KernelLaunch.name(m)
              + " "
              + spec
              + " for "
              + target.arch()
              + " (compiled in "
              + compileNanos / 1000
              + " us)");
      System.out.println(compiled.ptx());
    }
    device.makeCurrent();
    Cu.LoadedModule module = Cu.moduleLoadPtx(compiled.ptx(), true);
    CudaFunction f = CudaFunction.lookup(module.module(), compiled.entryName(), module.infoLog());
    return new Loaded(compiled, module.module(), f, compileNanos);
  }

  void launch(KernelLaunch launch, CudaStream stream) {
    Loaded k = load(launch);
    Shape shape = shape(launch.kernel());
    Object[] args = launch.args();
    Object[] launchArgs = new Object[shape.launchArgs];
    int j = 0;
    for (int i = 0; i < args.length; i++) {
      if (!shape.specialized[i]) {
        launchArgs[j++] = args[i];
      }
    }
    if (Boolean.getBoolean("sirocco.threadInfo")) {
      System.out.println(
          "sirocco launch "
              + KernelLaunch.name(launch.kernel())
              + " grid "
              + launch.grid()
              + " block "
              + launch.block()
              + " shared "
              + (k.compiled().staticSharedBytes() + launch.dynamicSharedBytes())
              + " B, "
              + k.function().registers()
              + " registers, "
              + k.function().localBytes()
              + " B local");
    }
    if (launch.dynamicSharedBytes() > 48 * 1024) {
      Cu.functionSetAttribute(
          k.function().handle(),
          Cu.FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          launch.dynamicSharedBytes());
    }
    device.launchFunction(
        k.function(),
        launch.grid(),
        launch.block(),
        launch.dynamicSharedBytes(),
        stream,
        launchArgs);
  }

  /** Evicted modules wait until every stream has passed the work queued so far. */
  private void retire(Loaded k) {
    if (Lifecycle.exiting()) {
      return;
    }
    List<CudaEvent> passed = new ArrayList<>();
    for (CudaStream s : device.streams()) {
      passed.add((CudaEvent) s.record());
    }
    synchronized (retired) {
      retired.add(new Retired(k.module(), passed));
    }
  }

  private void reapRetired() {
    synchronized (retired) {
      for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
        Retired r = it.next();
        if (r.passed.stream().allMatch(CudaEvent::isComplete)) {
          try {
            device.makeCurrent();
            Cu.moduleUnload(r.module);
          } catch (RuntimeException ignored) {
            // An unload failure leaks one module; nothing else depends on it.
          }
          it.remove();
        }
      }
    }
  }

  /** Unloads evicted modules whose work has finished. */
  void trimIdle() {
    reapRetired();
  }

  /** Kernels currently cached. */
  public int size() {
    return cache.size();
  }
}
