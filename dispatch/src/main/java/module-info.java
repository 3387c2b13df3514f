/**
 * Sirocco's public API: {@code Sirocco}, {@code Tensor}, {@code Quantized}, {@code Mask}, {@code
 * Launch} and the ops. Everything else (dispatch ladders, the cuDNN binding) stays inside.
 *
 * <p>Your own kernels: put them in a package your module exports (to {@code sirocco.runtime} at
 * least), since the runtime invokes them on the Java backend and reads their bytecode to compile
 * them.
 */
module sirocco {
  requires transitive sirocco.api;
  requires sirocco.runtime;
  requires sirocco.kernels;
  requires sirocco.jit;

  exports sirocco;
}
