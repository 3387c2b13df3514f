package sirocco.jit.testkernels;

import sirocco.api.Float4;
import sirocco.api.Float4x16;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Warpgroup products (m64n128k16) for the compiler's tests. Launch one block of 128 threads. {@code
 * a} holds A (64 x 16 row major, bf16 bits), {@code b} holds B column by column (128 columns of 16
 * k: b[16 n + k]); {@code d} receives D (64 x 128 row major, floats).
 */
public final class WgmmaKernels {
  private WgmmaKernels() {}

  /** Bytes between the core matrices of k 0-7 and k 8-15 (16 groups of 8 columns, 128 B each). */
  static final int LBO = 2048;

  /** Bytes between the core matrices of consecutive groups of 8 columns. */
  static final int SBO = 128;

  /** Three chained products of A = a and B = b: D = 3 A B. */
  @Kernel
  public static void chain(KernelContext ctx, short[] a, short[] b, float[] d) {
    short[] tile = stage(ctx, b);
    Int4 fa = fragment(ctx, a);
    ctx.warpgroupFence();
    Float4x16 acc = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, Float4x16.zero());
    acc = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, acc);
    acc = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, acc);
    ctx.warpgroupCommit();
    ctx.warpgroupWait(0);
    store(ctx, d, acc, 0);
  }

  /**
   * A product whose accumulator input is read again afterwards: d[0 ..] gets C (the product of the
   * first call), d[64 * 128 ..] gets C + A B.
   */
  @Kernel
  public static void keep(KernelContext ctx, short[] a, short[] b, float[] d) {
    short[] tile = stage(ctx, b);
    Int4 fa = fragment(ctx, a);
    ctx.warpgroupFence();
    Float4x16 c = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, Float4x16.zero());
    ctx.warpgroupCommit();
    ctx.warpgroupWait(0);
    ctx.warpgroupFence();
    Float4x16 e = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, c);
    ctx.warpgroupCommit();
    ctx.warpgroupWait(0);
    store(ctx, d, c, 0);
    store(ctx, d, e, 64 * 128);
  }

  /**
   * A product in a loop whose accumulator input comes from before the loop: every iteration must
   * read the same C (d gets C + A B, n >= 1 times).
   */
  @Kernel
  public static void invariant(KernelContext ctx, short[] a, short[] b, float[] d, int n) {
    short[] tile = stage(ctx, b);
    Int4 fa = fragment(ctx, a);
    ctx.warpgroupFence();
    Float4x16 c = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, Float4x16.zero());
    ctx.warpgroupCommit();
    ctx.warpgroupWait(0);
    for (int i = 0; i < n; i++) {
      ctx.warpgroupFence();
      Float4x16 e = ctx.warpgroupMmaBf16(fa, tile, 0, LBO, SBO, c);
      ctx.warpgroupCommit();
      ctx.warpgroupWait(0);
      store(ctx, d, e, 0);
    }
  }

  /** {@link #chain} marked as compiling for sm_90 only, for {@code KernelCompiler.compilesFor}. */
  @Kernel(archs = {90})
  public static void hopperOnly(KernelContext ctx, short[] a, short[] b, float[] d) {
    chain(ctx, a, b, d);
  }

  /** B into shared memory in the core-matrix layout, published to the tensor cores. */
  private static short[] stage(KernelContext ctx, short[] b) {
    short[] tile = ctx.allocateShortLocalArray(16 * 128);
    for (int i = ctx.localIdx; i < 16 * 128; i += 128) {
      int n = i >> 4;
      int k = i & 15;
      tile[(k >> 3) * (LBO / 2) + (n >> 3) * (SBO / 2) + (n & 7) * 8 + (k & 7)] = b[i];
    }
    ctx.fenceSharedAsync();
    ctx.localBarrier();
    return tile;
  }

  /** This thread's A fragment: rows 16 w + g and + 8 of A, columns 2t, 2t + 1 and + 8. */
  private static Int4 fragment(KernelContext ctx, short[] a) {
    return fragment(ctx, a, 16, 0);
  }

  /**
   * This thread's A fragment of columns {@code col0 .. col0 + 15} of A stored row major with {@code
   * stride} halves per row.
   */
  static Int4 fragment(KernelContext ctx, short[] a, int stride, int col0) {
    int lane = ctx.laneId();
    int row = 16 * (ctx.warpId() & 3) + (lane >> 2);
    int col = col0 + 2 * (lane & 3);
    return new Int4(
        pair(a, row * stride + col),
        pair(a, (row + 8) * stride + col),
        pair(a, row * stride + col + 8),
        pair(a, (row + 8) * stride + col + 8));
  }

  private static int pair(short[] m, int at) {
    return (m[at] & 0xFFFF) | (m[at + 1] << 16);
  }

  static void store(KernelContext ctx, float[] d, Float4x16 acc, int base) {
    int lane = ctx.laneId();
    int row = 16 * (ctx.warpId() & 3) + (lane >> 2);
    int col = 2 * (lane & 3);
    quad(d, base, row, col, acc.quad(0));
    quad(d, base, row, col + 8, acc.quad(1));
    quad(d, base, row, col + 16, acc.quad(2));
    quad(d, base, row, col + 24, acc.quad(3));
    quad(d, base, row, col + 32, acc.quad(4));
    quad(d, base, row, col + 40, acc.quad(5));
    quad(d, base, row, col + 48, acc.quad(6));
    quad(d, base, row, col + 56, acc.quad(7));
    quad(d, base, row, col + 64, acc.quad(8));
    quad(d, base, row, col + 72, acc.quad(9));
    quad(d, base, row, col + 80, acc.quad(10));
    quad(d, base, row, col + 88, acc.quad(11));
    quad(d, base, row, col + 96, acc.quad(12));
    quad(d, base, row, col + 104, acc.quad(13));
    quad(d, base, row, col + 112, acc.quad(14));
    quad(d, base, row, col + 120, acc.quad(15));
  }

  private static void quad(float[] d, int base, int row, int col, Float4 q) {
    d[base + row * 128 + col] = q.x();
    d[base + row * 128 + col + 1] = q.y();
    d[base + (row + 8) * 128 + col] = q.z();
    d[base + (row + 8) * 128 + col + 1] = q.w();
  }
}
