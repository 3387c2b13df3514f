package sirocco.kernels.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.kernels.diff.Prepared.Kind;
import sirocco.kernels.diff.Prepared.Out;
import sirocco.kernels.diff.Prepared.Tolerance;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.Dim3;

/**
 * The comparison rules of the differential suite, on hand-made results (no launch): the GPU test
 * cannot run here, so what it would report is checked directly.
 */
class DifferTest {
  private static final Method COPY_F32 = method("copyF32");

  private static Method method(String name) {
    for (Method m : StridedCopy.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalStateException(name);
  }

  /** A copyF32 launch whose dst must be written at 1..3 (element 0 and 4 stay poison). */
  private static Prepared prepared(Tolerance t, float[] src, float[] dst) {
    return new Prepared(
        COPY_F32,
        Dim3.of(1),
        Dim3.of(32),
        new Object[] {src, dst, 3, 0, 1, 1, 1, 3, 0, 0, 0, 1},
        List.of(new Out(1, Kind.F32, t, true, i -> i >= 1 && i <= 3, null)),
        "test",
        "test");
  }

  /** What {@link Differ#run} returns: the arrays at their argument positions, scalars null. */
  private static Object[] got(Object src, Object dst) {
    Object[] a = new Object[12];
    a[0] = src;
    a[1] = dst;
    return a;
  }

  private static float poison() {
    return Float.intBitsToFloat(Gen.POISON_F32);
  }

  @Test
  void aMustWriteElementLeftPoisonedIsReported() {
    float[] src = {1, 2, 3};
    Prepared p = prepared(Tolerance.EXACT, src, Gen.poisonF32(5));
    Object[] got = got(src.clone(), new float[] {poison(), 1, poison(), 3, poison()});
    List<String> problems = Differ.checkAlone(p, got, "GPU");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("unwritten") && problems.get(0).contains("at 2"));
  }

  @Test
  void aWriteOutsideTheRangeIsReported() {
    float[] src = {1, 2, 3};
    Prepared p = prepared(Tolerance.EXACT, src, Gen.poisonF32(5));
    Object[] got = got(src.clone(), new float[] {poison(), 1, 2, 3, 0});
    List<String> problems = Differ.checkAlone(p, got, "GPU");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("outside") && problems.get(0).contains("at 4"));
  }

  @Test
  void aChangedInputIsReported() {
    float[] src = {1, 2, 3};
    Prepared p = prepared(Tolerance.EXACT, src, Gen.poisonF32(5));
    Object[] got = got(new float[] {1, 2, 4}, new float[] {poison(), 1, 2, 3, poison()});
    List<String> problems = Differ.checkAlone(p, got, "GPU");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("changed input src"));
  }

  @Test
  void exactOutputsRejectOneUlpAndSignedZeros() {
    float[] src = {1, 2, 3};
    Prepared p = prepared(Tolerance.EXACT, src, Gen.poisonF32(5));
    Object[] cpu = got(src, new float[] {poison(), 1f, 0f, 3f, poison()});
    Object[] gpu = got(src, new float[] {poison(), Math.nextUp(1f), -0f, 3f, poison()});
    Differ.Result r = Differ.compare(p, cpu, gpu);
    assertEquals(2, r.problems().size(), r.problems().toString());
    assertEquals(5, r.compared());
    assertEquals(Math.ulp(1f), r.maxAbs(), 0);
  }

  @Test
  void toleranceAcceptsWithinAndRejectsBeyond() {
    float[] src = {1, 2, 3};
    // rel 1e-3 of the larger value plus 1e-3 of the array's largest magnitude (100).
    Tolerance t = new Tolerance(1e-3, 1e-3, "test");
    Prepared p = prepared(t, src, Gen.poisonF32(5));
    Object[] cpu = got(src, new float[] {poison(), 100f, 1f, 0f, poison()});
    Object[] ok = got(src, new float[] {poison(), 100.09f, 1.05f, 0.099f, poison()});
    assertTrue(Differ.compare(p, cpu, ok).ok(), Differ.compare(p, cpu, ok).problems().toString());
    Object[] bad = got(src, new float[] {poison(), 100f, 1.2f, 0f, poison()});
    assertEquals(1, Differ.compare(p, cpu, bad).problems().size());
  }

  @Test
  void nanOnOneSideOnlyAndInfinitiesOfOtherSignAreMismatches() {
    float[] src = {1, 2, 3};
    Tolerance t = new Tolerance(0.5, 0.5, "loose");
    Prepared p = prepared(t, src, Gen.poisonF32(5));
    Object[] cpu =
        got(src, new float[] {poison(), Float.NaN, Float.POSITIVE_INFINITY, 1f, poison()});
    Object[] gpu =
        got(src, new float[] {poison(), 1f, Float.NEGATIVE_INFINITY, Float.NaN, poison()});
    assertEquals(3, Differ.compare(p, cpu, gpu).problems().size());
  }

  @Test
  void packedOutputsCompareBits() {
    Method copy32 = method("copy32");
    int[] src = {1, 2, 3};
    Prepared p =
        new Prepared(
            copy32,
            Dim3.of(1),
            Dim3.of(32),
            new Object[] {src, Gen.poison32(3), 3, 0, 0, 1, 1, 3, 0, 0, 0, 1},
            List.of(Out.bits(1)),
            "test",
            "test");
    Object[] cpu = got(src, new int[] {1, 2, 3});
    Object[] gpu = got(src, new int[] {1, 2, 0x80000003});
    Differ.Result r = Differ.compare(p, cpu, gpu);
    assertEquals(1, r.problems().size(), r.problems().toString());
    assertTrue(r.problems().get(0).contains("0x80000003"));
  }
}
