package sirocco;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sirocco.api.Bf16;
import sirocco.api.KernelContext;

/** The public API on the Java backend. Public: its kernel must be accessible to the launcher. */
public class SiroccoApiTest {
  private static Sirocco rt;

  @BeforeAll
  static void open() {
    rt = Sirocco.open(Backend.JAVA);
  }

  @AfterAll
  static void close() {
    rt.close();
  }

  public static void saxpy(KernelContext ctx, float[] x, float[] y, float a, int n) { // [n] each
    int i = ctx.globalIdx;
    if (i < n) {
      y[i] = Math.fma(a, x[i], y[i]);
    }
  }

  @Test
  void everyDtypeRoundTrips() {
    SplittableRandom r = new SplittableRandom(11);
    float[] f = new float[12];
    short[] bf = new short[12];
    short[] h = new short[12];
    int[] ints = new int[12];
    byte[] bytes = new byte[12];
    for (int i = 0; i < 12; i++) {
      f[i] = (float) r.nextDouble(-5, 5);
      bf[i] = Bf16.fromFloat(f[i]);
      h[i] = Float.floatToFloat16(f[i]);
      ints[i] = r.nextInt();
      bytes[i] = (byte) r.nextInt(256);
    }
    assertArrayEquals(f, rt.toFloats(rt.fromFloats(f, 3, 4)));
    assertArrayEquals(bf, rt.toShorts(rt.fromBf16(bf, 3, 4)));
    assertArrayEquals(h, rt.toShorts(rt.fromF16(h, 2, 6)));
    assertArrayEquals(ints, rt.toInts(rt.fromInts(ints, 12)));
    assertArrayEquals(ints, rt.toInts(rt.fromU32(ints, 4, 3)));
    assertArrayEquals(bytes, rt.toBytes(rt.fromU8(bytes, 12)));
    float[] widened = rt.toFloats(rt.fromBf16(bf, 12));
    for (int i = 0; i < 12; i++) {
      assertEquals(Float.intBitsToFloat(bf[i] << 16), widened[i]);
    }
    float[] unsigned = rt.toFloats(rt.fromU32(new int[] {-1}, 1));
    assertEquals(4294967295f, unsigned[0]);
  }

  @Test
  void zerosAreZero() {
    assertArrayEquals(new float[6], rt.toFloats(rt.zeros(DType.BF16, 2, 3)));
  }

  @Test
  void shapeMismatchNamesTheArgument() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> rt.fromFloats(new float[5], 2, 3));
    assertTrue(
        e.getMessage().contains("data has 5 elements but shape [2, 3] needs 6"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> rt.fromFloats(new float[0], -1));
    assertTrue(e.getMessage().contains("shape"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> rt.fromFloats(null, 1));
    assertTrue(e.getMessage().contains("data"), e.getMessage());
  }

  @Test
  void viewsShareTheBufferAndGatherCorrectly() {
    float[] data = new float[24];
    for (int i = 0; i < 24; i++) {
      data[i] = i;
    }
    Tensor t = rt.fromFloats(data, 2, 3, 4);
    Tensor s = t.slice(1, 1, 3); // [2, 2, 4]
    assertArrayEquals(new long[] {2, 2, 4}, s.shape());
    assertArrayEquals(
        new float[] {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23}, rt.toFloats(s));
    Tensor tr = t.transpose(0, 2); // [4, 3, 2]
    float[] trOut = rt.toFloats(tr);
    for (int a = 0; a < 4; a++) {
      for (int b = 0; b < 3; b++) {
        for (int c = 0; c < 2; c++) {
          assertEquals(data[c * 12 + b * 4 + a], trOut[a * 6 + b * 2 + c]);
        }
      }
    }
    assertTrue(!tr.isContiguous());
    assertThrows(IllegalArgumentException.class, () -> tr.reshape(24));
    assertArrayEquals(new long[] {6, 4}, t.reshape(-1, 4).shape());
    assertThrows(IllegalArgumentException.class, () -> t.slice(1, 2, 4));
    t.close();
    assertArrayEquals(
        new float[] {4, 5, 6, 7},
        rt.toFloats(s.slice(0, 0, 1).slice(1, 0, 1)),
        "view outlives base");
  }

  @Test
  void userKernelRunsThroughThePublicLaunchApi() {
    int n = 1000;
    float[] x = new float[n];
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = i;
      y[i] = 2 * i;
    }
    Tensor tx = rt.fromFloats(x);
    Tensor ty = rt.fromFloats(y);
    rt.run(Launch.of(SiroccoApiTest::saxpy).grid((n + 127) / 128).block(128).args(tx, ty, 3f, n));
    float[] out = rt.toFloats(ty);
    for (int i = 0; i < n; i++) {
      assertEquals(Math.fma(3f, x[i], y[i]), out[i]);
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> rt.run(Launch.of(SiroccoApiTest::saxpy).grid(1).block(32).args(tx, ty, 3, n)));
    assertTrue(e.getMessage().contains("argument 3 (a)"), e.getMessage());
    // Early start is the GPU's affair; the Java backend runs the launch after the previous one.
    rt.run(
        Launch.of(SiroccoApiTest::saxpy)
            .grid((n + 127) / 128)
            .block(128)
            .earlyStart()
            .args(tx, ty, 1f, n));
    float[] again = rt.toFloats(ty);
    for (int i = 0; i < n; i++) {
      assertEquals(Math.fma(1f, x[i], out[i]), again[i]);
    }
  }

  /** The quantization ops are wired (their own tests are in sirocco.quant): a zero round trip. */
  @Test
  void quantizationOpsAreWired() {
    Tensor w = rt.fromFloats(new float[64], 1, 64);
    Quantized q = rt.quantize(w, 64, 4, QuantMode.AFFINE);
    assertArrayEquals(new float[64], rt.toFloats(rt.dequantize(q)));
    Tensor y = rt.quantizedMatmul(rt.fromFloats(new float[64], 1, 64), q, true);
    assertArrayEquals(new float[1], rt.toFloats(y));
  }

  @Test
  void defaultOpenExplainsItsChoice() {
    try (Sirocco any = Sirocco.open()) {
      assertTrue(!any.backendReason().isBlank());
      assertTrue(any.describe().startsWith(any.backend().name()));
    }
  }

  @Test
  void closedInstanceRefusesWork() {
    Sirocco other = Sirocco.open(Backend.JAVA);
    other.close();
    assertThrows(IllegalStateException.class, () -> other.fromFloats(new float[1]));
  }
}
