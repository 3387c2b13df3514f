package sirocco.jit.pass;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import sirocco.jit.classfile.ClassFiles;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.SharedSite;

/** State shared by the passes of one compilation. */
public final class PassContext {
  /** Class files visible to the kernel. */
  public final ClassFiles classes;

  /** Values of {@code @Specialize} parameters, by JVM parameter index (context = 0). */
  public final Map<Integer, Const> specializations;

  /** Helper functions built so far (templates for the inliner), by method. */
  public final Map<MethodId, Function> templates = new HashMap<>();

  /** Shared-memory arrays after the memory pass: site to byte size, in layout order. */
  public final Map<SharedSite, Long> sharedBytes = new LinkedHashMap<>();

  /** Whether loops with small constant trip counts are fully unrolled. */
  public final boolean unroll;

  public PassContext(ClassFiles classes, Map<Integer, Const> specializations, boolean unroll) {
    this.classes = classes;
    this.specializations = specializations;
    this.unroll = unroll;
  }
}
