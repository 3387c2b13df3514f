package sirocco.jit.testutil;

import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.KernelContext;

/**
 * A kernel context for running a block on the CPU with one Java thread per GPU thread: real block
 * barriers, warp shuffles through a per-warp exchange, shared arrays per block and allocation site,
 * atomics under a lock, and the m16n8k16 product computed in float from all lanes' fragments. For
 * producing expected results in tests, not for speed.
 */
public final class ThreadedContext extends NoWarpgroupContext {
  /** State shared by the threads of one block. */
  public static final class BlockState {
    final CyclicBarrier block;
    final CyclicBarrier[] warps;
    final long[][] slots;
    final Object[][] frags;
    final Map<String, Object> shared = new ConcurrentHashMap<>();

    public BlockState(int blockSize) {
      block = new CyclicBarrier(blockSize);
      int nw = (blockSize + 31) / 32;
      warps = new CyclicBarrier[nw];
      slots = new long[nw][32];
      frags = new Object[nw][32];
      for (int w = 0; w < nw; w++) {
        warps[w] = new CyclicBarrier(Math.min(32, blockSize - 32 * w));
      }
    }
  }

  private final BlockState state;

  /** Linear thread number in the block (x fastest): what the hardware forms warps from. */
  private final int tid;

  public ThreadedContext(BlockState state, int block, int tid, int blockSize, int blocks) {
    this(state, new Geometry(blockSize, 1, 1, blocks, 1, 1), block, tid);
  }

  /** Linear thread {@code tid} of linear block {@code block} of launch {@code g}. */
  public ThreadedContext(BlockState state, Geometry g, int block, int tid) {
    this.state = state;
    this.tid = tid;
    int[] b = g.block(block);
    int[] t = g.thread(tid);
    place(b[0], b[1], b[2], t[0], t[1], t[2], g.grid(), g.dims());
  }

  private static void await(CyclicBarrier b) {
    try {
      b.await();
    } catch (InterruptedException | BrokenBarrierException e) {
      throw new IllegalStateException(e);
    }
  }

  private long exchange(long v, int src, boolean valid) {
    int w = tid >> 5;
    int lane = tid & 31;
    state.slots[w][lane] = v;
    await(state.warps[w]);
    long r = valid ? state.slots[w][src] : v;
    await(state.warps[w]);
    return r;
  }

  private static String site() {
    StackTraceElement caller = Thread.currentThread().getStackTrace()[3];
    return caller.getClassName() + ":" + caller.getLineNumber();
  }

  @Override
  public void localBarrier() {
    await(state.block);
  }

  @Override
  public void warpBarrier() {
    await(state.warps[tid >> 5]);
  }

  @Override
  public void threadFence() {
    java.lang.invoke.VarHandle.fullFence(); // the atomics' VarHandles order the rest
  }

  @Override
  public float[] allocateFloatLocalArray(int length) {
    return (float[]) state.shared.computeIfAbsent(site(), k -> new float[length]);
  }

  @Override
  public int[] allocateIntLocalArray(int length) {
    return (int[]) state.shared.computeIfAbsent(site(), k -> new int[length]);
  }

  @Override
  public short[] allocateShortLocalArray(int length) {
    return (short[]) state.shared.computeIfAbsent(site(), k -> new short[length]);
  }

  @Override
  public byte[] allocateByteLocalArray(int length) {
    return (byte[]) state.shared.computeIfAbsent(site(), k -> new byte[length]);
  }

  @Override
  public long[] allocateLongLocalArray(int length) {
    return (long[]) state.shared.computeIfAbsent(site(), k -> new long[length]);
  }

  private float f(long v) {
    return Float.intBitsToFloat((int) v);
  }

  private static long b(float v) {
    return Float.floatToRawIntBits(v);
  }

  /**
   * The hardware lane (linear thread number & 31), which is what {@code shfl} exchanges by; it
   * equals {@link #laneId()} only in one-dimensional blocks (laneId is {@code localIdx & 31} by
   * definition).
   */
  private int hwLane() {
    return tid & 31;
  }

