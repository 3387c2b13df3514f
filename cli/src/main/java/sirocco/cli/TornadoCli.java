package sirocco.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sirocco.dispatch.cudnn.Cudnn;
import sirocco.dispatch.cudnn.CudnnSdpa;

/**
 * {@code bin/tornado}: Sirocco's command line. The exit status is 0 only when the command did what
 * it reports.
 */
@Command(
    name = "tornado",
    mixinStandardHelpOptions = true,
    versionProvider = TornadoCli.Version.class,
    description =
        "Sirocco: quantized matmul and attention for the JVM on NVIDIA GPUs, kernels written in Java.",
    subcommands = {
      DevicesCommand.class,
      DemoCommand.class,
      ForkCommand.class,
      PtxCommand.class,
      BenchCommand.class,
      ExitVariantsCommand.class,
      AotTrainCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TornadoCli implements Runnable {
  @Option(
      names = "--printKernel",
      description = "Print the PTX of each kernel when it is first compiled for the GPU.")
  void printKernel(boolean on) {
    System.setProperty("sirocco.printKernel", Boolean.toString(on));
  }

  @Option(
      names = "--threadInfo",
      description =
          "Print each launch's grid and block and which kernel each op chose (and why the others were"
              + " rejected); at the end, the cuDNN path's state when an op consulted cuDNN.")
  void threadInfo(boolean on) {
    System.setProperty("sirocco.threadInfo", Boolean.toString(on));
  }

  @Option(
      names = "--backend",
      description =
          "Force a backend for every command: java or cuda (default: cuda when a GPU is present).")
  void backend(String b) {
    System.setProperty("sirocco.backend", b);
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(
        execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the CLI and returns its exit status (tests call this; only {@link #main} exits). */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new TornadoCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          cmd.getErr().println("tornado: " + ex.getMessage());
          if (Boolean.getBoolean("sirocco.debug")) {
            ex.printStackTrace(cmd.getErr());
          }
          // Input errors (bad arguments, a malformed fork file) are 2; failures of the work itself
          // are 1.
          return ex instanceof IllegalArgumentException || ForkCommand.isInputError(ex) ? 2 : 1;
        });
    int code = cli.execute(args);
    printCudnnSummary(cli, out);
    return code;
  }

  /**
   * The --threadInfo report's cuDNN part: the per-call lines ("sirocco dispatch …") say which rung
   * ran and why others were refused; what they cannot say (library version, settings, plan-cache
   * statistics, kept workspaces, refusal counts, teardown failures) is printed once, after the
   * command, in the same form. Only when something consulted cuDNN, so it is never loaded for this;
   * {@code devices} prints the same lines itself.
   */
  private static void printCudnnSummary(CommandLine cli, PrintWriter out) {
    if (!Boolean.getBoolean("sirocco.threadInfo") || !Cudnn.lookedUp()) {
      return;
    }
    CommandLine.ParseResult parsed = cli.getParseResult();
    if (parsed != null
        && parsed.subcommand() != null
        && parsed.subcommand().commandSpec().userObject() instanceof DevicesCommand) {
      return;
    }
    for (String line : CudnnSdpa.explain()) {
      out.println("sirocco cudnn " + line);
    }
    out.flush();
  }

  /** The version from the build. */
  static final class Version implements CommandLine.IVersionProvider {
    static String version() {
      Properties p = new Properties();
      try (InputStream in = TornadoCli.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        return "unknown";
      }
      return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
      return new String[] {
        "Sirocco " + version(),
        "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"
      };
    }
  }
}
