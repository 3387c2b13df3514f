// Compiles every @Kernel validateWith set of sirocco.kernels.quant with the jit branch's KernelCompiler
// (sm_90) and validates the PTX with ptxas (JCuda nvPTXCompiler): registers, spills, shared bytes.
// Not part of the build (the jit module is not merged yet); classpath: jit + kernel-api + runtime +
// tornado-kernels classes + jcuda jars. Results: tornado-kernels/README.md.
import java.lang.reflect.Method;
import java.util.*;
import sirocco.jit.*;

public class JitCheck {
  public static void main(String[] a) throws Exception {
    String[] classes = {"AffineQuantizeKernel","AffineDequantizeKernel","FpQuantizeKernel","FpDequantizeKernel",
        "AffineQmvKernel","FpQmvKernel","QmmMmaKernel","QvmKernel"};
    System.out.println("validator available: " + PtxValidator.isAvailable());
    for (String cn : classes) {
      Class<?> c = Class.forName("sirocco.kernels.quant." + cn);
      for (Method m : c.getMethods()) {
        if (m.getAnnotation(sirocco.api.Kernel.class) == null) continue;
        for (Map<String,Object> set : KernelCompiler.validationSets(m)) {
          String tag = cn + "." + m.getName() + " " + set;
          try {
            long t0 = System.nanoTime();
            CompiledKernel k = KernelCompiler.compile(m, set, Target.sm90());
            long t1 = System.nanoTime();
            String res = "";
            if (PtxValidator.isAvailable()) res = String.valueOf(PtxValidator.validate(k));
            System.out.printf("OK   %-90s %5.0f ms  %s%n", tag, (t1 - t0) / 1e6, res);
          } catch (Throwable e) {
            System.out.println("FAIL " + tag + "\n     " + e);
          }
        }
      }
    }
  }
}