  @Override
  public float shuffleXor(float value, int laneMask) {
    return f(exchange(b(value), (hwLane() ^ laneMask) & 31, true));
  }

  @Override
  public int shuffleXor(int value, int laneMask) {
    return (int) exchange(value, (hwLane() ^ laneMask) & 31, true);
  }

  @Override
  public float shuffleDown(float value, int delta) {
    int s = hwLane() + delta;
    return f(exchange(b(value), s & 31, s < 32));
  }

  @Override
  public int shuffleDown(int value, int delta) {
    int s = hwLane() + delta;
    return (int) exchange(value, s & 31, s < 32);
  }

  @Override
  public float shuffleUp(float value, int delta) {
    int s = hwLane() - delta;
    return f(exchange(b(value), s & 31, s >= 0));
  }

  @Override
  public int shuffleUp(int value, int delta) {
    int s = hwLane() - delta;
    return (int) exchange(value, s & 31, s >= 0);
  }

  @Override
  public float shuffleIdx(float value, int srcLane) {
    return f(exchange(b(value), srcLane & 31, true));
  }

  @Override
  public int shuffleIdx(int value, int srcLane) {
    return (int) exchange(value, srcLane & 31, true);
  }

  @Override
  public int atomicAdd(int[] array, int index, int value) {
    synchronized (array) {
      int old = array[index];
      array[index] = old + value;
      return old;
    }
  }

  @Override
  public float atomicAdd(float[] array, int index, float value) {
    synchronized (array) {
      float old = array[index];
      array[index] = old + value;
      return old;
    }
  }

  @Override
  public int atomicMax(int[] array, int index, int value) {
    synchronized (array) {
      int old = array[index];
      array[index] = Math.max(old, value);
      return old;
    }
  }

  @Override
  public int atomicMin(int[] array, int index, int value) {
    synchronized (array) {
      int old = array[index];
      array[index] = Math.min(old, value);
      return old;
    }
  }

  @Override
  public int atomicCas(int[] array, int index, int expected, int value) {
    synchronized (array) {
      int old = array[index];
      if (old == expected) {
        array[index] = value;
      }
      return old;
    }
  }

  @Override
  public int atomicExchange(int[] array, int index, int value) {
    synchronized (array) {
      int old = array[index];
      array[index] = value;
      return old;
    }
  }

  @Override
  public int loadVolatile(int[] array, int index) {
    synchronized (array) {
      return array[index];
    }
  }

  private Float4 mma(Int4 a, Int2 b, Float4 c, boolean bf16) {
    int w = tid >> 5;
    int lane = tid & 31;
    state.frags[w][lane] = new Object[] {a, b, c};
    await(state.warps[w]);
    float[][] ma = new float[16][16];
    float[][] mb = new float[16][8];
    float[][] mc = new float[16][8];
    for (int l = 0; l < 32; l++) {
      Object[] fr = (Object[]) state.frags[w][l];
      Int4 fa = (Int4) fr[0];
      Int2 fb = (Int2) fr[1];
      Float4 fc = (Float4) fr[2];
      int g = l >> 2;
      int t = l & 3;
      put(ma, g, 2 * t, fa.x(), bf16);
      put(ma, g + 8, 2 * t, fa.y(), bf16);
      put(ma, g, 2 * t + 8, fa.z(), bf16);
      put(ma, g + 8, 2 * t + 8, fa.w(), bf16);
      mb[2 * t][g] = half(fb.x(), bf16);
      mb[2 * t + 1][g] = half(fb.x() >>> 16, bf16);
      mb[2 * t + 8][g] = half(fb.y(), bf16);
      mb[2 * t + 9][g] = half(fb.y() >>> 16, bf16);
      mc[g][2 * t] = fc.x();
      mc[g][2 * t + 1] = fc.y();
      mc[g + 8][2 * t] = fc.z();
      mc[g + 8][2 * t + 1] = fc.w();
    }
    await(state.warps[w]);
    int g = lane >> 2;
    int t = lane & 3;
    return new Float4(
        dot(ma, mb, mc, g, 2 * t),
        dot(ma, mb, mc, g, 2 * t + 1),
        dot(ma, mb, mc, g + 8, 2 * t),
        dot(ma, mb, mc, g + 8, 2 * t + 1));
  }

