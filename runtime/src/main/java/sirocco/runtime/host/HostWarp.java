package sirocco.runtime.host;

import java.util.concurrent.Phaser;

/**
 * The lanes of one warp on the Java backend: a value slot per lane and a barrier, so that shuffles
 * and tensor-core products exchange values the way the hardware does. Each collective operation is
 * two barrier phases: every lane publishes, all wait, every lane reads what it needs, all wait
 * again so no slot is overwritten before everyone has read it.
 */
final class HostWarp {
  final int lanes;
  private final Phaser phaser;
  private final HostBlock block;
  private final long[] slots = new long[32];
  private final Object[] objects = new Object[32];
  private int live;

  HostWarp(int lanes, boolean concurrent, HostBlock block) {
    this.lanes = lanes;
    this.block = block;
    this.phaser = concurrent ? new Phaser(lanes) : null;
    this.live = lanes;
  }

  synchronized void exited() {
    live--;
    if (phaser != null) {
      phaser.arriveAndDeregister();
    }
  }

  void terminate() {
    if (phaser != null) {
      phaser.forceTermination();
    }
  }

  private void checkFull(String what) {
    if (phaser == null) {
      throw new IllegalStateException(
          what + " in a kernel run sequentially: the feature scan missed it");
    }
    int alive;
    synchronized (this) {
      alive = live;
    }
    if (alive != 32) {
      throw new IllegalStateException(
          what
              + " needs all 32 lanes of the warp (mask 0xffffffff) but only "
              + alive
              + " are live: launch blocks whose size is a multiple of 32 and keep shuffles out of code"
              + " that some lanes have left");
    }
  }

  void sync() {
    if (phaser == null) {
      throw new IllegalStateException("warpBarrier() in a kernel run sequentially");
    }
    block.await(phaser, "warpBarrier()");
  }

  /** Publishes {@code bits} for {@code lane} and returns the bits published by {@code source}. */
  long exchange(int lane, long bits, int source, String what) {
    checkFull(what);
    slots[lane] = bits;
    block.await(phaser, what);
    long result = slots[source];
    block.await(phaser, what);
    return result;
  }

  /** Publishes an object per lane and returns all 32, for operations that read every lane. */
  Object[] gather(int lane, Object value, String what) {
    checkFull(what);
    objects[lane] = value;
    block.await(phaser, what);
    Object[] all = objects.clone();
    block.await(phaser, what);
    return all;
  }
}
