package sirocco.runtime.host;

import sirocco.api.Bf16;
import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.KernelContext;

/**
 * Kernels that exercise the Java backend's thread semantics. Block size is 256 unless a test says
 * otherwise.
 */
public final class HostTestKernels {
  private HostTestKernels() {}

  /** Tree reduction in shared memory: out[block] = sum of in[block*256 .. +256). */
  public static void blockSum(
      KernelContext ctx, float[] in, float[] out) { // in [blocks*256], out [blocks]
    float[] partial = ctx.allocateFloatLocalArray(256);
    int t = ctx.localIdx;
    partial[t] = in[ctx.globalIdx];
    ctx.localBarrier();
    for (int stride = 128; stride > 0; stride >>= 1) {
      if (t < stride) {
        partial[t] += partial[t + stride];
      }
      ctx.localBarrier();
    }
    if (t == 0) {
      out[ctx.groupIdx] = partial[0];
    }
  }

  /** Hillis–Steele inclusive scan of each block's 256 ints through shared memory. */
  public static void blockScan(KernelContext ctx, int[] in, int[] out) { // [blocks*256] each
    int[] buf = ctx.allocateIntLocalArray(256);
    int t = ctx.localIdx;
    buf[t] = in[ctx.globalIdx];
    ctx.localBarrier();
    for (int offset = 1; offset < 256; offset <<= 1) {
      int add = t >= offset ? buf[t - offset] : 0;
      ctx.localBarrier();
      buf[t] += add;
      ctx.localBarrier();
    }
    out[ctx.globalIdx] = buf[t];
  }

  /** Warp collectives: xor all-reduce, down-reduce, up-scan and a broadcast of lane 5. */
  public static void warpOps(KernelContext ctx, float[] in, float[] out) { // in [n], out [4n]
    int i = ctx.globalIdx;
    float v = in[i];
    float all = v;
    for (int m = 16; m > 0; m >>= 1) {
      all += ctx.shuffleXor(all, m);
    }
    float down = v;
    for (int d = 16; d > 0; d >>= 1) {
      down += ctx.shuffleDown(down, d);
    }
    int scan = (int) v;
    for (int d = 1; d < 32; d <<= 1) {
      int up = ctx.shuffleUp(scan, d);
      if (ctx.laneId() >= d) {
        scan += up;
      }
    }
    float five = ctx.shuffleIdx(v, 5);
    out[4 * i] = all;
    out[4 * i + 1] = down;
    out[4 * i + 2] = scan;
    out[4 * i + 3] = five;
  }

  /** Reads a neighbour's shared slot WITHOUT a barrier: the result depends on thread order. */
  public static void neighbourNoBarrier(KernelContext ctx, int[] out) { // out [256]
    int[] buf = ctx.allocateIntLocalArray(256);
    int t = ctx.localIdx;
    buf[t] = t;
    out[t] = buf[(t + 1) & 255];
  }

  /** The same with the barrier in place: always the neighbour's index. */
  public static void neighbourWithBarrier(KernelContext ctx, int[] out) { // out [256]
    int[] buf = ctx.allocateIntLocalArray(256);
    int t = ctx.localIdx;
    buf[t] = t;
    ctx.localBarrier();
    out[t] = buf[(t + 1) & 255];
  }

  /** Indexes one past the end in one thread. */
  public static void outOfRange(KernelContext ctx, int[] out, int n) { // out [n]
    out[ctx.globalIdx] = 1;
  }

  /** Half a warp waits at the warp barrier while the other half waits at the block barrier. */
  public static void splitBarriers(KernelContext ctx, int[] out) { // out [32]
    if (ctx.localIdx < 16) {
      ctx.warpBarrier();
    } else {
      ctx.localBarrier();
    }
    out[ctx.localIdx] = 1;
  }

  public static void atomics(KernelContext ctx, int[] counter, float[] sum, int[] max) { // [1] each
    ctx.atomicAdd(counter, 0, 1);
    ctx.atomicAdd(sum, 0, 0.5f);
    ctx.atomicMax(max, 0, ctx.globalIdx);
  }

