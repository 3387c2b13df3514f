/**
 * Devices, streams, events, memory and kernel launch: the CUDA driver through FFM and the Java
 * backend. Internal to Sirocco: applications use module {@code sirocco}. Every package is exported
 * only to Sirocco's own modules.
 *
 * <p>FFM calls into {@code libcuda.so.1} are restricted methods: run with {@code
 * --enable-native-access=sirocco.runtime,sirocco} on the module path ({@code ALL-UNNAMED} on the
 * class path) so the JDK prints no warning.
 */
@SuppressWarnings("module")
module sirocco.runtime {
  requires transitive sirocco.api;
  requires sirocco.jit;

  exports sirocco.runtime to
      sirocco,
      sirocco.kernels;
  exports sirocco.runtime.cuda to
      sirocco;
  exports sirocco.runtime.host to
      sirocco,
      sirocco.kernels;
  exports sirocco.runtime.cache to
      sirocco;
  exports sirocco.runtime.sync to
      sirocco;
  exports sirocco.runtime.lifecycle to
      sirocco;
}
