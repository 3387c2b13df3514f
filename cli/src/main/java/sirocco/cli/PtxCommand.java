package sirocco.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.LaunchBounds;
import sirocco.jit.PtxResources;
import sirocco.jit.PtxValidator;
import sirocco.jit.Target;

/**
 * {@code tornado ptx CLASS::METHOD}: the PTX Sirocco's compiler makes of a kernel (yours too, with
 * {@code --class-path}), and with {@code --resources} what NVIDIA's PTX compiler reports for it.
 */
@Command(
    name = "ptx",
    description =
        "Print the PTX of a kernel method, and with --resources its registers, spills and shared memory.")
final class PtxCommand implements Callable<Integer> {
  @Parameters(
      index = "0",
      paramLabel = "CLASS::METHOD",
      description = "e.g. sirocco.cli.demo.DemoKernels::blockSum")
  String target;

  @Option(
      names = "--class-path",
      paramLabel = "PATH",
      description = "Extra class path (folders and jars, ':'-separated) where CLASS is found.")
  String classPath;

  @Option(names = "--arch", description = "Target architecture (default: ${DEFAULT-VALUE}).")
  String arch = "sm_90";

  @Option(
      names = "--specialize",
      split = ",",
      paramLabel = "NAME=VALUE",
      description =
          "Values of @Specialize parameters (default: the first @Kernel(validateWith) set).")
  Map<String, String> specialize = new LinkedHashMap<>();

  @Option(
      names = "--resources",
      description = "Also compile to SASS in-process and report resources.")
  boolean resources;

  @Option(
      names = "--block",
      paramLabel = "X[,Y[,Z]]",
      description =
          "With --min-blocks: the block the kernel is launched with (.maxntid X, Y, Z in the PTX).")
  String block;

  @Option(
      names = "--min-blocks",
      paramLabel = "N",
      description =
          "Occupancy hint, as a launch's minBlocksPerSm: at least N blocks of --block per SM"
              + " (.minnctapersm N); ptxas caps registers to fit them. Default: no hint.")
  Integer minBlocks;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    int sep = target.indexOf("::");
    if (sep <= 0 || sep == target.length() - 2) {
      throw new IllegalArgumentException(
          "CLASS::METHOD must look like com.example.MyKernels::add, got '" + target + "'");
    }
    String className = target.substring(0, sep);
    String methodName = target.substring(sep + 2);
    ClassLoader loader = loader();
    Class<?> owner;
    try {
      owner = Class.forName(className, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(
          "class "
              + className
              + " not found"
              + (classPath == null ? " (add --class-path)" : " on " + classPath));
    }
    List<Method> found = new ArrayList<>();
    for (Method m : owner.getDeclaredMethods()) {
      if (m.getName().equals(methodName)
          && m.getParameterCount() > 0
          && m.getParameterTypes()[0] == KernelContext.class) {
        found.add(m);
      }
    }
    if (found.size() != 1) {
      throw new IllegalArgumentException(
          found.isEmpty()
              ? "no kernel method " + methodName + "(KernelContext, ...) in " + className
              : methodName + " is overloaded in " + className + "; kernels must have unique names");
    }
    Method m = found.get(0);
    Map<String, Object> specs = specializations(m);
    CompiledKernel k = KernelCompiler.compile(m, specs, target(arch), bounds());
    out.print(k.ptx());
    out.flush(); // print() does not flush the auto-flushing writer, and main() exits right after
    if (resources) {
      if (!PtxValidator.isAvailable()) {
        throw new IllegalStateException(
            "--resources needs NVIDIA's PTX compiler (JCuda natives), which is not loadable here");
      }
      PtxResources r = PtxValidator.validate(k.ptx(), arch);
      out.printf(
          "// resources (%s): %d registers, %d B spill stores, %d B spill loads, %d B stack, %d B shared%s%n",
          arch,
          r.registers(),
          r.spillStoreBytes(),
          r.spillLoadBytes(),
          r.stackFrameBytes(),
          r.sharedBytes(),
          // ptxas sees static shared memory only; arrays over 48 KiB are dynamic (launch-sized).
          k.dynamicSharedBytes() > 0 ? " (+ " + k.dynamicSharedBytes() + " B dynamic)" : "");
    }
    return 0;
  }

