package sirocco.jit.testkernels;

import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/**
 * Small kernels whose PTX structure is pinned by GoldenPtxTest. One thread per element {@code i <
 * n}; each writes out[i].
 */
public final class GoldenKernels {
  private GoldenKernels() {}

  @Kernel
  public static void mulAdd(
      KernelContext ctx, float[] a, float[] b, float[] c, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = a[i] * b[i] + c[i];
    }
  }

  @Kernel
  public static void explicitFma(
      KernelContext ctx, float[] a, float[] b, float[] c, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = Math.fma(a[i], b[i], c[i]);
    }
  }

  @Kernel
  public static void maxMin(KernelContext ctx, float[] a, float[] b, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = Math.max(a[i], b[i]) - Math.min(a[i], b[i]);
    }
  }

  @Kernel
  public static void shiftByVariable(
      KernelContext ctx, int[] a, int[] s, long[] l, int[] out, long[] outL, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = a[i] << s[i];
      outL[i] = l[i] >>> s[i];
    }
  }

  @Kernel
  public static void shiftByConstant(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = a[i] << 33;
    }
  }

  @Kernel(validateWith = "k=7")
  public static void specialized(KernelContext ctx, int[] out, int n, @Specialize int k) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = i * (k + 1);
    }
  }

  @Kernel
  public static void floatToLong(KernelContext ctx, float[] a, long[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = (long) a[i];
    }
  }

  @Kernel
  public static void floatSqrtDivExp(KernelContext ctx, float[] a, float[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      float x = a[i];
      out[i] = (float) Math.sqrt(x) / (float) Math.exp(x);
    }
  }

  @Kernel
  public static void loadInt4(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      Int4 v = Vec.ldg4(a, i * 4);
      out[i] = v.x() + v.y() + v.z() + v.w();
    }
  }

  @Kernel
  public static void narrowLoads(
      KernelContext ctx, byte[] b, char[] c, short[] s, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = b[i] + c[i] + s[i];
    }
  }

  @Kernel(validateWith = "tile=4")
  public static void unrolled(
      KernelContext ctx, float[] a, float[] out, int n, @Specialize int tile) {
    int i = ctx.globalIdx;
    if (i < n) {
      float s = 0;
      for (int k = 0; k < tile; k++) {
        s += a[i * tile + k];
      }
      out[i] = s;
    }
  }
}
