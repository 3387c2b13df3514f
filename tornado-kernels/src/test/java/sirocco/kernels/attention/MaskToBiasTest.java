package sirocco.kernels.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.api.Bf16;
import sirocco.runtime.Dim3;
import sirocco.runtime.host.HostGridRunner;

/**
 * The mask-to-bias conversion on the Java backend against its reference, with broadcasting strides.
 */
class MaskToBiasTest {
  private static Method kernel(String name) {
    for (Method m : MaskToBias.class.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new AssertionError(name);
  }

  @Test
  void boolMaskBroadcastOverHeadsBecomesZeroOrMinusInfinity() {
    // mask [1, 1, lq, lkv] inside a larger buffer at offset 3, broadcast to mh = 2 heads.
    int lq = 3;
    int lkv = 70;
    int mh = 2;
    SplittableRandom r = new SplittableRandom(5);
    byte[] src = new byte[3 + lq * lkv];
    for (int i = 0; i < src.length; i++) {
      src[i] = (byte) r.nextInt(0, 3);
    }
    int rows = mh * lq;
    short[] dst = new short[rows * lkv];
    Arrays.fill(dst, (short) 0x7FC1);
    HostGridRunner.run(
        kernel("fromBool"),
        new Dim3(1, 4, 1),
        Dim3.of(32),
        src,
        dst,
        3,
        rows,
        mh,
        lq,
        lkv,
        0,
        0,
        lkv,
        1,
        true);
    for (int row = 0; row < rows; row++) {
      int q = row % lq;
      for (int k = 0; k < lkv; k++) {
        double ref = MaskToBias.reference(true, src[3 + q * lkv + k]);
        assertEquals((float) ref, Bf16.toFloat(dst[row * lkv + k]), "row " + row + " col " + k);
      }
    }
  }

  @Test
  void halfMaskWithColumnStrideIsRoundedToF16() {
    int lq = 2;
    int lkv = 33;
    SplittableRandom r = new SplittableRandom(6);
    short[] src = new short[2 * lq * lkv]; // column stride 2: every other element
    for (int i = 0; i < src.length; i++) {
      src[i] = Bf16.fromFloat((float) r.nextDouble(-4, 4));
    }
    short[] dst = new short[lq * lkv];
    HostGridRunner.run(
        kernel("fromHalf"),
        new Dim3(2, 1, 1),
        Dim3.of(16),
        src,
        dst,
        0,
        lq,
        1,
        lq,
        lkv,
        0,
        0,
        2 * lkv,
        2,
        true,
        false);
    for (int q = 0; q < lq; q++) {
      for (int k = 0; k < lkv; k++) {
        double ref = MaskToBias.reference(false, Bf16.toFloat(src[q * 2 * lkv + 2 * k]));
        assertEquals(Float.floatToFloat16((float) ref), dst[q * lkv + k]);
      }
    }
  }

  @Test
  void f32MaskIsRoundedToBf16() {
    float[] src = {1.0f, -3.0e38f, Float.NEGATIVE_INFINITY, 0.1f};
    short[] dst = new short[4];
    HostGridRunner.run(
        kernel("fromF32"), Dim3.of(1), Dim3.of(8), src, dst, 0, 1, 1, 1, 4, 0, 0, 4, 1, true);
    for (int k = 0; k < 4; k++) {
      assertEquals(Bf16.fromFloat(src[k]), dst[k]);
    }
  }
}
