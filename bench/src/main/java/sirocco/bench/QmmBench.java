package sirocco.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import sirocco.DType;
import sirocco.QuantMode;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.api.Bf16;
import sirocco.dispatch.Internal;
import sirocco.dispatch.quant.QmmOp;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaStream;

/**
 * {@code tornado bench qmm}: the quantized-matmul kernels timed on the device, one row count at a
 * time, against the read floor, the PyTorch references measured on the same H200 and the targets.
 *
 * <h2>Method</h2>
 *
 * W {@code [n, k]} is drawn on the host (normal/sqrt(k), rounded to the dtype: real codes, never
 * zeros), uploaded and quantized on the device by {@code rt.quantize}; {@code copies} copies of the
 * packed weights, scales and biases (8 by default, 226 MB for the 4-bit 12288x4096 case, well
 * beyond the H200's 60 MB L2) are made with device copies, so HBM, not L2, serves the weights. For
 * each rung timed, the op's own launch ({@link QmmOp#launch}, exactly what {@code
 * rt.quantizedMatmul} queues) is built once per copy; after one pass over the copies (the first
 * launch compiles the kernel) and a warm-up of about 2 ms of launches per L (100 ms at L = 50: the
 * first case of a run was slow without it), samples of L back-to-back launches rotating through the
 * copies are timed between two CUDA events each, all samples queued without a host wait in between;
 * the per-launch time is the sample's time / L, and median, p10 and p90 are over the samples. L is
 * 50 (configurable) unless the kernel is slow, when it is reduced to keep a case near a quarter
 * second of device time. The output is poisoned (NaN) before the warm-up and checked afterwards
 * against a float64 reference on a sample of columns (every row): a case whose output is wrong says
 * FAILED and the command exits 1.
 *
 * <p>Bytes per launch: packed weights + scales + biases + x + out; the floor is those bytes at 3.5
 * TB/s (the H200's measured read rate for this size, from the issue: 8.04 µs for 28.3 MB). A
 * device-to-device copy of {@code copyMiB} is timed once per run for the measured copy bandwidth.
 */
public final class QmmBench {
  private QmmBench() {}

  /** Bytes per second the floor assumes: the H200's measured read-only rate for this size. */
  public static final double FLOOR_BYTES_PER_SECOND = 3.5e12;

  /** PyTorch 2.11 on the same H200 (from the issue): tinygemm int4 µs at these rows, 12288x4096. */
  static final Map<Integer, Double> TINYGEMM =
      Map.of(1, 16.8, 2, 17.5, 4, 22.2, 6, 29.0, 7, 32.4, 8, 35.8, 16, 59.6, 32, 116.3, 256, 889.6);

  /** cuBLAS bf16 dense, same machine: 28.1 µs up to 32 rows, 41.2 at 256. */
  static Double cublas(int rows) {
    // Boxed on both sides: a primitive branch would unbox the null (NPE at rows without a
    // reference).
    if (rows == 256) {
      return Double.valueOf(41.2);
    }
    return rows <= 32 && TINYGEMM.containsKey(rows) ? Double.valueOf(28.1) : null;
  }

  /** The issue's targets (affine 4-bit g64 bf16, 12288x4096), µs; null where none is set. */
  static Double target(int rows) {
    if (rows == 1) {
      return 9.0;
    }
    if (rows >= 2 && rows <= 8) {
      return 10.0;
    }
    if (rows == 16) {
      return 14.0;
    }
    if (rows == 32) {
      return 24.0;
    }
    if (rows == 256) {
      return 1.5 * 41.2;
    }
    return null;
  }

  /** One quantization format. */
  public record Format(QuantMode mode, int bits, int group) {
    public static Format of(QuantMode mode, int affineBits, int affineGroup) {
      return switch (mode) {
        case AFFINE -> new Format(mode, affineBits, affineGroup);
        case MXFP4 -> new Format(mode, 4, 32);
        case NVFP4 -> new Format(mode, 4, 16);
        case MXFP8 -> new Format(mode, 8, 32);
      };
    }

