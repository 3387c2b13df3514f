package sirocco.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LadderTest {
  private final Ladder<Integer> ladder =
      new Ladder<>(
          "op",
          List.of(
              new Ladder.Rung<>("fast", n -> n > 3 ? "n > 3" : null),
              new Ladder.Rung<>("medium", n -> n % 2 == 0 ? null : "n is odd"),
              new Ladder.Rung<>("fallback", n -> null)));

  @Test
  void firstAcceptingRungWinsAndEarlierReasonsAreKept() {
    assertEquals("fast", ladder.choose(2).chosen());
    Decision d = ladder.choose(5);
    assertEquals("fallback", d.chosen());
    assertEquals("op -> fallback (rejected: fast: n > 3; medium: n is odd)", d.explain());
    assertEquals("medium", ladder.choose(6).chosen());
  }

  @Test
  void forcedChoiceThrowsWithEveryReasonInsteadOfFallingBack() {
    UnsupportedOperationException e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> ladder.chooseAmong(5, Set.of("fast", "medium")));
    assertTrue(
        e.getMessage().contains("fast: n > 3") && e.getMessage().contains("medium: n is odd"),
        e.getMessage());
    assertEquals("medium", ladder.chooseAmong(6, Set.of("fast", "medium")).chosen());
  }

  @Test
  void listenersSeeDecisions() throws Exception {
    List<String> seen = new ArrayList<>();
    try (AutoCloseable h = Explain.listen(d -> seen.add(d.chosen()))) {
      Explain.report(ladder.choose(1));
    }
    Explain.report(ladder.choose(1));
    assertEquals(List.of("fast"), seen);
  }
}