  private static float dot(float[][] a, float[][] b, float[][] c, int i, int j) {
    float s = c[i][j];
    for (int k = 0; k < 16; k++) {
      s += a[i][k] * b[k][j];
    }
    return s;
  }

  private static void put(float[][] m, int row, int col, int packed, boolean bf16) {
    m[row][col] = half(packed, bf16);
    m[row][col + 1] = half(packed >>> 16, bf16);
  }

  private static float half(int bits, boolean bf16) {
    return bf16 ? Float.intBitsToFloat((bits & 0xFFFF) << 16) : Float.float16ToFloat((short) bits);
  }

  /** Lane l takes int l & 3 of row l >> 2 of each of the four 8x8 matrices the lanes address. */
  @Override
  public Int4 loadMatrixX4(int[] shared, int index) {
    return matrixRows(
        new int[] {shared[index], shared[index + 1], shared[index + 2], shared[index + 3]});
  }

  @Override
  public Int4 loadMatrixX4(short[] shared, int index) {
    int[] row = new int[4];
    for (int j = 0; j < 4; j++) {
      row[j] = (shared[index + 2 * j] & 0xFFFF) | (shared[index + 2 * j + 1] << 16);
    }
    return matrixRows(row);
  }

  private Int4 matrixRows(int[] row) {
    int w = tid >> 5;
    int lane = tid & 31;
    state.frags[w][lane] = row;
    await(state.warps[w]);
    int r = lane >> 2;
    int c = lane & 3;
    Int4 out =
        new Int4(
            ((int[]) state.frags[w][r])[c],
            ((int[]) state.frags[w][8 + r])[c],
            ((int[]) state.frags[w][16 + r])[c],
            ((int[]) state.frags[w][24 + r])[c]);
    await(state.warps[w]);
    return out;
  }

  @Override
  public Float4 mmaBf16(Int4 a, Int2 b, Float4 c) {
    return mma(a, b, c, true);
  }

  @Override
  public Float4 mmaF16(Int4 a, Int2 b, Float4 c) {
    return mma(a, b, c, false);
  }

  /** Runs {@code body(ctx)} for every thread of a 1-D launch, block by block. */
  public static void launch(
      int blocks, int blockSize, java.util.function.Consumer<KernelContext> body) {
    launch(new Geometry(blockSize, 1, 1, blocks, 1, 1), body);
  }

  /** Runs {@code body(ctx)} for every thread of launch {@code g}, block by block. */
  public static void launch(Geometry g, java.util.function.Consumer<KernelContext> body) {
    int blockSize = g.blockThreads();
    for (int blk = 0; blk < g.blocks(); blk++) {
      BlockState st = new BlockState(blockSize);
      Thread[] ts = new Thread[blockSize];
      Throwable[] err = new Throwable[1];
      for (int t = 0; t < blockSize; t++) {
        ThreadedContext ctx = new ThreadedContext(st, g, blk, t);
        ts[t] =
            Thread.ofPlatform()
                .unstarted(
                    () -> {
                      try {
                        body.accept(ctx);
                      } catch (Throwable e) {
                        synchronized (err) {
                          err[0] = e;
                        }
                        st.block.reset();
                        for (CyclicBarrier w : st.warps) {
                          w.reset();
                        }
                      }
                    });
        ts[t].start();
      }
      for (Thread t : ts) {
        try {
          t.join();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      if (err[0] != null) {
        throw new IllegalStateException("kernel failed in block " + blk, err[0]);
      }
    }
  }
}
