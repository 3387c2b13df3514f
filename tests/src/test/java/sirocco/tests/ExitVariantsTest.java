package sirocco.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.bench.ExitVariants;

/**
 * Exit-safe teardown on the Java backend: every exit variant once, each in its own JVM, with device
 * work in flight. The GPU machine runs the same program 200 times per variant
 * (bench/gpu-runtime.sh).
 */
class ExitVariantsTest {
  @Test
  void everyExitVariantEndsWithItsStatusAndACleanStderr() throws Exception {
    StringWriter text = new StringWriter();
    ExitVariants.Report r =
        ExitVariants.run(ExitVariants.Options.defaults("java"), new PrintWriter(text, true));
    System.out.println(text);
    assertEquals(ExitVariants.Variant.values().length, r.outcomes().size());
    for (ExitVariants.Outcome o : r.outcomes()) {
      assertEquals(1, o.runs());
      assertEquals(0, o.hangs(), o.variant().id + " hung: " + o.firstProblem());
      assertEquals(0, o.aborts(), o.variant().id + " aborted: " + o.firstProblem());
      assertEquals(
          1, o.matched(), o.variant().id + " exit status: " + o.actual() + "; " + o.firstProblem());
      assertEquals(1, o.stderrClean(), o.variant().id + " wrote to stderr: " + o.firstProblem());
    }
    assertTrue(r.passed());
    assertTrue(text.toString().contains("all variants matched with clean stderr"));
  }

  @Test
  void progressCountsEveryRunOnceInOrderBeforeTheTable() throws Exception {
    List<String> calls = new ArrayList<>();
    StringWriter text = new StringWriter();
    PrintWriter out = new PrintWriter(text, true);
    ExitVariants.Options o =
        new ExitVariants.Options(
            List.of(ExitVariants.Variant.DEFAULT_RETURN, ExitVariants.Variant.DEFAULT_EXIT),
            3,
            3,
            "java",
            100,
            "kernel",
            60);
    ExitVariants.Report r =
        ExitVariants.run(
            o,
            out,
            (done, total) -> {
              synchronized (calls) {
                calls.add(done + "/" + total + (text.toString().isEmpty() ? "" : " after output"));
              }
            });
    assertTrue(r.passed(), text.toString());
    assertEquals(List.of("1/6", "2/6", "3/6", "4/6", "5/6", "6/6"), calls);
  }

  @Test
  void runsAreClassifiedByStatusAndStderr() {
    var wrong = new ExitVariants.Run(ExitVariants.Variant.DEFAULT_RETURN, 3, false, "", "");
    assertTrue(!wrong.matched() && !wrong.aborted());
    var dirty =
        new ExitVariants.Run(
            ExitVariants.Variant.DEFAULT_EXIT, 3, false, "", "Exception in thread \"main\"");
    assertTrue(dirty.matched() && !dirty.stderrClean());
    var abort = new ExitVariants.Run(ExitVariants.Variant.DEFAULT_EXIT, 134, false, "", "");
    assertTrue(abort.aborted() && !abort.matched());
    var hang = new ExitVariants.Run(ExitVariants.Variant.SIGTERM, -1, true, "", "");
    assertTrue(!hang.matched() && !hang.aborted());
    List<String> cmd =
        ExitVariants.command(ExitVariants.Variant.HALT, ExitVariants.Options.defaults("java"));
    assertTrue(cmd.contains("--enable-native-access=ALL-UNNAMED"), cmd.toString());
    assertTrue(cmd.contains("sirocco.bench.ExitVariantChild"), cmd.toString());
    assertTrue(cmd.contains("halt"), cmd.toString());
  }
}
