/**
 * The kernels Sirocco ships: quantized matmul and attention, each a Java method with its float64
 * reference. Exported to the public module (whose ops launch them) and to the runtime (which
 * invokes them on the Java backend and reads their bytecode to compile them).
 */
module sirocco.kernels {
  requires transitive sirocco.api;
  requires sirocco.runtime;

  exports sirocco.kernels.quant to
      sirocco,
      sirocco.runtime;
  exports sirocco.kernels.attention to
      sirocco,
      sirocco.runtime;
  exports sirocco.kernels.util to
      sirocco,
      sirocco.runtime;
}
