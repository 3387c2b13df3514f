package sirocco.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a scalar kernel parameter whose value is baked into the generated PTX as a constant (bit
 * width, group size, head dimension, tile size…). The value becomes part of the kernel-cache key,
 * so each distinct value compiles once. Unmarked scalars are real kernel parameters that may change
 * on every launch.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Specialize {}
