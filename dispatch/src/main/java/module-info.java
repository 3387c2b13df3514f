/**
 * Sirocco's public API: {@code Sirocco}, {@code Tensor}, {@code Quantized}, {@code Mask}, {@code
 * Launch} and the ops. Everything else (dispatch ladders, the cuDNN binding) stays inside.
 *
 * <p>Your own kernels: put them in a package your module exports (to {@code sirocco.runtime} at
 * least), since the runtime invokes them on the Java backend and reads their bytecode to compile
 * them.
 *
 * <p>The CUDA driver ({@code sirocco.runtime}) and cuDNN (this module) are called through FFM,
 * whose restricted methods need {@code --enable-native-access=sirocco.runtime,sirocco} on the
 * module path ({@code ALL-UNNAMED} on the class path) so the JDK prints no warning.
 */
module sirocco {
  requires transitive sirocco.api;
  requires sirocco.runtime;
  requires sirocco.kernels;
  requires sirocco.jit;

  exports sirocco;
}
