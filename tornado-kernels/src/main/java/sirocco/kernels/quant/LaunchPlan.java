package sirocco.kernels.quant;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import sirocco.runtime.Dim3;

/**
 * How to launch one kernel for one problem: grid and block, the shared memory a block uses (every
 * kernel in this package allocates it through {@code ctx.allocate*LocalArray} with lengths fixed by
 * its specialization values, i.e. static {@code .shared} in the PTX, so the launch reserves no
 * dynamic shared memory; the number is there for occupancy estimates), and the values of the
 * kernel's {@link sirocco.api.Specialize} parameters, keyed by parameter name in declaration order.
 * Every kernel in this package declares its specialization parameters last, in this order, so
 * {@link #arguments} turns the runtime arguments into the full argument list. {@link #describe()}
 * is what {@code --explain} prints.
 *
 * <p>{@code minBlocksPerSm} is the occupancy hint the launch carries ({@code
 * KernelLaunch.minBlocksPerSm}: on CUDA the kernel is compiled so that at least that many blocks of
 * {@code block} fit one SM); 0, the default, is none. A plan asks for one only where the kernel
 * says it compiles to that without spills, and then sizes its grid for it.
 */
public record LaunchPlan(
    String kernel,
    Dim3 grid,
    Dim3 block,
    int sharedBytes,
    Map<String, Integer> specialize,
    int minBlocksPerSm) {
  public LaunchPlan {
    specialize = Collections.unmodifiableMap(new LinkedHashMap<>(specialize));
    if (minBlocksPerSm < 0 || minBlocksPerSm > 32) {
      throw new IllegalArgumentException(
          "minBlocksPerSm must be 0 (no hint) .. 32, got " + minBlocksPerSm);
    }
  }

  /** A plan with specialization values given as alternating name/value pairs. */
  public static LaunchPlan of(String kernel, Dim3 grid, Dim3 block, int sharedBytes, Object... kv) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Integer) kv[i + 1]);
    }
    return new LaunchPlan(kernel, grid, block, sharedBytes, m, 0);
  }

  /** This plan with occupancy hint {@code n} (0: none). */
  public LaunchPlan withMinBlocksPerSm(int n) {
    return new LaunchPlan(kernel, grid, block, sharedBytes, specialize, n);
  }

  /** Value of a specialization parameter. */
  public int get(String name) {
    Integer v = specialize.get(name);
    if (v == null) {
      throw new IllegalArgumentException("plan for " + kernel + " has no parameter " + name);
    }
    return v;
  }

  /** {@code runtime} followed by the specialization values, as a kernel's full argument list. */
  public Object[] arguments(Object... runtime) {
    Object[] all = new Object[runtime.length + specialize.size()];
    System.arraycopy(runtime, 0, all, 0, runtime.length);
    int i = runtime.length;
    for (Integer v : specialize.values()) {
      all[i++] = v;
    }
    return all;
  }

  public String describe() {
    return kernel
        + " grid="
        + grid
        + " block="
        + block
        + (sharedBytes > 0 ? " shared=" + sharedBytes + "B" : "")
        + (minBlocksPerSm > 0 ? " minBlocksPerSm=" + minBlocksPerSm : "")
        + " "
        + specialize;
  }
}
