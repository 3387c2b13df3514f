package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import sirocco.jit.testkernels.WgmmaKernels;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * {@code ctx.warpgroupMmaBf16} against float64 products written from the documented operand layouts
 * ({@link WgmmaKernels}): on the Java backend always, on an sm_90 GPU where there is one. Inputs
 * are bf16 values with few significant bits, so every product and partial sum is exact in float and
 * both sides must match the reference to the bit.
 */
class WarpgroupMmaTest {
  private static final int M = 64;
  private static final int N = 128;
  private static final int K = 16;

  @Test
  void chainedProductsOnTheJavaBackend() {
    chained(Devices.java());
  }

  @Test
  void aReadAccumulatorIsKeptOnTheJavaBackend() {
    kept(Devices.java());
  }

  @Test
  @GpuTest
  void chainedProductsOnTheGpu() {
    chained(hopper());
  }

  @Test
  @GpuTest
  void aReadAccumulatorIsKeptOnTheGpu() {
    kept(hopper());
  }

  private static Device hopper() {
    Device d = Devices.cuda(0);
    Assumptions.assumeTrue(
        d.info().computeMajor() == 9 && d.info().computeMinor() == 0,
        "warpgroup products need sm_90");
    return d;
  }

  private static void chained(Device d) {
    short[] a = operand(M * K, 1);
    short[] b = operand(N * K, 2);
    float[] out = run(d, "chain", a, b, M * N);
    double[] ab = product(a, b);
    for (int i = 0; i < M * N; i++) {
      int at = i;
      assertTrue(out[i] == 3 * ab[i], () -> "D[" + at / N + "][" + at % N + "]");
    }
  }

  private static void kept(Device d) {
    short[] a = operand(M * K, 3);
    short[] b = operand(N * K, 4);
    float[] out = run(d, "keep", a, b, 2 * M * N);
    double[] ab = product(a, b);
    for (int i = 0; i < M * N; i++) {
      int at = i;
      assertTrue(out[i] == ab[i], () -> "C[" + at / N + "][" + at % N + "]");
      assertTrue(out[M * N + i] == 2 * ab[i], () -> "C + AB [" + at / N + "][" + at % N + "]");
    }
  }

  /** bf16 values k / 8 for k in -16..16: products and sums of 16 of them are exact in float. */
  private static short[] operand(int n, long seed) {
    Random r = new Random(seed);
    short[] v = new short[n];
    for (int i = 0; i < n; i++) {
      float f = (r.nextInt(33) - 16) / 8f;
      v[i] = (short) (Float.floatToRawIntBits(f) >>> 16);
    }
    return v;
  }

  /** A (64 x 16 row major) times B (stored column by column, b[16 n + k]), in float64. */
  private static double[] product(short[] a, short[] b) {
    double[] d = new double[M * N];
    for (int m = 0; m < M; m++) {
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int k = 0; k < K; k++) {
          s += bf16(a[m * K + k]) * bf16(b[n * K + k]);
        }
        d[m * N + n] = s;
      }
    }
    return d;
  }

  private static double bf16(short h) {
    return Float.intBitsToFloat(h << 16);
  }

  private static float[] run(Device d, String kernel, short[] a, short[] b, int outLength) {
    Method m = TestKernels.method(WgmmaKernels.class, kernel);
    DeviceBuffer da = d.allocate(ElementType.ofArray(short[].class), a.length);
    DeviceBuffer db = d.allocate(ElementType.ofArray(short[].class), b.length);
    DeviceBuffer dd = d.allocate(ElementType.ofArray(float[].class), outLength);
    try {
      d.upload(a, 0, da, 0, a.length, d.defaultStream());
      d.upload(b, 0, db, 0, b.length, d.defaultStream());
      float[] poison = new float[outLength];
      java.util.Arrays.fill(poison, Float.NaN);
      d.upload(poison, 0, dd, 0, outLength, d.defaultStream());
      d.launch(
          KernelLaunch.of(m, new Dim3(1, 1, 1), new Dim3(128, 1, 1), new Object[] {da, db, dd}));
      float[] out = new float[outLength];
      d.download(dd, 0, out, 0, outLength, d.defaultStream());
      d.synchronize();
      return out;
    } finally {
      da.close();
      db.close();
      dd.close();
    }
  }
}
