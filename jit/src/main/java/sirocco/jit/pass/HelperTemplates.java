package sirocco.jit.pass;

import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.jit.classfile.BytecodeBuilder;
import sirocco.jit.classfile.ClassFiles;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.MethodId;

/**
 * Helper bodies built from bytecode (the inliner's templates), shared by all compilations whose
 * kernels have the same class loader: the loader resolves the helper and the classes its body
 * names, so equal loaders give equal templates. Templates are never modified (the inliner clones
 * them), so threads share them freely. Loaders are held weakly (templates hold no classes), so the
 * cache does not keep a loader alive; unresolvable helpers are not cached.
 */
final class HelperTemplates {
  private HelperTemplates() {}

  /** Guarded by itself. */
  private static final Map<ClassLoader, Map<MethodId, Function>> BY_LOADER = new WeakHashMap<>();

  /** The template of static method {@code target} as seen from {@code classes}, or null. */
  static Function get(ClassFiles classes, MethodId target) {
    Map<MethodId, Function> templates;
    synchronized (BY_LOADER) {
      templates = BY_LOADER.get(classes.loader());
      if (templates == null) {
        templates = new ConcurrentHashMap<>();
        BY_LOADER.put(classes.loader(), templates);
      }
    }
    Function f = templates.get(target);
    if (f != null) {
      return f;
    }
    f = build(classes, target);
    if (f == null) {
      return null;
    }
    Function raced = templates.putIfAbsent(target, f);
    return raced != null ? raced : f;
  }

  private static Function build(ClassFiles cf, MethodId target) {
    Class<?> owner = cf.load(target.className().replace('.', '/'));
    if (owner == null) {
      return null;
    }
    ClassFiles.Found found = cf.find(owner, target.name(), target.descriptor());
    if (found == null || (found.method().flags().flagsMask() & Modifier.STATIC) == 0) {
      return null;
    }
    return BytecodeBuilder.build(cf, found);
  }
}
