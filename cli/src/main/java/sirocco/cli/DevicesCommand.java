package sirocco.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceInfo;
import sirocco.runtime.Devices;
import sirocco.runtime.cuda.Cu;

/**
 * {@code tornado devices}: what Sirocco can run on here, and which backend it picks by default, and
 * why; on CUDA, the cuDNN path's state ({@link CudnnSdpa#explain()}).
 */
@Command(
    name = "devices",
    description = "List the backends and devices Sirocco can use, and the default choice.")
final class DevicesCommand implements Callable<Integer> {
  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the table as JSON (- for stdout).")
  String json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    List<DeviceInfo> infos = new ArrayList<>();
    String cudaReason = Devices.cudaUnavailableReason();
    if (cudaReason == null) {
      int n = Cu.deviceCount();
      for (int i = 0; i < n; i++) {
        infos.add(Devices.cuda(i).info());
      }
    }
    infos.add(Devices.java().info());
    Devices.Choice choice = Devices.best();
    String fmt = "%-6s %-32s %-5s %5s %12s %8s%n";
    out.printf(fmt, "BACKEND", "NAME", "CC", "SMs", "MEMORY MiB", "DRIVER");
    for (DeviceInfo i : infos) {
      out.printf(
          fmt,
          i.backend(),
          i.name(),
          i.computeCapability(),
          i.multiprocessors(),
          i.totalMemoryBytes() >> 20,
          i.driverVersionString());
    }
    out.println();
    out.println("CUDA: " + (cudaReason == null ? "available" : "unavailable: " + cudaReason));
    out.println(
        "default backend: "
            + (choice.device().kind() == Device.Kind.CUDA ? "cuda" : "java")
            + " ("
            + choice.reason()
            + ")");
    String cudnnSkipped = cudnnNotLoadedReason(cudaReason);
    List<String> cudnn = cudnnSkipped == null ? CudnnSdpa.explain() : List.of();
    if (cudnnSkipped != null) {
      out.println("cuDNN: not loaded: " + cudnnSkipped);
    } else {
      cudnn.forEach(out::println);
    }
    if (json != null) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("devices", infos);
      doc.put("cudaAvailable", cudaReason == null);
      doc.put("cudaUnavailableReason", cudaReason);
      doc.put("defaultBackend", choice.device().kind().name().toLowerCase(java.util.Locale.ROOT));
      doc.put("defaultReason", choice.reason());
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("loaded", cudnnSkipped == null);
      c.put("notLoadedReason", cudnnSkipped);
      c.put("explain", cudnn);
      doc.put("cudnn", c);
      Json.write(json, doc, out);
    }
    return 0;
  }

  /**
   * Why cuDNN is left unloaded, or null to load it and show its state. cuDNN runs only on CUDA
   * devices, so without CUDA (or with {@code --backend java}) loading it would say nothing about
   * what Sirocco will run, and could only add the loader's noise.
   */
  static String cudnnNotLoadedReason(String cudaReason) {
    if (cudaReason != null) {
      return "cuDNN runs only on CUDA devices, and CUDA is unavailable here";
    }
    String b = System.getProperty("sirocco.backend");
    if (b != null && b.trim().equalsIgnoreCase("java")) {
      return "the backend is java (--backend java); cuDNN runs only on CUDA devices";
    }
    return null;
  }
}
