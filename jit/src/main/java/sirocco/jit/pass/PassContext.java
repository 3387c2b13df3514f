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

  /**
   * Byte offset of each shared array from the start of the kernel's shared memory ({@link
   * #sharedAlign}-byte aligned, in layout order), after the memory pass.
   */
  public final Map<SharedSite, Long> sharedOffsets = new LinkedHashMap<>();

  /** Bytes from the first shared array's start to the last one's end, after the memory pass. */
  public long sharedTotal;

  /**
   * Alignment of every shared array in bytes, after the memory pass: 16, or 1024 in a kernel that
   * copies tiles (the period of the 128-byte swizzle, which the hardware applies to address bits).
   */
  public int sharedAlign = 16;

  /**
   * Whether the shared arrays live in dynamic shared memory (one {@code .extern .shared} window),
   * because together they exceed the 48 KiB a kernel may declare statically.
   */
  public boolean dynamicShared;

  /**
   * The most shared memory a block may use on the target ({@code Target.maxSharedBytesPerBlock}).
   */
  public final long maxSharedBytes;

  /** The target architecture ("sm_90"), for messages. */
  public final String arch;

  /** Whether loops with small constant trip counts are fully unrolled. */
  public final boolean unroll;

  public PassContext(
      ClassFiles classes,
      Map<Integer, Const> specializations,
      boolean unroll,
      long maxSharedBytes,
      String arch) {
    this.classes = classes;
    this.specializations = specializations;
    this.unroll = unroll;
    this.maxSharedBytes = maxSharedBytes;
    this.arch = arch;
  }
}
