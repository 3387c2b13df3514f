package sirocco.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import sirocco.api.Kernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.Target;
import sirocco.kernels.attention.MaskToBias;

/**
 * {@code tornado aot-train} (hidden): the workload {@code bin/tornado aot-cache} records a JDK AOT
 * cache from (JEP 483/514/515: classes loaded and linked, method profiles). It does what commands
 * do first: parses options, prints the help, probes the devices, and compiles every {@code
 * validateWith} specialization of every shipped kernel for sm_80 and sm_90, so that the compiler's
 * classes and profiles are in the cache. Prints one line; the work's own output is dropped.
 */
@Command(
    name = "aot-train",
    hidden = true,
    description = "The workload bin/tornado aot-cache records a JDK AOT cache from.")
final class AotTrainCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter none = new PrintWriter(Writer.nullWriter());
    CommandLine cli = new CommandLine(new TornadoCli());
    cli.setOut(none);
    cli.setErr(none);
    cli.execute("--help");
    cli.execute("devices");
    int n = 0;
    for (Method m : shippedKernels()) {
      for (Map<String, Object> s : KernelCompiler.validationSets(m)) {
        for (Target t : List.of(Target.sm90(), Target.sm80())) {
          if (KernelCompiler.compilesFor(m, t)) {
            KernelCompiler.compile(m, s, t);
          }
        }
        n++;
      }
    }
    spec.commandLine().getOut().println("aot-train: compiled " + n + " kernel specializations");
    return 0;
  }

  /** The {@code @Kernel} methods of the classes under {@code sirocco/kernels} (jar or folder). */
  static List<Method> shippedKernels()
      throws IOException, URISyntaxException, ClassNotFoundException {
    Path root =
        Path.of(MaskToBias.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Method> out = new ArrayList<>();
    FileSystem jar = Files.isDirectory(root) ? null : FileSystems.newFileSystem(root);
    try {
      Path top = (jar == null ? root : jar.getPath("/")).resolve("sirocco/kernels");
      List<String> names = new ArrayList<>();
      try (Stream<Path> files = Files.walk(top)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          String rel = top.relativize(f).toString();
          if (rel.endsWith(".class")) {
            names.add("sirocco.kernels." + rel.substring(0, rel.length() - 6).replace('/', '.'));
          }
        }
      }
      names.sort(null);
      for (String name : names) {
        Class<?> c = Class.forName(name, false, MaskToBias.class.getClassLoader());
        for (Method m : c.getDeclaredMethods()) {
          if (m.isAnnotationPresent(Kernel.class)) {
            out.add(m);
          }
        }
      }
    } finally {
      if (jar != null) {
        jar.close();
      }
    }
    return out;
  }
}
