package sirocco.jit;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Cache key of a compiled kernel: the method, the values of its {@code @Specialize} parameters (in
 * parameter order; boxed, compared with {@code equals}, so {@code 0.0f} and {@code -0.0f} differ
 * and all NaNs are equal), the target and the launch bounds ({@code null}: no occupancy hint, the
 * PTX carries no {@code .maxntid}/{@code .minnctapersm}). Two keys are equal exactly when the
 * compiler produces the same PTX for them (given the same options).
 */
public record KernelKey(
    Method method, List<Object> specializationValues, Target target, LaunchBounds bounds) {
  public KernelKey {
    specializationValues = List.copyOf(specializationValues);
  }

  /** A key without launch bounds. */
  public KernelKey(Method method, List<Object> specializationValues, Target target) {
    this(method, specializationValues, target, null);
  }
}
