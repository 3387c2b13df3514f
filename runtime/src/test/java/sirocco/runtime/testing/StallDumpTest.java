package sirocco.runtime.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The diagnostic dump the GPU stall watchdogs print must show virtual threads and their stacks. */
class StallDumpTest {
  @Test
  void theDumpShowsABlockedVirtualThreadWithItsStack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Thread v = Thread.ofVirtual().name("stall-probe").start(() -> awaitQuietly(release));
    try {
      Thread.sleep(50);
      String dump = StallDump.dump();
      assertTrue(dump.contains("stall-probe"), dump);
      assertTrue(dump.contains("awaitQuietly"), dump);
    } finally {
      release.countDown();
      v.join();
    }
  }

  private static void awaitQuietly(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
