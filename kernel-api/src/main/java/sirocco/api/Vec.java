package sirocco.api;

/**
 * Wide and read-only memory accesses for kernels.
 *
 * <p>The {@code ldg*} methods are for data the kernel only reads: on the GPU they become
 * non-coherent loads through the read-only data path ({@code ld.global.nc}); the {@code
 * load*}/{@code store*} methods are ordinary accesses and work on global and shared arrays alike.
 * The {@code *4} methods move 16 bytes in one instruction ({@code .v4.b32}), the {@code *2} methods
 * 8 bytes. The index must be a multiple of the access width in elements (16-byte accesses: 4
 * ints/floats, 8 shorts, 16 bytes): the GPU faults on a misaligned address, and the Java backend
 * throws {@link IllegalArgumentException} so that tests catch it.
 *
 * <p>Narrow elements are packed little-endian: {@code ldg4(short[] a, i)} returns {@code x} holding
 * {@code a[i]} in its low 16 bits and {@code a[i+1]} in its high 16 bits, {@code y} holding {@code
 * a[i+2]} and {@code a[i+3]}, and so on.
 *
 * <p>{@link #copyAsync(int[], int, int[], int, int) copyAsync}, {@link #commitAsync()} and {@link
 * #waitAsync(int)} copy global memory to shared memory asynchronously ({@code cp.async}, sm_80+): a
 * thread can keep many loads in flight without holding a register for each, which is what a
 * latency-bound kernel needs. A multi-stage pipeline with {@code S} shared buffers of {@code T}
 * ints (4 per thread), thread {@code t} copying 16 bytes of each tile and committing one group per
 * step:
 *
 * <pre>{@code
 * for (int s = 0; s < S - 1; s++) { // prologue: tiles 0 .. S-2
 *   Vec.copyAsync(buf, s * T + 4 * t, src, base + s * T + 4 * t, 16);
 *   Vec.commitAsync();
 * }
 * for (int k = 0; k < tiles; k++) {
 *   Vec.waitAsync(S - 2); // this thread's copies of tile k have landed
 *   ctx.localBarrier();   // ... and every thread's; nobody reads stage (k - 1) % S any more
 *   ... read tile k from buf[(k % S) * T ...] ...
 *   int n = k + S - 1;
 *   if (n < tiles) {
 *     Vec.copyAsync(buf, (n % S) * T + 4 * t, src, base + n * T + 4 * t, 16);
 *   }
 *   Vec.commitAsync();    // empty at the end: the count stays the same on every step
 * }
 * }</pre>
 */
public final class Vec {
  private Vec() {}

  private static void aligned(int index, int width) {
    if ((index & (width - 1)) != 0 || index < 0) {
      throw new IllegalArgumentException(
          "vector access index "
              + index
              + " is not a non-negative multiple of "
              + width
              + " elements");
    }
  }

  private static int pack(short lo, short hi) {
    return (lo & 0xFFFF) | (hi << 16);
  }

  private static int pack(byte b0, byte b1, byte b2, byte b3) {
    return (b0 & 0xFF) | (b1 & 0xFF) << 8 | (b2 & 0xFF) << 16 | (b3 & 0xFF) << 24;
  }

  // ---- read-only scalar loads (ld.global.nc) ----

  public static int ldg(int[] a, int i) {
    return a[i];
  }

  public static float ldg(float[] a, int i) {
    return a[i];
  }

  public static short ldg(short[] a, int i) {
    return a[i];
  }

  public static byte ldg(byte[] a, int i) {
    return a[i];
  }

  // ---- read-only 16-byte loads ----

  public static Int4 ldg4(int[] a, int i) {
    aligned(i, 4);
    return new Int4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Float4 ldg4(float[] a, int i) {
    aligned(i, 4);
    return new Float4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Int4 ldg4(short[] a, int i) {
    aligned(i, 8);
    return new Int4(
        pack(a[i], a[i + 1]),
        pack(a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5]),
        pack(a[i + 6], a[i + 7]));
  }

  public static Int4 ldg4(byte[] a, int i) {
    aligned(i, 16);
    return new Int4(
        pack(a[i], a[i + 1], a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5], a[i + 6], a[i + 7]),
        pack(a[i + 8], a[i + 9], a[i + 10], a[i + 11]),
        pack(a[i + 12], a[i + 13], a[i + 14], a[i + 15]));
  }

  // ---- read-only 8-byte loads ----

  public static Int2 ldg2(int[] a, int i) {
    aligned(i, 2);
    return new Int2(a[i], a[i + 1]);
  }

  public static Int2 ldg2(short[] a, int i) {
    aligned(i, 4);
    return new Int2(pack(a[i], a[i + 1]), pack(a[i + 2], a[i + 3]));
  }

