package sirocco.jit.testkernels.helpers;

/** A second helper class, called from {@link VecMath}: nested inlining across classes. */
public final class Bits {
  private Bits() {}

  public static int mix(int a, int b) {
    int h = a * 0x9E3779B9 + b;
    return h ^ (h >>> 15);
  }

  public static int clampIndex(int i, int n) {
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  }
}
