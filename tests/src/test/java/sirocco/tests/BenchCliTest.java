package sirocco.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.bench.BenchRecord;
import sirocco.bench.BenchRecords;
import sirocco.cli.TornadoCli;

/** The bench commands through the CLI on the Java backend, with tiny sizes. */
class BenchCliTest {
  private record Ran(int status, String out, String err) {}

  private static Ran tornado(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = TornadoCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Ran(status, out.toString(), err.toString());
  }

  @AfterEach
  void forgetBackend() {
    System.clearProperty("sirocco.backend");
  }

  @Test
  void syncWritesRecordsThatCompareReads(@TempDir Path dir) {
    String a = dir.resolve("a.json").toString();
    String b = dir.resolve("b.json").toString();
    for (String file : new String[] {a, b}) {
      Ran r =
          tornado(
              "--backend",
              "java",
              "bench",
              "sync",
              "--kernel-us",
              "0,100",
              "--iterations",
              "5",
              "--warmup",
              "1",
              "--concurrency",
              "1,4",
              "--concurrent-iterations",
              "2",
              "--json",
              file);
      assertEquals(0, r.status(), r.err());
      assertTrue(r.out().contains("coop-nospin"), r.out());
      assertTrue(r.out().contains("vt-4"), r.out());
    }
    BenchRecord rec = BenchRecords.read(Path.of(a));
    assertEquals("tornado bench sync", rec.tool());
    assertNotNull(rec.find("sync/coop-spin kernel_us=100"));
    Ran cmp = tornado("bench", "compare", a, b);
    assertEquals(0, cmp.status(), cmp.err());
    assertTrue(cmp.out().contains("| case | current | previous | ratio |"), cmp.out());
    assertTrue(cmp.out().contains("sync/blocking kernel_us=0"), cmp.out());
    Ran strict = tornado("bench", "compare", "--threshold", "5", a, a);
    assertEquals(0, strict.status(), "a record compared with itself has no regression");
  }

  @Test
  void workerReportsTheSeedTable(@TempDir Path dir) {
    String file = dir.resolve("w.json").toString();
    Ran r =
        tornado(
            "--backend",
            "java",
            "bench",
            "worker",
            "--seconds",
            "0.3",
            "--sleep-ms",
            "5,0",
            "--json",
            file);
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("busiest thread"), r.out());
    BenchRecord rec = BenchRecords.read(Path.of(file));
    assertNotNull(rec.find("worker/step kernel=true sleep_ms=5"), rec.cases().toString());
    assertNotNull(rec.find("worker/process-cpu kernel=true sleep_ms=0"));
  }

  @Test
  void memoryMeasuresThePoolAndClearCache(@TempDir Path dir) {
    String file = dir.resolve("m.json").toString();
    Ran r =
        tornado(
            "--backend",
            "java",
            "bench",
            "memory",
            "--iterations",
            "20",
            "--sizes",
            "4096",
            "--clear-iterations",
            "3",
            "--cached-bytes",
            "1048576",
            "--json",
            file);
    assertEquals(0, r.status(), r.err());
    BenchRecord rec = BenchRecords.read(Path.of(file));
    assertNotNull(rec.find("memory/clear-cache-after-free bytes=1048576"), rec.cases().toString());
  }

  @Test
  void compareRejectsAFileThatIsNotARecord(@TempDir Path dir) throws Exception {
    Path bad = dir.resolve("x.json");
    java.nio.file.Files.writeString(bad, "[]");
    Ran r = tornado("bench", "compare", bad.toString(), bad.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("x.json"), r.err());
  }

  @Test
  void sdpaBenchRunsOnTheJavaBackendAndChecksItsOutputs(@TempDir Path dir) {
    String json = dir.resolve("sdpa.json").toString();
    Ran r =
        tornado(
            "--backend",
            "java",
            "bench",
            "sdpa",
            "--seq",
            "48",
            "--head-dim",
            "64",
            "--lq",
            "1,4",
            "--hq",
            "4",
            "--hkv",
            "2",
            "--kernel",
            "all",
            "--samples",
            "2",
            "--json",
            json);
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("vector") && r.out().contains("ok (max abs err"), r.out());
    assertTrue(r.out().contains("n/a: "), "a rung that cannot run says why: " + r.out());
    BenchRecord rec = BenchRecords.read(Path.of(json));
    assertTrue(rec.cases().size() >= 3, rec.cases().toString());
    for (var c : rec.cases()) {
      assertTrue(String.valueOf(c.parameters().get("check")).startsWith("ok"), c.toString());
      assertTrue(c.median() > 0);
    }
  }
}
