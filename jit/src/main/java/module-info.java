/**
 * Sirocco's compiler: kernel bytecode to PTX. Internal: its API is exported only to the runtime
 * that launches kernels (and the public module for explain output); applications use {@code
 * sirocco}.
 *
 * <p>JCuda (its in-process PTX compiler, used only by {@code PtxValidator}) is optional: {@code
 * jcuda} is the automatic module name of {@code jcuda-12.6.0.jar}, which declares none.
 */
@SuppressWarnings({"requires-automatic", "module"})
module sirocco.jit {
  requires transitive sirocco.api;
  requires static jcuda;

  exports sirocco.jit to
      sirocco.runtime,
      sirocco;
}
