package sirocco.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sirocco.Backend;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Sirocco;
import sirocco.bench.QmmBench;

/** {@code tornado bench qmm}: the quantized-matmul kernels on the device, per row count. */
@Command(
    name = "qmm",
    description = {
      "Quantized matmul x[rows, k] · W[n, k]ᵀ timed with device events over rotating weight copies"
          + " (HBM, not L2): µs per launch, GB/s, %% of the read floor, the PyTorch 2.11 references"
          + " measured on the same H200 (tinygemm int4, cuBLAS bf16), the issue's targets, and a"
          + " float64 check of the outputs (FAILED and exit 1 when wrong).",
      "--kernel all times every kernel that supports each shape ('*' marks the op's choice);"
          + " --sweep-formats runs every affine width and fp mode (rows 1 and 6 unless --rows)."
    })
final class BenchQmmCommand implements Callable<Integer> {
  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "M",
      description = "Rows of x (default: 1,2,4,6,7,8,16,32,256; with --sweep-formats 1,6).")
  List<Integer> rows;

  @Option(names = "--n", description = "Output features (default: 12288).")
  int n = 12288;

  @Option(names = "--k", description = "Inner dimension (default: 4096).")
  int k = 4096;

  @Option(names = "--group", description = "Affine group size (default: 64).")
  int group = 64;

  @Option(names = "--bits", description = "Affine bits (default: 4).")
  int bits = 4;

  @Option(
      names = "--mode",
      description = "affine, mxfp4, nvfp4 or mxfp8 (default: affine; fp modes fix bits and group).")
  String mode = "affine";

  @Option(
      names = "--dtype",
      description =
          "Activation dtype, also the affine scales/biases and the output: bf16, f16 or f32"
              + " (default: bf16).")
  String dtype = "bf16";

  @Option(
      names = "--kernel",
      description =
          "auto (the op's choice), all (every kernel that supports the shape) or a"
              + " comma-separated list of qmm-mma-splitk, qmm-mma, qmv-warp, qmv-persistent,"
              + " qmv-splitk,"
              + " qmv-rows, qmv, fp-qmv; qmm-mma@MTxNTxWNxKS times the tensor-core kernel with"
              + " that tiling (16-feature tiles and 8-row tiles per warp, warps along features and"
              + " along k; e.g. qmm-mma@1x1x1x8; qmm-mma@MTxNTxWNxKSxD also sets D, the chunks"
              + " of weights in flight per warp, 1-3, default 1), qmm-mma-splitk@KSxMTxBPS the"
              + " split-K tensor-core kernel with KS warps along k, MT 16-feature tiles per warp"
              + " (1 or 2) and BPS blocks per SM (e.g. qmm-mma-splitk@16x2x1; a fourth number,"
              + " RT, 1 or 2, sets the 8-row tiles per warp),"
              + " qmv-splitk@BPSxFB the split-K kernel with BPS blocks per SM and FB features per"
              + " batch, qmv-async@BLOCKSxFBxSTAGES the asynchronous-copy split-K kernel with"
              + " BLOCKS blocks in all, FB features per batch and STAGES batches in shared memory,"
              + " qmm-mma-async@KSxSTAGES[xRT[xBPS[xE[xRB[xFU]]]]] the pipelined split-K"
              + " tensor-core kernel with KS warps along k, STAGES batches in shared memory, RT"
              + " 8-row tiles per warp (1-2), BPS blocks per SM (1-2), E = 1 to refill each stage"
              + " right after its barrier, RB batches (1-8) per cross-warp reduction and FU = 1 to"
              + " unpack bf16 4- and 2-bit codes partly by fma.bf16x2 (the default with one row"
              + " tile) or 0 not to,"
              + " qmm-mma-fp-async@KSxSTAGES[xRT] the same pipeline for mxfp4/nvfp4 weights,"
              + " and qmv-rows@RxF the multi-row vector kernel with R rows of x per block"
              + " (1-8) and F features per warp (1 or 2) (default: auto).")
  String kernel = "auto";

  @Option(names = "--copies", description = "Weight copies rotated through (default: 8).")
  int copies = 8;

  @Option(names = "--repeats", description = "Timed samples per case (default: 25).")
  int repeats = 25;

  @Option(
      names = "--launches",
      description = "Launches per sample, at most (default: 50; fewer for slow kernels).")
  int launches = 50;

  @Option(
      names = "--copy-mib",
      description =
          "Device-to-device copy timed once for the copy bandwidth, MiB (default: 1024 on CUDA, 16"
              + " on the Java backend; 0: none).")
  int copyMiB = -1;

  @Option(
      names = "--columns",
      description = "Output columns checked against float64, every row (default: 64).")
  int columns = 64;

  @Option(
      names = "--sms",
      description =
          "Multiprocessors the explicit plans (rung@...) size their persistent grids for (default:"
              + " 0, the device's); fewer asks each SM for more bytes per second, as a device with"
              + " more bandwidth per SM would. The op's own choice (auto) always uses the device's.")
  int sms;

  @Option(
      names = "--sweep-formats",
      description = "Every affine width (--group) and fp mode instead of --mode/--bits.")
  boolean sweepFormats;

  @Mixin BenchCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static QuantMode parseMode(String m) {
    return switch (m.trim().toLowerCase(Locale.ROOT)) {
      case "affine" -> QuantMode.AFFINE;
      case "mxfp4" -> QuantMode.MXFP4;
      case "nvfp4" -> QuantMode.NVFP4;
      case "mxfp8" -> QuantMode.MXFP8;
      default ->
          throw new IllegalArgumentException(
              "--mode must be affine, mxfp4, nvfp4 or mxfp8, got '" + m + "'");
    };
  }

  static DType parseDtype(String d) {
    return switch (d.trim().toLowerCase(Locale.ROOT)) {
      case "bf16" -> DType.BF16;
      case "f16" -> DType.F16;
      case "f32" -> DType.F32;
      default ->
          throw new IllegalArgumentException("--dtype must be bf16, f16 or f32, got '" + d + "'");
    };
  }

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    List<QmmBench.Format> formats = new ArrayList<>();
    if (sweepFormats) {
      for (int b : new int[] {2, 3, 4, 5, 6, 8}) {
        formats.add(QmmBench.Format.of(QuantMode.AFFINE, b, group));
      }
      for (QuantMode m : new QuantMode[] {QuantMode.MXFP4, QuantMode.NVFP4, QuantMode.MXFP8}) {
        formats.add(QmmBench.Format.of(m, 0, 0));
      }
    } else {
      formats.add(QmmBench.Format.of(parseMode(mode), bits, group));
    }
    List<Integer> r =
        rows != null ? rows : sweepFormats ? List.of(1, 6) : List.of(1, 2, 4, 6, 7, 8, 16, 32, 256);
    DType t = parseDtype(dtype);
    try (Sirocco rt = Backends.open()) {
      int copy = copyMiB >= 0 ? copyMiB : rt.backend() == Backend.CUDA ? 1024 : 16;
      var o =
          new QmmBench.Options(
              r, n, k, formats, t, kernel, copies, repeats, launches, copy, columns, sms);
      var outcome = QmmBench.run(rt, o, out);
      output.write(outcome.record(), out);
      return outcome.passed() ? 0 : 1;
    }
  }
}