  /** The launch bounds --block and --min-blocks ask for, or null for none. */
  LaunchBounds bounds() {
    if (minBlocks == null && block == null) {
      return null;
    }
    if (minBlocks == null || block == null) {
      throw new IllegalArgumentException(
          "--block and --min-blocks go together: the hint is N blocks of that size per SM");
    }
    String[] parts = block.split(",", -1);
    if (parts.length > 3) {
      throw new IllegalArgumentException("--block must be X[,Y[,Z]], got '" + block + "'");
    }
    int[] dims = {1, 1, 1};
    for (int i = 0; i < parts.length; i++) {
      try {
        dims[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--block must be X[,Y[,Z]], got '" + block + "'");
      }
    }
    try {
      return new LaunchBounds(dims[0], dims[1], dims[2], minBlocks);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--block/--min-blocks: " + e.getMessage());
    }
  }

  private ClassLoader loader() throws Exception {
    ClassLoader parent = PtxCommand.class.getClassLoader();
    if (classPath == null || classPath.isBlank()) {
      return parent;
    }
    List<URL> urls = new ArrayList<>();
    for (String p : classPath.split(java.io.File.pathSeparator)) {
      if (!p.isBlank()) {
        urls.add(Path.of(p).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), parent);
  }

  private Map<String, Object> specializations(Method m) {
    Map<String, Object> out = new LinkedHashMap<>();
    boolean any = false;
    for (Parameter p : m.getParameters()) {
      any |= p.isAnnotationPresent(Specialize.class);
    }
    if (!any) {
      if (!specialize.isEmpty()) {
        throw new IllegalArgumentException(
            "--specialize: " + m.getName() + " has no @Specialize parameters");
      }
      return out;
    }
    if (specialize.isEmpty()) {
      return KernelCompiler.validationSets(m).get(0);
    }
    for (Parameter p : m.getParameters()) {
      if (!p.isAnnotationPresent(Specialize.class)) {
        continue;
      }
      String v = specialize.get(p.getName());
      if (v == null) {
        throw new IllegalArgumentException(
            "--specialize: missing " + p.getName() + "=VALUE (" + p.getType() + ")");
      }
      out.put(p.getName(), parse(p.getType(), v, p.getName()));
    }
    for (String name : specialize.keySet()) {
      if (!out.containsKey(name)) {
        throw new IllegalArgumentException(
            "--specialize: " + name + " is not a @Specialize parameter of " + m.getName());
      }
    }
    return out;
  }

  private static Object parse(Class<?> t, String v, String name) {
    try {
      return switch (t.getName()) {
        case "int" -> Integer.valueOf(v);
        case "long" -> Long.valueOf(v);
        case "float" -> Float.valueOf(v);
        case "double" -> Double.valueOf(v);
        case "boolean" -> {
          if (!v.equals("true") && !v.equals("false")) {
            throw new NumberFormatException();
          }
          yield Boolean.valueOf(v);
        }
        case "short" -> Short.valueOf(v);
        case "byte" -> Byte.valueOf(v);
        default ->
            throw new IllegalArgumentException(
                "--specialize: " + name + " has unsupported type " + t);
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--specialize: " + name + "=" + v + " is not a valid " + t.getName());
    }
  }

  static Target target(String arch) {
    if (arch.equals("sm_90")) {
      return Target.sm90();
    }
    if (arch.equals("sm_80")) {
      return Target.sm80();
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("sm_(\\d+)(\\d)").matcher(arch);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--arch must look like sm_80 or sm_90, got '" + arch + "'");
    }
    // The newest driver ISA Sirocco knows, so that any architecture that exists can be targeted.
    return Target.forDevice(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), 13000);
  }
}
