package sirocco.runtime.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that needs a CUDA device. Tagged {@code gpu} (so {@code .gpu/bin/test-gpu} can select it)
 * and reported as skipped, with the reason, where no device exists.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith(RequiresCuda.class)
public @interface GpuTest {}
