package sirocco.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sirocco.Sirocco;
import sirocco.bench.SdpaBench;

/**
 * {@code tornado bench sdpa}: decode (and with --prefill, prefill) attention through the public op.
 */
@Command(
    name = "sdpa",
    description =
        "Attention through the public op on the device: µs per call (events), K/V GB/s, %% of the copy"
            + " floor, read-only time for the same bytes, PyTorch reference, output checked against"
            + " float64.")
final class BenchSdpaCommand implements Callable<Integer> {
  @Option(
      names = "--seq",
      split = ",",
      description = "K/V lengths (default: 1024,8192,32768; prefill: 512,2048,8192).")
  List<Integer> seq;

  @Option(
      names = "--head-dim",
      split = ",",
      description = "Head dims (default: 64,128,256,512; prefill: 64,128).")
  List<Integer> headDims;

  @Option(names = "--lq", split = ",", description = "Query rows for decode (default: 1,2,3).")
  List<Integer> lq = List.of(1, 2, 3);

  @Option(names = "--hq", description = "Query heads (default: ${DEFAULT-VALUE}).")
  int hq = 32;

  @Option(names = "--hkv", description = "K/V heads (default: ${DEFAULT-VALUE}).")
  int hkv = 8;

  @Option(
      names = "--kernel",
      description =
          "auto (the ladder), a rung (cudnn, vector, fallback), or all (default: auto; with"
              + " --prefill both cudnn and fallback).")
  String kernel;

  @Option(
      names = "--prefill",
      description =
          "Lq = Lkv prefill, causal and not; times the cuDNN rung and the fallback per cell unless"
              + " --kernel names one.")
  boolean prefill;

  @Option(names = "--samples", description = "Timed calls per cell (default: ${DEFAULT-VALUE}).")
  int samples = 50;

  @Option(
      names = "--max-seconds",
      description = "Wall-time cap per cell and kernel (default: ${DEFAULT-VALUE}).")
  double maxSeconds = 3;

  @Option(
      names = "--copies",
      description =
          "K/V copies the timed calls rotate through: 0 = enough to exceed the L2 (default), 1 ="
              + " one pair the L2 may keep between calls, as bench/torch_sdpa.py times PyTorch"
              + " without --rotate (the issue's reference figures).")
  int copies = 0;

  @Mixin BenchCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (hq < 1 || hkv < 1 || hq % hkv != 0 || samples < 1) {
      throw new IllegalArgumentException(
          "--hq and --hkv must be positive with hq % hkv == 0; --samples >= 1");
    }
    if (copies < 0 || copies > 32) {
      throw new IllegalArgumentException("--copies must be 0 (auto) or 1..32, got " + copies);
    }
    SdpaBench.kernels(kernel, prefill); // rejects a bad --kernel before the device is opened
    List<Integer> s =
        seq != null ? seq : prefill ? List.of(512, 2048, 8192) : List.of(1024, 8192, 32768);
    List<Integer> d =
        headDims != null ? headDims : prefill ? List.of(64, 128) : List.of(64, 128, 256, 512);
    var out = spec.commandLine().getOut();
    try (Sirocco rt = Backends.open()) {
      var r =
          SdpaBench.run(
              rt,
              new SdpaBench.Options(
                  s, d, lq, hq, hkv, kernel, prefill, samples, maxSeconds, copies),
              out);
      output.write(r, out);
      boolean failed =
          r.cases().stream()
              .anyMatch(c -> String.valueOf(c.parameters().get("check")).startsWith("FAILED"));
      return failed ? 1 : 0;
    }
  }
}
