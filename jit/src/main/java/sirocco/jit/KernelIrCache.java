package sirocco.jit;

import java.lang.ref.SoftReference;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Users;
import sirocco.jit.pass.Fold;

/**
 * The IR of each kernel method after {@code build}, {@code inline} and {@code records}, the part of
 * the pipeline that does not depend on the specialization values, so that compiling another
 * specialization of the same kernel starts from a copy. Kept per declaring class in a {@link
 * ClassValue} (it goes away with the class; the IR holds no classes), softly referenced (the
 * garbage collector may drop it under memory pressure). The cached function is never modified or
 * handed out, only copied ({@link Function#copy}: same ids and order), so a compilation from the
 * cache runs exactly as one from bytecode.
 *
 * <p>Generic kernels inline every variant and rely on specialization to discard most of it (one
 * shipped kernel is 17,000 instructions before {@code fold} and 5,000 after). A copy can therefore
 * leave out, as stubs, the blocks that {@link Fold#mayExecute} shows the coming {@code fold} will
 * remove anyway.
 */
final class KernelIrCache {
  private KernelIrCache() {}

  /** A cached function and its {@link Function#users()} (for {@link Fold#mayExecute}). */
  private record Entry(Function ir, Users users) {}

  /**
   * A copy for one compilation and, when blocks were left out, the analysis that chose them (for
   * the first {@code fold}: {@link Fold#Fold(Fold.Analysis)}), else null.
   */
  record Copy(Function fn, Fold.Analysis analysis) {}

  private static final ClassValue<Map<String, SoftReference<Entry>>> BY_CLASS =
      new ClassValue<>() {
        @Override
        protected Map<String, SoftReference<Entry>> computeValue(Class<?> type) {
          return new ConcurrentHashMap<>();
        }
      };

  /**
   * A copy of the cached IR of {@code kernel} (descriptor {@code desc}), or null. With {@code
   * prune}, blocks that {@code fold} will remove after {@code specialize} (with {@code
   * specializations}) and {@code peephole} are left out, for a pipeline that runs exactly these
   * three passes next.
   */
  static Copy get(Method kernel, String desc, Map<Integer, Const> specializations, boolean prune) {
    SoftReference<Entry> ref = BY_CLASS.get(kernel.getDeclaringClass()).get(key(kernel, desc));
    Entry e = ref == null ? null : ref.get();
    return e == null ? null : copy(e, specializations, prune);
  }

  /**
   * Caches {@code fn}, the IR of {@code kernel} after records, which the caller must not use or
   * change any more, and returns a copy as {@link #get} does. A function that cannot be copied (a
   * use of an instruction in no block) is not cached but returned as it is.
   */
  static Copy putAndCopy(
      Method kernel, String desc, Function fn, Map<Integer, Const> specializations, boolean prune) {
    Entry e = new Entry(fn, fn.users());
    Copy copy;
    try {
      copy = copy(e, specializations, prune);
    } catch (IllegalStateException notCopyable) {
      return new Copy(fn, null);
    }
    BY_CLASS.get(kernel.getDeclaringClass()).put(key(kernel, desc), new SoftReference<>(e));
    return copy;
  }

  private static Copy copy(Entry e, Map<Integer, Const> specializations, boolean prune) {
    if (prune) {
      Fold.Analysis a = Fold.mayExecute(e.ir, e.users, specializations);
      try {
        return new Copy(e.ir.copy(a.executable()), a);
      } catch (IllegalStateException notPrunable) {
        // a kept instruction uses one from a left-out block: fall back to the full copy
      }
    }
    return new Copy(e.ir.copy(), null);
  }

  private static String key(Method kernel, String desc) {
    return kernel.getName() + desc;
  }
}
