package sirocco.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sirocco.runtime.host.HostDevice;

/**
 * Records made by running real (tiny) benchmarks, written to files and read back, then compared.
 * The expected ratios are computed from the records themselves, never written by hand.
 */
class BenchCompareTest {
  private static final HostDevice DEVICE = new HostDevice();

  private static BenchRecord tinySyncRecord() throws InterruptedException {
    return SyncBench.run(
        DEVICE,
        new SyncBench.Options(List.of(0, 100), 5, 1, List.of(2), 2),
        new PrintWriter(new StringWriter()));
  }

  /** A copy of {@code r} with case {@code index}'s figures multiplied by {@code factor}. */
  private static BenchRecord scaled(BenchRecord r, int index, double factor) {
    List<BenchCase> cases = new ArrayList<>(r.cases());
    BenchCase c = cases.get(index);
    cases.set(
        index,
        new BenchCase(
            c.name(),
            c.parameters(),
            c.unit(),
            c.median() * factor,
            c.p10() * factor,
            c.p90() * factor,
            c.samples(),
            c.reference(),
            c.referenceNote(),
            c.higherIsBetter()));
    return new BenchRecord(
        r.format(),
        r.tool(),
        r.version(),
        r.commit(),
        r.date(),
        r.device(),
        r.host(),
        r.parameters(),
        cases);
  }

  @Test
  void recordsRoundTripThroughJson(@TempDir Path dir) throws Exception {
    BenchRecord r = tinySyncRecord();
    Path file = dir.resolve("sync.json");
    BenchRecords.write(r, file.toString(), new PrintWriter(new StringWriter()));
    BenchRecord back = BenchRecords.read(file);
    assertEquals(r, back);
    assertEquals(BenchRecord.FORMAT, back.format());
    assertEquals("tornado bench sync", back.tool());
    assertEquals("java", back.device().backend());
    assertNotNull(back.commit());
    assertFalse(back.version().contains("${"), "the version is filtered in: " + back.version());
    String json = Files.readString(file);
    for (String field :
        List.of("\"median\"", "\"p10\"", "\"p90\"", "\"samples\"", "\"unit\"", "\"date\"")) {
      assertTrue(json.contains(field), field + " in " + json);
    }
    BenchCase blocking = back.find("sync/blocking kernel_us=0");
    assertNotNull(blocking, "cases are found by name and parameters");
    assertTrue(blocking.p10() <= blocking.median() && blocking.median() <= blocking.p90());
  }

  @Test
  void compareGivesEveryCaseItsRatioSortedLargestFirst(@TempDir Path dir) throws Exception {
    BenchRecord previous = tinySyncRecord();
    BenchRecord current = tinySyncRecord();
    Path a = dir.resolve("a.json");
    Path b = dir.resolve("b.json");
    PrintWriter sink = new PrintWriter(new StringWriter());
    BenchRecords.write(previous, a.toString(), sink);
    BenchRecords.write(current, b.toString(), sink);
    BenchCompare.Result r = BenchCompare.compare(BenchRecords.read(a), BenchRecords.read(b), 0.10);
    assertEquals(current.cases().size(), r.rows().size());
    for (BenchCompare.Row row : r.rows()) {
      BenchCase c = current.find(row.key());
      BenchCase p = previous.find(row.key());
      assertEquals(c.median(), row.current(), 0);
      assertEquals(p.median(), row.previous(), 0);
      // current / previous; a zero previous gives 1 when both are zero, else infinity.
      double expected =
          p.median() == 0
              ? (c.median() == 0 ? 1 : Double.POSITIVE_INFINITY)
              : c.median() / p.median();
      assertEquals(expected, row.ratio(), 1e-12);
      boolean beyond = Math.abs(row.ratio() - 1) > 0.10;
      assertEquals(beyond, row.verdict() != BenchCompare.Verdict.SAME, row.toString());
    }
    for (int i = 1; i < r.rows().size(); i++) {
      assertTrue(r.rows().get(i - 1).ratio() >= r.rows().get(i).ratio(), "sorted by ratio");
    }
  }

  @Test
  void aSlowerCaseIsFlaggedAsARegressionAndAFasterOneAsAnImprovement() throws Exception {
    BenchRecord previous = tinySyncRecord();
    int slow = 0;
    int fast = 2;
    BenchRecord current = scaled(scaled(previous, slow, 2.0), fast, 0.5);
    BenchCompare.Result r = BenchCompare.compare(previous, current, 0.10);
    assertEquals(2, r.rows().size() - r.rows().stream().filter(x -> x.ratio() == 1.0).count());
    BenchCompare.Row first = r.rows().get(0);
    assertEquals(previous.cases().get(slow).key(), first.key(), "the largest ratio comes first");
    assertEquals(2.0, first.ratio(), 1e-12);
    assertEquals(BenchCompare.Verdict.REGRESSION, first.verdict());
    BenchCompare.Row last = r.rows().get(r.rows().size() - 1);
    assertEquals(previous.cases().get(fast).key(), last.key());
    assertEquals(BenchCompare.Verdict.IMPROVEMENT, last.verdict());
    assertEquals(1, r.regressions());
    assertEquals(1, r.improvements());
    // For a throughput the same ratio is the other way round.
    BenchRecord tput = scaled(previous, slow, 1.0);
    List<BenchCase> cases = new ArrayList<>(tput.cases());
    cases.set(slow, cases.get(slow).asHigherIsBetter());
    BenchRecord prevT =
        new BenchRecord(
            tput.format(),
            tput.tool(),
            tput.version(),
            tput.commit(),
            tput.date(),
            tput.device(),
            tput.host(),
            tput.parameters(),
            cases);
    BenchCompare.Row t = BenchCompare.compare(prevT, scaled(prevT, slow, 2.0), 0.10).rows().get(0);
    assertEquals(BenchCompare.Verdict.IMPROVEMENT, t.verdict());
    StringWriter text = new StringWriter();
    BenchCompare.print(r, new PrintWriter(text));
    assertTrue(text.toString().contains("| case | current | previous | ratio |"), text.toString());
    assertTrue(text.toString().contains("**regression**"), text.toString());
  }

  @Test
  void casesOnlyInOneRecordAreListedAsNewOrGone() throws Exception {
    BenchRecord previous = tinySyncRecord();
    BenchCase extra = BenchCase.of("sync/extra", Map.of("kernel_us", 1), "us", Stats.single(1));
    List<BenchCase> cases = new ArrayList<>(previous.cases().subList(1, previous.cases().size()));
    cases.add(extra);
    BenchRecord current =
        new BenchRecord(
            previous.format(),
            previous.tool(),
            previous.version(),
            previous.commit(),
            previous.date(),
            previous.device(),
            previous.host(),
            previous.parameters(),
            cases);
    BenchCompare.Result r = BenchCompare.compare(previous, current, 0.10);
    assertTrue(
        r.rows().stream()
            .anyMatch(x -> x.key().equals(extra.key()) && x.verdict() == BenchCompare.Verdict.NEW));
    assertTrue(
        r.rows().stream()
            .anyMatch(
                x ->
                    x.key().equals(previous.cases().get(0).key())
                        && x.verdict() == BenchCompare.Verdict.GONE));
  }

  @Test
  void aFileThatIsNotARecordIsRejectedByName(@TempDir Path dir) throws Exception {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"hello\": 1}");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchRecords.read(bad));
    assertTrue(e.getMessage().contains("bad.json"), e.getMessage());
  }
}
