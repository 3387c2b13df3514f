package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Control flow: loops, switches, conditional expressions whose values sit on the operand stack at
 * merge points, local slots reused with different types, long/double locals. One thread per element
 * {@code i < n}; inputs are arbitrary ints / floats; outputs as documented per kernel.
 */
public final class ControlKernels {
  private ControlKernels() {}

  /** out[i*4..]: sum of 0..a[i] (mod 2^32, a[i] clamped to 1000), collatz steps, nested loops. */
  @Kernel
  public static void loops(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = Math.min(Math.abs(a[i] % 1000), 1000);
    int sum = 0;
    for (int k = 0; k <= x; k++) {
      sum += k;
    }
    out[i * 4] = sum;
    int steps = 0;
    long c = x + 1;
    while (c != 1 && steps < 500) {
      c = (c & 1) == 0 ? c / 2 : 3 * c + 1;
      steps++;
    }
    out[i * 4 + 1] = steps;
    int acc = 0;
    outer:
    for (int p = 0; p < 8; p++) {
      for (int q = 0; q < 8; q++) {
        if (q > p) {
          continue outer;
        }
        if (p * q > x) {
          break outer;
        }
        acc += p ^ q;
      }
    }
    out[i * 4 + 2] = acc;
    int d = 0;
    do {
      d += 3;
    } while (d < x % 17);
    out[i * 4 + 3] = d;
  }

  /** out[i*3..]: a dense switch (tableswitch), a sparse one (lookupswitch), fall-through. */
  @SuppressWarnings("fallthrough")
  @Kernel
  public static void switches(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    int r;
    switch (x & 7) {
      case 0 -> r = 10;
      case 1 -> r = 11;
      case 2, 3 -> r = 23;
      case 5 -> r = x * 2;
      default -> r = -1;
    }
    out[i * 3] = r;
    int s =
        switch (x) {
          case -1000 -> 1;
          case 7 -> 2;
          case 1 << 20 -> 3;
          case Integer.MIN_VALUE -> 4;
          default -> 0;
        };
    out[i * 3 + 1] = s;
    int t = 0;
    switch (x & 3) {
      case 0:
        t += 1;
      // fall through
      case 1:
        t += 2;
        break;
      case 2:
        t += 4;
      // fall through
      default:
        t += 8;
    }
    out[i * 3 + 2] = t;
  }

  private static int pick(int a, int b, int c) {
    return a * 100 + b * 10 + c;
  }

  /**
   * out[i*4..]: conditional expressions used as operands, so that javac leaves values on the
   * operand stack across the branches (each merge needs a phi per stack slot).
   */
  @Kernel
  public static void stackMerges(KernelContext ctx, int[] a, float[] f, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    float y = f[i];
    out[i * 4] = pick(x > 0 ? 1 : 2, x % 2 == 0 ? 3 : 4, (x > 5 && x < 50) || x == -3 ? 5 : 6);
    out[i * 4 + 1] = x + (y > 0.5f ? (x > 3 ? 7 : 8) : 9) * 2;
    long l = (x & 4) != 0 ? (long) x << 20 : -x;
    out[i * 4 + 2] = (int) (l >> 3) + (y != y ? 1 : 0);
    boolean both = x > 0 && y > 0;
    boolean either = x > 0 || y > 0;
    out[i * 4 + 3] = (both ? 2 : 0) + (either ? 1 : 0);
  }

  /**
   * out[i*3..]: javac reuses local slots for variables of different types in sibling scopes;
   * long/double locals take two slots.
   */
  @Kernel
  public static void slotReuse(
      KernelContext ctx, int[] a, float[] f, float[] outF, long[] outL, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    if (x > 0) {
      int t = x * 3;
      long w = (long) t * t;
      outL[i * 2] = w;
    } else {
      float t = f[i] * 2.0f;
      double w = t * 0.25;
      outF[i * 3] = (float) w;
    }
    {
      double q = x * 1.5;
      float r = (float) q + f[i];
      outF[i * 3 + 1] = r;
    }
    {
      long q = x;
      int r = (int) (q >>> 1);
      outL[i * 2 + 1] = q + r;
    }
    float acc = 0;
    for (int k = 0; k < 4; k++) {
      double step = k * 0.5;
      acc += (float) step;
    }
    outF[i * 3 + 2] = acc;
  }

  /** out[i]: early returns and a loop with several exits. */
  @Kernel
  public static void earlyExit(KernelContext ctx, int[] a, int[] out, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int x = a[i];
    if (x == 0) {
      out[i] = -1;
      return;
    }
    for (int k = 0; k < 32; k++) {
      if (((x >>> k) & 1) != 0) {
        out[i] = k;
        return;
      }
    }
    out[i] = 99;
  }
}
