package sirocco.jit.rejects;

import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Misuses of the asynchronous-copy intrinsics ({@code Vec.copyAsync/commitAsync/waitAsync}) and of
 * the other shared-memory-only access, {@code ctx.loadMatrixX4}; each must be rejected with a
 * message naming this class, the method, the source line (marked below with a comment "reject:
 * method") and the construct. The specialized ones compile with good values. Not for running.
 */
@SuppressWarnings("unused")
public final class AsyncRejected {
  private AsyncRejected() {}

  public static void variableBytes(KernelContext ctx, int[] src, int[] out, int bytes) {
    int[] sh = ctx.allocateIntLocalArray(128);
    Vec.copyAsync(sh, 4 * ctx.localIdx, src, 4 * ctx.globalIdx, bytes); // reject: variableBytes
    Vec.commitAsync();
    Vec.waitAsync(0);
    out[ctx.globalIdx] = sh[4 * ctx.localIdx];
  }

  public static void specializedBytes(
      KernelContext ctx, short[] src, short[] out, @Specialize int bytes) {
    short[] sh = ctx.allocateShortLocalArray(256);
    int t = ctx.localIdx * 8;
    Vec.copyAsync(sh, t, src, ctx.globalIdx * 8, bytes); // reject: specializedBytes
    Vec.commitAsync();
    Vec.waitAsync(0);
    out[ctx.globalIdx] = sh[t];
  }

  public static void variableWait(KernelContext ctx, int[] src, int[] out, int pending) {
    int[] sh = ctx.allocateIntLocalArray(128);
    Vec.copyAsync(sh, 4 * ctx.localIdx, src, 4 * ctx.globalIdx, 16);
    Vec.commitAsync();
    Vec.waitAsync(pending); // reject: variableWait
    out[ctx.globalIdx] = sh[4 * ctx.localIdx];
  }

  public static void specializedWait(
      KernelContext ctx, int[] src, int[] out, @Specialize int pending) {
    int[] sh = ctx.allocateIntLocalArray(128);
    Vec.copyAsync(sh, 4 * ctx.localIdx, src, 4 * ctx.globalIdx, 16);
    Vec.commitAsync();
    Vec.waitAsync(pending); // reject: specializedWait
    out[ctx.globalIdx] = sh[4 * ctx.localIdx];
  }

  public static void globalDst(KernelContext ctx, int[] src, int[] dst) {
    Vec.copyAsync(dst, 4 * ctx.globalIdx, src, 4 * ctx.globalIdx, 16); // reject: globalDst
    Vec.commitAsync();
    Vec.waitAsync(0);
  }

  public static void sharedSrc(KernelContext ctx, int[] out) {
    int[] a = ctx.allocateIntLocalArray(128);
    int[] b = ctx.allocateIntLocalArray(128);
    Vec.copyAsync(b, 4 * ctx.localIdx, a, 4 * ctx.localIdx, 16); // reject: sharedSrc
    Vec.commitAsync();
    Vec.waitAsync(0);
    out[ctx.globalIdx] = b[4 * ctx.localIdx];
  }

  public static void mergedDst(KernelContext ctx, short[] src, short[] out, boolean toShared) {
    short[] sh = ctx.allocateShortLocalArray(64);
    short[] dst = toShared ? sh : out;
    Vec.copyAsync(dst, 2 * ctx.localIdx, src, 2 * ctx.globalIdx, 4); // reject: mergedDst
    Vec.commitAsync();
    Vec.waitAsync(0);
  }

  public static void misalignedIndex(KernelContext ctx, int[] src, int[] out) {
    int[] sh = ctx.allocateIntLocalArray(128);
    Vec.copyAsync(sh, 2, src, 4 * ctx.globalIdx, 16); // reject: misalignedIndex
    Vec.commitAsync();
    Vec.waitAsync(0);
    out[ctx.globalIdx] = sh[2];
  }

  public static void matrixFromGlobal(KernelContext ctx, int[] src, int[] out) {
    Int4 r = ctx.loadMatrixX4(src, 4 * ctx.laneId()); // reject: matrixFromGlobal
    out[ctx.globalIdx] = r.x();
  }

  public static void matrixMisaligned(KernelContext ctx, int[] out) {
    int[] sh = ctx.allocateIntLocalArray(128);
    sh[ctx.localIdx] = ctx.localIdx;
    ctx.localBarrier();
    Int4 r = ctx.loadMatrixX4(sh, 6); // reject: matrixMisaligned
    out[ctx.globalIdx] = r.x();
  }
}
