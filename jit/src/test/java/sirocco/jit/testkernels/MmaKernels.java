package sirocco.jit.testkernels;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * One m16n8k16 tensor-core product per warp. Launch 32 threads. {@code a} holds A (16x16, row
 * major) and {@code b} holds B (16x8, column major: b[n*16 + k]), both as bf16 (or f16) bits;
 * {@code c} holds C (16x8 row major) as floats; {@code d} receives D = A·B + C (16x8 row major).
 */
public final class MmaKernels {
  private MmaKernels() {}

  private static int pair(short[] m, int at) {
    return (m[at] & 0xFFFF) | (m[at + 1] << 16);
  }

  private static void run(
      KernelContext ctx, short[] a, short[] b, float[] c, float[] d, boolean bf16) {
    int lane = ctx.laneId();
    int g = lane >> 2;
    int t = lane & 3;
    Int4 fa =
        new Int4(
            pair(a, g * 16 + 2 * t),
            pair(a, (g + 8) * 16 + 2 * t),
            pair(a, g * 16 + 2 * t + 8),
            pair(a, (g + 8) * 16 + 2 * t + 8));
    Int2 fb = new Int2(pair(b, g * 16 + 2 * t), pair(b, g * 16 + 2 * t + 8));
    Float4 fc =
        new Float4(
            c[g * 8 + 2 * t],
            c[g * 8 + 2 * t + 1],
            c[(g + 8) * 8 + 2 * t],
            c[(g + 8) * 8 + 2 * t + 1]);
    Float4 r = bf16 ? ctx.mmaBf16(fa, fb, fc) : ctx.mmaF16(fa, fb, fc);
    d[g * 8 + 2 * t] = r.x();
    d[g * 8 + 2 * t + 1] = r.y();
    d[(g + 8) * 8 + 2 * t] = r.z();
    d[(g + 8) * 8 + 2 * t + 1] = r.w();
  }

  @Kernel
  public static void mmaBf16(KernelContext ctx, short[] a, short[] b, float[] c, float[] d) {
    run(ctx, a, b, c, d, true);
  }

  @Kernel
  public static void mmaF16(KernelContext ctx, short[] a, short[] b, float[] c, float[] d) {
    run(ctx, a, b, c, d, false);
  }

  /**
   * {@code ctx.loadMatrixX4}: each thread copies its 4 ints of {@code in} into a shared tile (one
   * 16-byte row per thread), then every lane loads four 8x8 matrices whose rows are the tile's rows
   * in a scrambled order ({@code (7 * lane + 3) % 32} of its warp: a different row per lane) and
   * writes the four words it got. Default launch: blocks of 32, 64 threads.
   */
  @Kernel
  public static void loadMatrix(KernelContext ctx, int[] in, int[] out) {
    int tid = ctx.localIdx;
    int g = ctx.globalIdx;
    int[] tile = ctx.allocateIntLocalArray(32 * 4);
    for (int j = 0; j < 4; j++) {
      tile[tid * 4 + j] = in[g * 4 + j];
    }
    ctx.localBarrier();
    int row = (7 * ctx.laneId() + 3) & 31;
    Int4 r = ctx.loadMatrixX4(tile, row * 4);
    out[g * 4] = r.x();
    out[g * 4 + 1] = r.y();
    out[g * 4 + 2] = r.z();
    out[g * 4 + 3] = r.w();
  }

  /**
   * {@link #loadMatrix} from a shared {@code short} tile (indexes in halves): each thread copies
   * its 8 halves of {@code in} into one 16-byte row, then loads the scrambled rows.
   */
  @Kernel
  public static void loadMatrixShort(KernelContext ctx, short[] in, int[] out) {
    int tid = ctx.localIdx;
    int g = ctx.globalIdx;
    short[] tile = ctx.allocateShortLocalArray(32 * 8);
    for (int j = 0; j < 8; j++) {
      tile[tid * 8 + j] = in[g * 8 + j];
    }
    ctx.localBarrier();
    int row = (5 * ctx.laneId() + 9) & 31;
    Int4 r = ctx.loadMatrixX4(tile, row * 8);
    out[g * 4] = r.x();
    out[g * 4 + 1] = r.y();
    out[g * 4 + 2] = r.z();
    out[g * 4 + 3] = r.w();
  }
}
