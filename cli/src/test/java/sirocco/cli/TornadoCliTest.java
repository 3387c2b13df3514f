package sirocco.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.dispatch.cudnn.Cudnn;
import sirocco.runtime.Devices;

/** The CLI's commands, run in-process; exit codes and output checked. */
class TornadoCliTest {
  record Run(int code, String out, String err) {}

  /**
   * {@code bench qmm} on the Java backend with the smallest timing settings (one repeat, copy and
   * launch; no clock-warming copy) after {@code args}.
   */
  static Run tinyBenchQmm(String... args) {
    List<String> a = new ArrayList<>(List.of("--backend", "java", "bench", "qmm"));
    a.addAll(List.of(args));
    a.addAll(List.of("--repeats", "1", "--copies", "1", "--launches", "1", "--copy-mib", "0"));
    Run r = run(a.toArray(String[]::new));
    System.clearProperty("sirocco.backend");
    return r;
  }

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TornadoCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void versionAndHelp() {
    Run v = run("--version");
    assertEquals(0, v.code());
    assertTrue(v.out().startsWith("Sirocco "), v.out());
    Run h = run("--help");
    assertEquals(0, h.code());
    assertTrue(
        h.out().contains("devices") && h.out().contains("demo") && h.out().contains("fork"),
        h.out());
    assertTrue(!h.out().contains("aot-train"), "aot-train is hidden: " + h.out());
  }

  /** The AOT cache's training workload (bin/tornado aot-cache) compiles every shipped kernel. */
  @Test
  void aotTrainCompilesEveryShippedKernel() {
    Run r = run("aot-train");
    assertEquals(0, r.code(), r.err());
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("aot-train: compiled (\\d+) kernel specializations")
            .matcher(r.out());
    assertTrue(m.find(), r.out());
    assertTrue(Integer.parseInt(m.group(1)) >= 100, r.out());
  }

  @Test
  void devicesListsTheJavaBackendAndWritesJson(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("devices.json");
    Run r = run("devices", "--json", json.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("java") && r.out().contains("default backend:"), r.out());
    JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
    assertTrue(doc.get("devices").isArray() && doc.get("devices").size() >= 1);
    assertTrue(doc.has("defaultBackend") && doc.has("cudaAvailable"));
  }

  @Test
  void devicesSaysWhatIsTrueAboutCudnnHere(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("devices.json");
    Run r = run("devices", "--json", json.toString());
    assertEquals(0, r.code(), r.err());
    JsonNode cudnn = Json.MAPPER.readTree(Files.readString(json)).get("cudnn");
    if (Devices.cudaUnavailableReason() != null) {
      // No CUDA (this CI machine): cuDNN is not even looked up, and the output says why.
      assertTrue(
          r.out()
              .contains(
                  "cuDNN: not loaded: cuDNN runs only on CUDA devices, and CUDA is unavailable"
                      + " here"),
          r.out());
      assertFalse(cudnn.get("loaded").asBoolean());
      assertEquals(0, cudnn.get("explain").size());
    } else {
      // CUDA: the cuDNN path's own report, whether or not the library loaded.
      assertTrue(r.out().contains(Cudnn.describe()), r.out());
      assertTrue(r.out().lines().anyMatch(l -> l.startsWith("cuDNN SDPA: ")), r.out());
      assertTrue(cudnn.get("loaded").asBoolean());
      assertEquals(Cudnn.describe(), cudnn.get("explain").get(0).asText());
    }
  }

