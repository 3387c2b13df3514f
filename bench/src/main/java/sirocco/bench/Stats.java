package sirocco.bench;

import java.util.Arrays;

/**
 * Median, p10 and p90 of a set of samples (linear interpolation between closest ranks, as numpy's
 * default percentile). Every benchmark reports these three.
 *
 * @param median the 50th percentile
 * @param p10 the 10th percentile
 * @param p90 the 90th percentile
 * @param samples how many samples
 */
public record Stats(double median, double p10, double p90, int samples) {
  /** The statistics of {@code values} (not modified). */
  public static Stats of(double[] values) {
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("values must hold at least one sample");
    }
    double[] s = values.clone();
    Arrays.sort(s);
    return new Stats(percentile(s, 50), percentile(s, 10), percentile(s, 90), s.length);
  }

  /** Statistics of nanosecond samples, reported in microseconds. */
  public static Stats ofNanosAsMicros(long[] nanos) {
    double[] us = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      us[i] = nanos[i] / 1e3;
    }
    return of(us);
  }

  /** A single measurement (median = p10 = p90). */
  public static Stats single(double value) {
    return new Stats(value, value, value, 1);
  }

  /** The {@code p}-th percentile of sorted values. */
  public static double percentile(double[] sorted, double p) {
    if (sorted.length == 1) {
      return sorted[0];
    }
    double rank = p / 100.0 * (sorted.length - 1);
    int lo = (int) Math.floor(rank);
    int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (rank - lo) * (sorted[hi] - sorted[lo]);
  }
}
