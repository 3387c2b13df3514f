package sirocco.jit;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import sirocco.api.Kernel;
import sirocco.api.KernelCompileException;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.jit.classfile.BytecodeBuilder;
import sirocco.jit.classfile.ClassFiles;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Errors;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.IrPrinter;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.Pos;
import sirocco.jit.ir.Verifier;
import sirocco.jit.pass.Cse;
import sirocco.jit.pass.Dce;
import sirocco.jit.pass.Fold;
import sirocco.jit.pass.Inline;
import sirocco.jit.pass.Legalize;
import sirocco.jit.pass.Memory;
import sirocco.jit.pass.Pass;
import sirocco.jit.pass.PassContext;
import sirocco.jit.pass.Peephole;
import sirocco.jit.pass.PowerOfTwoDivision;
import sirocco.jit.pass.ScalarReplaceRecords;
import sirocco.jit.pass.SimplifyCfg;
import sirocco.jit.pass.SpecializeParams;
import sirocco.jit.pass.Unroll;
import sirocco.jit.ptx.PtxEmitter;

/**
 * Compiles kernel methods (Java bytecode) to PTX.
 *
 * <p>A kernel is a {@code public static void} method whose first parameter is a {@link
 * KernelContext}, followed by primitive arrays and primitive scalars; see {@code sirocco.api} for
 * the subset of Java it may use. The pipeline is {@link #PASSES}: the method's class file is read
 * through its class loader and translated to SSA ({@code build}), static helpers are inlined across
 * classes, value records become scalars, {@code @Specialize} parameters become constants that are
 * folded along with dead branches, loops with small constant trip counts are unrolled, and the
 * result is written as PTX. Set the system property {@code sirocco.jit.dump} to a pass name (or
 * {@code all}) to print the IR after it.
 *
 * <p>Thread-safe: compilations share only immutable data and caches of parsed class files (per
 * class), helper templates (per class loader, held weakly) and each kernel's IR before
 * specialization ({@code KernelIrCache}, per class); the caches do not change the output. Does not
 * cache compiled kernels: the runtime keys its cache by {@link KernelKey}.
 */
public final class KernelCompiler {
  private KernelCompiler() {}

  /** Pass names in pipeline order ("build" first, "ptx" the emission). */
  public static final List<String> PASSES =
      List.of(
          "build",
          "inline",
          "records",
          "specialize",
          "peephole",
          "fold",
          "simplify",
          "unroll",
          "cse",
          "dce",
          "memory",
          "legalize",
          "ptx");

  /**
   * Compiles {@code kernel} with default options ({@link CompileOptions#defaults()}).
   *
   * @param specializations values of the {@code @Specialize} parameters, by Java parameter name;
   *     exactly those parameters, each boxed as its type ({@code Integer} for {@code int}...)
   * @throws IllegalArgumentException for missing, extra or mistyped specialization values
   * @throws KernelCompileException when the method is not a valid kernel or uses a construct
   *     outside the kernel subset
   */
  public static CompiledKernel compile(
      Method kernel, Map<String, Object> specializations, Target target) {
    return compile(kernel, specializations, target, CompileOptions.defaults());
  }

  /** As {@link #compile(Method, Map, Target)} with explicit options. */
  public static CompiledKernel compile(
      Method kernel, Map<String, Object> specializations, Target target, CompileOptions options) {
    return compileWithIr(kernel, specializations, target, null, options).kernel();
  }

  /**
   * As {@link #compile(Method, Map, Target)} with an occupancy hint: {@code bounds} adds {@code
   * .maxntid} and {@code .minnctapersm} to the entry (and to the key); {@code null} compiles
   * exactly as {@link #compile(Method, Map, Target)}.
   */
  public static CompiledKernel compile(
      Method kernel, Map<String, Object> specializations, Target target, LaunchBounds bounds) {
    return compile(kernel, specializations, target, bounds, CompileOptions.defaults());
  }

  /** As {@link #compile(Method, Map, Target, LaunchBounds)} with explicit options. */
  public static CompiledKernel compile(
      Method kernel,
      Map<String, Object> specializations,
      Target target,
      LaunchBounds bounds,
      CompileOptions options) {
    return compileWithIr(kernel, specializations, target, bounds, options).kernel();
  }

