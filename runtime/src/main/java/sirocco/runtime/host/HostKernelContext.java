package sirocco.runtime.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.KernelContext;

/**
 * One simulated GPU thread of a Java-backend launch. Collective operations go through the block and
 * warp objects shared by the threads of the block; atomics use {@link VarHandle}s so that
 * concurrent threads see the same results the GPU's atomics give.
 */
final class HostKernelContext extends KernelContext {
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle FLOATS = MethodHandles.arrayElementVarHandle(float[].class);

  private HostBlock block;
  private HostWarp warp;
  private int localLinear;
  private int lane;
  private int sharedSite;
  // The last array loadMatrixX4 found among the block's shared arrays: a kernel loads from the same
  // few tiles every step, so the (synchronized) search runs once per array and thread.
  private Object knownShared;

  /** Points this context at thread {@code (tx, ty, tz)} of block {@code (bx, by, bz)}. */
  void position(
      HostBlock block, int bx, int by, int bz, int tx, int ty, int tz, int[] grid, int[] dims) {
    this.block = block;
    place(bx, by, bz, tx, ty, tz, grid, dims);
    // Warps are formed from the linearised thread index, x fastest, as on the GPU.
    this.localLinear = (tz * dims[1] + ty) * dims[0] + tx;
    this.lane = localLinear & 31;
    this.warp = block.warp(localLinear);
    this.sharedSite = 0;
    this.knownShared = null;
  }

  int localLinear() {
    return localLinear;
  }

  @Override
  public void localBarrier() {
    block.barrier();
  }

  @Override
  public void warpBarrier() {
    warp.sync();
  }

  @Override
  public void threadFence() {
    VarHandle.fullFence();
  }

  @Override
  public float[] allocateFloatLocalArray(int length) {
    return (float[]) block.sharedArray(sharedSite++, float.class, length);
  }

  @Override
  public int[] allocateIntLocalArray(int length) {
    return (int[]) block.sharedArray(sharedSite++, int.class, length);
  }

  @Override
  public short[] allocateShortLocalArray(int length) {
    return (short[]) block.sharedArray(sharedSite++, short.class, length);
  }

  @Override
  public byte[] allocateByteLocalArray(int length) {
    return (byte[]) block.sharedArray(sharedSite++, byte.class, length);
  }

  private int shuffle(int value, int source, String what) {
    return (int) warp.exchange(lane, value, source, what);
  }

  @Override
  public float shuffleXor(float value, int laneMask) {
    return Float.intBitsToFloat(shuffleXor(Float.floatToRawIntBits(value), laneMask));
  }

  @Override
  public int shuffleXor(int value, int laneMask) {
    return shuffle(value, (lane ^ laneMask) & 31, "shuffleXor");
  }

  @Override
  public float shuffleDown(float value, int delta) {
    return Float.intBitsToFloat(shuffleDown(Float.floatToRawIntBits(value), delta));
  }

  @Override
  public int shuffleDown(int value, int delta) {
    int source = lane + delta;
    int result = shuffle(value, source > 31 || source < 0 ? lane : source, "shuffleDown");
    return result;
  }

  @Override
  public float shuffleUp(float value, int delta) {
    return Float.intBitsToFloat(shuffleUp(Float.floatToRawIntBits(value), delta));
  }

  @Override
  public int shuffleUp(int value, int delta) {
    int source = lane - delta;
    return shuffle(value, source < 0 || source > 31 ? lane : source, "shuffleUp");
  }

  @Override
  public float shuffleIdx(float value, int srcLane) {
    return Float.intBitsToFloat(shuffleIdx(Float.floatToRawIntBits(value), srcLane));
  }

  @Override
  public int shuffleIdx(int value, int srcLane) {
    return shuffle(value, srcLane & 31, "shuffleIdx");
  }

  @Override
  public int atomicAdd(int[] array, int index, int value) {
    return (int) INTS.getAndAdd(array, index, value);
  }

  @Override
  public float atomicAdd(float[] array, int index, float value) {
    while (true) {
      float old = (float) FLOATS.getVolatile(array, index);
      if (FLOATS.compareAndSet(array, index, old, old + value)) {
        return old;
      }
    }
  }

  @Override
  public int atomicMax(int[] array, int index, int value) {
    while (true) {
      int old = (int) INTS.getVolatile(array, index);
      if (old >= value || INTS.compareAndSet(array, index, old, value)) {
        return old;
      }
    }
  }

  @Override
  public int atomicMin(int[] array, int index, int value) {
    while (true) {
      int old = (int) INTS.getVolatile(array, index);
      if (old <= value || INTS.compareAndSet(array, index, old, value)) {
        return old;
      }
    }
  }

  @Override
  public int atomicCas(int[] array, int index, int expected, int value) {
    return (int) INTS.compareAndExchange(array, index, expected, value);
  }

  @Override
  public int atomicExchange(int[] array, int index, int value) {
    return (int) INTS.getAndSet(array, index, value);
  }

