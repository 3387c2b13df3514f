package sirocco.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StatsTest {
  @Test
  void percentilesInterpolateBetweenRanksLikeNumpy() {
    // numpy.percentile([1..11], [50, 10, 90]) = 6, 2, 10; of [1, 2, 3, 4]: 2.5, 1.3, 3.7
    double[] eleven = new double[11];
    for (int i = 0; i < 11; i++) {
      eleven[10 - i] = i + 1; // unsorted input
    }
    Stats s = Stats.of(eleven);
    assertEquals(6, s.median(), 1e-12);
    assertEquals(2, s.p10(), 1e-12);
    assertEquals(10, s.p90(), 1e-12);
    assertEquals(11, s.samples());
    Stats four = Stats.of(new double[] {4, 3, 2, 1});
    assertEquals(2.5, four.median(), 1e-12);
    assertEquals(1.3, four.p10(), 1e-12);
    assertEquals(3.7, four.p90(), 1e-12);
    assertEquals(11, eleven[0], "the input is not modified");
  }

  @Test
  void nanosecondSamplesAreReportedInMicroseconds() {
    Stats s = Stats.ofNanosAsMicros(new long[] {1000, 2000, 3000});
    assertEquals(2.0, s.median(), 1e-12);
    assertEquals(Stats.single(7), new Stats(7, 7, 7, 1));
    assertThrows(IllegalArgumentException.class, () -> Stats.of(new double[0]));
  }

  @Test
  void timingTakesOneSamplePerRunAfterWarmup() {
    int[] runs = {0};
    Stats s = Timing.sample(3, 10, () -> runs[0]++);
    assertEquals(13, runs[0]);
    assertEquals(10, s.samples());
  }
}