  // ---- coherent 8-byte loads (global or shared) ----

  public static Int2 load2(int[] a, int i) {
    aligned(i, 2);
    return new Int2(a[i], a[i + 1]);
  }

  public static Int2 load2(short[] a, int i) {
    aligned(i, 4);
    return new Int2(pack(a[i], a[i + 1]), pack(a[i + 2], a[i + 3]));
  }

  // ---- coherent 16-byte loads (global or shared) ----

  public static Int4 load4(int[] a, int i) {
    aligned(i, 4);
    return new Int4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Float4 load4(float[] a, int i) {
    aligned(i, 4);
    return new Float4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Int4 load4(short[] a, int i) {
    aligned(i, 8);
    return new Int4(
        pack(a[i], a[i + 1]),
        pack(a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5]),
        pack(a[i + 6], a[i + 7]));
  }

  // ---- asynchronous global -> shared copies (cp.async) ----

  /**
   * 16/8/4-byte asynchronous copy global -> shared: starts copying {@code bytes / 4} ints from
   * {@code src[srcIndex...]} to {@code dst[dstIndex...]} and returns at once ({@code cp.async}); no
   * register holds the data while it is in flight.
   *
   * <ul>
   *   <li>{@code dst} must be a block-shared array ({@code ctx.allocateIntLocalArray}) and {@code
   *       src} a kernel parameter: the instruction only copies global to shared memory.
   *   <li>{@code bytes} must be 4, 8 or 16, and a compile-time constant after specialization (a
   *       literal, a {@code static final}, an expression of {@code @Specialize} parameters): it is
   *       an immediate of the instruction. 16 becomes {@code cp.async.cg} (cached in L2 only, for
   *       streamed data that should not evict L1), 4 and 8 {@code cp.async.ca} ({@code .cg} exists
   *       only for 16 bytes).
   *   <li>Both addresses must be multiples of {@code bytes} ({@code dstIndex} and {@code srcIndex}
   *       multiples of {@code bytes / 4}; arrays start 16-byte aligned): the GPU faults on a
   *       misaligned address, so the Java body throws {@link IllegalArgumentException} for one.
   *   <li>The copied data is defined in {@code dst} for this thread once a {@link #waitAsync(int)}
   *       covering the copy's group has returned, and for the other threads of the block after a
   *       {@code ctx.localBarrier()} that follows that wait. Until then neither read nor write that
   *       part of {@code dst}.
   * </ul>
   *
   * <p>The compiler never moves, merges or removes a copy, a commit or a wait, and never moves a
   * load or store across them. On the Java backend the copy happens at once.
   */
  public static void copyAsync(int[] dst, int dstIndex, int[] src, int srcIndex, int bytes) {
    System.arraycopy(src, srcIndex, dst, dstIndex, asyncElements(dstIndex, srcIndex, bytes, 4));
  }

  /**
   * 16/8/4-byte asynchronous copy global -> shared of {@code bytes / 2} shorts, as {@link
   * #copyAsync(int[], int, int[], int, int)} ({@code dst} from {@code ctx.allocateShortLocalArray};
   * the indexes multiples of {@code bytes / 2}).
   */
  public static void copyAsync(short[] dst, int dstIndex, short[] src, int srcIndex, int bytes) {
    System.arraycopy(src, srcIndex, dst, dstIndex, asyncElements(dstIndex, srcIndex, bytes, 2));
  }

  /**
   * 16/8/4-byte asynchronous copy global -> shared of {@code bytes} bytes, as {@link
   * #copyAsync(int[], int, int[], int, int)} ({@code dst} from {@code ctx.allocateByteLocalArray};
   * the indexes multiples of {@code bytes}): U8 scale codes staged beside their weights.
   */
  public static void copyAsync(byte[] dst, int dstIndex, byte[] src, int srcIndex, int bytes) {
    System.arraycopy(src, srcIndex, dst, dstIndex, asyncElements(dstIndex, srcIndex, bytes, 1));
  }

  /**
   * Starts copying the box at column {@code col}, row {@code row} of the matrix {@code map}
   * describes into {@code dst} from {@code dstIndex} on, by the tensor memory accelerator ({@code
   * cp.async.bulk.tensor.2d}, sm_90), and returns at once; the copy delivers its bytes to barrier
   * {@code bars[bar]} ({@link Mbarrier}), whose phase must have been told of them by {@link
   * Mbarrier#arriveExpectTx}. One thread issues a copy for the whole block; no register holds the
   * data.
   *
   * <ul>
   *   <li>{@code dst}: a block-shared array ({@code ctx.allocateShortLocalArray}); {@code dstIndex}
   *       at a multiple of 128 bytes, of {@code 8 swizzleBytes} when the map swizzles (the
   *       pattern's period, see {@link TileMap#swizzle}): the compiler aligns the shared arrays of
   *       a kernel that copies tiles to 1024 bytes.
   *   <li>{@code map}: a kernel parameter from {@code Device.tileMap} of a {@code short} matrix.
   *   <li>{@code col}, {@code row}: element coordinates of the box's first element; parts of the
   *       box outside the matrix land as zeros.
   *   <li>{@code bars}: a block-shared array ({@code ctx.allocateLongLocalArray}).
   * </ul>
   *
   * <p>Until a wait on the barrier's phase has returned, neither read nor write the box in {@code
   * dst}. On the Java backend the copy happens at once.
   */
  public static void copyTileAsync(
      short[] dst, int dstIndex, long[] map, int col, int row, long[] bars, int bar) {
    Mbarrier.completeTx(bars, bar, TileMap.copyBox(dst, dstIndex, map, col, row));
  }

  /**
   * {@link #copyTileAsync(short[], int, long[], int, int, long[], int)} of a matrix of 32-bit
   * elements into a shared {@code int} array ({@code ctx.allocateIntLocalArray}).
   */
  public static void copyTileAsync(
      int[] dst, int dstIndex, long[] map, int col, int row, long[] bars, int bar) {
    Mbarrier.completeTx(bars, bar, TileMap.copyBox(dst, dstIndex, map, col, row));
  }

  /**
   * Closes the group of copies this thread issued since the last commit ({@code
   * cp.async.commit_group}). Groups belong to the issuing thread. A commit with no copies makes an
   * empty group, which counts as complete: committing on every pipeline step, copies or not, keeps
   * {@link #waitAsync(int)}'s count the same for every step. A no-op on the Java backend.
   */
  public static void commitAsync() {}

  /**
   * Waits until at most {@code pendingGroups} of this thread's committed groups are still in flight
   * ({@code cp.async.wait_group N}): every older group is complete, and its data defined for this
   * thread. {@code pendingGroups} must be a compile-time constant from 0 to 7 (an immediate of the
   * instruction; the Java body throws {@link IllegalArgumentException} outside that range). Copies
   * not yet committed belong to no group and no wait covers them, not even {@code waitAsync(0)}:
   * commit before waiting (PTX's {@code cp.async.wait_all} is a commit followed by {@code
   * wait_group 0}). Other threads of the block see the data only after a {@code ctx.localBarrier()}
   * that follows the wait. A no-op on the Java backend, where copies complete when issued.
   */
  public static void waitAsync(int pendingGroups) {
    if (pendingGroups < 0 || pendingGroups > 7) {
      throw new IllegalArgumentException(
          "waitAsync: pendingGroups must be 0 to 7, got " + pendingGroups);
    }
  }

  /**
   * Elements of a {@code bytes}-byte copy of {@code size}-byte elements; checks as the GPU needs.
   */
  private static int asyncElements(int dstIndex, int srcIndex, int bytes, int size) {
    if (bytes != 4 && bytes != 8 && bytes != 16) {
      throw new IllegalArgumentException("copyAsync: bytes must be 4, 8 or 16, got " + bytes);
    }
    int n = bytes / size;
    asyncAligned("dstIndex", dstIndex, n, bytes);
    asyncAligned("srcIndex", srcIndex, n, bytes);
    return n;
  }

  private static void asyncAligned(String name, int index, int elements, int bytes) {
    if (index < 0 || index % elements != 0) {
      throw new IllegalArgumentException(
          "copyAsync: "
              + name
              + " "
              + index
              + " is not a non-negative multiple of "
              + elements
              + " ("
              + bytes
              + "-byte copies must start at a multiple of "
              + bytes
              + " bytes)");
    }
  }

  // ---- 16-byte stores (global or shared) ----

  public static void store4(int[] a, int i, Int4 v) {
    aligned(i, 4);
    a[i] = v.x();
    a[i + 1] = v.y();
    a[i + 2] = v.z();
    a[i + 3] = v.w();
  }

  public static void store4(float[] a, int i, Float4 v) {
    aligned(i, 4);
    a[i] = v.x();
    a[i + 1] = v.y();
    a[i + 2] = v.z();
    a[i + 3] = v.w();
  }

  public static void store4(short[] a, int i, Int4 v) {
    aligned(i, 8);
    int[] words = {v.x(), v.y(), v.z(), v.w()};
    for (int k = 0; k < 4; k++) {
      a[i + 2 * k] = (short) words[k];
      a[i + 2 * k + 1] = (short) (words[k] >>> 16);
    }
  }
}
