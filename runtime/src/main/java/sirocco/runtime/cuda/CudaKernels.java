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
import java.util.concurrent.atomic.AtomicInteger;
import sirocco.api.Specialize;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.KernelKey;
import sirocco.jit.LaunchBounds;
import sirocco.jit.Target;
import sirocco.runtime.Dim3;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.cache.LruCache;
import sirocco.runtime.lifecycle.Lifecycle;

/**
 * The kernel cache of one CUDA device: Java kernel methods compiled by Sirocco's JIT, loaded as
 * modules, with their function handles looked up once. Keyed by (method, specialization values,
 * target), plus the block dimensions and the hint for a launch with an occupancy hint ({@link
 * KernelLaunch#minBlocksPerSm()} &gt; 0: its PTX carries {@code .maxntid} and {@code
 * .minnctapersm}, see {@link #keyOf}), in the shared {@link LruCache} (capacity {@code
 * -Dsirocco.kernelCache.capacity} / {@code SIROCCO_KERNEL_CACHE_CAPACITY}, default 512). An evicted
 * module is unloaded only once every stream has passed the work queued before the eviction, and
 * never once the JVM is exiting.
 *
 * <p>A kernel whose shared arrays exceed 48 KiB in all keeps them in dynamic shared memory ({@link
 * CompiledKernel#dynamicSharedBytes()}): before loading it the cache checks that it fits the
 * device's opt-in limit, after loading it opts the function in to that many dynamic bytes ({@code
 * cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)}, once), and every launch
 * passes them plus the launch's own dynamic bytes to {@code cuLaunchKernel} (see {@link
 * LaunchSharedMemory}); a launch needing more than the function was opted in to raises the opt-in
 * first.
 *
 * <p>{@code -Dsirocco.sharedCarveout=P} (0..100, percent of the unified L1/shared storage; unset:
 * the driver's choice) sets {@code CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT} on each
 * kernel with dynamic shared arrays as it is loaded: a hint the driver may override, for measuring
 * whether the carveout limits resident blocks.
 *
 * <p>{@code -Dsirocco.printKernel=true} prints each kernel's PTX when it is first compiled; {@code
 * -Dsirocco.threadInfo=true} prints every launch's geometry and resources, with the resident blocks
 * per multiprocessor the driver's occupancy calculator gives for it.
 */
