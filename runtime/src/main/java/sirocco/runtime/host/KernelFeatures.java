package sirocco.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a kernel needs from the Java backend's scheduler, read from its bytecode: whether any path
 * through it (helpers included) synchronizes threads (block or warp barriers, shuffles, tensor-core
 * products, transaction-barrier waits). A kernel that never synchronizes can run its threads one
 * after another, which is an order the GPU may also choose; one that does needs every thread of a
 * block alive at once.
 */
public final class KernelFeatures {
  private static final String CONTEXT = "sirocco/api/KernelContext";
  private static final String MBARRIER = "sirocco/api/Mbarrier";
  private static final Set<String> COLLECTIVE =
      Set.of(
          "localBarrier",
          "warpBarrier",
          "shuffleXor",
          "shuffleDown",
          "shuffleUp",
          "shuffleIdx",
          "mmaBf16",
          "mmaF16",
          "loadMatrixX4",
          "warpgroupMmaBf16",
          "warpgroupMmaF16",
          "warpgroupMmaBf16Swizzled",
          "warpgroupMmaF16Swizzled");
  private static final Map<Method, Boolean> CACHE = new ConcurrentHashMap<>();

  private KernelFeatures() {}

  /**
   * True when the kernel or a static helper it calls uses a barrier, shuffle or warp-wide product.
   */
  public static boolean synchronizesThreads(Method kernel) {
    return CACHE.computeIfAbsent(
        kernel,
        k -> {
          ClassLoader loader = k.getDeclaringClass().getClassLoader();
          return scan(
              loader,
              k.getDeclaringClass().getName().replace('.', '/'),
              k.getName(),
              MethodTypeDesc.ofDescriptor(descriptor(k)),
              new HashSet<>());
        });
  }

  private static boolean scan(
      ClassLoader loader, String owner, String name, MethodTypeDesc type, Set<String> seen) {
    if (!seen.add(owner + "." + name + type.descriptorString())) {
      return false;
    }
    ClassModel model = load(loader, owner);
    if (model == null) {
      // Unreadable bytecode: assume the worst, since running threads together is always correct.
      return true;
    }
    for (MethodModel m : model.methods()) {
      if (!m.methodName().equalsString(name) || !m.methodTypeSymbol().equals(type)) {
        continue;
      }
      var code = m.code();
      if (code.isEmpty()) {
        return false;
      }
      for (var element : code.get()) {
        if (element instanceof InvokeInstruction invoke) {
          String target = invoke.owner().asInternalName();
          String method = invoke.name().stringValue();
          if (target.equals(CONTEXT) && COLLECTIVE.contains(method)) {
            return true;
          }
          // A wait on a transaction barrier blocks until other threads arrive.
          if (target.equals(MBARRIER) && method.equals("waitParity")) {
            return true;
          }
          if (!isPlatform(target) && scan(loader, target, method, invoke.typeSymbol(), seen)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean isPlatform(String internalName) {
    return internalName.startsWith("java/")
        || internalName.startsWith("jdk/")
        || internalName.startsWith("sun/")
        || internalName.startsWith("sirocco/api/");
  }

  private static ClassModel load(ClassLoader loader, String internalName) {
    String resource = internalName + ".class";
    try (InputStream in =
        loader == null
            ? ClassLoader.getSystemResourceAsStream(resource)
            : loader.getResourceAsStream(resource)) {
      return in == null ? null : ClassFile.of().parse(in.readAllBytes());
    } catch (IOException e) {
      return null;
    }
  }

  private static String descriptor(Method m) {
    StringBuilder sb = new StringBuilder("(");
    for (Class<?> p : m.getParameterTypes()) {
      sb.append(p.descriptorString());
    }
    return sb.append(')').append(m.getReturnType().descriptorString()).toString();
  }
}
