package sirocco.api;

/**
 * The per-thread view of a kernel launch, shaped like TornadoVM's {@code KernelContext}.
 *
 * <p>A kernel is a {@code public static void} method whose first parameter is a {@code
 * KernelContext}. On the GPU the compiler replaces every field read and method call on the context
 * with the matching PTX special register or instruction; on the CPU (the Java backend) each
 * simulated GPU thread gets its own instance whose fields hold that thread's coordinates, and whose
 * methods implement the GPU semantics (a real barrier across the threads of a block, shuffles
 * across the 32 lanes of a warp, shared arrays shared per block).
 *
 * <p>The fields are plain mutable {@code int}s, as in TornadoVM, so that kernels read them without
 * a call; a kernel must never assign them (the compiler rejects such a store).
 *
 * <p>Kernels run by Sirocco never construct a context: the launcher does. Backends subclass this
 * class.
 */
public abstract class KernelContext {
  /**
   * Threads per warp on every NVIDIA GPU Sirocco targets; javac folds this constant into kernels.
   */
  public static final int WARP_SIZE = 32;

  /** Global thread index in x: {@code groupIdx * localGroupSizeX + localIdx}. */
  public int globalIdx;

  public int globalIdy;
  public int globalIdz;

  /** Thread index within its block (PTX {@code %tid}). */
  public int localIdx;

  public int localIdy;
  public int localIdz;

  /** Block index within the grid (PTX {@code %ctaid}). */
  public int groupIdx;

  public int groupIdy;
  public int groupIdz;

  /** Threads per block (PTX {@code %ntid}). */
  public int localGroupSizeX;

  public int localGroupSizeY;
  public int localGroupSizeZ;

  /** Threads in the whole grid: {@code localGroupSizeX * number of blocks in x}. */
  public int globalGroupSizeX;

  public int globalGroupSizeY;
  public int globalGroupSizeZ;

  /** Number of blocks in the grid (PTX {@code %nctaid}). */
  public int groupCountX;

  public int groupCountY;
  public int groupCountZ;

  protected KernelContext() {}

  /**
   * For backends that run kernels as Java code: sets every coordinate field for thread {@code (tx,
   * ty, tz)} of block {@code (bx, by, bz)} in a grid of {@code grid} blocks of {@code dims} threads
   * (x, y, z each), the global fields derived as on the GPU. Takes the coordinates as values so a
   * backend can call it for every simulated thread without allocating.
   */
  protected final void place(
      int bx, int by, int bz, int tx, int ty, int tz, int[] grid, int[] dims) {
    groupIdx = bx;
    groupIdy = by;
    groupIdz = bz;
    localIdx = tx;
    localIdy = ty;
    localIdz = tz;
    localGroupSizeX = dims[0];
    localGroupSizeY = dims[1];
    localGroupSizeZ = dims[2];
    groupCountX = grid[0];
    groupCountY = grid[1];
    groupCountZ = grid[2];
    globalGroupSizeX = grid[0] * dims[0];
    globalGroupSizeY = grid[1] * dims[1];
    globalGroupSizeZ = grid[2] * dims[2];
    globalIdx = bx * dims[0] + tx;
    globalIdy = by * dims[1] + ty;
    globalIdz = bz * dims[2] + tz;
  }

  /**
   * Barrier across all threads of the block ({@code bar.sync 0}); also orders their shared and
   * global memory accesses. Every thread of the block that has not exited must reach the same
   * barrier: a barrier inside divergent code is undefined on the GPU and reported as an error by
   * the Java backend.
   */
  public abstract void localBarrier();

  /**
   * Barrier across the 32 lanes of this thread's warp ({@code bar.warp.sync 0xffffffff}); also
   * orders their memory accesses.
   */
  public abstract void warpBarrier();

  /**
   * Device-scope memory fence ({@code fence.acq_rel.gpu}, the PTX form of CUDA's {@code
   * __threadfence()}): this thread's memory accesses before the fence are ordered before its
   * accesses after it, as observed by every thread of the grid. It synchronizes nothing by itself
   * and is not a barrier: pair it with an atomic to publish data to other blocks, e.g. the "last
   * block" pattern: every thread stores its results, {@link #localBarrier()}, then one thread calls
   * {@code threadFence()} and {@link #atomicAdd(int[], int, int)} on a counter; the thread that
   * sees the last count calls {@code threadFence()} again before the block reads the other blocks'
   * results. Read data written by other blocks of the same launch with plain array loads, never
   * with {@code Vec.ldg} ({@code ld.global.nc}), which may return stale values for memory written
   * during the kernel. The compiler never moves, merges or removes a fence. The Java backend
   * implements it as {@link java.lang.invoke.VarHandle#fullFence()}.
   */
  public abstract void threadFence();

