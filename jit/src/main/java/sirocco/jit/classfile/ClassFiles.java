package sirocco.jit.classfile;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.SourceFileAttribute;
import sirocco.jit.ir.MethodId;

/**
 * Reads class files with {@code java.lang.classfile}, through the class loader of the kernel, and
 * caches the parsed models per class (a {@link ClassValue}, so the cache goes away with the class).
 */
public final class ClassFiles {
  private static final ClassValue<ClassModel> MODELS =
      new ClassValue<>() {
        @Override
        protected ClassModel computeValue(Class<?> type) {
          return parse(type);
        }
      };

  private final ClassLoader loader;

  /** Class files visible from {@code loader} (the kernel class's loader). */
  public ClassFiles(ClassLoader loader) {
    this.loader = loader;
  }

  /** The class loader classes are resolved through. */
  public ClassLoader loader() {
    return loader;
  }

  /** The parsed class file of {@code c}. */
  public static ClassModel model(Class<?> c) {
    return MODELS.get(c);
  }

  private static ClassModel parse(Class<?> c) {
    String resource = c.getName().replace('.', '/') + ".class";
    ClassLoader l = c.getClassLoader();
    try (InputStream in =
        l != null
            ? l.getResourceAsStream(resource)
            : ClassLoader.getSystemResourceAsStream(resource)) {
      InputStream s = in != null ? in : c.getResourceAsStream("/" + resource);
      if (s == null) {
        throw new IllegalStateException("class file of " + c.getName() + " is not readable");
      }
      try (s) {
        return ClassFile.of().parse(s.readAllBytes());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read class file of " + c.getName(), e);
    }
  }

  /** Loads (without initialising) the class with internal name {@code internalName}, or null. */
  public Class<?> load(String internalName) {
    try {
      return Class.forName(internalName.replace('/', '.'), false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  /** A method found by owner, name and descriptor (searching superclasses), with its class. */
  public record Found(Class<?> owner, ClassModel classModel, MethodModel method, MethodId id) {}

  /**
   * Finds a method declared by {@code owner} or inherited from a superclass (static methods resolve
   * through superclasses like invokestatic does). Null when absent.
   */
  public Found find(Class<?> owner, String name, String descriptor) {
    for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
      ClassModel cm = model(c);
      for (MethodModel m : cm.methods()) {
        if (m.methodName().equalsString(name) && m.methodType().equalsString(descriptor)) {
          return new Found(c, cm, m, idOf(c, cm, m));
        }
      }
    }
    return null;
  }

  /** The identity of {@code m}, with the source file name for messages. */
  public static MethodId idOf(Class<?> c, ClassModel cm, MethodModel m) {
    SourceFileAttribute sf = cm.findAttribute(Attributes.sourceFile()).orElse(null);
    String source = sf == null ? null : sf.sourceFile().stringValue();
    return new MethodId(
        c.getName(), m.methodName().stringValue(), m.methodType().stringValue(), source);
  }
}
