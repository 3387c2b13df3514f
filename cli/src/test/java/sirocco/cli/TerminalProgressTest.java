package sirocco.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The exit-variants progress line: where it is drawn, and that it never reaches captured output.
 */
class TerminalProgressTest {
  @Test
  void rewritesOneLineAndBlanksItAfterTheLastRun() {
    StringWriter text = new StringWriter();
    TerminalProgress p = new TerminalProgress(new PrintWriter(text), "exit-variants");
    p.runsDone(1, 12);
    p.runsDone(2, 12);
    p.runsDone(12, 12);
    p.clear(); // already blank: nothing more
    String line = "exit-variants: 12/12 runs done";
    assertEquals(
        "\rexit-variants: 1/12 runs done"
            + "\rexit-variants: 2/12 runs done"
            + "\r"
            + line
            + "\r"
            + " ".repeat(line.length())
            + "\r",
        text.toString());
  }

  @Test
  void clearBlanksALineLeftByRunsThatStoppedEarly() {
    StringWriter text = new StringWriter();
    TerminalProgress p = new TerminalProgress(new PrintWriter(text), "x");
    p.runsDone(1, 5);
    p.clear();
    assertEquals(
        "\rx: 1/5 runs done\r" + " ".repeat("x: 1/5 runs done".length()) + "\r", text.toString());
  }

  @Test
  void exitVariantsWithoutAConsolePrintsOnlyTheTable() {
    // Surefire's test JVM has no console, as a pipe or a file has none.
    assertNull(TerminalProgress.forConsole(new PrintWriter(new StringWriter()), "x"));
    TornadoCliTest.Run r =
        TornadoCliTest.run(
            "--backend", "java", "exit-variants", "--long-ms", "200", "default-return", "halt");
    System.clearProperty("sirocco.backend");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("all variants matched with clean stderr"), r.out());
    assertFalse(r.out().contains("runs done") || r.out().contains("\r"), r.out());
    assertEquals("", r.err(), "nothing on stderr");
  }
}
