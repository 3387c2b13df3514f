package sirocco.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a kernel entry point. Optional for launching (any method of the kernel subset
 * can be launched), but the project's own kernels carry it so that tools can list and validate
 * every shipped kernel.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Kernel {
  /**
   * Specialization values to validate this kernel with when no caller supplies them (CI compiles
   * every shipped kernel ahead of time), as {@code "name=value"} pairs, one set per string,
   * comma-separated inside a set: {@code {"bits=4,groupSize=64", "bits=8,groupSize=32"}}.
   */
  String[] validateWith() default {};

  /**
   * The compute capabilities ({@code 10 * major + minor}: 90 for sm_90) the kernel compiles for;
   * empty (the default) for every one Sirocco targets. Kernels built on architecture-specific
   * instructions name theirs ({@code {90}} for warpgroup products), so that tools validating every
   * shipped kernel skip the others, where the compiler refuses it.
   */
  int[] archs() default {};
}
