package sirocco.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import sirocco.Backend;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;

/**
 * What the attention cases of {@link AttentionContract} run on: the runtime of the backend a
 * subclass picks, the decisions the op reports during a case, and {@link #check}, which runs one
 * {@link AttnSpec} through the public op against its float64 reference and asserts the rung.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AttentionHarness {
  static final String OP = "scaledDotProductAttention";

  Sirocco rt;
  final List<Decision> decisions = new ArrayList<>();
  private AutoCloseable listener;

  /** The backend the cases run on. */
  abstract Backend backend();

  @BeforeAll
  void open() {
    rt = Sirocco.open(backend());
  }

  @AfterAll
  void close() {
    if (rt != null) {
      rt.close();
    }
  }

  @BeforeEach
  void listen() {
    decisions.clear();
    listener = recordDecisions(decisions);
  }

  /** Appends every decision of the attention op to {@code into} until the handle is closed. */
  static AutoCloseable recordDecisions(List<Decision> into) {
    Consumer<Decision> l =
        d -> {
          if (OP.equals(d.op())) {
            synchronized (into) {
              into.add(d);
            }
          }
        };
    return Explain.listen(l);
  }

  @AfterEach
  void unlisten() throws Exception {
    listener.close();
  }

  /**
   * The rung a case takes: exactly the expected one on the Java backend. A GPU build with the cuDNN
   * path may legitimately take "cudnn" instead; the result is checked against the same reference.
   */
  void assertRung(String expected, Decision d, String what) {
    if (backend() == Backend.CUDA && "cudnn".equals(d.chosen())) {
      return;
    }
    assertEquals(expected, d.chosen(), what + ": " + d.explain());
  }

  // ---- running one case ----

  /** Runs a case, checks shape, dtype, every element against the reference, and the rung. */
  Decision check(AttnSpec s) {
    AttnSpec.Call c = s.build(rt);
    int before = decisions.size();
    Tensor out =
        rt.scaledDotProductAttention(c.q(), c.k(), c.v(), c.scale(), c.mask(), c.options());
    assertArrayEquals(s.outShape(), out.shape(), "output shape of " + s);
    assertEquals(s.dtype, out.dtype(), "output dtype of " + s);
    float[] got = rt.toFloats(out);
    double[] ref = s.reference();
    assertEquals(ref.length, got.length);
    double[] tol = s.tolerance();
    int bad = 0;
    int worst = -1;
    double worstRatio = 0;
    for (int i = 0; i < ref.length; i++) {
      double err = Math.abs(got[i] - ref[i]);
      double bound = tol[0] + tol[1] * Math.abs(ref[i]);
      double ratio = Float.isNaN(got[i]) ? Double.POSITIVE_INFINITY : err / bound;
      if (!(ratio <= 1)) {
        bad++;
      }
      if (!(ratio <= worstRatio)) {
        worstRatio = ratio;
        worst = i;
      }
    }
    if (bad > 0) {
      fail(
          s
              + ": "
              + bad
              + " of "
              + ref.length
              + " elements out of bounds; worst at "
              + worst
              + ": got "
              + got[worst]
              + ", want "
              + ref[worst]
              + " (bound "
              + tol[0]
              + " + "
              + tol[1]
              + "·|ref|)");
    }
    assertEquals(before + 1, decisions.size(), "one decision reported for " + s);
    Decision d = decisions.get(decisions.size() - 1);
    if (s.expectRung != null) {
      assertRung(s.expectRung, d, s.toString());
    }
    for (Tensor t : List.of(out, c.q(), c.k(), c.v())) {
      t.close();
    }
    return d;
  }

  static AttnSpec spec(String name, String rung) {
    AttnSpec s = new AttnSpec(name);
    s.expectRung = rung;
    return s;
  }

  /** A hash-uniform [0, 1) value of (seed, b, h, i, j): masks independent of draw order. */
  static double hash(long seed, int b, int h, int i, int j) {
    long x = seed * 0x9E3779B97F4A7C15L;
    x = (x ^ b) * 0xBF58476D1CE4E5B9L;
    x = (x ^ h) * 0x94D049BB133111EBL;
    x = (x ^ i) * 0xBF58476D1CE4E5B9L;
    x = (x ^ j) * 0x94D049BB133111EBL;
    x ^= x >>> 31;
    x *= 0xBF58476D1CE4E5B9L;
    x ^= x >>> 29;
    return (x >>> 11) * 0x1.0p-53;
  }
}