  /**
   * One m16n8k16 product per warp: a [16,16] row-major bf16, b [16,8] bf16 (row k, column n), d
   * [16,8] f32. Each lane assembles its fragments from memory in the documented layout.
   */
  public static void mma(KernelContext ctx, short[] a, short[] b, float[] c, float[] d) {
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    Int4 fa =
        new Int4(
            pair(a, g * 16 + 2 * t),
            pair(a, (g + 8) * 16 + 2 * t),
            pair(a, g * 16 + 2 * t + 8),
            pair(a, (g + 8) * 16 + 2 * t + 8));
    Int2 fb =
        new Int2(
            (b[(2 * t) * 8 + g] & 0xFFFF) | (b[(2 * t + 1) * 8 + g] << 16),
            (b[(2 * t + 8) * 8 + g] & 0xFFFF) | (b[(2 * t + 9) * 8 + g] << 16));
    Float4 fc =
        new Float4(
            c[g * 8 + 2 * t],
            c[g * 8 + 2 * t + 1],
            c[(g + 8) * 8 + 2 * t],
            c[(g + 8) * 8 + 2 * t + 1]);
    Float4 r = ctx.mmaBf16(fa, fb, fc);
    d[g * 8 + 2 * t] = r.x();
    d[g * 8 + 2 * t + 1] = r.y();
    d[(g + 8) * 8 + 2 * t] = r.z();
    d[(g + 8) * 8 + 2 * t + 1] = r.w();
  }

  /**
   * The product of {@link #mma} with both fragments read by {@code ctx.loadMatrixX4} from a shared
   * tile: A [16,16] row-major bf16 and B stored n-major ({@code bt} [8,16]: row n holds
   * B[0..15][n]), each row two 16-byte chunks, the chunks of rows 4-7 and 12-15 swapped (so lanes
   * address rows with different offsets).
   */
  public static void matrixMma(KernelContext ctx, short[] a, short[] bt, float[] c, float[] d) {
    int lane = ctx.laneId();
    int[] tile = ctx.allocateIntLocalArray(128); // A: [16 rows, 8] ints
    short[] bTile = ctx.allocateShortLocalArray(128); // B: [8 rows, 16] halves
    for (int i = lane; i < 128; i += 32) {
      int row = i >> 3;
      int chunk = ((i >> 2) & 1) ^ ((row >> 2) & 1);
      tile[i] = pair(a, row * 16 + chunk * 8 + 2 * (i & 3));
      int br = i >> 4;
      int bc = ((i >> 3) & 1) ^ ((br >> 2) & 1);
      bTile[i] = bt[br * 16 + bc * 8 + (i & 7)];
    }
    ctx.localBarrier();
    int m = lane >> 3;
    int ar = (lane & 7) + 8 * (m & 1);
    Int4 fa = ctx.loadMatrixX4(tile, ar * 8 + (((m >> 1) ^ ((ar >> 2) & 1)) << 2));
    int br = lane & 7;
    Int4 fb = ctx.loadMatrixX4(bTile, br * 16 + (((m & 1) ^ ((br >> 2) & 1)) << 3));
    int g = lane >> 2;
    int t = lane & 3;
    Float4 fc =
        new Float4(
            c[g * 8 + 2 * t],
            c[g * 8 + 2 * t + 1],
            c[(g + 8) * 8 + 2 * t],
            c[(g + 8) * 8 + 2 * t + 1]);
    Float4 r = ctx.mmaBf16(fa, new Int2(fb.x(), fb.y()), fc);
    d[g * 8 + 2 * t] = r.x();
    d[g * 8 + 2 * t + 1] = r.y();
    d[(g + 8) * 8 + 2 * t] = r.z();
    d[(g + 8) * 8 + 2 * t + 1] = r.w();
  }

  /** {@code ctx.loadMatrixX4} with {@code index} (every lane the same) on a 64-int shared array. */
  public static void matrixAt(KernelContext ctx, int index, int[] out) {
    int[] tile = ctx.allocateIntLocalArray(64);
    tile[ctx.laneId()] = 0;
    ctx.localBarrier();
    out[ctx.laneId()] = ctx.loadMatrixX4(tile, index).x();
  }

  /** {@code ctx.loadMatrixX4} on a global array: refused. */
  public static void matrixFromGlobal(KernelContext ctx, int[] in, int[] out) {
    out[ctx.laneId()] = ctx.loadMatrixX4(in, 0).x();
  }

  private static int pair(short[] a, int i) {
    return (a[i] & 0xFFFF) | (a[i + 1] << 16);
  }

  /** Plain elementwise kernel with no synchronization: runs on the sequential path. */
  public static void axpy(KernelContext ctx, float[] x, float[] y, float alpha, int n) { // [n]
    int i = ctx.globalIdx;
    if (i < n) {
      y[i] = Math.fma(alpha, x[i], y[i]);
    }
  }

  static float bf(short s) {
    return Bf16.toFloat(s);
  }
}
