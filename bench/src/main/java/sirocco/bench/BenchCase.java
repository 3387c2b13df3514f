package sirocco.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One measured case of a benchmark record.
 *
 * @param name what was measured, e.g. {@code sync/coop-spin}; with {@link #parameters()} it
 *     identifies the case across records
 * @param parameters what the case depends on (kernel duration, sizes, thread count…)
 * @param unit the unit of median/p10/p90, e.g. {@code us}, {@code s}, {@code GB/s}
 * @param median the 50th percentile
 * @param p10 the 10th percentile
 * @param p90 the 90th percentile
 * @param samples how many samples the percentiles come from
 * @param reference the figure this case is judged against, in the same unit (null when none)
 * @param referenceNote what the reference is and the bar, e.g. "raw cuStreamSynchronize; ≤ +5 µs"
 * @param higherIsBetter true for throughputs; false (the default) for times and costs
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BenchCase(
    String name,
    Map<String, Object> parameters,
    String unit,
    double median,
    double p10,
    double p90,
    int samples,
    Double reference,
    String referenceNote,
    boolean higherIsBetter) {
  public BenchCase {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    if (unit == null || unit.isBlank()) {
      throw new IllegalArgumentException("unit must not be blank");
    }
    parameters = parameters == null ? Map.of() : new LinkedHashMap<>(parameters);
  }

  /** A case measured in {@code unit}, lower is better, without a reference. */
  public static BenchCase of(String name, Map<String, Object> parameters, String unit, Stats s) {
    return new BenchCase(
        name, parameters, unit, s.median(), s.p10(), s.p90(), s.samples(), null, null, false);
  }

  /** This case with a reference figure and what it means. */
  public BenchCase withReference(Double value, String note) {
    return new BenchCase(
        name, parameters, unit, median, p10, p90, samples, value, note, higherIsBetter);
  }

  /** This case with higher values being better (throughputs). */
  public BenchCase asHigherIsBetter() {
    return new BenchCase(
        name, parameters, unit, median, p10, p90, samples, reference, referenceNote, true);
  }

  /** The name and the parameters in a stable order: how records are matched when compared. */
  public String key() {
    if (parameters.isEmpty()) {
      return name;
    }
    StringBuilder sb = new StringBuilder(name).append(' ');
    new TreeMap<>(parameters).forEach((k, v) -> sb.append(k).append('=').append(v).append(' '));
    return sb.toString().trim();
  }
}