    @Override
    public String toString() {
      return mode == QuantMode.AFFINE
          ? "affine " + bits + "-bit g" + group
          : mode.name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @param rows the row counts of x
   * @param n output features
   * @param k inner dimension
   * @param formats the formats, each timed at every row count
   * @param dtype activation dtype (and affine scales/biases, output): BF16, F16 or F32
   * @param kernel "auto" (what the op picks), "all" (every rung that supports the shape) or a rung
   * @param copies weight copies rotated through
   * @param repeats timed samples per case
   * @param launches launches per sample (at most)
   * @param copyMiB the device-to-device copy timed once per run (0: none)
   * @param columns output columns checked against float64 (all rows of each)
   * @param sms multiprocessors the explicit plans ({@code rung@…}) size their persistent grids for;
   *     0: the device's. Fewer than the device has asks each SM for more bytes per second from the
   *     same memory, as a device with more bandwidth per SM would (an H100 at 100 of its 132 SMs
   *     asks ~26.5 GB/s per SM at its 2.65 TB/s read rate, the demand of an H200 at 3.5 TB/s on
   *     132).
   */
  public record Options(
      List<Integer> rows,
      int n,
      int k,
      List<Format> formats,
      DType dtype,
      String kernel,
      int copies,
      int repeats,
      int launches,
      int copyMiB,
      int columns,
      int sms) {
    public Options {
      if (rows == null || rows.isEmpty() || rows.stream().anyMatch(r -> r == null || r < 1)) {
        throw new IllegalArgumentException("--rows must list positive row counts, got " + rows);
      }
      if (n < 1 || k < 1) {
        throw new IllegalArgumentException("--n and --k must be positive, got " + n + ", " + k);
      }
      if (formats == null || formats.isEmpty()) {
        throw new IllegalArgumentException("at least one format is needed");
      }
      for (Format f : formats) {
        String bad = Quant.checkFormat(mode(f.mode()), f.bits(), f.group());
        if (bad != null) {
          throw new IllegalArgumentException("--bits/--group: " + bad);
        }
        if (k % f.group() != 0) {
          throw new IllegalArgumentException(
              "--k (" + k + ") must be a multiple of the group size " + f.group() + " of " + f);
        }
      }
      if (dtype != DType.BF16 && dtype != DType.F16 && dtype != DType.F32) {
        throw new IllegalArgumentException("--dtype must be bf16, f16 or f32, got " + dtype);
      }
      if (kernel == null
          || !(kernel.equals("auto") || kernel.equals("all") || QmmRungs.kernels(kernel) != null)) {
        throw new IllegalArgumentException(
            "--kernel must be auto, all or a comma-separated list of "
                + QmmOp.rungs()
                + " where qmm-mma may name its tiling as qmm-mma@MTxNTxWNxKS[xD] (e.g."
                + " qmm-mma@1x1x1x8 or qmm-mma@2x1x1x8x2), qmm-mma-splitk its warps along k, tiles"
                + " per warp and blocks per SM as qmm-mma-splitk@KSxMTxBPS[xRT] (e.g."
                + " qmm-mma-splitk@16x2x1, or @16x1x1x2 for two 8-row tiles per warp), qmv-splitk its blocks per SM and batch as"
                + " qmv-splitk@BPSxFB, qmv-async its whole grid, batch and stages as"
                + " qmv-async@BLOCKSxFBxSTAGES, qmm-mma-async its k split, stages, row tiles per warp, blocks per SM, early refill, batches per reduction round and bf16 4-/2-bit fma unpacking as qmm-mma-async@KSxSTAGES[xRT[xBPS[xE[xRB[xFU]]]]], and qmv-rows its rows of x per block and features per warp as"
                + " qmv-rows@RxF, qmm-tiled its block and warp tiles, tile slots and cp.async x"
                + " tile as qmm-tiled@BMxBNxMTxNT[xS[xA]] (e.g. qmm-tiled@128x192x3x8,"
                + " qmm-tiled@128x128x4x4x2 or qmm-tiled@128x96x3x4x2x1), and qmm-mma-xshared its"
                + " warps, 16-feature and 8-row tiles per warp, x slots and whether the weights go"
                + " by cp.async too as qmm-mma-xshared@WFxMTxNTxSTAGES[xWA] (e.g."
                + " qmm-mma-xshared@4x2x8x3 or @4x2x8x3x1), got '"
                + kernel
                + "'");
      }
      if (copies < 1 || repeats < 1 || launches < 1 || copyMiB < 0 || columns < 1) {
        throw new IllegalArgumentException(
            "--copies, --repeats and --launches must be positive and --copy-mib >= 0");
      }
      if (sms < 0) {
        throw new IllegalArgumentException(
            "--sms must be 0 (the device's multiprocessors) or a positive count, got " + sms);
      }
      rows = List.copyOf(rows);
      formats = List.copyOf(formats);
    }
  }

  static int mode(QuantMode m) {
    return switch (m) {
      case AFFINE -> Quant.AFFINE;
      case MXFP4 -> Quant.MXFP4;
      case NVFP4 -> Quant.NVFP4;
      case MXFP8 -> Quant.MXFP8;
    };
  }

  /** One timed case, as printed and recorded. */
  public record Result(
      Format format,
      int rows,
      String kernel,
      boolean auto,
      Stats micros,
      double bytes,
      double gbPerSecond,
      double floorMicros,
      double maxError,
      double worstRatio,
      boolean passed,
      int launchesPerSample,
      Stats graphMicros) {}

  /** What a run found: every case, and whether all outputs were right. */
  public record Outcome(BenchRecord record, List<Result> results, boolean passed) {}

  public static Outcome run(Sirocco rt, Options o, PrintWriter out) {
    Internal.Bridge bridge = Internal.bridge();
    Device device = bridge.device(rt);
    Stream stream = bridge.stream(rt);
    boolean issueShape = o.n() == 12288 && o.k() == 4096;
    out.printf(
        Locale.ROOT,
        "bench qmm on %s: n=%d k=%d %s, %d weight copies, %d samples of up to %d launches%n",
        rt.describe(),
        o.n(),
        o.k(),
        o.dtype().name().toLowerCase(Locale.ROOT),
        o.copies(),
        o.repeats(),
        o.launches());
    if (o.sms() > 0) {
      out.printf(
          Locale.ROOT,
          "explicit plans sized for %d multiprocessors (--sms; the device has %d)%n",
          o.sms(),
          device.info().multiprocessors());
    }
    List<BenchCase> cases = new ArrayList<>();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("rows", o.rows());
    params.put("n", o.n());
    params.put("k", o.k());
    params.put("formats", o.formats().stream().map(Format::toString).toList());
    params.put("dtype", o.dtype().name().toLowerCase(Locale.ROOT));
    params.put("kernel", o.kernel());
    params.put("copies", o.copies());
    params.put("repeats", o.repeats());
    params.put("launches", o.launches());
    if (o.sms() > 0) {
      params.put("sms", o.sms());
    }
    params.put("floor_tb_per_s", FLOOR_BYTES_PER_SECOND / 1e12);
    if (o.copyMiB() > 0) {
      double copyGbs = QmmTiming.copyBandwidth(device, stream, (long) o.copyMiB() << 20);
      params.put("copy_gb_per_s", copyGbs);
      out.printf(
          Locale.ROOT,
          "device-to-device copy of %d MiB: %.0f GB/s (bytes read + written per second)%n",
          o.copyMiB(),
          copyGbs);
      cases.add(
          new BenchCase(
                  "copy/bandwidth",
                  Map.of("mib", o.copyMiB()),
                  "GB/s",
                  copyGbs,
                  copyGbs,
                  copyGbs,
                  1,
                  null,
                  "read + written bytes per second of one device-to-device copy",
                  true)
              .asHigherIsBetter());
    }
    out.printf(
        Locale.ROOT,
        "floor = bytes / %.1f TB/s (the H200's measured read rate for this size)%n",
        FLOOR_BYTES_PER_SECOND / 1e12);
    List<Result> results = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    float[] w = weights(o.n(), o.k(), o.dtype(), 12345);
    Tensor wt = upload(rt, w, o.dtype(), o.n(), o.k());
    w = null; // the host copy is not needed again (the reference decodes the packed words)
    String fmt = "%-18s %5s %-14s %1s %9s %17s %8s %7s %9s %9s %9s %-12s %s%n";
    for (Format f : o.formats()) {
      out.println();
      out.printf(
          Locale.ROOT,
          fmt,
          "format",
          "rows",
          "kernel",
          "",
          "us p50",
          "(p10-p90)",
          "GB/s",
          "floor%",
          "floor us",
          "tinygemm",
          "cuBLAS",
          "target",
          "check");
      try {
        results.addAll(
            runFormat(rt, device, stream, o, f, wt, issueShape, cases, errors, out, fmt));
      } catch (RuntimeException e) {
        errors.add(f + ": " + e);
        out.printf(Locale.ROOT, "%-18s ERROR (FAILED): %s%n", f, e);
        out.flush();
        settle(stream);
      }
    }
    wt.close();
    boolean passed = errors.isEmpty() && results.stream().allMatch(Result::passed);
    out.println();
    out.println(
        passed
            ? "all outputs matched the float64 reference"
            : "FAILED: "
                + (errors.isEmpty() ? "" : errors.size() + " case(s) raised an error; ")
                + "check the check column and ERROR lines");
    params.put("errors", errors);
    out.flush();
    BenchRecord r = BenchRecord.of("tornado bench qmm", device.info(), params, cases);
    return new Outcome(r, results, passed);
  }

  private static List<Result> runFormat(
      Sirocco rt,
      Device device,
      Stream stream,
      Options o,
      Format f,
      Tensor wt,
      boolean issueShape,
      List<BenchCase> cases,
      List<String> errors,
      PrintWriter out,
      String fmt) {
    List<Result> results = new ArrayList<>();
    Quantized q = rt.quantize(wt, f.group(), f.bits(), f.mode());
    Internal.Bridge bridge = Internal.bridge();
    DeviceBuffer[] wq = new DeviceBuffer[o.copies()];
    DeviceBuffer[] sc = new DeviceBuffer[o.copies()];
    DeviceBuffer[] bi = new DeviceBuffer[o.copies()];
    List<DeviceBuffer> owned = new ArrayList<>();
    wq[0] = bridge.buffer(q.wq());
    sc[0] = bridge.buffer(q.scales());
    bi[0] = q.biases() == null ? null : bridge.buffer(q.biases());
    for (int c = 1; c < o.copies(); c++) {
      wq[c] = copyOf(device, stream, wq[0], owned);
      sc[c] = copyOf(device, stream, sc[0], owned);
      bi[c] = bi[0] == null ? null : copyOf(device, stream, bi[0], owned);
    }
    QmmCheck.Reference ref = QmmCheck.Reference.of(rt, q, o, f);
    boolean affine = f.mode() == QuantMode.AFFINE;
    int db = o.dtype() == DType.F32 ? 4 : 2;
    double weightBytes =
        (double) o.n() * o.k() * f.bits() / 8
            + (double) o.n() * (o.k() / f.group()) * (affine ? 2 * db : 1);
    int dtypeCode =
        switch (o.dtype()) {
          case BF16 -> Quant.BF16;
          case F16 -> Quant.F16;
          default -> Quant.F32;
        };
    ElementType outType = o.dtype() == DType.F32 ? ElementType.F32 : ElementType.I16;
    boolean tracked = issueShape && affine && f.bits() == 4 && f.group() == 64;
    if (device.kind() == Device.Kind.CUDA) {
      // The other ceiling, measured here: a read-only kernel over the same weight bytes, rotated.
      GpuTiming.Floors floors = GpuTiming.readFloors(device, (long) weightBytes, o.copies(), 20);
      Stats read = floors.gated();
      out.printf(
          Locale.ROOT,
          "%-18s read-only kernel over the same %.1f MB: %.2f us p50 (%.2f TB/s)%s; floor%%"
              + " below uses %.1f TB/s%n",
          f,
          weightBytes / 1e6,
          read.median(),
          weightBytes / (read.median() * 1e-6) / 1e12,
          floors.graph() == null
              ? ""
              : String.format(
                  Locale.ROOT,
                  ", by graph replay %.2f us (%.2f TB/s)",
                  floors.graph().median(),
                  weightBytes / (floors.graph().median() * 1e-6) / 1e12),
          FLOOR_BYTES_PER_SECOND / 1e12);
      Map<String, Object> rp = new LinkedHashMap<>();
      rp.put("mode", f.mode().name().toLowerCase(Locale.ROOT));
      rp.put("bits", f.bits());
      rp.put("group", f.group());
      rp.put("n", o.n());
      rp.put("k", o.k());
      cases.add(
          BenchCase.of("qmm/read-floor", rp, "us", read)
              .withReference(
                  weightBytes / FLOOR_BYTES_PER_SECOND * 1e6,
                  "read-only kernel over the packed weights + scales + biases (GpuTiming.readFloor);"
                      + " reference = the same bytes at 3.5 TB/s"));
      if (floors.graph() != null) {
        cases.add(
            BenchCase.of("qmm/read-floor-graph", rp, "us", floors.graph())
                .withReference(
                    weightBytes / FLOOR_BYTES_PER_SECOND * 1e6,
                    "the same read-only kernel by CUDA-graph replay of 20 launches"));
      }
    }
    int sm = QmmOp.sm(device);
    for (int rows : o.rows()) {
      QmmShape s =
          new QmmShape(mode(f.mode()), f.bits(), f.group(), dtypeCode, rows, o.n(), o.k(), true);
      String auto = QmmOp.decide(s, sm).chosen();
      List<String> rungs =
          switch (o.kernel()) {
            case "auto" -> List.of(auto);
            case "all" -> QmmOp.candidates(s, sm);
            default -> QmmRungs.kernels(o.kernel());
          };
      float[] x = weights(rows, o.k(), o.dtype(), 777 + rows);
      Tensor xt = upload(rt, x, o.dtype(), rows, o.k());
      DeviceBuffer ob = device.allocate(outType, (long) rows * o.n(), stream);
      double bytes = weightBytes + (double) rows * o.k() * db + (double) rows * o.n() * db;
      double floorUs = bytes / FLOOR_BYTES_PER_SECOND * 1e6;
      Double tiny = issueShape ? TINYGEMM.get(rows) : null;
      Double cub = issueShape ? cublas(rows) : null;
      Double tgt = tracked ? target(rows) : null;
      for (String rung : rungs) {
        int[] tiles = QmmRungs.tuned(rung);
        String base = tiles == null ? rung : rung.substring(0, rung.indexOf('@'));
        String why = QmmOp.kernelRejects(base, s);
        if (why != null) {
          out.printf(Locale.ROOT, "%-18s %5d %-14s   not run: %s%n", f, rows, rung, why);
          continue;
        }
        // The tile map of x (qmm-wgmma-tma only): one for every copy's launch, freed with x.
        DeviceBuffer xMap = null;
        try {
          if (base.equals(QmmOp.QMM_WGMMA_TMA)) {
            xMap = QmmOp.xTileMap(device, s, bridge.buffer(xt), stream);
          }
          KernelLaunch[] launches = new KernelLaunch[o.copies()];
          for (int c = 0; c < o.copies(); c++) {
            QmmOp.Operands ops =
                new QmmOp.Operands(wq[c], sc[c], bi[c], null, bridge.buffer(xt), ob, xMap);
            launches[c] =
                tiles == null
                    ? QmmOp.launch(device, rung, s, ops)
                    : QmmOp.launch(
                        device,
                        base,
                        QmmRungs.tunedPlan(
                            base,
                            tiles,
                            s,
                            o.sms() > 0 ? o.sms() : device.info().multiprocessors()),
                        s,
                        ops);
          }
          double tol =
              base.equals(QmmOp.QMM_TILED)
                      || base.equals(QmmOp.QMM_MMA_XSHARED)
                      || base.equals(QmmOp.QMM_WGMMA)
                      || base.equals(QmmOp.QMM_WGMMA_TMA)
                  ? (o.dtype() == DType.F16 ? 0x1p-11 : 0x1p-9) + 2e-5
                  : 2e-5;
          poison(device, stream, ob, rows * o.n());
          QmmTiming.Timed t = QmmTiming.time(device, stream, launches, o);
          QmmCheck.Check chk =
              ref.check(
                  x, rows, download(device, stream, ob, rows * o.n(), o.dtype()), o.dtype(), tol);
          Stats graph = null;
          if (stream instanceof CudaStream cs) {
            // The graph's launches are checked on their own: poisoned again, so output the
            // stream-timed launches left behind cannot pass for theirs.
            poison(device, stream, ob, rows * o.n());
            graph = QmmTiming.graphed(device, cs, launches, o, t);
            QmmCheck.Check g =
                ref.check(
                    x, rows, download(device, stream, ob, rows * o.n(), o.dtype()), o.dtype(), tol);
            if (!g.passed() || g.worstRatio() > chk.worstRatio()) {
              chk = g;
            }
          }
          Result r =
              new Result(
                  f,
                  rows,
                  rung,
                  rung.equals(auto),
                  t.stats(),
                  bytes,
                  bytes / (t.stats().median() * 1e-6) / 1e9,
                  floorUs,
                  chk.maxError(),
                  chk.worstRatio(),
                  chk.passed(),
                  t.launchesPerSample(),
                  graph);
          results.add(r);
          print(out, fmt, r, tiny, cub, tgt, chk);
          record(cases, o, r, tiny, cub, tgt, auto);
        } catch (RuntimeException e) {
          // One rung failing (e.g. a kernel the JIT or the driver refuses) must not hide the
          // others.
          String msg = f + " rows=" + rows + " " + rung + ": " + e;
          errors.add(msg);
          out.printf(Locale.ROOT, "%-18s %5d %-14s   ERROR (FAILED): %s%n", f, rows, rung, e);
          out.flush();
          settle(stream);
        } finally {
          if (xMap != null) {
            xMap.close(); // stream-ordered: after the launches queued with it
          }
        }
      }
      ob.close();
      xt.close();
    }
    for (DeviceBuffer b : owned) {
      b.close();
    }
    q.wq().close();
    q.scales().close();
    if (q.biases() != null) {
      q.biases().close();
    }
    return results;
  }

  private static void print(
      PrintWriter out,
      String fmt,
      Result r,
      Double tiny,
      Double cub,
      Double tgt,
      QmmCheck.Check chk) {
    Stats s = r.micros();
    out.printf(
        Locale.ROOT,
        fmt,
        r.format(),
        r.rows(),
        r.kernel(),
        r.auto() ? "*" : "",
        String.format(Locale.ROOT, "%.2f", s.median()),
        String.format(Locale.ROOT, "(%.2f-%.2f)", s.p10(), s.p90()),
        String.format(Locale.ROOT, "%.0f", r.gbPerSecond()),
        String.format(Locale.ROOT, "%.0f%%", 100 * r.floorMicros() / s.median()),
        String.format(Locale.ROOT, "%.2f", r.floorMicros()),
        tiny == null ? "-" : String.format(Locale.ROOT, "%.1f", tiny),
        cub == null ? "-" : String.format(Locale.ROOT, "%.1f", cub),
        tgt == null
            ? "-"
            : String.format(Locale.ROOT, "%s<=%.1f", s.median() <= tgt ? "met" : "MISSED", tgt),
        (chk.passed() ? "OK" : "FAILED")
            + String.format(
                Locale.ROOT, " max|err| %.3g (%.2f of tol)", chk.maxError(), chk.worstRatio())
            + (chk.unwritten() > 0 ? ", " + chk.unwritten() + " unwritten (NaN)" : ""));
    Stats g = r.graphMicros();
    if (g != null) {
      out.printf(
          Locale.ROOT,
          "%-18s %5d %-14s   graph replay (%d launches per replay): p50 %.2f us (%.2f-%.2f), %.0f"
              + " GB/s, %.0f%% of floor%s%n",
          r.format(),
          r.rows(),
          r.kernel(),
          QmmTiming.graphLaunches(r.launchesPerSample()),
          g.median(),
          g.p10(),
          g.p90(),
          r.bytes() / (g.median() * 1e-6) / 1e9,
          100 * r.floorMicros() / g.median(),
          tgt == null
              ? ""
              : String.format(
                  Locale.ROOT, ", target %s<=%.1f", g.median() <= tgt ? "met" : "MISSED", tgt));
    }
    out.flush();
  }

  private static void record(
      List<BenchCase> cases,
      Options o,
      Result r,
      Double tiny,
      Double cub,
      Double tgt,
      String auto) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("mode", r.format().mode().name().toLowerCase(Locale.ROOT));
    p.put("bits", r.format().bits());
    p.put("group", r.format().group());
    p.put("dtype", o.dtype().name().toLowerCase(Locale.ROOT));
    p.put("n", o.n());
    p.put("k", o.k());
    p.put("rows", r.rows());
    StringBuilder note = new StringBuilder();
    if (tgt != null) {
      note.append(r.micros().median() <= tgt ? "target met" : "target MISSED")
          .append(String.format(Locale.ROOT, " (<= %.1f us, issue)", tgt));
    }
    if (tiny != null || cub != null) {
      note.append(note.isEmpty() ? "" : "; ").append("PyTorch 2.11 on the same H200:");
      if (tiny != null) {
        note.append(String.format(Locale.ROOT, " tinygemm int4 %.1f us", tiny));
      }
      if (cub != null) {
        note.append(String.format(Locale.ROOT, " cuBLAS bf16 %.1f us", cub));
      }
    }
    note.append(note.isEmpty() ? "" : "; ")
        .append(r.passed() ? "output OK" : "output FAILED")
        .append(String.format(Locale.ROOT, " (max |err| %.3g)", r.maxError()));
    Map<String, Object> pk = new LinkedHashMap<>(p);
    pk.put("kernel", r.kernel());
    cases.add(BenchCase.of("qmm", pk, "us", r.micros()).withReference(tgt, note.toString()));
    double gb = r.gbPerSecond();
    cases.add(
        new BenchCase(
                "qmm/bandwidth",
                pk,
                "GB/s",
                gb,
                r.bytes() / (r.micros().p90() * 1e-6) / 1e9,
                r.bytes() / (r.micros().p10() * 1e-6) / 1e9,
                r.micros().samples(),
                FLOOR_BYTES_PER_SECOND / 1e9,
                "bytes = weights + scales + biases + x + out; reference = the floor rate",
                true)
            .asHigherIsBetter());
    cases.add(
        new BenchCase(
            "qmm/check",
            pk,
            "err/tol",
            r.worstRatio(),
            r.worstRatio(),
            r.worstRatio(),
            1,
            1.0,
            "worst |out - float64| / tolerance on the sampled outputs; > 1 or NaN output = FAILED",
            false));
    if (r.graphMicros() != null) {
      cases.add(
          BenchCase.of("qmm/graph", pk, "us", r.graphMicros())
              .withReference(
                  tgt,
                  "CUDA-graph replay of "
                      + QmmTiming.graphLaunches(r.launchesPerSample())
                      + " launches rotating through the copies; "
                      + note));
    }
    if (r.kernel().equals(auto)) {
      cases.add(
          BenchCase.of("qmm/auto", p, "us", r.micros())
              .withReference(tgt, "the op's choice: " + auto + "; " + note));
    }
  }

