package sirocco.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sirocco.DType;
import sirocco.Mask;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.dispatch.Internal;
import sirocco.dispatch.attention.SdpaOp;
import sirocco.dispatch.cudnn.CudnnSdpa;
import sirocco.runtime.Device;
import sirocco.runtime.Stream;
import sirocco.runtime.cuda.CudaStream;

/**
 * {@code tornado bench sdpa}: attention through the public op, timed on the device.
 *
 * <p>Decode (default): B = 1, bf16, {@code --lq} query rows, Hq/Hkv heads, every (sequence length,
 * head dim) cell; K/V filled with random data on the device and rotated over enough copies to
 * exceed the L2 cache. Each cell reports the kernel the ladder chose (or the one forced with {@code
 * --kernel}), device µs per call (events around each call; median, p10, p90), K/V GB/s, % of the
 * floor (K/V bytes at the measured copy bandwidth), the time a read-only kernel takes for the same
 * bytes, and the PyTorch 2.11 figure from the issue. {@code --prefill}: Lq = Lkv, causal and not,
 * cuDNN against the unfused fallback (both timed per cell unless {@code --kernel} names one).
 *
 * <p>Every cell's output is checked against a float64 reference on sampled heads; a wrong cell says
 * FAILED.
 */
public final class SdpaBench {
  /**
   * PyTorch 2.11 decode references from the attention issue (µs, kernel time, CUDA graphs), by S
   * then D. Measured with one K/V pair reused by every call (bench/RESULTS.md run 68 reproduced
   * them so), i.e. under the conditions of {@code --copies 1}, not of the default rotation.
   */
  static final Map<String, Double> TORCH_DECODE =
      Map.of(
          "1024/64",
          5.5,
          "1024/128",
          6.6,
          "1024/256",
          8.9,
          "8192/64",
          8.7,
          "8192/128",
          11.1,
          "8192/256",
          32.0,
          "32768/64",
          21.7,
          "32768/128",
          37.7,
          "32768/256",
          79.1);

  /**
   * Options.
   *
   * @param kernel null for the default ({@link #kernels}), "auto" (the ladder), "all", or a rung
   * @param kvCopies K/V copies the timed calls rotate through: 0 for enough to exceed the L2
   *     ({@link GpuTiming#copiesFor}, the default), 1 for one pair that the L2 may hold between
   *     calls (how {@code bench/torch_sdpa.py} times PyTorch without {@code --rotate})
   */
  public record Options(
      List<Integer> seq,
      List<Integer> headDims,
      List<Integer> lq,
      int hq,
      int hkv,
      String kernel,
      boolean prefill,
      int samples,
      double maxSecondsPerCell,
      int kvCopies) {
    public Options {
      if (kvCopies < 0 || kvCopies > 32) {
        throw new IllegalArgumentException(
            "kvCopies must be 0 (enough to exceed the L2) or 1..32, got " + kvCopies);
      }
    }
  }

  private SdpaBench() {}

  /**
   * What each cell times, in order. With no {@code --kernel} (null): the ladder's choice for
   * decode, and for prefill both the cuDNN rung and the fallback, since a prefill run is there to
   * compare them. "all": every rung that applies (prefill: cuDNN and the fallback; decode: the
   * ladder's choice, vector and cuDNN). "auto" or a rung name: that alone.
   *
   * @throws IllegalArgumentException for any other {@code kernel}
   */
  public static List<String> kernels(String kernel, boolean prefill) {
    List<String> both = List.of(SdpaOp.CUDNN, SdpaOp.FALLBACK);
    if (kernel == null) {
      return prefill ? both : List.of("auto");
    }
    if (kernel.equals("all")) {
      return prefill ? both : List.of("auto", SdpaOp.VECTOR, SdpaOp.CUDNN);
    }
    if (kernel.equals("auto") || SdpaOp.rungs().contains(kernel)) {
      return List.of(kernel);
    }
    throw new IllegalArgumentException(
        "--kernel must be auto, all or one of "
            + String.join(", ", SdpaOp.rungs())
            + ", got '"
            + kernel
            + "'");
  }

