package sirocco.runtime.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntBinaryOperator;
import sirocco.api.Float4;
import sirocco.api.Float4x16;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.TileMap;

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
  private HostWarp warpGroup;
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
    this.warpGroup = block.warpGroup(localLinear);
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

  @Override
  public long[] allocateLongLocalArray(int length) {
    return (long[]) block.sharedArray(sharedSite++, long.class, length);
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
  public Float4x16 warpgroupMmaBf16(Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c) {
    return warpgroupMma(a, b, bIndex, lbo, sbo, c, true);
  }

  @Override
  public Float4x16 warpgroupMmaF16(Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c) {
    return warpgroupMma(a, b, bIndex, lbo, sbo, c, false);
  }

  @Override
  public Float4x16 warpgroupMmaBf16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c) {
    return swizzledProduct(a, b, bIndex, swizzle, c, true);
  }

  @Override
  public Float4x16 warpgroupMmaF16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c) {
    return swizzledProduct(a, b, bIndex, swizzle, c, false);
  }

  // The Java backend computes each product when it is issued, so there is nothing in flight to
  // fence, group or wait for; the shared arrays are ordinary memory, published by the barrier.
  @Override
  public void warpgroupFence() {}

  @Override
  public void warpgroupCommit() {}

  @Override
  public void warpgroupWait(int pending) {
    if (pending < 0 || pending > 7) {
      throw new IllegalArgumentException("warpgroupWait: pending must be 0..7, got " + pending);
    }
  }

  @Override
  public void fenceSharedAsync() {}

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

  /**
   * m64n128k16 with the register A fragments of the warpgroup's four warps and B read from shared
   * memory through the core-matrix layout documented on {@link KernelContext#warpgroupMmaBf16}.
   * Each thread computes only the 64 accumulators it holds.
   */
  private Float4x16 warpgroupMma(
      Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c, boolean bf16) {
    String what = bf16 ? "warpgroupMmaBf16" : "warpgroupMmaF16";
    checkCoreMatrices(what, b, bIndex, lbo, sbo);
    // B[k][n]: half (n & 7) * 8 + (k & 7) of its core matrix.
    return warpgroupMma(
        a,
        b,
        (k, n) -> bIndex + ((k >> 3) * lbo + (n >> 3) * sbo) / 2 + (n & 7) * 8 + (k & 7),
        c,
        bf16,
        what);
  }

  /**
   * B[k][n] of a swizzled product: byte {@code 2 bIndex + n swizzle + 2 k} of the tile as written,
   * moved by the swizzle pattern (which the GPU applies to address bits; the compiler aligns the
   * arrays so that array offsets see the same pattern).
   */
  private Float4x16 swizzledProduct(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c, boolean bf16) {
    String what = bf16 ? "warpgroupMmaBf16Swizzled" : "warpgroupMmaF16Swizzled";
    if (swizzle != 32 && swizzle != 64 && swizzle != 128) {
      throw new IllegalArgumentException(
          what + ": swizzle must be 32, 64 or 128 bytes, got " + swizzle);
    }
    if (bIndex < 0 || bIndex % 8 != 0 || (2 * bIndex) % swizzle > swizzle - 32) {
      throw new IllegalArgumentException(
          what
              + ": bIndex must be a non-negative multiple of 8 whose 32-byte slice stays in its "
              + swizzle
              + "-byte row, got "
              + bIndex);
    }
    long end = 2L * bIndex - (2L * bIndex) % swizzle + 128L * swizzle;
    if (end > 2L * b.length) {
      throw new IllegalArgumentException(
          what
              + ": the 128 rows from bIndex "
              + bIndex
              + " end at byte "
              + end
              + ", past the shared array's "
              + 2L * b.length);
    }
    checkShared(what, b);
    return warpgroupMma(
        a,
        b,
        (k, n) -> TileMap.swizzle(2 * bIndex + n * swizzle + 2 * k, swizzle) / 2,
        c,
        bf16,
        what);
  }

  /** The product with B[k][n] at {@code b[at(k, n)]}; each thread computes the 64 it holds. */
  private Float4x16 warpgroupMma(
      Int4 a, short[] b, IntBinaryOperator at, Float4x16 c, boolean bf16, String what) {
    Object[] all = warpGroup.gather(localLinear & 127, a, what);
    int w = (localLinear & 127) >> 5;
    int g = lane >> 2;
    int t = lane & 3;
    // This thread's two rows of A (16 w + g and 16 w + g + 8), from the lanes of its own warp.
    float[][] rowsA = new float[2][16];
    for (int l = 0; l < 32; l++) {
      if (l >> 2 != g) {
        continue;
      }
      Int4 f = (Int4) all[32 * w + l];
      int tl = l & 3;
      int[] words = {f.x(), f.y(), f.z(), f.w()};
      int[] rows = {0, 1, 0, 1};
      int[] cols = {2 * tl, 2 * tl, 2 * tl + 8, 2 * tl + 8};
      for (int r = 0; r < 4; r++) {
        rowsA[rows[r]][cols[r]] = half(words[r], false, bf16);
        rowsA[rows[r]][cols[r] + 1] = half(words[r], true, bf16);
      }
    }
    float[] d = new float[Float4x16.SIZE];
    for (int i = 0; i < 16; i++) {
      for (int e = 0; e < 4; e++) {
        int row = e >> 1;
        int col = 8 * i + 2 * t + (e & 1);
        double sum = c.get(4 * i + e);
        for (int k = 0; k < 16; k++) {
          sum += (double) rowsA[row][k] * half(b[at.applyAsInt(k, col)] & 0xFFFF, false, bf16);
        }
        d[4 * i + e] = (float) sum;
      }
    }
    return Float4x16.of(d);
  }

  private static void checkByteOffset(String what, String name, int bytes) {
    if (bytes <= 0 || bytes % 16 != 0 || bytes >= 1 << 18) {
      throw new IllegalArgumentException(
          what + ": " + name + " must be a positive multiple of 16 below 2^18 bytes, got " + bytes);
    }
  }

  private void checkCoreMatrices(String what, short[] b, int bIndex, int lbo, int sbo) {
    if (bIndex < 0 || bIndex % 8 != 0) {
      throw new IllegalArgumentException(
          what + ": bIndex must be a non-negative multiple of 8 (16 bytes), got " + bIndex);
    }
    checkByteOffset(what, "lbo", lbo);
    checkByteOffset(what, "sbo", sbo);
    int last = bIndex + (lbo + 15 * sbo) / 2 + 64;
    if (last > b.length) {
      throw new IllegalArgumentException(
          what
              + ": the B tile (bIndex "
              + bIndex
              + ", lbo "
              + lbo
              + ", sbo "
              + sbo
              + ") ends at half "
              + last
              + ", past the shared array's "
              + b.length);
    }
    checkShared(what, b);
  }

  private void checkShared(String what, short[] b) {
    if (b != knownShared && !block.isShared(b)) {
      throw new IllegalArgumentException(
          what
              + ": b must come from ctx.allocateShortLocalArray (the product reads shared memory)");
    }
    knownShared = b;
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
