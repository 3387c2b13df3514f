package sirocco.jit;

/**
 * One Java parameter of a kernel (the {@code KernelContext} excepted), in declaration order. The
 * PTX entry takes exactly the parameters with {@code specialized == false}, in this order.
 *
 * @param name the Java parameter name (needs {@code -parameters}; else {@code arg1}...)
 * @param javaIndex index in the Java method's parameter list (the context is 0)
 * @param type the Java type
 * @param kind how the launcher passes it: arrays as a device pointer, {@code int} (and {@code
 *     boolean byte short char}, passed as their int value: booleans 0/1, bytes and shorts
 *     sign-extended, chars zero-extended) as 32 bits, {@code long} as 64, floats and doubles as
 *     such
 * @param specialized whether it is a {@code @Specialize} parameter compiled into the PTX (and so
 *     absent from the PTX parameter list)
 */
public record KernelParam(
    String name, int javaIndex, Class<?> type, Kind kind, boolean specialized) {
  /** How a parameter travels to the kernel. */
  public enum Kind {
    ARRAY,
    I32,
    I64,
    F32,
    F64
  }
}