  public static BenchRecord run(Sirocco rt, Options o, PrintWriter out) {
    Device d = Internal.bridge().device(rt);
    Stream s = Internal.bridge().stream(rt);
    boolean gpu = d.kind() == Device.Kind.CUDA;
    double copyGBs = gpu ? GpuTiming.copyBandwidthGBs(d, 1L << 30) : Double.NaN;
    out.printf(
        Locale.ROOT,
        "bench sdpa on %s; device copy bandwidth %.0f GB/s%n",
        d.info().name(),
        copyGBs);
    if (!o.prefill()) {
      out.printf(
          Locale.ROOT,
          "torch: issue #8's PyTorch 2.11 figures, measured with one K/V pair reused by every call"
              + " (compare them with --copies 1; PyTorch with K/V rotated past the L2:"
              + " bench/RESULTS.md run 68)%n");
    }
    if (gpu && o.kvCopies() > 0) {
      out.printf(
          Locale.ROOT,
          "K/V in %d cop%s per cell (not rotated past the L2: what the L2 keeps between calls is"
              + " read from there)%n",
          o.kvCopies(),
          o.kvCopies() == 1 ? "y" : "ies");
    }
    List<String> kernels = kernels(o.kernel(), o.prefill());
    List<BenchCase> cases = new ArrayList<>();
    out.printf(
        Locale.ROOT,
        "%-28s %-9s %-9s %9s %9s %9s %8s %7s %9s %8s %s%n",
        "cell",
        "asked",
        "ran",
        "p50 us",
        "p10 us",
        "p90 us",
        "GB/s",
        "%floor",
        "read us",
        "torch",
        "check");
    List<int[]> cells = new ArrayList<>();
    for (int seq : o.seq()) {
      for (int hd : o.headDims()) {
        for (int lq : o.prefill() ? List.of(seq) : o.lq()) {
          for (int causal : o.prefill() ? List.of(0, 1) : List.of(0)) {
            cells.add(new int[] {seq, hd, lq, causal});
          }
        }
      }
    }
    for (int[] cell : cells) {
      int seq = cell[0];
      int hd = cell[1];
      int lq = cell[2];
      boolean causal = cell[3] == 1;
      long kvBytes = 2L * seq * o.hkv() * hd * 2;
      int copies = !gpu ? 1 : o.kvCopies() > 0 ? o.kvCopies() : GpuTiming.copiesFor(kvBytes);
      Stats read = gpu ? GpuTiming.readFloor(d, kvBytes, copies, 20) : null;
      List<Tensor[]> kv = new ArrayList<>();
      Tensor q = rt.zeros(DType.BF16, 1, o.hq(), lq, hd);
      GpuTiming.fillBf16(d, s, Internal.bridge().buffer(q), 11, 1f);
      for (int c = 0; c < copies; c++) {
        Tensor k = rt.zeros(DType.BF16, 1, o.hkv(), seq, hd);
        Tensor v = rt.zeros(DType.BF16, 1, o.hkv(), seq, hd);
        GpuTiming.fillBf16(d, s, Internal.bridge().buffer(k), 1000 + 2 * c, 1f);
        GpuTiming.fillBf16(d, s, Internal.bridge().buffer(v), 1001 + 2 * c, 1f);
        kv.add(new Tensor[] {k, v});
      }
      Mask mask = causal ? Mask.causal() : Mask.none();
      float scale = (float) (1 / Math.sqrt(hd));
      String label =
          String.format(Locale.ROOT, "S=%d D=%d Lq=%d%s", seq, hd, lq, causal ? " causal" : "");
      for (String k : kernels) {
        String ran;
        Stats t;
        String check;
        String plan;
        Stats graph = null;
        String graphLine = null;
        String previousRung = System.getProperty(SdpaOp.RUNG_PROPERTY);
        String previousCudnn = System.getProperty(CudnnSdpa.DISABLE_PROPERTY);
        List<String> chosen = new ArrayList<>();
        try (AutoCloseable listen = Explain.listen(dec -> chosen.add(dec.chosen()))) {
          if (!k.equals("auto")) {
            System.setProperty(SdpaOp.RUNG_PROPERTY, k);
          }
          Tensor first = rt.scaledDotProductAttention(q, kv.get(0)[0], kv.get(0)[1], scale, mask);
          check = AttentionCheck.check(rt, q, kv.get(0)[0], kv.get(0)[1], scale, causal, first);
          ran = chosen.isEmpty() ? "?" : chosen.get(chosen.size() - 1);
          plan =
              ran.equals(SdpaOp.CUDNN)
                  ? CudnnSdpa.describePlan(q, kv.get(0)[0], kv.get(0)[1], mask, first)
                  : null;
          first.close();
          GpuTiming.Gated g =
              GpuTiming.gated(
                  d,
                  s,
                  3,
                  o.samples(),
                  10,
                  o.maxSecondsPerCell(),
                  i -> {
                    Tensor[] c = kv.get(i % kv.size());
                    rt.scaledDotProductAttention(q, c[0], c[1], scale, mask).close();
                  });
          t = g.perCall();
          if (g.hostBound()) {
            check = check + " HOST-BOUND";
          }
          if (gpu && (plan != null || !o.prefill())) {
            StringBuilder line = new StringBuilder();
            graph = graphTimed(rt, s, o, q, kv, scale, mask, plan != null, line);
            graphLine = line.toString();
          }
        } catch (UnsupportedOperationException e) {
          out.printf(
              Locale.ROOT, "%-28s %-9s %-9s n/a: %s%n", label, k, "-", firstLine(e.getMessage()));
          continue;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        } finally {
          restore(SdpaOp.RUNG_PROPERTY, previousRung);
          restore(CudnnSdpa.DISABLE_PROPERTY, previousCudnn);
        }
        double gbs = kvBytes / (t.median() * 1e-6) / 1e9;
        double floorPct =
            gpu ? 100.0 * (kvBytes / (copyGBs * 1e9)) / (t.median() * 1e-6) : Double.NaN;
        Double torch = o.prefill() || lq != 1 ? null : TORCH_DECODE.get(seq + "/" + hd);
        out.printf(
            Locale.ROOT,
            "%-28s %-9s %-9s %9.2f %9.2f %9.2f %8.0f %6.1f%% %9.2f %8s %s%n",
            label,
            k,
            ran,
            t.median(),
            t.p10(),
            t.p90(),
            gbs,
            floorPct,
            read == null ? Double.NaN : read.median(),
            torch == null ? "-" : String.format(Locale.ROOT, "%.1f", torch),
            check);
        if (plan != null) {
          out.printf(Locale.ROOT, "  cuDNN plan: %s%n", plan);
        }
        if (graphLine != null) {
          out.println(graphLine);
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("seq", seq);
        params.put("headDim", hd);
        params.put("lq", lq);
        params.put("hq", o.hq());
        params.put("hkv", o.hkv());
        params.put("causal", causal);
        params.put("asked", k);
        params.put("kernel", ran);
        params.put("gbPerS", gbs);
        params.put("percentOfCopyFloor", floorPct);
        params.put("readOnlyMicros", read == null ? null : read.median());
        params.put("kvCopies", copies);
        params.put("check", check);
        params.put("cudnnPlan", plan);
        params.put("graphReplayMicros", graph == null ? null : graph.median());
        cases.add(
            new BenchCase(
                (o.prefill() ? "sdpa-prefill/" : "sdpa/") + label.replace(' ', '/') + "/" + k,
                params,
                "us",
                t.median(),
                t.p10(),
                t.p90(),
                t.samples(),
                torch,
                torch == null ? null : "PyTorch 2.11 on the H200 (attention issue)",
                false));
      }
      q.close();
      kv.forEach(
          p -> {
            p[0].close();
            p[1].close();
          });
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("copyBandwidthGBs", copyGBs);
    params.put("prefill", o.prefill());
    return BenchRecord.of("bench sdpa", d.info(), params, cases);
  }

  /**
   * The cell timed as PyTorch's references are: CUDA-graph replay of max(20, copies) calls cycling
   * through the K/V copies. {@code direct}: the cuDNN rung through {@link CudnnSdpa#run}, each call
   * into its own preallocated output; otherwise the op itself (its output and temporaries are then
   * stream-ordered allocations captured into the graph). Null, with the reason in {@code line},
   * when the capture fails.
   */
  private static Stats graphTimed(
      Sirocco rt,
      Stream s,
      Options o,
      Tensor q,
      List<Tensor[]> kv,
      float scale,
      Mask mask,
      boolean direct,
      StringBuilder line) {
    if (!(s instanceof CudaStream cs)) {
      return null;
    }
    int calls = Math.max(20, kv.size());
    List<Tensor> outs = new ArrayList<>();
    long[] shape = q.shape();
    try {
      if (direct) {
        for (int i = 0; i < kv.size(); i++) {
          outs.add(rt.zeros(DType.BF16, shape[0], shape[1], shape[2], kv.get(i)[1].shape()[3]));
        }
      }
      GpuTiming.Call call =
          direct
              ? i -> {
                Tensor[] c = kv.get(i % kv.size());
                CudnnSdpa.Attempt a =
                    CudnnSdpa.run(q, c[0], c[1], scale, mask, outs.get(i % outs.size()));
                if (!a.ran()) {
                  throw new IllegalStateException(
                      "cuDNN refused inside the capture: " + a.reason());
                }
              }
              : i -> {
                Tensor[] c = kv.get(i % kv.size());
                rt.scaledDotProductAttention(q, c[0], c[1], scale, mask).close();
              };
      Stats g =
          GpuTiming.graphed(
              cs, calls, 3, Math.max(5, Math.min(o.samples(), 30)), o.maxSecondsPerCell(), call);
      line.append(
          String.format(
              Locale.ROOT,
              "  graph replay (%d calls per replay, as PyTorch is timed): p50 %.2f us, p10 %.2f,"
                  + " p90 %.2f",
              calls,
              g.median(),
              g.p10(),
              g.p90()));
      return g;
    } catch (RuntimeException e) {
      line.append("  graph replay: n/a (").append(firstLine(e.getMessage())).append(')');
      return null;
    } finally {
      outs.forEach(Tensor::close);
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  /** Keeps the decision type referenced (the listener's argument). */
  static String describe(Decision d) {
    return d.explain();
  }
}
