package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.jit.testkernels.SwizzledWgmmaKernels;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * {@code ctx.warpgroupMmaBf16Swizzled} against float64 products written from the math ({@link
 * SwizzledWgmmaKernels}): B staged by plain stores where the swizzle model puts it, and B brought
 * in by a tile copy. On the Java backend always; on an sm_90 GPU where there is one, which checks
 * the descriptor's swizzle fields and the model against the hardware. Inputs are bf16 values k / 8
 * with few significant bits, so every product and partial sum is exact in float and both sides must
 * match the reference to the bit.
 */
class SwizzledWarpgroupMmaTest {
  private static final int M = 64;
  private static final int N = 128;

  @ParameterizedTest
  @ValueSource(ints = {32, 64, 128})
  void storedTileOnTheJavaBackend(int swizzle) {
    check(Devices.java(), "storedTile", swizzle);
  }

  @ParameterizedTest
  @ValueSource(ints = {32, 64, 128})
  void copiedTileOnTheJavaBackend(int swizzle) {
    check(Devices.java(), "copiedTile", swizzle);
  }

  @ParameterizedTest
  @ValueSource(ints = {32, 64, 128})
  @GpuTest
  void storedTileOnTheGpu(int swizzle) {
    check(hopper(), "storedTile", swizzle);
  }

  @ParameterizedTest
  @ValueSource(ints = {32, 64, 128})
  @GpuTest
  void copiedTileOnTheGpu(int swizzle) {
    check(hopper(), "copiedTile", swizzle);
  }

  private static Device hopper() {
    Device d = Devices.cuda(0);
    Assumptions.assumeTrue(
        d.info().computeMajor() == 9 && d.info().computeMinor() == 0,
        "warpgroup products need sm_90");
    return d;
  }

  private static void check(Device d, String kernel, int swizzle) {
    int k = swizzle / 2;
    short[] a = operand(M * k, 11 + swizzle);
    short[] b = operand(N * k, 12 + swizzle);
    Method m = TestKernels.method(SwizzledWgmmaKernels.class, kernel);
    DeviceBuffer da = d.allocate(ElementType.I16, a.length);
    DeviceBuffer db = d.allocate(ElementType.I16, b.length);
    DeviceBuffer dd = d.allocate(ElementType.F32, M * N);
    DeviceBuffer map = null;
    float[] out = new float[M * N];
    try {
      d.upload(a, 0, da, 0, a.length, d.defaultStream());
      d.upload(b, 0, db, 0, b.length, d.defaultStream());
      float[] poison = new float[M * N];
      Arrays.fill(poison, Float.NaN);
      d.upload(poison, 0, dd, 0, poison.length, d.defaultStream());
      Object bArg = db;
      if (kernel.equals("copiedTile")) {
        map = d.tileMap(db, 0, k, N, k, k, N, swizzle);
        bArg = map;
      }
      d.launch(
          KernelLaunch.of(
              m, new Dim3(1, 1, 1), new Dim3(128, 1, 1), new Object[] {da, bArg, dd, swizzle}));
      d.download(dd, 0, out, 0, out.length, d.defaultStream());
      d.synchronize();
    } finally {
      da.close();
      db.close();
      dd.close();
      if (map != null) {
        map.close();
      }
    }
    for (int r = 0; r < M; r++) {
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int j = 0; j < k; j++) {
          s += bf16(a[r * k + j]) * bf16(b[n * k + j]);
        }
        int rr = r;
        int nn = n;
        double want = s;
        assertTrue(
            out[r * N + n] == want,
            () ->
                kernel
                    + " swizzle "
                    + swizzle
                    + ": D["
                    + rr
                    + "]["
                    + nn
                    + "] = "
                    + out[rr * N + nn]
                    + ", want "
                    + want);
      }
    }
  }

  /** bf16 values k / 8 for k in -16..16: products and sums of 64 of them are exact in float. */
  private static short[] operand(int n, long seed) {
    Random r = new Random(seed);
    short[] v = new short[n];
    for (int i = 0; i < n; i++) {
      float f = (r.nextInt(33) - 16) / 8f;
      v[i] = (short) (Float.floatToRawIntBits(f) >>> 16);
    }
    return v;
  }

  private static double bf16(short h) {
    return Float.intBitsToFloat(h << 16);
  }
}
