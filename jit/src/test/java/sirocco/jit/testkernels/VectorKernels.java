package sirocco.jit.testkernels;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * 16- and 8-byte accesses through {@link Vec} on int, float, short and byte arrays, global and
 * shared. One thread per 16-byte chunk: {@code g < chunks}; arrays hold at least chunks*4 ints /
 * floats, chunks*8 shorts, chunks*16 bytes.
 */
public final class VectorKernels {
  private VectorKernels() {}

  /**
   * outI[g*4..] = ldg4(ints) + load4(ints) component-wise; outF[g*4..] = ldg4(floats) * 2 stored
   * with store4; outS: ldg4 of shorts stored with store4 into outS (a copy); outB: the 16 bytes of
   * chunk g XOR-combined into outI2[g]; ldg2 of ints and shorts and load2 of ints (weighted) summed
   * into outI2[g + chunks].
   */
  @Kernel
  public static void vectors(
      KernelContext ctx,
      int[] ints,
      float[] floats,
      short[] shorts,
      byte[] bytes,
      int[] outI,
      float[] outF,
      short[] outS,
      int[] outI2,
      int chunks) {
    int g = ctx.globalIdx;
    if (g >= chunks) {
      return;
    }
    Int4 a = Vec.ldg4(ints, g * 4);
    Int4 b = Vec.load4(ints, g * 4);
    Vec.store4(outI, g * 4, new Int4(a.x() + b.x(), a.y() + b.y(), a.z() + b.z(), a.w() + b.w()));
    Float4 f = Vec.ldg4(floats, g * 4);
    Vec.store4(outF, g * 4, new Float4(f.x() * 2, f.y() * 2, f.z() * 2, f.w() * 2));
    Int4 s = Vec.ldg4(shorts, g * 8);
    Vec.store4(outS, g * 8, s);
    Int4 by = Vec.ldg4(bytes, g * 16);
    outI2[g] = by.x() ^ by.y() ^ by.z() ^ by.w();
    Int2 p = Vec.ldg2(ints, g * 4);
    Int2 c2 = Vec.load2(ints, g * 4 + 2);
    Int2 q = Vec.ldg2(shorts, g * 8 + 4);
    outI2[g + chunks] =
        p.x()
            + p.y()
            + q.x()
            + q.y()
            + 3 * c2.x()
            + 5 * c2.y()
            + Vec.ldg(ints, g)
            + Vec.ldg(shorts, g)
            + Vec.ldg(bytes, g)
            + (int) Vec.ldg(floats, g);
  }

  /**
   * One block of 64 threads: stage 16 bytes per thread in shared memory, read them rotated (the
   * shorts' high half from a second thread's chunk through an 8-byte load).
   */
  @Kernel
  public static void sharedVectors(
      KernelContext ctx, float[] in, float[] out, short[] sin, short[] sout) {
    float[] tile = ctx.allocateFloatLocalArray(256);
    short[] stile = ctx.allocateShortLocalArray(512);
    int t = ctx.localIdx;
    Vec.store4(tile, t * 4, Vec.load4(in, t * 4));
    Vec.store4(stile, t * 8, Vec.load4(sin, t * 8));
    ctx.localBarrier();
    int u = (t + 1) & 63;
    Vec.store4(out, t * 4, Vec.load4(tile, u * 4));
    // The high 8 bytes of chunk t as two 8-byte loads of another thread's chunk (Vec.load2).
    Int4 r = Vec.load4(stile, u * 8);
    Int2 h = Vec.load2(stile, ((t + 2) & 63) * 8 + 4);
    Vec.store4(sout, t * 8, new Int4(r.x(), r.y(), h.x(), h.y()));
  }
}
