package sirocco.jit;

import java.lang.ref.SoftReference;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.jit.ir.Function;

/**
 * The IR of each kernel method after {@code build}, {@code inline} and {@code records}, the part of
 * the pipeline that does not depend on the specialization values, so that compiling another
 * specialization of the same kernel starts from a copy. Kept per declaring class in a {@link
 * ClassValue} (it goes away with the class; the IR holds no classes), softly referenced (the
 * garbage collector may drop it under memory pressure). The cached function is never handed out,
 * only {@link Function#copy() copies}, which have the same ids and order, so a compilation from the
 * cache runs exactly as one from bytecode.
 */
final class KernelIrCache {
  private KernelIrCache() {}

  private static final ClassValue<Map<String, SoftReference<Function>>> BY_CLASS =
      new ClassValue<>() {
        @Override
        protected Map<String, SoftReference<Function>> computeValue(Class<?> type) {
          return new ConcurrentHashMap<>();
        }
      };

  /** A copy of the cached IR of {@code kernel} (descriptor {@code desc}), or null. */
  static Function get(Method kernel, String desc) {
    SoftReference<Function> ref = BY_CLASS.get(kernel.getDeclaringClass()).get(key(kernel, desc));
    Function f = ref == null ? null : ref.get();
    return f == null ? null : f.copy();
  }

  /**
   * Caches a copy of {@code fn}, the IR of {@code kernel} after records; {@code fn} itself stays
   * with the caller. A function that cannot be copied (a use of an instruction in no block) is not
   * cached.
   */
  static void put(Method kernel, String desc, Function fn) {
    Function copy;
    try {
      copy = fn.copy();
    } catch (IllegalStateException e) {
      return;
    }
    BY_CLASS.get(kernel.getDeclaringClass()).put(key(kernel, desc), new SoftReference<>(copy));
  }

  private static String key(Method kernel, String desc) {
    return kernel.getName() + desc;
  }
}
