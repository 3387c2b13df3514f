package sirocco.jit.rejects;

import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * Kernels outside the supported subset; each must be rejected with a message naming this class, the
 * method, the source line (marked below with a comment "reject: method") and the construct. Not for
 * running.
 */
@SuppressWarnings({"unused", "ConstantValue"})
public final class Rejected {
  private Rejected() {}

  static int counter;
  static final float[] TABLE = {1f, 2f, 3f};

  public static void newArray(KernelContext ctx, float[] out) {
    float[] t = new float[8]; // reject: newArray
    t[ctx.localIdx & 7] = 1f;
    out[0] = t[1];
  }

  public static void arrayLength(KernelContext ctx, float[] out) {
    int n = out.length; // reject: arrayLength
    out[0] = n;
  }

  public static void putContextField(KernelContext ctx, int[] out) {
    ctx.globalIdx = 3; // reject: putContextField
    out[0] = ctx.globalIdx;
  }

  public static void mutableStatic(KernelContext ctx, int[] out) {
    out[0] = counter; // reject: mutableStatic
  }

  public static void staticArray(KernelContext ctx, float[] out) {
    out[0] = TABLE[1]; // reject: staticArray
  }

  public static void recordHashCode(KernelContext ctx, int[] out) {
    Int4 v = new Int4(out[0], 1, 2, 3);
    out[1] = v.hashCode(); // reject: recordHashCode
  }

  public static void stringConcat(KernelContext ctx, int[] out) {
    String s = "x" + out[0]; // reject: stringConcat
    out[1] = s.length();
  }

  public static void lambda(KernelContext ctx, int[] out) {
    Runnable r = () -> {}; // reject: lambda
    out[0] = 1;
  }

  public static void synchronizedBlock(KernelContext ctx, int[] out) {
    synchronized (Rejected.class) { // reject: synchronizedBlock
      out[0] = 1;
    }
  }

  public static void throwing(KernelContext ctx, int[] out, int n) {
    if (n < 0) {
      throw new IllegalStateException("negative"); // reject: throwing
    }
    out[0] = n;
  }

  public static void tryCatch(KernelContext ctx, int[] out, int n) {
    try {
      out[0] = 10 / n; // reject: tryCatch
    } catch (ArithmeticException e) {
      out[0] = 0;
    }
  }

  private static int factorial(int n) {
    return n <= 1 ? 1 : n * factorial(n - 1); // reject: recursion
  }

  public static void recursion(KernelContext ctx, int[] out) {
    out[0] = factorial(out[1]);
  }

  public static void doubleExp(KernelContext ctx, double[] out) {
    out[0] = Math.exp(out[1]); // reject: doubleExp
  }

  public static void floatRemainder(KernelContext ctx, float[] out) {
    out[0] = out[1] % out[2]; // reject: floatRemainder
  }

  public static void sharedLength(KernelContext ctx, float[] out, int n) {
    float[] s = ctx.allocateFloatLocalArray(n); // reject: sharedLength
    s[ctx.localIdx] = 1f;
    out[0] = s[0];
  }

  public static void nullArray(KernelContext ctx, float[] out, int n) {
    float[] a = null; // reject: nullArray
    if (n > 0) {
      a = out;
    }
    a[0] = 1f;
  }

  public static void jdkCall(KernelContext ctx, float[] out) {
    out[0] = (float) Math.sin(out[1]); // reject: jdkCall
  }

  public static void multiArray(KernelContext ctx, int[] out) {
    int[][] m = new int[2][2]; // reject: multiArray
    out[0] = m[1][1];
  }

  public static void referenceCompare(KernelContext ctx, float[] a, float[] b) {
    if (a == b) { // reject: referenceCompare
      a[0] = 1f;
    }
  }

  private static int helperWithNew(int x) {
    int[] tmp = new int[4]; // reject: inlinedHelper
    tmp[0] = x;
    return tmp[0];
  }

  public static void inlinedHelper(KernelContext ctx, int[] out) {
    out[0] = helperWithNew(out[1]);
  }

  public static void specializedThrow(KernelContext ctx, int[] out, @Specialize int bits) {
    if (bits != 4) {
      throw new IllegalArgumentException("bits"); // reject: specializedThrow
    }
    out[0] = bits;
  }

  public static void instanceOf(KernelContext ctx, float[] out) {
    Object o = out;
    if (o instanceof float[]) { // reject: instanceOf
      out[0] = 1f;
    }
  }

  /** A helper written as an instance method; kernels cannot obtain an instance to call it on. */
  static final class Scaler {
    float twice(float x) {
      return 2 * x;
    }
  }

  static final Scaler SCALER = new Scaler();

  public static void instanceHelperField(KernelContext ctx, float[] out) {
    out[0] = SCALER.twice(out[1]); // reject: instanceHelperField
  }

  public static void instanceHelperNew(KernelContext ctx, float[] out) {
    out[0] = new Scaler().twice(out[1]); // reject: instanceHelperNew
  }

  /**
   * 8192 floats (32 KiB) plus {@code extra} floats: 4096 fill the 48 KiB of static shared memory
   * exactly, 4097 make both arrays dynamic shared memory, 33536 fill sm_80's 163 KiB and 49920
   * sm_90's 227 KiB, one more does not.
   */
  public static void sharedLimit(KernelContext ctx, float[] out, @Specialize int extra) {
    float[] a = ctx.allocateFloatLocalArray(8192);
    float[] b = ctx.allocateFloatLocalArray(extra); // reject: sharedLimit
    a[ctx.localIdx] = 1f;
    b[ctx.localIdx] = 2f;
    out[ctx.globalIdx] = a[ctx.localIdx] + b[ctx.localIdx];
  }

  // ---- signature errors (reported at the method) ----

  public void instanceKernel(KernelContext ctx, int[] out) {
    out[0] = 1;
  }

  public static int returnsValue(KernelContext ctx, int[] out) {
    return out[0];
  }

  public static void noContext(int[] out) {
    out[0] = 1;
  }

  public static void objectParam(KernelContext ctx, String s, int[] out) {
    out[0] = 1;
  }

  public static void recordParam(KernelContext ctx, Int4 v, int[] out) {
    out[0] = v.x();
  }

  public static void matrixParam(KernelContext ctx, int[][] m) {
    m[0][0] = 1;
  }

  public static void specializeArray(KernelContext ctx, @Specialize float[] table, float[] out) {
    out[0] = table[0];
  }
}
