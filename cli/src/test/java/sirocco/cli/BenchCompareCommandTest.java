package sirocco.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.bench.BenchCase;
import sirocco.bench.BenchRecord;
import sirocco.bench.BenchRecords;
import sirocco.bench.Stats;

/** {@code bench compare --json}: the table's rows for machines, on two hand-made records. */
class BenchCompareCommandTest {
  private static BenchCase us(String name, double median) {
    return BenchCase.of(name, Map.of(), "us", Stats.single(median));
  }

  private static Path record(Path dir, String file, String commit, List<BenchCase> cases) {
    BenchRecord r =
        new BenchRecord(
            BenchRecord.FORMAT,
            "tornado bench test",
            "0",
            commit,
            "2026-01-01T00:00:00Z",
            new BenchRecord.Device("java", "Java backend", "-", "-"),
            null,
            Map.of(),
            cases);
    Path p = dir.resolve(file);
    BenchRecords.write(r, p.toString(), new PrintWriter(new StringWriter()));
    return p;
  }

  @Test
  void jsonHoldsEveryRowWithItsVerdictAndNullsWhereNoNumberExists(@TempDir Path dir)
      throws Exception {
    Path old =
        record(
            dir,
            "old.json",
            "aaa",
            List.of(
                us("slower", 10),
                us("from-zero", 0),
                us("gone", 5),
                BenchCase.of("tput", Map.of("n", 4), "GB/s", Stats.single(100))
                    .asHigherIsBetter()));
    Path now =
        record(
            dir,
            "new.json",
            "bbb",
            List.of(
                us("slower", 12),
                us("from-zero", 3),
                us("new", 1),
                BenchCase.of("tput", Map.of("n", 4), "GB/s", Stats.single(130))
                    .asHigherIsBetter()));
    Path json = dir.resolve("out/compare.json");
    TornadoCliTest.Run r =
        TornadoCliTest.run(
            "bench",
            "compare",
            "--fail-on-regression",
            "--json",
            json.toString(),
            old.toString(),
            now.toString());
    assertEquals(1, r.code(), "two regressions beyond 10%: " + r.out() + r.err());
    assertTrue(r.out().contains("| case | current | previous | ratio | |"), r.out());

    JsonNode doc = Json.MAPPER.readTree(Files.readString(json));
    assertEquals("aaa", doc.get("previous").get("commit").asText());
    assertEquals("bbb", doc.get("current").get("commit").asText());
    assertEquals("Java backend", doc.get("current").get("device").get("name").asText());
    assertEquals(10.0, doc.get("thresholdPercent").asDouble(), 1e-9);
    assertEquals(5, doc.get("cases").asInt());
    assertEquals(2, doc.get("regressions").asInt());
    assertEquals(1, doc.get("improvements").asInt());

    // The table's order: ratio descending (0 -> 3 is unbounded), then new and gone by name.
    JsonNode rows = doc.get("rows");
    assertEquals(5, rows.size());
    String[][] want = {
      {"from-zero", "regression"},
      {"tput n=4", "improvement"},
      {"slower", "regression"},
      {"gone", "gone"},
      {"new", "new"}
    };
    for (int i = 0; i < want.length; i++) {
      assertEquals(want[i][0], rows.get(i).get("case").asText(), rows.toString());
      assertEquals(want[i][1], rows.get(i).get("verdict").asText(), rows.toString());
    }
    JsonNode fromZero = rows.get(0);
    assertTrue(fromZero.get("ratio").isNull(), "no finite ratio against 0: " + fromZero);
    assertEquals(3.0, fromZero.get("current").asDouble());
    assertEquals(0.0, fromZero.get("previous").asDouble());
    assertEquals("GB/s", rows.get(1).get("unit").asText());
    assertEquals(1.3, rows.get(1).get("ratio").asDouble(), 1e-12);
    assertEquals(1.2, rows.get(2).get("ratio").asDouble(), 1e-12);
    assertTrue(rows.get(3).get("current").isNull(), rows.get(3).toString());
    assertEquals(5.0, rows.get(3).get("previous").asDouble());
    assertTrue(rows.get(4).get("previous").isNull(), rows.get(4).toString());
    assertTrue(rows.get(4).get("ratio").isNull(), rows.get(4).toString());
  }

  @Test
  void jsonToStandardOutputFollowsTheTable(@TempDir Path dir) throws Exception {
    Path a = record(dir, "a.json", "aaa", List.of(us("x", 2)));
    TornadoCliTest.Run r =
        TornadoCliTest.run("bench", "compare", "--json", "-", a.toString(), a.toString());
    assertEquals(0, r.code(), r.err());
    String out = r.out();
    int brace = out.indexOf("\n{");
    assertTrue(brace > out.indexOf("| x |"), "table first, then the JSON: " + out);
    JsonNode doc = Json.MAPPER.readTree(out.substring(brace + 1));
    assertEquals(1.0, doc.get("rows").get(0).get("ratio").asDouble());
    assertEquals("same", doc.get("rows").get(0).get("verdict").asText());
  }
}
