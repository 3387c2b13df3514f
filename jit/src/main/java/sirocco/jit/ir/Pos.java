package sirocco.jit.ir;

/**
 * A source position: method, bytecode offset and source line, plus the call site it was inlined
 * into ({@code caller}, null in the kernel itself). Immutable.
 */
public record Pos(MethodId method, int bci, int line, Pos caller) {

  /** This position as seen after inlining into {@code callSite}. */
  public Pos inlinedAt(Pos callSite) {
    return new Pos(method, bci, line, caller == null ? callSite : caller.inlinedAt(callSite));
  }

  /** True when {@code m} is this position's method or that of any call site above it. */
  public boolean chainContains(MethodId m) {
    for (Pos p = this; p != null; p = p.caller) {
      if (p.method.equals(m)) {
        return true;
      }
    }
    return false;
  }

  /** Number of inlined frames above this one. */
  public int depth() {
    int d = 0;
    for (Pos p = caller; p != null; p = p.caller) {
      d++;
    }
    return d;
  }

  /** "com.x.Foo.bar (Foo.java:42, bytecode offset 7)". */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(method.className()).append('.').append(method.name()).append(" (");
    if (method.sourceFile() != null) {
      sb.append(method.sourceFile()).append(':');
    }
    sb.append(line >= 0 ? "line " + line : "unknown line");
    sb.append(", bytecode offset ").append(bci).append(')');
    return sb.toString();
  }

  /** {@link #describe()} plus one "inlined from" line per call site. */
  public String describeWithChain() {
    StringBuilder sb = new StringBuilder(describe());
    for (Pos p = caller; p != null; p = p.caller) {
      sb.append("\n    inlined from ").append(p.describe());
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return method.simpleClassName() + "." + method.name() + ":" + line + "@" + bci;
  }
}