  /**
   * Waits until every kernel this launch may overlap has finished and its memory writes are visible
   * ({@code griddepcontrol.wait} on sm_90+, the PTX form of CUDA's {@code
   * cudaGridDependencySynchronize()}). Only a launch made with {@code KernelLaunch.withEarlyStart}
   * can start before the previous kernel in its stream has finished; such a kernel must call this
   * before it reads anything that kernel writes (or writes anything it reads), and the CUDA backend
   * refuses an early-start launch of a kernel that never calls it. Without early start, and on the
   * Java backend (where launches run one after the other), it returns at once. Code before it may
   * only compute from its parameters.
   */
  public final void waitForPriorGrids() {
    // The Java backend runs launches in order; the GPU compiler emits the instruction.
  }

  /**
   * Lets the next early-start launch in this stream be scheduled now, before this kernel finishes
   * ({@code griddepcontrol.launch_dependents} on sm_90+): once every block of this grid has called
   * it or exited, the dependent grid's blocks may become resident and run up to their {@link
   * #waitForPriorGrids()}, which still waits for this whole grid to finish. Call it early when this
   * grid fits the GPU in one wave (the dependent's launch latency then overlaps this kernel's
   * work); it never makes results visible early. A no-op without an early-start launch after this
   * one and on the Java backend.
   */
  public final void releaseDependentGrids() {
    // See waitForPriorGrids.
  }

  /**
   * Returns a {@code float} array in block-shared memory ({@code .shared}). Every thread of a block
   * gets the same array for the same allocation site; {@code length} must be a compile-time
   * constant (or a {@link Specialize} parameter). Contents are undefined on entry, as on the GPU. A
   * kernel's arrays may take 48 KiB in all on any GPU; above that Sirocco's compiler places them in
   * dynamic shared memory (the CUDA backend launches with it), up to the architecture's per-block
   * limit: 163 KiB on sm_80, 99 KiB on sm_86/sm_89, 227 KiB on sm_90.
   */
  public abstract float[] allocateFloatLocalArray(int length);

  /** Block-shared {@code int} array; see {@link #allocateFloatLocalArray(int)}. */
  public abstract int[] allocateIntLocalArray(int length);

  /**
   * Block-shared {@code short} array (bf16/f16 bits); see {@link #allocateFloatLocalArray(int)}.
   */
  public abstract short[] allocateShortLocalArray(int length);

  /** Block-shared {@code byte} array; see {@link #allocateFloatLocalArray(int)}. */
  public abstract byte[] allocateByteLocalArray(int length);

  /**
   * Block-shared {@code long} array; see {@link #allocateFloatLocalArray(int)}. {@link Mbarrier}
   * barriers live in one.
   */
  public abstract long[] allocateLongLocalArray(int length);

  /**
   * Returns {@code value} as held by lane {@code laneId ^ laneMask} of this warp ({@code
   * shfl.sync.bfly}). All 32 lanes must call it together.
   */
  public abstract float shuffleXor(float value, int laneMask);

  /** {@code int} version of {@link #shuffleXor(float, int)}. */
  public abstract int shuffleXor(int value, int laneMask);

  /**
   * Returns {@code value} as held by lane {@code laneId + delta} ({@code shfl.sync.down}); lanes
   * whose source lies beyond lane 31 get their own value back.
   */
  public abstract float shuffleDown(float value, int delta);

  /** {@code int} version of {@link #shuffleDown(float, int)}. */
  public abstract int shuffleDown(int value, int delta);

  /**
   * Returns {@code value} as held by lane {@code laneId - delta} ({@code shfl.sync.up}); lanes
   * whose source lies below lane 0 get their own value back.
   */
  public abstract float shuffleUp(float value, int delta);

  /** {@code int} version of {@link #shuffleUp(float, int)}. */
  public abstract int shuffleUp(int value, int delta);

  /** Returns {@code value} as held by lane {@code srcLane & 31} ({@code shfl.sync.idx}). */
  public abstract float shuffleIdx(float value, int srcLane);

  /** {@code int} version of {@link #shuffleIdx(float, int)}. */
  public abstract int shuffleIdx(int value, int srcLane);

