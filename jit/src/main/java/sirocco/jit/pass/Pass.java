package sirocco.jit.pass;

import sirocco.jit.ir.Function;

/** One step of the pipeline; rewrites the function in place. */
public interface Pass {
  /** Name used by {@code sirocco.jit.dump} and in timing reports. */
  String name();

  void run(Function fn, PassContext ctx);
}
