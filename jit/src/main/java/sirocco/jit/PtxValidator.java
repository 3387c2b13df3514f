package sirocco.jit;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compiles PTX to SASS in-process with NVIDIA's PTX compiler (through JCuda's {@code
 * jcuda.nvptxcompiler}), without a GPU, and reports registers, spills and shared memory.
 *
 * <p>This is the only class of the module that touches JCuda, which is an optional dependency:
 * every other class works without it on the class path, and {@link #isAvailable()} says whether
 * this one can. JCuda 12.6.0 bundles a PTX compiler of CUDA 12.0, which accepts PTX ISA 8.0 at
 * most. JCuda's native library loading is a restricted method: run with {@code
 * --enable-native-access=ALL-UNNAMED} to avoid the JDK's warning.
 */
public final class PtxValidator {
  private static final Pattern REGS = Pattern.compile("Used (\\d+) registers");
  private static final Pattern SPILLS =
      Pattern.compile(
          "(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads");
  private static final Pattern SMEM = Pattern.compile("(\\d+) bytes smem");

  private PtxValidator() {}

  /** True when JCuda and its PTX compiler natives can be loaded. */
  public static boolean isAvailable() {
    try {
      Class.forName(
          "jcuda.nvptxcompiler.JNvPTXCompiler", true, PtxValidator.class.getClassLoader());
      int[] major = {0};
      int[] minor = {0};
      Jcuda.version(major, minor);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Version of the bundled PTX compiler as "major.minor". */
  public static String compilerVersion() {
    int[] major = {0};
    int[] minor = {0};
    Jcuda.version(major, minor);
    return major[0] + "." + minor[0];
  }

  /** Compiles a kernel's PTX for its target. */
  public static PtxResources validate(CompiledKernel kernel) {
    return validate(kernel.ptx(), kernel.key().target().arch());
  }

  /**
   * Compiles {@code ptx} for {@code arch} ("sm_90") with {@code --verbose}; PTX that targets the
   * architecture-specific {@code arch + "a"} (warpgroup products: {@code .target sm_90a}) is
   * compiled for that, as ptxas refuses it for plain {@code arch}.
   *
   * @throws PtxCompilationException with ptxas's error log when it rejects the PTX
   */
  public static PtxResources validate(String ptx, String arch) {
    if (ptx.contains("\n.target " + arch + "a\n")) {
      arch = arch + "a";
    }
    String[] logs = Jcuda.compile(ptx, arch);
    String info = logs[0];
    String error = logs[1];
    if (logs[2] != null) {
      throw new PtxCompilationException(
          "ptxas rejected the PTX for " + arch + " (" + logs[2] + ")", error);
    }
    return new PtxResources(
        find(REGS, info, 1),
        find(SPILLS, info, 2),
        find(SPILLS, info, 3),
        find(SPILLS, info, 1),
        find(SMEM, info, 1),
        info + (error.isBlank() ? "" : "\n" + error));
  }

  private static int find(Pattern p, String log, int group) {
    Matcher m = p.matcher(log);
    return m.find() ? Integer.parseInt(m.group(group)) : 0;
  }

  /** Holds every reference to JCuda, so that PtxValidator itself loads without it. */
  private static final class Jcuda {
    static void version(int[] major, int[] minor) {
      jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerGetVersion(major, minor);
    }

    /** Returns {info log, error log, failure description or null}. */
    static String[] compile(String ptx, String arch) {
      jcuda.nvptxcompiler.nvPTXCompilerHandle h = new jcuda.nvptxcompiler.nvPTXCompilerHandle();
      byte[] src = (ptx + "\0").getBytes(StandardCharsets.UTF_8);
      int r = jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerCreate(h, src.length - 1, src);
      if (r != jcuda.nvptxcompiler.nvPTXCompileResult.NVPTXCOMPILE_SUCCESS) {
        return new String[] {
          "", "", "create: " + jcuda.nvptxcompiler.nvPTXCompileResult.stringFor(r)
        };
      }
      try {
        int c =
            jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerCompile(
                h, 2, new String[] {"--gpu-name=" + arch, "--verbose"});
        String info = log(h, true);
        String error = log(h, false);
        String failure =
            c == jcuda.nvptxcompiler.nvPTXCompileResult.NVPTXCOMPILE_SUCCESS
                ? null
                : jcuda.nvptxcompiler.nvPTXCompileResult.stringFor(c);
        return new String[] {info, error, failure};
      } finally {
        jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerDestroy(h);
      }
    }

    private static String log(jcuda.nvptxcompiler.nvPTXCompilerHandle h, boolean info) {
      long[] size = {0};
      if (info) {
        jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerGetInfoLogSize(h, size);
      } else {
        jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(h, size);
      }
      byte[] buf = new byte[(int) size[0] + 1];
      if (info) {
        jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerGetInfoLog(h, buf);
      } else {
        jcuda.nvptxcompiler.JNvPTXCompiler.nvPTXCompilerGetErrorLog(h, buf);
      }
      int n = 0;
      while (n < buf.length && buf[n] != 0) {
        n++;
      }
      return new String(buf, 0, n, StandardCharsets.UTF_8).trim();
    }
  }
}
