package sirocco.runtime.testing;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prints a dump of every thread, virtual threads included, if a test section is still running after
 * a deadline: for stalls that only happen inside the whole GPU suite, where a debugger cannot be
 * attached, the dump says which call was blocked. Close it when the section is done.
 */
public final class StallDump implements AutoCloseable {
  private final Thread watchdog;

  private StallDump(String what, long seconds) {
    this.watchdog =
        Thread.ofPlatform()
            .daemon()
            .name("stall-dump")
            .start(
                () -> {
                  try {
                    Thread.sleep(seconds * 1000);
                  } catch (InterruptedException done) {
                    return;
                  }
                  System.out.println(
                      "STALL: " + what + " still running after " + seconds + " s; threads:");
                  System.out.println(dump());
                });
  }

  /** Starts the watchdog for a section named {@code what}. */
  public static StallDump after(long seconds, String what) {
    return new StallDump(what, seconds);
  }

  /** Every thread's stack, virtual threads included (jcmd Thread.dump_to_file's plain format). */
  public static String dump() {
    try {
      Path f = Files.createTempFile("sirocco-threads", ".txt");
      Files.delete(f); // dumpThreads refuses to overwrite
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .dumpThreads(f.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
      String s = Files.readString(f);
      Files.deleteIfExists(f);
      return s;
    } catch (IOException | RuntimeException e) {
      return "(thread dump failed: " + e + ")";
    }
  }

  @Override
  public void close() {
    watchdog.interrupt();
  }
}
