package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Arrays of every element type, block-shared arrays with barriers, array references in locals,
 * passed to helpers and merged by conditional expressions (including a merge of a shared and a
 * global array, which needs generic addressing).
 */
public final class MemoryKernels {
  private MemoryKernels() {}

  private static final int TILE = 256;

  /**
   * Launch with 256 threads per block: each block reverses its 256-element chunk of {@code in} into
   * {@code out} through a shared array.
   */
  @Kernel
  public static void blockReverse(KernelContext ctx, float[] in, float[] out) {
    float[] tile = ctx.allocateFloatLocalArray(TILE);
    int t = ctx.localIdx;
    int base = ctx.groupIdx * TILE;
    tile[t] = in[base + t];
    ctx.localBarrier();
    out[base + t] = tile[TILE - 1 - t];
  }

  /**
   * One thread per element {@code i < n}: {@code out[i] = 2 * in[i]}, after releasing the next
   * early-start launch and waiting for the grids this one may overlap (both no-ops unless launched
   * that way on sm_90+). The index is computed before the wait, as a dependent kernel would.
   */
  @Kernel
  public static void scaleAfterPriorGrids(KernelContext ctx, float[] in, float[] out, int n) {
    int i = ctx.globalIdx;
    ctx.releaseDependentGrids();
    ctx.waitForPriorGrids();
    if (i < n) {
      out[i] = 2f * in[i];
    }
  }

  /**
   * One thread per element {@code i < n}: copies each array type with a transformation, so that
   * sign extension (byte, short), zero extension (char) and boolean normalisation are visible.
   * out[i*6..]: b[i], s[i], c[i], z[i] ? 1 : 0, (int) l[i], (int) d[i].
   */
  @Kernel
  public static void elementTypes(
      KernelContext ctx,
      byte[] b,
      short[] s,
      char[] c,
      boolean[] z,
      long[] l,
      double[] d,
      int[] out,
      byte[] ob,
      short[] os,
      char[] oc,
      boolean[] oz,
      int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    out[i * 6] = b[i];
    out[i * 6 + 1] = s[i];
    out[i * 6 + 2] = c[i];
    out[i * 6 + 3] = z[i] ? 1 : 0;
    out[i * 6 + 4] = (int) l[i];
    out[i * 6 + 5] = (int) d[i];
    ob[i] = (byte) (b[i] + 1);
    os[i] = (short) (s[i] * 2);
    oc[i] = (char) (c[i] + 1);
    oz[i] = !z[i];
    l[i] = l[i] * 3;
    d[i] = d[i] / 2;
  }

  private static float sum(float[] v, int from, int count) {
    float s = 0;
    for (int k = 0; k < count; k++) {
      s += v[from + k];
    }
    return s;
  }

  private static void scale(float[] v, int at, float by) {
    v[at] *= by;
  }

  /**
   * One thread per element {@code i < n} (n ≤ 256, one block of 256 threads): array references in
   * locals, passed to helpers, chosen by conditional expressions. out[i*4..]: sum of 4 elements of
   * a or b (picked by flag), the same through a shared copy, a value read through a reference that
   * is either the shared copy or the global array (a generic pointer), and a scaled element.
   */
  @Kernel
  public static void arrayRefs(
      KernelContext ctx, float[] a, float[] b, int[] flag, float[] out, int n) {
    float[] copy = ctx.allocateFloatLocalArray(TILE + 4);
    int i = ctx.globalIdx;
    int t = ctx.localIdx;
    copy[t] = i < n ? a[i] : 0f;
    if (t < 4) {
      copy[TILE + t] = 0f;
    }
    ctx.localBarrier();
    if (i >= n - 4) {
      return;
    }
    float[] src = flag[i] != 0 ? a : b;
    out[i * 4] = sum(src, i, 4);
    out[i * 4 + 1] = sum(copy, t, 4);
    float[] either = (flag[i] & 2) != 0 ? copy : a;
    out[i * 4 + 2] = either[t + 1];
    float[] dst = out;
    dst[i * 4 + 3] = a[i];
    scale(dst, i * 4 + 3, 3.0f);
  }

  /** One block of 64 threads: per-thread byte and short shared arrays. out[t] as written below. */
  @Kernel
  public static void sharedSmallTypes(KernelContext ctx, int[] in, int[] out) {
    byte[] bytes = ctx.allocateByteLocalArray(64);
    short[] shorts = ctx.allocateShortLocalArray(64);
    int[] ints = ctx.allocateIntLocalArray(64);
    int t = ctx.localIdx;
    bytes[t] = (byte) in[t];
    shorts[t] = (short) in[t];
    ints[t] = in[t];
    ctx.localBarrier();
    int u = 63 - t;
    out[t] = bytes[u] + shorts[u] * 3 + (ints[u] >> 16);
  }
}