  /** A compiled kernel with the final IR it was emitted from (for tests and tools). */
  record WithIr(CompiledKernel kernel, Function ir) {}

  static WithIr compileWithIr(
      Method kernel, Map<String, Object> specializations, Target target, CompileOptions options) {
    return compileWithIr(kernel, specializations, target, null, options);
  }

  static WithIr compileWithIr(
      Method kernel,
      Map<String, Object> specializations,
      Target target,
      LaunchBounds bounds,
      CompileOptions options) {
    if (kernel == null || specializations == null || target == null || options == null) {
      throw new IllegalArgumentException(
          "kernel, specializations, target and options must not be null");
    }
    ClassFiles classes = new ClassFiles(kernel.getDeclaringClass().getClassLoader());
    String desc = descriptor(kernel);
    ClassFiles.Found found;
    try {
      found = classes.find(kernel.getDeclaringClass(), kernel.getName(), desc);
    } catch (IllegalStateException e) {
      throw new KernelCompileException(
          kernel.getDeclaringClass().getName() + "." + kernel.getName() + ": " + e.getMessage(), e);
    }
    if (found == null) {
      throw new KernelCompileException(
          kernel.getDeclaringClass().getName() + "." + kernel.getName() + ": class file not found");
    }
    checkSignature(kernel, found.id());
    List<KernelParam> params = new ArrayList<>();
    Map<Integer, Const> consts = new HashMap<>();
    List<Object> keyValues = new ArrayList<>();
    bindParameters(kernel, desc, found.id(), specializations, params, consts, keyValues);
    KernelKey key = new KernelKey(kernel, keyValues, target, bounds);

    PassContext ctx =
        new PassContext(
            classes, consts, options.unroll(), target.maxSharedBytesPerBlock(), target.arch());
    // build, inline and records do not depend on the specialization values: their result is
    // cached per kernel method and copied (unless their IR is to be dumped).
    boolean cacheable =
        !options.dumps("build") && !options.dumps("inline") && !options.dumps("records");
    long t0 = System.nanoTime();
    // A copy may leave out what fold removes after specialize and peephole, unless their IR is
    // dumped.
    boolean prune = !options.dumps("specialize") && !options.dumps("peephole");
    KernelIrCache.Copy copy = cacheable ? KernelIrCache.get(kernel, desc, consts, prune) : null;
    Function fn = copy == null ? null : copy.fn();
    if (fn != null) {
      after("copy", fn, options, t0);
      assert Verifier.verify(fn, "copy");
    } else {
      fn = BytecodeBuilder.build(classes, found);
      after("build", fn, options, t0);
      assert Verifier.verify(fn, "build");
      for (Pass p : List.of(new Inline(), new ScalarReplaceRecords())) {
        long t = System.nanoTime();
        p.run(fn, ctx);
        after(p.name(), fn, options, t);
        assert Verifier.verify(fn, p.name());
      }
      // Inlining splits a block at every call: merging the straight lines again here leaves the
      // cached IR (and each copy, fold and simplify) far fewer blocks (SdpaVector.decode: 11,127
      // before). The later passes would merge exactly these blocks anyway: same PTX.
      SimplifyCfg.mergeStraightLines(fn);
      assert Verifier.verify(fn, "merge");
      if (cacheable) {
        // The cache takes this function; the compilation goes on with a copy, as later ones.
        long t = System.nanoTime();
        copy = KernelIrCache.putAndCopy(kernel, desc, fn, consts, prune);
        fn = copy.fn();
        after("copy", fn, options, t);
        assert Verifier.verify(fn, "copy");
      }
    }
    List<Pass> pipeline =
        List.of(
            new SpecializeParams(),
            new Peephole(),
            new Fold(copy == null ? null : copy.analysis()),
            new SimplifyCfg(),
            // No fold and simplify after unroll: unroll ends with both when it changed the
            // function, else it is as the first ones left it, and both are idempotent (a second
            // run after unroll changed none of the shipped or test kernels' PTX).
            new Unroll(),
            new PowerOfTwoDivision(),
            new Cse(),
            new Dce(),
            new Memory(),
            new Legalize());
    for (Pass p : pipeline) {
      long t = System.nanoTime();
      if (p instanceof Unroll) {
        // What specialization left of the generic kernel, numbered again: the later passes size
        // their tables by the id space (a tenth of it is used here, for the shipped kernels).
        fn.renumber();
      }
      p.run(fn, ctx);
      after(p.name(), fn, options, t);
      assert Verifier.verify(fn, p.name());
    }
    long t = System.nanoTime();
    String entry = entryName(found.id(), keyValues);
    List<PtxEmitter.Param> ptxParams = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (KernelParam p : params) {
      String n = sanitize("p_" + p.name());
      while (!used.add(n)) {
        n = n + "_" + p.javaIndex();
      }
      ptxParams.add(
          new PtxEmitter.Param(n, p.javaIndex(), p.type().descriptorString(), p.specialized()));
    }
    List<String> comment = new ArrayList<>();
    comment.add(kernel.toGenericString());
    StringBuilder spec = new StringBuilder();
    for (KernelParam p : params) {
      if (p.specialized()) {
        spec.append(spec.isEmpty() ? "" : ", ")
            .append(p.name())
            .append('=')
            .append(specializations.get(p.name()));
      }
    }
    if (!spec.isEmpty()) {
      comment.add("specialized: " + spec);
    }
    if (bounds != null) {
      comment.add("launch bounds: " + bounds);
    }
    if (ctx.dynamicShared) {
      comment.add(
          "dynamic shared memory: "
              + ctx.sharedTotal
              + " bytes (the shared arrays exceed 48 KiB; launch with at least this much)");
    }
    String ptx =
        PtxEmitter.emit(
            fn,
            entry,
            ptxParams,
            ctx.sharedBytes,
            ctx.dynamicShared ? ctx.sharedOffsets : null,
            ctx.sharedAlign,
            target.isa(),
            target.arch(),
            target.hasGridDependencyControl(),
            options.lineInfo(),
            comment,
            bounds == null ? "" : bounds.directives());
    if (options.dumps("ptx")) {
      options.dumpSink().accept("=== PTX of " + found.id() + "\n" + ptx);
    }
    if (options.timing()) {
      options
          .dumpSink()
          .accept(String.format(Locale.ROOT, "ptx: %.3f ms", (System.nanoTime() - t) / 1e6));
    }
    long shared = ctx.sharedTotal; // each array is .align sharedAlign, laid out in order
    return new WithIr(
        new CompiledKernel(
            entry,
            ptx,
            params,
            ctx.dynamicShared ? 0 : shared,
            ctx.dynamicShared ? shared : 0,
            key),
        fn);
  }

