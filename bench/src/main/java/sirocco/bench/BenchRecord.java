package sirocco.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sirocco.runtime.DeviceInfo;

/**
 * What every {@code tornado bench …} command writes with {@code --json FILE}: which tool, version
 * and commit, on which device, when, and the measured cases. {@code tornado bench compare} reads
 * two of them. Build one with {@link #of}.
 *
 * @param format the record format, {@link #FORMAT}
 * @param tool the command, e.g. {@code tornado bench sync}
 * @param version Sirocco's version
 * @param commit the git commit measured (with {@code -dirty} when the tree had changes), or
 *     "unknown"
 * @param date when the run started, ISO-8601 UTC
 * @param device the device measured
 * @param host the host: Java version, OS, cores
 * @param parameters the command's options
 * @param cases the measurements
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BenchRecord(
    String format,
    String tool,
    String version,
    String commit,
    String date,
    Device device,
    Host host,
    Map<String, Object> parameters,
    List<BenchCase> cases) {
  /** The current record format. */
  public static final String FORMAT = "sirocco-bench/1";

  public BenchRecord {
    parameters = parameters == null ? Map.of() : new LinkedHashMap<>(parameters);
    cases = cases == null ? List.of() : List.copyOf(cases);
  }

  /**
   * @param backend "cuda" or "java"
   * @param name the device's name
   * @param computeCapability e.g. "9.0" ("-" for the Java backend)
   * @param driver the CUDA driver version, e.g. "13.0" ("-" for the Java backend)
   */
  public record Device(String backend, String name, String computeCapability, String driver) {
    public static Device of(DeviceInfo i) {
      return new Device(i.backend(), i.name(), i.computeCapability(), i.driverVersionString());
    }
  }

  /**
   * @param java the Java runtime version
   * @param os OS name and version
   * @param cores available processors
   */
  public record Host(String java, String os, int cores) {
    public static Host current() {
      return new Host(
          Runtime.version().toString(),
          System.getProperty("os.name") + " " + System.getProperty("os.version"),
          Runtime.getRuntime().availableProcessors());
    }
  }

  /** A record for this run: version, commit and date filled in now. */
  public static BenchRecord of(
      String tool, DeviceInfo device, Map<String, Object> parameters, List<BenchCase> cases) {
    return new BenchRecord(
        FORMAT,
        tool,
        BenchRecords.version(),
        BenchRecords.commit(),
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(),
        device == null ? null : Device.of(device),
        Host.current(),
        parameters,
        cases);
  }

  /** The case with this name (and no further parameters), or null. */
  public BenchCase find(String key) {
    for (BenchCase c : cases) {
      if (c.key().equals(key)) {
        return c;
      }
    }
    return null;
  }
}
