package sirocco.bench;

/**
 * Host-side timing of an operation: warm-up runs, then one {@link System#nanoTime()} sample per
 * run. For GPU-only durations use CUDA events instead (see bench/RESULTS.md's method).
 */
public final class Timing {
  private Timing() {}

  /** An operation that may throw. */
  @FunctionalInterface
  public interface Op {
    void run() throws Exception;
  }

  /** Runs {@code op} {@code warmup} times untimed, then {@code samples} times timed (µs). */
  public static Stats sample(int warmup, int samples, Op op) {
    return Stats.ofNanosAsMicros(sampleNanos(warmup, samples, op));
  }

  /** The raw nanosecond samples. */
  public static long[] sampleNanos(int warmup, int samples, Op op) {
    if (warmup < 0 || samples < 1) {
      throw new IllegalArgumentException(
          "warmup must be >= 0 and samples >= 1, got " + warmup + " and " + samples);
    }
    try {
      for (int i = 0; i < warmup; i++) {
        op.run();
      }
      long[] out = new long[samples];
      for (int i = 0; i < samples; i++) {
        long t0 = System.nanoTime();
        op.run();
        out[i] = System.nanoTime() - t0;
      }
      return out;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