  /** After a failed case: wait for the stream and drop the failure it reports, if it can. */
  private static void settle(Stream stream) {
    try {
      stream.synchronize();
    } catch (RuntimeException ignored) {
      // The failure was reported with the case; a CUDA error that poisons the context will show
      // again in every later case.
    }
  }

  private static DeviceBuffer copyOf(
      Device device, Stream stream, DeviceBuffer src, List<DeviceBuffer> owned) {
    DeviceBuffer b = device.allocate(src.type(), src.length(), stream);
    device.copy(src, 0, b, 0, src.length(), stream);
    owned.add(b);
    return b;
  }

  /** NaN in bf16 and in f16. */
  static final short HALF_POISON = (short) 0x7FC1;

  /** Fills {@code out} (bf16/f16 bits or float32) with NaN. */
  private static void poison(Device device, Stream stream, DeviceBuffer out, int n) {
    if (out.type() == ElementType.F32) {
      float[] p = new float[n];
      Arrays.fill(p, Float.NaN);
      device.upload(p, 0, out, 0, n, stream);
      return;
    }
    short[] p = new short[n];
    Arrays.fill(p, HALF_POISON);
    device.upload(p, 0, out, 0, n, stream);
  }

  /** The first {@code n} elements of {@code out} as floats (bf16/f16 bits decoded). */
  private static float[] download(
      Device device, Stream stream, DeviceBuffer out, int n, DType dtype) {
    float[] v = new float[n];
    if (dtype == DType.F32) {
      device.download(out, 0, v, 0, n, stream);
      return v;
    }
    short[] h = new short[n];
    device.download(out, 0, h, 0, n, stream);
    for (int i = 0; i < n; i++) {
      v[i] = dtype == DType.BF16 ? Bf16.toFloat(h[i]) : Float.float16ToFloat(h[i]);
    }
    return v;
  }

