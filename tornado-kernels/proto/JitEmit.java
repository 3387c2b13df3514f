// Writes the PTX Sirocco's JIT (jit branch) produces for the benchmarked configurations, for
// jit_bench.cu (driver-API loader and timer run on the H200). Not part of the build.
import java.lang.reflect.Method;
import java.nio.file.*;
import java.util.*;
import sirocco.jit.*;

public class JitEmit {
  public static void main(String[] a) throws Exception {
    // name, class, method, specialization
    Object[][] jobs = {
      {"qmv_r2", "AffineQmvKernel", "qmv", Map.of("bits", 4, "groupSize", 64, "dtype", 0, "rowsPerWarp", 2)},
      {"mma_s", "QmmMmaKernel", "qmm", Map.of("mode", 0, "bits", 4, "groupSize", 64, "dtype", 0, "mt", 2, "nt", 1, "wn", 1, "ks", 4, "wordsPerLane", 2)},
      {"mma_16", "QmmMmaKernel", "qmm", Map.of("mode", 0, "bits", 4, "groupSize", 64, "dtype", 0, "mt", 2, "nt", 2, "wn", 1, "ks", 4, "wordsPerLane", 2)},
      {"mma_32", "QmmMmaKernel", "qmm", Map.of("mode", 0, "bits", 4, "groupSize", 64, "dtype", 0, "mt", 2, "nt", 4, "wn", 1, "ks", 4, "wordsPerLane", 2)},
      {"mma_big", "QmmMmaKernel", "qmm", Map.of("mode", 0, "bits", 4, "groupSize", 64, "dtype", 0, "mt", 2, "nt", 4, "wn", 4, "ks", 1, "wordsPerLane", 2)},
    };
    for (Object[] j : jobs) {
      Class<?> c = Class.forName("sirocco.kernels.quant." + j[1]);
      Method m = null;
      for (Method mm : c.getMethods()) if (mm.getName().equals(j[2])) m = mm;
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = new HashMap<>((Map<String, Object>) j[3]);
      CompiledKernel k = KernelCompiler.compile(m, spec, Target.sm90());
      Files.writeString(Path.of("/tmp/ptxout/" + j[0] + ".ptx"), k.ptx());
      System.out.println(j[0] + " entry=" + k.entryName() + " params=" + k.launchParams().stream().map(p -> p.name() + ":" + p.kind()).toList() + " " + PtxValidator.validate(k).registers() + " regs");
    }
  }
}