  /**
   * Atomically adds {@code value} to {@code array[index]} and returns the previous value ({@code
   * atom.add}).
   */
  public abstract int atomicAdd(int[] array, int index, int value);

  /** {@code float} version of {@link #atomicAdd(int[], int, int)} ({@code atom.add.f32}). */
  public abstract float atomicAdd(float[] array, int index, float value);

  /**
   * Atomically stores {@code max(array[index], value)}; returns the previous value ({@code
   * atom.max.s32}).
   */
  public abstract int atomicMax(int[] array, int index, int value);

  /**
   * Atomically stores {@code min(array[index], value)}; returns the previous value ({@code
   * atom.min.s32}).
   */
  public abstract int atomicMin(int[] array, int index, int value);

  /**
   * Atomically replaces {@code array[index]} with {@code value} if it equals {@code expected};
   * returns the previous value ({@code atom.cas.b32}).
   */
  public abstract int atomicCas(int[] array, int index, int expected, int value);

  /** Atomically replaces {@code array[index]} with {@code value}; returns the previous value. */
  public abstract int atomicExchange(int[] array, int index, int value);

  /**
   * Reads {@code array[index]} bypassing caches that could hold a stale copy ({@code ld.volatile}),
   * for flags written by the host or by other blocks while the kernel runs.
   */
  public abstract int loadVolatile(int[] array, int index);

  /**
   * Warp-wide tensor-core product {@code D = A·B + C} of shape m16n8k16 with bfloat16 inputs and
   * float accumulation ({@code mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32}). All 32 lanes
   * call it together, each passing its fragments in the PTX ISA layout: with {@code g = lane >> 2}
   * and {@code t = lane & 3}, {@code a.x} holds A[g][2t, 2t+1], {@code a.y} A[g+8][2t, 2t+1],
   * {@code a.z} A[g][2t+8, 2t+9], {@code a.w} A[g+8][2t+8, 2t+9] (low half = lower column); {@code
   * b.x} holds B[2t, 2t+1][g], {@code b.y} B[2t+8, 2t+9][g]; {@code c}/result {@code x, y, z, w}
   * hold C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]. The Java backend computes the same product
   * in float arithmetic; results may differ from the tensor cores in the last bits.
   */
  public abstract Float4 mmaBf16(Int4 a, Int2 b, Float4 c);

  /** As {@link #mmaBf16} with IEEE binary16 inputs ({@code .f16}). */
  public abstract Float4 mmaF16(Int4 a, Int2 b, Float4 c);

  /**
   * Warp-wide load of four 8x8 matrices of 16-bit values from shared memory in the fragment layout
   * of {@link #mmaBf16} ({@code ldmatrix.sync.aligned.m8n8.x4.shared.b16}): one instruction where
   * 32-bit loads take sixteen per 16x16 tile. All 32 lanes call it together; lane {@code l} passes
   * the int index in {@code shared} (an array from {@link #allocateIntLocalArray}, index a multiple
   * of 4: 16-byte rows) of row {@code l & 7} of matrix {@code l >> 3}, each row 8 halves (4 ints).
   * Component {@code i} of the result (x, y, z, w for i = 0..3) holds, for lane {@code l}, int
   * {@code l & 3} of row {@code l >> 2} of matrix {@code i}: the pair of columns {@code 2 (l & 3)},
   * {@code 2 (l & 3) + 1} of that row, low half the lower column. With matrices 0..3 = rows 0-7 /
   * 8-15 by columns 0-7 / 8-15 of a row-major 16x16 A tile (matrix order: rows 0-7 cols 0-7, rows
   * 8-15 cols 0-7, rows 0-7 cols 8-15, rows 8-15 cols 8-15) the result is the A fragment; a B
   * fragment of an 8-column tile stored n-major (each row of the array one column of B) is two
   * matrices (its k 0-7 and k 8-15 halves).
   */
  public abstract Int4 loadMatrixX4(int[] shared, int index);

  /**
   * {@link #loadMatrixX4(int[], int)} from a shared {@code short} array (from {@link
   * #allocateShortLocalArray}): {@code index} counts halves and is a multiple of 8 (a 16-byte row).
   */
  public abstract Int4 loadMatrixX4(short[] shared, int index);