  // ---- data ----

  /**
   * {@code rows x cols} values, roughly normal with standard deviation 1/sqrt(cols) (a sum of four
   * uniforms, cheap enough for 50 M values), rounded to {@code dtype}.
   */
  static float[] weights(int rows, int cols, DType dtype, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    float[] v = new float[Math.multiplyExact(rows, cols)];
    double scale = Math.sqrt(3.0) / Math.sqrt(cols); // 4 uniforms in [-1/2, 1/2): variance 1/3
    for (int i = 0; i < v.length; i++) {
      long r = rnd.nextLong();
      double sum =
          ((r & 0xFFFF) + ((r >>> 16) & 0xFFFF) + ((r >>> 32) & 0xFFFF) + (r >>> 48)) / 65536.0
              - 2.0;
      float f = (float) (sum * scale);
      v[i] =
          switch (dtype) {
            case BF16 -> Bf16.toFloat(Bf16.fromFloat(f));
            case F16 -> roundF16(f);
            default -> f;
          };
    }
    return v;
  }

  static float roundF16(float f) {
    return Float.float16ToFloat(Float.floatToFloat16(f));
  }

  static Tensor upload(Sirocco rt, float[] v, DType dtype, long... shape) {
    if (dtype == DType.F32) {
      return rt.fromFloats(v, shape);
    }
    short[] s = new short[v.length];
    for (int i = 0; i < v.length; i++) {
      s[i] = dtype == DType.BF16 ? Bf16.fromFloat(v[i]) : Float.floatToFloat16(v[i]);
    }
    return dtype == DType.BF16 ? rt.fromBf16(s, shape) : rt.fromF16(s, shape);
  }
}
