package sirocco.runtime.host;

import java.util.concurrent.Phaser;

/**
 * The lanes of one warp (or of one warpgroup, four warps) on the Java backend: a value slot per
 * lane and a barrier, so that shuffles and tensor-core products exchange values the way the
 * hardware does. Each collective operation is two barrier phases: every lane publishes, all wait,
 * every lane reads what it needs, all wait again so no slot is overwritten before everyone has read
 * it.
 */
final class HostWarp {
  final int lanes;
  private final int width;
  private final Phaser phaser;
  private final HostBlock block;
  private final long[] slots;
  private final Object[] objects;
  private int live;

  HostWarp(int lanes, boolean concurrent, HostBlock block) {
    this(lanes, 32, concurrent, block);
  }

  /** A group of {@code width} lanes (32: a warp, 128: a warpgroup) of which {@code lanes} exist. */
  HostWarp(int lanes, int width, boolean concurrent, HostBlock block) {
    this.lanes = lanes;
    this.width = width;
    this.block = block;
    this.phaser = concurrent ? new Phaser(lanes) : null;
    this.live = lanes;
    this.slots = new long[width];
    this.objects = new Object[width];
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
    if (alive != width) {
      throw new IllegalStateException(
          what
              + (width == 32
                  ? " needs all 32 lanes of the warp (mask 0xffffffff) but only "
                  : " needs all 128 threads of the warpgroup but only ")
              + alive
              + " are live: launch blocks whose size is a multiple of "
              + width
              + " and keep collective operations out of code that some threads have left");
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

  /** Publishes an object per lane and returns all of them, for operations that read every lane. */
  Object[] gather(int lane, Object value, String what) {
    checkFull(what);
    objects[lane] = value;
    block.await(phaser, what);
    // A lane that exited between the check and the barrier left its slot stale: fail, as above.
    checkFull(what);
    Object[] all = objects.clone();
    block.await(phaser, what);
    return all;
  }
}
