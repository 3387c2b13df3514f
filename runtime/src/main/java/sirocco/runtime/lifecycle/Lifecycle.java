package sirocco.runtime.lifecycle;

/**
 * Knows whether the JVM has begun to exit. Sirocco registers one shutdown hook, which only flips a
 * flag: it never calls the driver. Once the flag is set, teardown paths (buffer frees from
 * cleaners, stream and module destruction) skip their driver calls: the driver may already be
 * tearing itself down, and a call then can fail with {@code CUDA_ERROR_DEINITIALIZED} or worse.
 * Process-lifetime objects are left for the OS to reclaim.
 */
public final class Lifecycle {
  private static volatile boolean exiting;

  static {
    try {
      Runtime.getRuntime()
          .addShutdownHook(
              Thread.ofPlatform().name("sirocco-exit-flag").unstarted(() -> exiting = true));
    } catch (IllegalStateException alreadyExiting) {
      exiting = true;
    }
  }

  private Lifecycle() {}

  /** True once the JVM has started its shutdown sequence. */
  public static boolean exiting() {
    return exiting;
  }

  /** Forces the class (and its hook) to load; call before the first driver use. */
  public static void install() {
    // Loading the class registered the hook.
  }
}
