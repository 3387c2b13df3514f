package sirocco.jit.ir;

/**
 * A shared-memory allocation site ({@code ctx.allocate*LocalArray}), identified by its method and
 * bytecode offset: every inlined copy of the same site denotes the same block-shared array, as on
 * the Java backend.
 */
public record SharedSite(MethodId method, int bci, Elem elem) {
  @Override
  public boolean equals(Object o) {
    return o instanceof SharedSite s && s.bci == bci && s.elem == elem && s.method.equals(method);
  }

  @Override
  public int hashCode() {
    return method.hashCode() * 31 + bci;
  }
}