public final class CudaKernels {
  /**
   * A compiled, loaded kernel.
   *
   * @param dynamicSharedLimit the function's {@code
   *     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} as Sirocco last set it (0 before any set):
   *     a launch with more dynamic bytes raises it first
   * @param waitsForPriorGrids whether the PTX waits with {@code griddepcontrol.wait} (the kernel
   *     calls {@code ctx.waitForPriorGrids()} and the target is sm_90+): only then may a launch of
   *     it start early
   */
  public record Loaded(
      CompiledKernel compiled,
      MemorySegment module,
      CudaFunction function,
      long compileNanos,
      AtomicInteger dynamicSharedLimit,
      boolean waitsForPriorGrids) {

    /**
     * Resident blocks per multiprocessor at this block size with {@code launchDynamicBytes} of the
     * launch's own dynamic shared memory, from the driver's occupancy calculator: the kernel's
     * dynamic shared arrays are counted too, as the launch passes them.
     */
    public int blocksPerMultiprocessor(int blockSize, int launchDynamicBytes) {
      return function.blocksPerMultiprocessor(
          blockSize, compiled.dynamicSharedBytes() + launchDynamicBytes);
    }
  }

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
          boolean[] spec = specializedFlags(k);
          int n = 0;
          for (boolean b : spec) {
            if (!b) {
              n++;
            }
          }
          return new Shape(spec, n);
        });
  }

  /** Which parameters of {@code m} after the context are {@code @Specialize}. */
  private static boolean[] specializedFlags(Method m) {
    Parameter[] ps = m.getParameters();
    boolean[] spec = new boolean[ps.length - 1];
    for (int i = 1; i < ps.length; i++) {
      spec[i - 1] = ps[i].isAnnotationPresent(Specialize.class);
    }
    return spec;
  }

  /** Compiles (once) and loads the kernel for the specialization values in {@code launch}. */
  public Loaded load(KernelLaunch launch) {
    KernelKey key = keyOf(launch, target, shape(launch.kernel()).specialized);
    Object[] args = launch.args();
    return cache.getOrCreate(key, k -> compileAndLoad(k, args));
  }

  /**
   * The cache key of {@code launch}'s compiled variant for {@code target}: the method, the values
   * of its {@code @Specialize} parameters, the target and, only when the launch has an occupancy
   * hint, its block dimensions and the hint ({@link LaunchBounds}); an unhinted launch keys (and
   * compiles) exactly as before hints existed, whatever its block.
   */
  static KernelKey keyOf(KernelLaunch launch, Target target) {
    return keyOf(launch, target, specializedFlags(launch.kernel()));
  }

  private static KernelKey keyOf(KernelLaunch launch, Target target, boolean[] specialized) {
    Object[] args = launch.args();
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (specialized[i]) {
        values.add(args[i]);
      }
    }
    return new KernelKey(launch.kernel(), values, target, boundsOf(launch));
  }

  /** The launch bounds a hinted launch compiles with, or null without a hint. */
  static LaunchBounds boundsOf(KernelLaunch launch) {
    if (launch.minBlocksPerSm() == 0) {
      return null;
    }
    Dim3 b = launch.block();
    return new LaunchBounds(b.x(), b.y(), b.z(), launch.minBlocksPerSm());
  }

  /** The specialization values in {@code args} by parameter name, in parameter order. */
  private static Map<String, Object> specializations(Method m, Object[] args) {
    boolean[] specialized = specializedFlags(m);
    Map<String, Object> spec = new LinkedHashMap<>();
    Parameter[] ps = m.getParameters();
    for (int i = 0; i < args.length; i++) {
      if (specialized[i]) {
        spec.put(ps[i + 1].getName(), args[i]);
      }
    }
    return spec;
  }

  /**
   * What {@link #load} compiles for {@code key}, the key of a launch with arguments {@code args}:
   * the kernel with the key's specialization values for its target, with its launch bounds.
   */
  static CompiledKernel compile(KernelKey key, Object[] args) {
    return KernelCompiler.compile(
        key.method(), specializations(key.method(), args), key.target(), key.bounds());
  }

  private Loaded compileAndLoad(KernelKey key, Object[] args) {
    reapRetired();
    long t0 = System.nanoTime();
    CompiledKernel compiled = compile(key, args);
    long compileNanos = System.nanoTime() - t0;
    if (Boolean.getBoolean("sirocco.printKernel")) {
      System.out.println(
          "// sirocco: "
              + KernelLaunch.name(key.method())
              + " "
              + specializations(key.method(), args)
              + (key.bounds() == null ? "" : " " + key.bounds())
              + " for "
              + target.arch()
              + " (compiled in "
              + compileNanos / 1000
              + " us)");
      System.out.println(compiled.ptx());
    }
    // Before loading: a kernel whose arrays cannot fit this device fails here, by name, not as a
    // driver error at its first launch.
    LaunchSharedMemory.dynamicBytes(
        key.method(),
        compiled.staticSharedBytes(),
        compiled.dynamicSharedBytes(),
        0,
        device.maxSharedBytesPerBlockOptIn());
    device.makeCurrent();
    Cu.LoadedModule module = Cu.moduleLoadPtx(compiled.ptx(), true);
    CudaFunction f = CudaFunction.lookup(module.module(), compiled.entryName(), module.infoLog());
    // The opt-in is tracked here, not read back from the driver: 0 until Sirocco sets it, then
    // raised by launches that need more (setting a value under the driver's default is as valid).
    int limit = (int) compiled.dynamicSharedBytes();
    if (limit > 0) {
      // Dynamic shared arrays (over 48 KiB) need the opt-in: once per loaded function.
      try {
        Cu.functionSetAttribute(f.handle(), Cu.FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit);
        int carveout = sharedCarveout(System.getProperty(CARVEOUT_PROPERTY));
        if (carveout >= 0) {
          Cu.functionSetAttribute(
              f.handle(), Cu.FUNC_ATTR_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout);
        }
      } catch (RuntimeException e) {
        Cu.moduleUnload(module.module());
        throw e;
      }
    }
    return new Loaded(
        compiled,
        module.module(),
        f,
        compileNanos,
        new AtomicInteger(limit),
        compiled.ptx().contains("griddepcontrol.wait;"));
  }

  /** The system property of the preferred shared-memory carveout (see the class comment). */
  public static final String CARVEOUT_PROPERTY = "sirocco.sharedCarveout";

  /**
   * The carveout percentage {@code value} of {@link #CARVEOUT_PROPERTY} asks for, or -1 (the
   * driver's choice) when it is unset or blank.
   *
   * @throws IllegalArgumentException naming the property when it is not an integer in [0, 100]
   */
  static int sharedCarveout(String value) {
    if (value == null || value.isBlank()) {
      return -1;
    }
    try {
      int p = Integer.parseInt(value.strip());
      if (p >= 0 && p <= 100) {
        return p;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(
        "-D" + CARVEOUT_PROPERTY + " must be a percentage in [0, 100], got '" + value + "'");
  }

  /** Raises {@code k}'s dynamic shared memory opt-in to {@code bytes} where it is lower. */
  private void optIn(Loaded k, int bytes) {
    if (bytes <= k.dynamicSharedLimit().get()) {
      return;
    }
    synchronized (k) {
      // Only ever raised, so a launch that checked a higher limit keeps it.
      if (bytes > k.dynamicSharedLimit().get()) {
        device.makeCurrent();
        Cu.functionSetAttribute(
            k.function().handle(), Cu.FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
        k.dynamicSharedLimit().set(bytes);
      }
    }
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
    int dynamic =
        LaunchSharedMemory.dynamicBytes(
            launch.kernel(),
            k.function().staticSharedBytes(),
            k.compiled().dynamicSharedBytes(),
            launch.dynamicSharedBytes(),
            device.maxSharedBytesPerBlockOptIn());
    boolean early = launch.earlyStart() && device.supportsEarlyStart();
    if (early && !k.waitsForPriorGrids()) {
      throw new IllegalArgumentException(
          "launch of "
              + KernelLaunch.name(launch.kernel())
              + " with earlyStart: the kernel never calls ctx.waitForPriorGrids(), so it could"
              + " read memory the previous kernel is still writing; call it before the first"
              + " such access or launch without early start");
    }
    optIn(k, dynamic);
    if (Boolean.getBoolean("sirocco.threadInfo")) {
      System.out.println(
          "sirocco launch "
              + KernelLaunch.name(launch.kernel())
              + " grid "
              + launch.grid()
              + " block "
              + launch.block()
              + (launch.minBlocksPerSm() > 0 ? " min blocks/SM " + launch.minBlocksPerSm() : "")
              + (early ? " early start" : "")
              + " shared "
              + (k.compiled().staticSharedBytes() + dynamic)
              + " B"
              + (dynamic > 0 ? " (" + dynamic + " B dynamic)" : "")
              + ", "
              + k.function().registers()
              + " registers, "
              + k.function().localBytes()
              + " B local, "
              + k.blocksPerMultiprocessor((int) launch.block().count(), launch.dynamicSharedBytes())
              + " blocks/SM");
    }
    device.launchRaw(
        k.function(), launch.grid(), launch.block(), dynamic, stream, early, launchArgs);
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

  /**
   * Lookups that compiled a variant so far (a full cache stays at its capacity, so a new variant
   * shows here, not in {@link #size()}).
   */
  public long misses() {
    return cache.misses();
  }
}
