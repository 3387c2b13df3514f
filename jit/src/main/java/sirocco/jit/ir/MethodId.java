package sirocco.jit.ir;

/**
 * A method named by its owner (binary name with dots), name and JVM descriptor; {@code sourceFile}
 * is informational and ignored by equality.
 */
public record MethodId(String className, String name, String descriptor, String sourceFile) {

  @Override
  public boolean equals(Object o) {
    return o instanceof MethodId m
        && m.className.equals(className)
        && m.name.equals(name)
        && m.descriptor.equals(descriptor);
  }

  @Override
  public int hashCode() {
    return (className.hashCode() * 31 + name.hashCode()) * 31 + descriptor.hashCode();
  }

  /** Class name without its package. */
  public String simpleClassName() {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  /** "com.x.Foo.bar(int, float[])" style name for messages. */
  public String javaName() {
    return className + "." + name;
  }

  @Override
  public String toString() {
    return className + "." + name + descriptor;
  }
}
