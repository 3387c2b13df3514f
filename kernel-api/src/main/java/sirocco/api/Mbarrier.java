package sirocco.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Transaction barriers in shared memory ({@code mbarrier}, sm_90 for the byte counts): the waits of
 * a pipeline fed by {@link Vec#copyTileAsync(short[], int, long[], int, int, long[], int) tile
 * copies}. A barrier is one element of a block-shared {@code long[]} ({@code
 * ctx.allocateLongLocalArray}). It completes a phase when the number of arrivals it was initialised
 * with have arrived and every byte announced with {@link #arriveExpectTx} has landed; then it
 * starts the next phase at once. A thread waits for the end of a phase by the phase's parity, 0 for
 * the first, 1 for the second, 0 again for the third:
 *
 * <pre>{@code
 * long[] full = ctx.allocateLongLocalArray(STAGES);
 * if (ctx.localIdx == 0) {
 *   for (int s = 0; s < STAGES; s++) Mbarrier.init(full, s, 1);
 *   Mbarrier.fenceInit();
 * }
 * ctx.localBarrier();
 * ...
 * if (ctx.localIdx == 0) { // one thread starts stage s's copy and announces its bytes
 *   Mbarrier.arriveExpectTx(full, s, TILE_BYTES);
 *   Vec.copyTileAsync(tile, s * TILE, map, col, row, full, s);
 * }
 * Mbarrier.waitParity(full, s, (k / STAGES) & 1); // every thread: the tile of step k landed
 * }</pre>
 *
 * <p>The compiler never moves, merges or removes these calls, nor moves a load or store across
 * them. On the Java backend a barrier is the same state machine kept in the array element; waits
 * block the waiting thread (a kernel that waits runs every thread of its blocks at once) and fail
 * the launch after {@code sirocco.host.barrierTimeoutMs} (default 60000) as a deadlock.
 */
public final class Mbarrier {
  private Mbarrier() {}

  /** Most arrivals per phase ({@code 2^20 - 1}, the PTX limit). */
  public static final int MAX_COUNT = (1 << 20) - 1;

  /** Most bytes a phase may be waiting for ({@code 2^20 - 1}, the PTX limit of the tx-count). */
  public static final int MAX_TX = (1 << 20) - 1;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  // Java-backend state of one barrier: pending arrivals (bits 0-19), arrivals per phase (20-39),
  // bytes still expected as a signed 22-bit count (40-61: copies may land before they are
  // announced), an initialised mark (62) so that a wait on poisoned memory fails, the phase's
  // parity
  // (63).
  private static final long COUNT_MASK = (1L << 20) - 1;
  private static final int TX_SHIFT = 40;
  private static final long TX_MASK = (1L << 22) - 1;
  private static final long INITIALISED = 1L << 62;
  private static final long PHASE = 1L << 63;

  /**
   * Initialises barrier {@code bars[index]} for {@code count} arrivals a phase, 1 to {@link
   * #MAX_COUNT} ({@code mbarrier.init.shared::cta.b64}), phase 0 running. One thread initialises;
   * follow with {@link #fenceInit()} and a block barrier before any thread or copy uses it.
   */
  public static void init(long[] bars, int index, int count) {
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException(
          "Mbarrier.init: count must be 1 to " + MAX_COUNT + ", got " + count);
    }
    LONGS.setVolatile(bars, index, INITIALISED | ((long) count << 20) | count);
  }

  /**
   * Makes this thread's barrier initialisations visible to the asynchronous proxy that tile copies
   * complete through ({@code fence.mbarrier_init.release.cluster}). A no-op on the Java backend.
   */
  public static void fenceInit() {}

  /** One arrival at {@code bars[index]} ({@code mbarrier.arrive.shared::cta.b64}). */
  public static void arrive(long[] bars, int index) {
    update(bars, index, 0, "arrive");
  }

  /**
   * Announces {@code bytes} (0 to {@link #MAX_TX}) more that the current phase waits for, then
   * arrives ({@code mbarrier.arrive.expect_tx.shared::cta.b64}): the phase ends only when the tile
   * copies completing on this barrier have delivered them.
   */
  public static void arriveExpectTx(long[] bars, int index, int bytes) {
    if (bytes < 0 || bytes > MAX_TX) {
      throw new IllegalArgumentException(
          "Mbarrier.arriveExpectTx: bytes must be 0 to " + MAX_TX + ", got " + bytes);
    }
    update(bars, index, bytes, "arriveExpectTx");
  }

  /**
   * Waits until the phase of parity {@code parity} (0 or 1; only its low bit counts) of {@code
   * bars[index]} has completed ({@code mbarrier.try_wait.parity.shared::cta.b64} in a loop). What
   * the phase's copies wrote to shared memory is then visible to this thread.
   */
  public static void waitParity(long[] bars, int index, int parity) {
    long bit = (parity & 1L) << 63;
    if ((state(bars, index, "waitParity") & PHASE) != bit) {
      return; // the usual case in a pipeline: no property lookup, no clock
    }
    long timeoutMs = Long.getLong("sirocco.host.barrierTimeoutMs", 60_000);
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (true) {
      Thread.yield();
      long s = state(bars, index, "waitParity");
      if ((s & PHASE) != bit) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "Mbarrier.waitParity: the phase of parity "
                + (parity & 1)
                + " of barrier "
                + index
                + " did not complete within "
                + timeoutMs
                + " ms ("
                + (s & COUNT_MASK)
                + " arrivals and "
                + tx(s)
                + " bytes missing): a deadlock, or too few arrivals or bytes for the phase");
      }
    }
  }

  /** The Java backend's completion of {@code bytes} of a tile copy on {@code bars[index]}. */
  static void completeTx(long[] bars, int index, int bytes) {
    while (true) {
      long s = state(bars, index, "copyTileAsync");
      long next = advance(s, 0, tx(s) - bytes);
      if (LONGS.compareAndSet(bars, index, s, next)) {
        return;
      }
    }
  }

  private static void update(long[] bars, int index, int bytes, String call) {
    while (true) {
      long s = state(bars, index, call);
      long pending = s & COUNT_MASK;
      if (pending == 0) {
        throw new IllegalStateException(
            "Mbarrier."
                + call
                + ": barrier "
                + index
                + " got more arrivals than its count in one phase");
      }
      long next = advance(s, 1, tx(s) + bytes);
      if (LONGS.compareAndSet(bars, index, s, next)) {
        return;
      }
    }
  }

  /** State {@code s} after {@code arrivals} more arrivals with {@code tx} bytes still expected. */
  private static long advance(long s, int arrivals, long tx) {
    if (tx > MAX_TX || tx < -MAX_TX) {
      throw new IllegalStateException(
          "Mbarrier: a phase's byte count left the range +-" + MAX_TX + " (" + tx + ")");
    }
    long count = (s >>> 20) & COUNT_MASK;
    long pending = (s & COUNT_MASK) - arrivals;
    long phase = s & PHASE;
    if (pending == 0 && tx == 0) {
      return (phase ^ PHASE) | INITIALISED | (count << 20) | count;
    }
    return phase | INITIALISED | ((tx & TX_MASK) << TX_SHIFT) | (count << 20) | pending;
  }

  private static long tx(long s) {
    return (s << 2) >> (TX_SHIFT + 2); // the signed 22-bit field, sign-extended
  }

  private static long state(long[] bars, int index, String call) {
    long s = (long) LONGS.getVolatile(bars, index);
    if ((s & INITIALISED) == 0) {
      throw new IllegalStateException(
          "Mbarrier." + call + ": barrier " + index + " was not initialised (Mbarrier.init)");
    }
    return s;
  }
}