  /**
   * Warpgroup-wide asynchronous tensor-core product {@code D = A·B + C} of shape m64n128k16 with
   * bfloat16 inputs and float accumulation ({@code wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16
   * .bf16}, Hopper sm_90 only). The 128 threads of an aligned warpgroup (warps {@code 4j .. 4j +
   * 3}) call it together.
   *
   * <p>A (64 x 16) comes from registers: warp {@code w & 3} of the group passes rows {@code 16 (w &
   * 3) .. 16 (w & 3) + 15} as an {@link #mmaBf16} A fragment. B (16 x 128) is read from shared
   * memory: {@code b} (an array from {@link #allocateShortLocalArray}) holds it as 8 x 8 core
   * matrices of 128 contiguous bytes, each 8 columns of B (n) by 8 consecutive k, a column's 8 k
   * values in one 16-byte row; {@code bIndex} (a multiple of 8) is the first half of the core
   * matrix of k 0-7 and columns 0-7, the one of k 8-15 lies {@code lbo} bytes above it and the one
   * of the next 8 columns {@code sbo} bytes above it ({@code lbo}, {@code sbo}: constant multiples
   * of 16 below 2^18). The result holds {@code c}'s layout ({@link Float4x16}).
   *
   * <p>The product is asynchronous: its result may be read, and {@code b}'s tile and {@code a}'s
   * registers overwritten, only after {@link #warpgroupCommit} and a {@link #warpgroupWait} that
   * covers it. Before the first product of a group, and whenever registers it reads were written
   * since the last product, the warpgroup calls {@link #warpgroupFence}; shared memory written by
   * ordinary stores must be published to the tensor cores with {@link #fenceSharedAsync} and a
   * barrier first. The Java backend computes the product when called, in float arithmetic.
   */
  public abstract Float4x16 warpgroupMmaBf16(
      Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c);

  /** As {@link #warpgroupMmaBf16} with IEEE binary16 inputs ({@code .f16}). */
  public abstract Float4x16 warpgroupMmaF16(
      Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c);

  /**
   * {@link #warpgroupMmaBf16} with B (16 x 128) read from a tile of swizzled K-major rows, the
   * layout a {@link Vec#copyTileAsync tile copy} with {@code swizzle}-byte swizzling writes: column
   * {@code n} of B (one row of the tile) holds its 16 k values as 32 consecutive bytes starting
   * {@code 2 bIndex + n swizzle} bytes into {@code b}, with every 16-byte chunk moved as {@link
   * TileMap#swizzle} says. So a tile whose rows are {@code swizzle / 2} halves of k feeds {@code
   * swizzle / 32} products, {@code bIndex} stepping by 16 halves within a row.
   *
   * <ul>
   *   <li>{@code swizzle}: a constant 32, 64 or 128;
   *   <li>{@code bIndex}: a multiple of 8 (16 bytes) whose slice stays in its row ({@code (2
   *       bIndex) mod swizzle <= swizzle - 32}), the 128 rows starting at {@code 2 bIndex} rounded
   *       down to a row; the compiler aligns the shared arrays of a kernel calling this to 1024
   *       bytes, the period of the pattern.
   * </ul>
   */
  public abstract Float4x16 warpgroupMmaBf16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c);

  /** As {@link #warpgroupMmaBf16Swizzled} with IEEE binary16 inputs ({@code .f16}). */
  public abstract Float4x16 warpgroupMmaF16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c);

  /**
   * Orders this thread's register writes before the warpgroup products that follow ({@code
   * wgmma.fence.sync.aligned}); all threads of the warpgroup call it.
   */
  public abstract void warpgroupFence();

  /**
   * Closes the group of warpgroup products issued since the last commit ({@code
   * wgmma.commit_group.sync.aligned}).
   */
  public abstract void warpgroupCommit();

  /**
   * Waits until at most {@code pending} (a constant 0..7) committed groups of warpgroup products
   * are still running ({@code wgmma.wait_group.sync.aligned}).
   */
  public abstract void warpgroupWait(int pending);

  /**
   * Makes this thread's earlier ordinary stores to shared memory visible to the asynchronous proxy
   * that warpgroup products read through ({@code fence.proxy.async.shared::cta}); follow it with a
   * barrier before the product.
   */
  public abstract void fenceSharedAsync();

  /** Lane of this thread within its warp: {@code localIdx & 31} for one-dimensional blocks. */
  public final int laneId() {
    return localIdx & (WARP_SIZE - 1);
  }

  /** Warp of this thread within its block: {@code localIdx >> 5} for one-dimensional blocks. */
  public final int warpId() {
    return localIdx >> 5;
  }
}