  /**
   * Whether {@code kernel} compiles for {@code target}: true unless its {@code @Kernel(archs =
   * ...)} names compute capabilities and {@code target}'s is not among them.
   */
  public static boolean compilesFor(Method kernel, Target target) {
    if (kernel == null || target == null) {
      throw new IllegalArgumentException(
          (kernel == null ? "kernel must be a kernel method" : "target must be a Target")
              + ", got null");
    }
    Kernel k = kernel.getAnnotation(Kernel.class);
    if (k == null || k.archs().length == 0) {
      return true;
    }
    int cc = 10 * target.smMajor() + target.smMinor();
    for (int a : k.archs()) {
      if (a == cc) {
        return true;
      }
    }
    return false;
  }

  /**
   * The specialization sets of {@code @Kernel(validateWith = ...)} on {@code kernel}, parsed to the
   * parameter types ({@code "bits=4,groupSize=64"} gives {@code {bits=4, groupSize=64}} as
   * Integers); one empty map when the kernel has no {@code @Specialize} parameter and no sets.
   *
   * @throws IllegalArgumentException for a malformed set or a value that does not parse
   */
  public static List<Map<String, Object>> validationSets(Method kernel) {
    Kernel k = kernel.getAnnotation(Kernel.class);
    String[] sets = k == null ? new String[0] : k.validateWith();
    List<Map<String, Object>> out = new ArrayList<>();
    if (sets.length == 0) {
      out.add(Map.of());
      return out;
    }
    Map<String, Class<?>> types = new HashMap<>();
    for (Parameter p : kernel.getParameters()) {
      types.put(p.getName(), p.getType());
    }
    for (String set : sets) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (String pair : set.split(",")) {
        String[] kv = pair.trim().split("=", 2);
        if (kv.length != 2 || !types.containsKey(kv[0].trim())) {
          throw new IllegalArgumentException(
              "validateWith entry '"
                  + pair
                  + "' of "
                  + kernel
                  + " is not name=value of a parameter");
        }
        String name = kv[0].trim();
        String v = kv[1].trim();
        Class<?> t = types.get(name);
        Object value =
            switch (t.getName()) {
              case "int" -> Integer.valueOf(v);
              case "long" -> Long.valueOf(v);
              case "float" -> Float.valueOf(v);
              case "double" -> Double.valueOf(v);
              case "boolean" -> Boolean.valueOf(v);
              case "byte" -> Byte.valueOf(v);
              case "short" -> Short.valueOf(v);
              case "char" -> v.charAt(0);
              default ->
                  throw new IllegalArgumentException(
                      "validateWith names parameter " + name + " of type " + t + ", not a scalar");
            };
        m.put(name, value);
      }
      out.add(m);
    }
    return out;
  }

  private static void after(String pass, Function fn, CompileOptions options, long start) {
    if (options.timing()) {
      options
          .dumpSink()
          .accept(
              String.format(
                  Locale.ROOT,
                  "%s: %.3f ms, %d blocks, %d instructions",
                  pass,
                  (System.nanoTime() - start) / 1e6,
                  fn.blocks.size(),
                  fn.size()));
    }
    if (options.dumps(pass)) {
      options.dumpSink().accept("=== IR after " + pass + "\n" + IrPrinter.print(fn));
    }
  }

  static String descriptor(Method m) {
    StringBuilder sb = new StringBuilder("(");
    for (Class<?> p : m.getParameterTypes()) {
      sb.append(p.descriptorString());
    }
    return sb.append(')').append(m.getReturnType().descriptorString()).toString();
  }

  private static void checkSignature(Method m, MethodId id) {
    Pos pos = new Pos(id, 0, -1, null);
    String name = m.getDeclaringClass().getName() + "." + m.getName();
    if (!Modifier.isStatic(m.getModifiers())) {
      throw Errors.at(pos, "kernel " + name + " must be static");
    }
    if (m.getReturnType() != void.class) {
      throw Errors.at(
          pos,
          "kernel "
              + name
              + " must return void (it returns "
              + m.getReturnType().getSimpleName()
              + "); write results to an output array");
    }
    Class<?>[] pt = m.getParameterTypes();
    if (pt.length == 0 || pt[0] != KernelContext.class) {
      throw Errors.at(pos, "the first parameter of kernel " + name + " must be a KernelContext");
    }
    for (int i = 1; i < pt.length; i++) {
      Class<?> t = pt[i];
      boolean ok = t.isPrimitive() || (t.isArray() && t.getComponentType().isPrimitive());
      if (!ok) {
        throw Errors.at(
            pos,
            "parameter "
                + m.getParameters()[i].getName()
                + " of kernel "
                + name
                + " has type "
                + t.getTypeName()
                + "; kernel parameters must be primitive arrays or primitive scalars");
      }
    }
  }

  private static void bindParameters(
      Method m,
      String desc,
      MethodId id,
      Map<String, Object> specs,
      List<KernelParam> params,
      Map<Integer, Const> consts,
      List<Object> keyValues) {
    Parameter[] ps = m.getParameters();
    boolean[] specialized = specializedParameters(m, desc);
    String kname = m.getDeclaringClass().getName() + "." + m.getName();
    Map<String, Object> remaining = new LinkedHashMap<>(specs);
    for (int i = 1; i < ps.length; i++) {
      Parameter p = ps[i];
      Class<?> t = p.getType();
      boolean spec = specialized[i];
      KernelParam.Kind kind =
          t.isArray()
              ? KernelParam.Kind.ARRAY
              : t == long.class
                  ? KernelParam.Kind.I64
                  : t == float.class
                      ? KernelParam.Kind.F32
                      : t == double.class ? KernelParam.Kind.F64 : KernelParam.Kind.I32;
      params.add(new KernelParam(p.getName(), i, t, kind, spec));
      if (!spec) {
        continue;
      }
      if (t.isArray()) {
        throw Errors.at(
            new Pos(id, 0, -1, null),
            "@Specialize applies to scalar parameters only, not to array parameter " + p.getName());
      }
      if (!remaining.containsKey(p.getName())) {
        throw new IllegalArgumentException(
            "missing value for @Specialize parameter '"
                + p.getName()
                + "' ("
                + t
                + ") of kernel "
                + kname
                + (p.isNamePresent()
                    ? ""
                    : " (compile the kernel with -parameters to use Java names)"));
      }
      Object v = remaining.remove(p.getName());
      Const c = toConst(v, t);
      if (c == null) {
        throw new IllegalArgumentException(
            "value for @Specialize parameter '"
                + p.getName()
                + "' of kernel "
                + kname
                + " must be of type "
                + box(t).getSimpleName()
                + ", got "
                + (v == null ? "null" : v.getClass().getSimpleName() + " " + v));
      }
      consts.put(i, c);
      keyValues.add(v);
    }
    if (!remaining.isEmpty()) {
      String extra = remaining.keySet().iterator().next();
      boolean exists = false;
      for (Parameter p : ps) {
        exists |= p.getName().equals(extra);
      }
      throw new IllegalArgumentException(
          "specialization value for '"
              + extra
              + "' does not match a @Specialize parameter of kernel "
              + kname
              + (exists ? ": the parameter is not marked @Specialize" : ": no such parameter"));
    }
  }

  /**
   * Which parameters of {@code m} (descriptor {@code desc}) are {@code @Specialize}, by index;
   * cached per class (a {@link ClassValue}), since reflection parses annotations anew on every call
   * (and {@code Parameter.isAnnotationPresent} parses those of all parameters the first time it is
   * asked on each).
   */
  private static boolean[] specializedParameters(Method m, String desc) {
    Map<String, boolean[]> byMethod = SPECIALIZED.get(m.getDeclaringClass());
    String key = m.getName() + desc;
    boolean[] flags = byMethod.get(key);
    if (flags == null) {
      java.lang.annotation.Annotation[][] annotations = m.getParameterAnnotations();
      flags = new boolean[annotations.length];
      for (int i = 0; i < annotations.length; i++) {
        for (java.lang.annotation.Annotation a : annotations[i]) {
          flags[i] |= a instanceof Specialize;
        }
      }
      byMethod.put(key, flags);
    }
    return flags;
  }

  private static final ClassValue<Map<String, boolean[]>> SPECIALIZED =
      new ClassValue<>() {
        @Override
        protected Map<String, boolean[]> computeValue(Class<?> type) {
          return new java.util.concurrent.ConcurrentHashMap<>();
        }
      };

  private static Class<?> box(Class<?> t) {
    return t == int.class
        ? Integer.class
        : t == long.class
            ? Long.class
            : t == float.class
                ? Float.class
                : t == double.class
                    ? Double.class
                    : t == boolean.class
                        ? Boolean.class
                        : t == byte.class
                            ? Byte.class
                            : t == short.class
                                ? Short.class
                                : t == char.class
                                    ? Character.class
                                    : t == void.class ? Void.class : t;
  }

  private static Const toConst(Object v, Class<?> t) {
    if (v == null || box(t) != v.getClass()) {
      return null;
    }
    return Const.ofBoxed(v);
  }

  /** "Class_method" plus, to stay unique, a hash of the full identity and specialization. */
  static String entryName(MethodId id, List<Object> values) {
    String readable = sanitize(id.simpleClassName() + "_" + id.name());
    String full = id.className() + "." + id.name() + id.descriptor() + values;
    String h = Integer.toHexString(full.hashCode());
    return readable + "_" + "0".repeat(8 - h.length()) + h;
  }

  static String sanitize(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      sb.append(ok ? c : '_');
    }
    if (sb.isEmpty() || Character.isDigit(sb.charAt(0))) {
      sb.insert(0, '_');
    }
    return sb.toString();
  }
}