  @Test
  void demoPassesOnTheJavaBackendAndReportsSteps(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("demo.json");
    Run r =
        run(
            "--backend",
            "java",
            "demo",
            "--size",
            "4096",
            "--repeats",
            "1",
            "--json",
            json.toString());
    System.clearProperty("sirocco.backend");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("demo passed"), r.out());
    JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
    assertTrue(doc.get("passed").asBoolean());
    for (JsonNode step : doc.get("steps")) {
      assertTrue(step.get("passed").asBoolean(), step.toString());
      assertTrue(step.get("maxError").asDouble() <= step.get("tolerance").asDouble());
    }
  }

  @Test
  void badArgumentsExitWithTwoAndSayWhy() {
    Run r = run("--backend", "tpu", "demo");
    System.clearProperty("sirocco.backend");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--backend must be java or cuda"), r.err());
    Run missing = run("fork", "check", "--repo", ".", "--fork", "no-such-fork.yaml");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("does not exist"), missing.err());
  }

  @Test
  void benchQmmRunsOnTheJavaBackendAndChecksItsOutputs(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("qmm.json");
    Run r =
        run(
            "--backend",
            "java",
            "bench",
            "qmm",
            "--n",
            "256",
            "--k",
            "512",
            "--rows",
            "1,2",
            "--repeats",
            "1",
            "--copies",
            "2",
            "--launches",
            "1",
            "--kernel",
            "all",
            "--json",
            json.toString());
    System.clearProperty("sirocco.backend");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("all outputs matched the float64 reference"), r.out());
    // '*' marks the op's choice under the measured default policy: the asynchronous-copy split-K
    // tensor-core kernel from 1 row at 4-bit g64.
    assertTrue(
        r.out().lines().anyMatch(l -> l.matches(".* 1 qmm-mma-async +\\* .*"))
            && r.out().lines().anyMatch(l -> l.matches(".* 2 qmm-mma-async +\\* .*")),
        r.out());
    JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
    assertEquals("tornado bench qmm", doc.get("tool").asText());
    int timed = 0;
    int auto = 0;
    for (JsonNode c : doc.get("cases")) {
      String name = c.get("name").asText();
      if (name.equals("qmm")) {
        timed++;
        assertTrue(c.get("median").asDouble() > 0, c.toString());
      } else if (name.equals("qmm/auto")) {
        auto++;
      } else if (name.equals("qmm/check")) {
        assertTrue(c.get("median").asDouble() <= 1.0, c.toString());
      }
    }
    assertEquals(20, timed, "all ten affine 4-bit bf16 kernels at both row counts");
    assertEquals(2, auto, "the op's choice at each row count");
  }

  @Test
  void benchQmmSweepsEveryFormat() {
    Run r = tinyBenchQmm("--sweep-formats", "--n", "32", "--k", "256", "--rows", "1");
    assertEquals(0, r.code(), r.out() + r.err());
    for (String f :
        new String[] {
          "affine 2-bit",
          "affine 3-bit",
          "affine 4-bit",
          "affine 5-bit",
          "affine 6-bit",
          "affine 8-bit",
          "mxfp4",
          "nvfp4",
          "mxfp8"
        }) {
      assertTrue(r.out().contains(f), f + " missing: " + r.out());
    }
    Run bad = run("--backend", "java", "bench", "qmm", "--kernel", "fastest");
    System.clearProperty("sirocco.backend");
    assertEquals(2, bad.code());
    assertTrue(
        bad.err().contains("--kernel must be auto, all or a comma-separated list of"), bad.err());
  }

  @Test
  void benchQmmTimesTheTensorCoreKernelWithAnExplicitTiling() {
    Run r =
        tinyBenchQmm(
            "--n",
            "64",
            "--k",
            "512",
            "--rows",
            "3",
            "--kernel",
            "qmm-mma@1x1x1x8,qmm-mma@2x1x2x2x3,qmm-mma-splitk@4x2x1,qmm-mma-splitk@4x1x1x2,"
                + "qmv-splitk,qmv-splitk@3x2,"
                + "qmv-async,qmv-async@3x2x2,qmm-mma-async,qmm-mma-async@2x2,qmm-mma-async@2x2x2,"
                + "qmm-mma-async@2x2x1x2x1,qmm-mma-xshared@2x2x1x2,qmm-mma-xshared@1x1x1x3x1");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("all outputs matched the float64 reference"), r.out());
    for (String k :
        new String[] {
          "qmm-mma@1x1x1x8",
          "qmm-mma@2x1x2x2x3",
          "qmm-mma-splitk@4x2x1",
          "qmm-mma-splitk@4x1x1x2",
          "qmv-splitk",
          "qmv-splitk@3x2",
          "qmv-async",
          "qmv-async@3x2x2",
          "qmm-mma-async",
          "qmm-mma-async@2x2",
          "qmm-mma-async@2x2x2",
          "qmm-mma-async@2x2x1x2x1",
          "qmm-mma-xshared@2x2x1x2",
          "qmm-mma-xshared@1x1x1x3x1"
        }) {
      assertTrue(r.out().lines().anyMatch(l -> l.matches(".* 3 " + k + " .*")), k + r.out());
    }
    for (String bad :
        new String[] {
          "qmm-mma@1x1x1",
          "qmm-mma@ax1x1x8",
          "qmm-mma@1x1x1x8x1x1",
          "qmv-splitk@4",
          "qmm-mma-splitk@16x1",
          "qmm-mma-splitk@16x1x1x2x1",
          "qmv-rows@4",
          "qmv@1x1",
          "qmv-splitk,",
          "qmm-mma-async@2x2x1x1x0x1x1x1",
          "qmm-mma-xshared@2x2x1",
          "qmm-mma-xshared@2x2x1x2x1x1"
        }) {
      Run b = run("--backend", "java", "bench", "qmm", "--kernel", bad);
      System.clearProperty("sirocco.backend");
      assertEquals(2, b.code(), bad);
      assertTrue(b.err().contains("got '" + bad + "'"), b.err());
    }
    // A tiling the kernel cannot take is reported for that kernel, and the run fails.
    Run tiles =
        tinyBenchQmm("--n", "64", "--k", "512", "--rows", "1", "--kernel", "qmm-mma@3x1x1x1");
    assertTrue(tiles.out().contains("mt must be 1 or 2"), tiles.out() + tiles.err());
    assertEquals(1, tiles.code(), tiles.out());
  }

  /**
   * {@code --sms} sizes the explicit plans' persistent grids (here one multiprocessor: every block
   * walks more batches) and says so; the outputs still match float64. A negative count is refused.
   */
  @Test
  void benchQmmSizesExplicitPlansForAGivenMultiprocessorCount() {
    Run r =
        tinyBenchQmm(
            "--n",
            "100",
            "--k",
            "512",
            "--rows",
            "2",
            "--sms",
            "1",
            "--kernel",
            "qmm-mma-async@2x2,qmm-mma-async@2x3x1x1x1,qmm-mma-async@2x2x1x1x0x3,qmm-mma-splitk@2x1x1");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("explicit plans sized for 1 multiprocessors (--sms"), r.out());
    assertTrue(r.out().contains("all outputs matched the float64 reference"), r.out());
    Run bad = tinyBenchQmm("--n", "64", "--k", "512", "--rows", "1", "--sms", "-1");
    assertTrue(bad.code() != 0, bad.out());
    assertTrue((bad.out() + bad.err()).contains("--sms must be 0"), bad.out() + bad.err());
  }

  /** f32 x, and qmv-rows with its default and an explicit plan (rows of x per block x features). */
  @Test
  void benchQmmTimesQmvRowsWithFloat32Activations() {
    Run r =
        tinyBenchQmm(
            "--n",
            "64",
            "--k",
            "256",
            "--bits",
            "3",
            "--dtype",
            "f32",
            "--rows",
            "1,3",
            "--kernel",
            "qmv-rows,qmv,qmv-rows@2x1");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("n=64 k=256 f32"), r.out());
    assertTrue(r.out().contains("all outputs matched the float64 reference"), r.out());
    // The op's choice: qmv at 1 row, qmv-rows from 2.
    assertTrue(
        r.out().lines().anyMatch(l -> l.matches(".* 1 qmv +\\* .*"))
            && r.out().lines().anyMatch(l -> l.matches(".* 3 qmv-rows +\\* .*"))
            && r.out().lines().anyMatch(l -> l.matches(".* 3 qmv-rows@2x1 .*")),
        r.out());
    Run bad = run("--backend", "java", "bench", "qmm", "--dtype", "f64");
    System.clearProperty("sirocco.backend");
    assertEquals(2, bad.code());
    assertTrue(bad.err().contains("--dtype must be bf16, f16 or f32"), bad.err());
  }

  static final String[] SMALL_PREFILL = {
    "--backend",
    "java",
    "bench",
    "sdpa",
    "--prefill",
    "--seq",
    "16",
    "--head-dim",
    "64",
    "--hq",
    "2",
    "--hkv",
    "1",
    "--samples",
    "2",
    "--max-seconds",
    "0.1"
  };

  static String[] with(String[] base, String... more) {
    String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, a, base.length, more.length);
    return a;
  }

  static long rows(String out, String asked, String ran) {
    return out.lines()
        .filter(l -> l.matches("S=16 D=64 Lq=16( causal)? +" + asked + " +" + ran + " .*"))
        .count();
  }

  @Test
  void benchSdpaPrefillTimesCudnnAndTheFallbackUnlessAKernelIsNamed(@TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("sdpa.json");
    Run r = run(with(SMALL_PREFILL, "--json", json.toString()));
    System.clearProperty("sirocco.backend");
    assertEquals(0, r.code(), r.out() + r.err());
    // Both rungs asked for in each cell (causal and not). On the Java backend the cuDNN rung
    // cannot run and says why; the fallback runs and its output matches float64.
    assertEquals(2, rows(r.out(), "cudnn", "\\S+"), r.out());
    assertEquals(2, rows(r.out(), "fallback", "fallback"), r.out());
    assertEquals(
        2,
        r.out()
            .lines()
            .filter(l -> l.contains(" cudnn ") && l.contains("cuDNN runs only on CUDA devices"))
            .count(),
        r.out());
    assertTrue(
        r.out()
            .lines()
            .filter(l -> l.contains(" fallback  fallback "))
            .allMatch(l -> l.contains(" ok (")),
        r.out());
    JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
    assertEquals(
        List.of(
            "sdpa-prefill/S=16/D=64/Lq=16/fallback",
            "sdpa-prefill/S=16/D=64/Lq=16/causal/fallback"),
        names(doc));

    Run only = run(with(SMALL_PREFILL, "--kernel", "fallback"));
    System.clearProperty("sirocco.backend");
    assertEquals(0, only.code(), only.out() + only.err());
    assertEquals(
        0, rows(only.out(), "cudnn", "\\S+"), "an explicit --kernel is kept: " + only.out());
    assertEquals(2, rows(only.out(), "fallback", "fallback"), only.out());

    Run bad = run(with(SMALL_PREFILL, "--kernel", "flash"));
    System.clearProperty("sirocco.backend");
    assertEquals(2, bad.code());
    assertTrue(
        bad.err()
            .contains("--kernel must be auto, all or one of cudnn, vector, fallback, got 'flash'"),
        bad.err());

    Run badCopies = run(with(SMALL_PREFILL, "--copies", "33"));
    System.clearProperty("sirocco.backend");
    assertEquals(2, badCopies.code());
    assertTrue(
        badCopies.err().contains("--copies must be 0 (auto) or 1..32, got 33"), badCopies.err());
  }

  static List<String> names(JsonNode doc) {
    List<String> n = new java.util.ArrayList<>();
    doc.get("cases").forEach(c -> n.add(c.get("name").asText()));
    return n;
  }

  @Test
  void threadInfoEndsWithTheCudnnReportOnceSomethingConsultedCudnn() {
    // Looking cuDNN up is what an op on CUDA does; on the Java backend nothing does, so do it here.
    Cudnn.available();
    try {
      Run r = run(with(new String[] {"--threadInfo"}, with(SMALL_PREFILL, "--kernel", "fallback")));
      assertEquals(0, r.code(), r.out() + r.err());
      List<String> tail = r.out().lines().filter(l -> l.startsWith("sirocco cudnn ")).toList();
      assertEquals("sirocco cudnn " + Cudnn.describe(), tail.get(0), r.out());
      assertTrue(tail.stream().anyMatch(l -> l.startsWith("sirocco cudnn cuDNN SDPA: ")), r.out());
      List<String> lines = r.out().lines().toList();
      assertEquals(
          tail, lines.subList(lines.size() - tail.size(), lines.size()), "printed after the bench");
    } finally {
      System.clearProperty("sirocco.backend");
      System.clearProperty("sirocco.threadInfo");
    }
  }

  @Test
  void ptxPrintsTheKernelAndItsResources() {
    Run r = run("ptx", "sirocco.cli.demo.DemoKernels::blockSum", "--resources");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains(".target sm_90") && r.out().contains(".entry"), r.out());
    assertTrue(r.out().contains("bar.sync") && r.out().contains("shfl.sync.down"), r.out());
    assertTrue(
        r.out().matches("(?s).*// resources \\(sm_90\\): \\d+ registers, 0 B spill stores.*"),
        r.out());
    assertTrue(r.out().contains(" B shared\n"), "static shared only: no dynamic part " + r.out());
    Run sm80 =
        run(
            "ptx",
            "sirocco.kernels.attention.MaskToBias::fromBool",
            "--arch",
            "sm_80",
            "--specialize",
            "dstBf16=true");
    assertEquals(0, sm80.code(), sm80.err());
    assertTrue(sm80.out().contains(".target sm_80"), sm80.out());
  }

  @Test
  void ptxWithAnOccupancyHintShowsItsEffect() {
    String spec = "headDim=256,dtype=0,rows=4,maskKind=0,hasSinks=false,partial=false";
    String kernel = "sirocco.kernels.attention.SdpaVector::decode";
    Run plain = run("ptx", kernel, "--specialize", spec, "--resources");
    assertEquals(0, plain.code(), plain.err());
    assertFalse(plain.out().contains(".maxntid") || plain.out().contains(".minnctapersm"));
    Run hinted =
        run(
            "ptx",
            kernel,
            "--specialize",
            spec,
            "--block",
            "128",
            "--min-blocks",
            "4",
            "--resources");
    assertEquals(0, hinted.code(), hinted.err());
    assertTrue(
        hinted.out().contains("\n)\n.maxntid 128, 1, 1\n.minnctapersm 4\n{\n"), hinted.out());
    assertTrue(registers(plain.out()) > 128, plain.out());
    assertTrue(registers(hinted.out()) <= 128, hinted.out());
    Run threeD = run("ptx", kernel, "--specialize", spec, "--block", "32,2,2", "--min-blocks", "4");
    assertEquals(0, threeD.code(), threeD.err());
    assertTrue(threeD.out().contains("\n.maxntid 32, 2, 2\n.minnctapersm 4\n"), threeD.out());
  }

  private static int registers(String out) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("// resources \\(sm_90\\): (\\d+) registers").matcher(out);
    assertTrue(m.find(), out);
    return Integer.parseInt(m.group(1));
  }

  @Test
  void ptxRejectsABadHintWithExitTwo() {
    String k = "sirocco.cli.demo.DemoKernels::blockSum";
    Run alone = run("ptx", k, "--min-blocks", "4");
    assertEquals(2, alone.code());
    assertTrue(alone.err().contains("--block and --min-blocks go together"), alone.err());
    Run blockAlone = run("ptx", k, "--block", "128");
    assertEquals(2, blockAlone.code());
    assertTrue(blockAlone.err().contains("--block and --min-blocks go together"), blockAlone.err());
    Run form = run("ptx", k, "--block", "128x2", "--min-blocks", "4");
    assertEquals(2, form.code());
    assertTrue(form.err().contains("--block must be X[,Y[,Z]]"), form.err());
    Run big = run("ptx", k, "--block", "1024,2", "--min-blocks", "1");
    assertEquals(2, big.code());
    assertTrue(big.err().contains("at most 1024 threads"), big.err());
    Run many = run("ptx", k, "--block", "128", "--min-blocks", "33");
    assertEquals(2, many.code());
    assertTrue(many.err().contains("minBlocksPerSm must be 1..32"), many.err());
  }

  @Test
  void ptxRejectsBadInputWithExitTwo() {
    Run missing = run("ptx", "sirocco.cli.demo.DemoKernels::nope");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("no kernel method nope"), missing.err());
    Run form = run("ptx", "DemoKernels.blockSum");
    assertEquals(2, form.code());
    assertTrue(form.err().contains("CLASS::METHOD"), form.err());
    Run spec =
        run(
            "ptx",
            "sirocco.kernels.attention.MaskToBias::fromBool",
            "--specialize",
            "dstBf16=maybe");
    assertEquals(2, spec.code());
    assertTrue(spec.err().contains("dstBf16=maybe is not a valid boolean"), spec.err());
  }
}
