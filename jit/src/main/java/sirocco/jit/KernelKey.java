package sirocco.jit;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Cache key of a compiled kernel: the method, the values of its {@code @Specialize} parameters (in
 * parameter order; boxed, compared with {@code equals}, so {@code 0.0f} and {@code -0.0f} differ
 * and all NaNs are equal) and the target. Two keys are equal exactly when the compiler produces the
 * same PTX for them (given the same options).
 */
public record KernelKey(Method method, List<Object> specializationValues, Target target) {
  public KernelKey {
    specializationValues = List.copyOf(specializationValues);
  }
}
