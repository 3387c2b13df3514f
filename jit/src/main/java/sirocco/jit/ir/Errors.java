package sirocco.jit.ir;

import sirocco.api.KernelCompileException;

/** Builds the messages of {@link KernelCompileException}: position first, then the construct. */
public final class Errors {
  private Errors() {}

  /**
   * "{@code com.x.K.run (K.java:line 42, bytecode offset 7): <what>}" followed by one line per
   * inlined call site.
   */
  public static KernelCompileException at(Pos pos, String what) {
    if (pos == null) {
      return new KernelCompileException(what);
    }
    return new KernelCompileException(pos.describe() + ": " + what + chain(pos));
  }

  private static String chain(Pos pos) {
    StringBuilder sb = new StringBuilder();
    for (Pos p = pos.caller(); p != null; p = p.caller()) {
      sb.append("\n    inlined from ").append(p.describe());
    }
    return sb.toString();
  }
}
