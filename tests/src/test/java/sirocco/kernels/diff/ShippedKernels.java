package sirocco.kernels.diff;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import sirocco.api.Kernel;
import sirocco.kernels.attention.MaskToBias;

/**
 * Every {@code @Kernel} method Sirocco ships: the classes under {@code sirocco.kernels} of the
 * tornado-kernels artifact, found by scanning it (as {@code ShippedKernelsPtxTest} does), so a new
 * kernel class or method is seen without editing a list. The artifact is a directory of classes
 * under Maven and a jar in the GPU bundle ({@code .gpu/lib}); both are read. The bundle's JDK has
 * no zip file system, so the jar is listed with {@link JarFile}.
 */
final class ShippedKernels {
  private ShippedKernels() {}

  private static final String PREFIX = "sirocco/kernels/";

  /** The shipped kernel methods, sorted by {@link #key}. */
  static List<Method> all() {
    List<String> classNames = new ArrayList<>();
    Path root;
    try {
      root = Path.of(MaskToBias.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the tornado-kernels artifact", e);
    }
    try {
      if (Files.isDirectory(root)) {
        try (Stream<Path> files = Files.walk(root.resolve(PREFIX))) {
          for (Path p : files.filter(f -> f.toString().endsWith(".class")).toList()) {
            classNames.add(className(root.relativize(p).toString().replace('\\', '/')));
          }
        }
      } else {
        try (JarFile jar = new JarFile(root.toFile())) {
          Enumeration<JarEntry> entries = jar.entries();
          while (entries.hasMoreElements()) {
            String name = entries.nextElement().getName();
            if (name.startsWith(PREFIX) && name.endsWith(".class")) {
              classNames.add(className(name));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the classes of " + root, e);
    }
    List<Method> out = new ArrayList<>();
    for (String name : classNames) {
      Class<?> c;
      try {
        c = Class.forName(name, false, MaskToBias.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("listed class " + name + " does not load", e);
      }
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Kernel.class)) {
          out.add(m);
        }
      }
    }
    out.sort(Comparator.comparing(ShippedKernels::key));
    return out;
  }

  /** {@code "SimpleClass.method"}: how launch plans and the case table name a kernel. */
  static String key(Method m) {
    return m.getDeclaringClass().getSimpleName() + "." + m.getName();
  }

  private static String className(String entry) {
    return entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
  }
}