  @Override
  public int loadVolatile(int[] array, int index) {
    return (int) INTS.getVolatile(array, index);
  }

  @Override
  public Float4 mmaBf16(Int4 a, Int2 b, Float4 c) {
    return mma(a, b, c, true);
  }

  @Override
  public Float4 mmaF16(Int4 a, Int2 b, Float4 c) {
    return mma(a, b, c, false);
  }

  @Override
  public Int4 loadMatrixX4(int[] shared, int index) {
    checkMatrixRow(shared, index, 4, shared.length, "Int");
    // Each lane reads the row it addresses when it reaches the instruction, as the GPU does.
    return exchangeRows(
        new Int4(shared[index], shared[index + 1], shared[index + 2], shared[index + 3]));
  }

  @Override
  public Int4 loadMatrixX4(short[] shared, int index) {
    checkMatrixRow(shared, index, 8, shared.length, "Short");
    return exchangeRows(
        new Int4(
            pairAt(shared, index),
            pairAt(shared, index + 2),
            pairAt(shared, index + 4),
            pairAt(shared, index + 6)));
  }

  private static int pairAt(short[] a, int i) {
    return (a[i] & 0xFFFF) | (a[i + 1] << 16);
  }

  private void checkMatrixRow(Object shared, int index, int row, int length, String kind) {
    if (index % row != 0 || index < 0 || index + row > length) {
      throw new IllegalArgumentException(
          "loadMatrixX4: lane "
              + lane
              + " passed index "
              + index
              + "; expected a multiple of "
              + row
              + " (a 16-byte row) with index + "
              + row
              + " <= "
              + length);
    }
    if (shared != knownShared && !block.isShared(shared)) {
      throw new IllegalArgumentException(
          "loadMatrixX4: the array must come from ctx.allocate"
              + kind
              + "LocalArray (ldmatrix reads shared memory only)");
    }
    knownShared = shared;
  }

  /** The rows are exchanged so that lane l takes int l & 3 of row l >> 2 of each matrix. */
  private Int4 exchangeRows(Int4 row) {
    Object[] rows = warp.gather(lane, row, "loadMatrixX4");
    int r = lane >> 2;
    int c = lane & 3;
    return new Int4(
        word((Int4) rows[r], c),
        word((Int4) rows[8 + r], c),
        word((Int4) rows[16 + r], c),
        word((Int4) rows[24 + r], c));
  }

  private static int word(Int4 v, int c) {
    return switch (c) {
      case 0 -> v.x();
      case 1 -> v.y();
      case 2 -> v.z();
      default -> v.w();
    };
  }

  private record Fragments(Int4 a, Int2 b) {}

  /** m16n8k16 with the PTX fragment layout documented on {@link KernelContext#mmaBf16}. */
  private Float4 mma(Int4 a, Int2 b, Float4 c, boolean bf16) {
    Object[] all = warp.gather(lane, new Fragments(a, b), bf16 ? "mmaBf16" : "mmaF16");
    float[][] matA = new float[16][16];
    float[][] matB = new float[16][8];
    for (int l = 0; l < 32; l++) {
      Fragments f = (Fragments) all[l];
      int g = l >> 2;
      int t = l & 3;
      int[] words = {f.a().x(), f.a().y(), f.a().z(), f.a().w()};
      int[] rows = {g, g + 8, g, g + 8};
      int[] cols = {2 * t, 2 * t, 2 * t + 8, 2 * t + 8};
      for (int r = 0; r < 4; r++) {
        matA[rows[r]][cols[r]] = half(words[r], false, bf16);
        matA[rows[r]][cols[r] + 1] = half(words[r], true, bf16);
      }
      matB[2 * t][g] = half(f.b().x(), false, bf16);
      matB[2 * t + 1][g] = half(f.b().x(), true, bf16);
      matB[2 * t + 8][g] = half(f.b().y(), false, bf16);
      matB[2 * t + 9][g] = half(f.b().y(), true, bf16);
    }
    int g = lane >> 2;
    int t = lane & 3;
    return new Float4(
        dot(matA, matB, g, 2 * t, c.x()),
        dot(matA, matB, g, 2 * t + 1, c.y()),
        dot(matA, matB, g + 8, 2 * t, c.z()),
        dot(matA, matB, g + 8, 2 * t + 1, c.w()));
  }

  private static float dot(float[][] a, float[][] b, int row, int col, float acc) {
    // Products of 16-bit inputs are exact in double; one rounding at the end, as close as the CPU
    // gets.
    double sum = acc;
    for (int k = 0; k < 16; k++) {
      sum += (double) a[row][k] * b[k][col];
    }
    return (float) sum;
  }

  private static float half(int word, boolean high, boolean bf16) {
    short bits = (short) (high ? word >>> 16 : word);
    return bf16 ? Float.intBitsToFloat(bits << 16) : Float.float16ToFloat(bits);
  }
}
