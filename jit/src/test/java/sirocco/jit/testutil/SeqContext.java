package sirocco.jit.testutil;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;

/**
 * A kernel context for running one thread at a time on the CPU: enough for kernels whose threads do
 * not communicate (no barriers, shuffles or tensor-core products). Shared arrays are one per block
 * and allocation site; atomics are plain read-modify-writes.
 */
public final class SeqContext extends NoWarpgroupContext {
  private final java.util.Map<String, Object> shared = new java.util.HashMap<>();

  /** Moves this context to thread {@code tid} of block {@code block} in a 1-D launch. */
  public void at(int block, int tid, int blockSize, int blocks) {
    at(new Geometry(blockSize, 1, 1, blocks, 1, 1), block, tid);
  }

  /** Moves this context to linear thread {@code tid} of linear block {@code block} of {@code g}. */
  public void at(Geometry g, int block, int tid) {
    int[] b = g.block(block);
    int[] t = g.thread(tid);
    place(b[0], b[1], b[2], t[0], t[1], t[2], g.grid(), g.dims());
  }

  /** Forgets shared arrays (call when moving to another block). */
  public void newBlock() {
    shared.clear();
  }

  private static String site() {
    StackTraceElement[] st = Thread.currentThread().getStackTrace();
    StackTraceElement caller = st[3];
    return caller.getClassName() + ":" + caller.getLineNumber();
  }

  @Override
  public void localBarrier() {
    throw new UnsupportedOperationException("barrier in a sequential run");
  }

  @Override
  public void warpBarrier() {
    throw new UnsupportedOperationException("barrier in a sequential run");
  }

  @Override
  public void threadFence() {
    java.lang.invoke.VarHandle.fullFence(); // the atomics' VarHandles order the rest
  }

  @Override
  public float[] allocateFloatLocalArray(int length) {
    return (float[]) shared.computeIfAbsent(site(), k -> new float[length]);
  }

  @Override
  public int[] allocateIntLocalArray(int length) {
    return (int[]) shared.computeIfAbsent(site(), k -> new int[length]);
  }

  @Override
  public short[] allocateShortLocalArray(int length) {
    return (short[]) shared.computeIfAbsent(site(), k -> new short[length]);
  }

  @Override
  public byte[] allocateByteLocalArray(int length) {
    return (byte[]) shared.computeIfAbsent(site(), k -> new byte[length]);
  }

  @Override
  public long[] allocateLongLocalArray(int length) {
    return (long[]) shared.computeIfAbsent(site(), k -> new long[length]);
  }

  @Override
  public float shuffleXor(float value, int laneMask) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int shuffleXor(int value, int laneMask) {
    throw new UnsupportedOperationException();
  }

  @Override
  public float shuffleDown(float value, int delta) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int shuffleDown(int value, int delta) {
    throw new UnsupportedOperationException();
  }

  @Override
  public float shuffleUp(float value, int delta) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int shuffleUp(int value, int delta) {
    throw new UnsupportedOperationException();
  }

  @Override
  public float shuffleIdx(float value, int srcLane) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int shuffleIdx(int value, int srcLane) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int atomicAdd(int[] array, int index, int value) {
    int old = array[index];
    array[index] = old + value;
    return old;
  }

  @Override
  public float atomicAdd(float[] array, int index, float value) {
    float old = array[index];
    array[index] = old + value;
    return old;
  }

  @Override
  public int atomicMax(int[] array, int index, int value) {
    int old = array[index];
    array[index] = Math.max(old, value);
    return old;
  }

  @Override
  public int atomicMin(int[] array, int index, int value) {
    int old = array[index];
    array[index] = Math.min(old, value);
    return old;
  }

  @Override
  public int atomicCas(int[] array, int index, int expected, int value) {
    int old = array[index];
    if (old == expected) {
      array[index] = value;
    }
    return old;
  }

  @Override
  public int atomicExchange(int[] array, int index, int value) {
    int old = array[index];
    array[index] = value;
    return old;
  }

  @Override
  public int loadVolatile(int[] array, int index) {
    return array[index];
  }

  @Override
  public Int4 loadMatrixX4(int[] shared, int index) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Int4 loadMatrixX4(short[] shared, int index) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Float4 mmaBf16(Int4 a, Int2 b, Float4 c) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Float4 mmaF16(Int4 a, Int2 b, Float4 c) {
    throw new UnsupportedOperationException();
  }
}
