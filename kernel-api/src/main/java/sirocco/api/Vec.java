package sirocco.api;

/**
 * Wide and read-only memory accesses for kernels.
 *
 * <p>The {@code ldg*} methods are for data the kernel only reads: on the GPU they become
 * non-coherent loads through the read-only data path ({@code ld.global.nc}); the {@code
 * load*}/{@code store*} methods are ordinary accesses and work on global and shared arrays alike.
 * The {@code *4} methods move 16 bytes in one instruction ({@code .v4.b32}), the {@code *2} methods
 * 8 bytes. The index must be a multiple of the access width in elements (16-byte accesses: 4
 * ints/floats, 8 shorts, 16 bytes): the GPU faults on a misaligned address, and the Java backend
 * throws {@link IllegalArgumentException} so that tests catch it.
 *
 * <p>Narrow elements are packed little-endian: {@code ldg4(short[] a, i)} returns {@code x} holding
 * {@code a[i]} in its low 16 bits and {@code a[i+1]} in its high 16 bits, {@code y} holding {@code
 * a[i+2]} and {@code a[i+3]}, and so on.
 */
public final class Vec {
  private Vec() {}

  private static void aligned(int index, int width) {
    if ((index & (width - 1)) != 0 || index < 0) {
      throw new IllegalArgumentException(
          "vector access index "
              + index
              + " is not a non-negative multiple of "
              + width
              + " elements");
    }
  }

  private static int pack(short lo, short hi) {
    return (lo & 0xFFFF) | (hi << 16);
  }

  private static int pack(byte b0, byte b1, byte b2, byte b3) {
    return (b0 & 0xFF) | (b1 & 0xFF) << 8 | (b2 & 0xFF) << 16 | (b3 & 0xFF) << 24;
  }

  // ---- read-only scalar loads (ld.global.nc) ----

  public static int ldg(int[] a, int i) {
    return a[i];
  }

  public static float ldg(float[] a, int i) {
    return a[i];
  }

  public static short ldg(short[] a, int i) {
    return a[i];
  }

  public static byte ldg(byte[] a, int i) {
    return a[i];
  }

  // ---- read-only 16-byte loads ----

  public static Int4 ldg4(int[] a, int i) {
    aligned(i, 4);
    return new Int4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Float4 ldg4(float[] a, int i) {
    aligned(i, 4);
    return new Float4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Int4 ldg4(short[] a, int i) {
    aligned(i, 8);
    return new Int4(
        pack(a[i], a[i + 1]),
        pack(a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5]),
        pack(a[i + 6], a[i + 7]));
  }

  public static Int4 ldg4(byte[] a, int i) {
    aligned(i, 16);
    return new Int4(
        pack(a[i], a[i + 1], a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5], a[i + 6], a[i + 7]),
        pack(a[i + 8], a[i + 9], a[i + 10], a[i + 11]),
        pack(a[i + 12], a[i + 13], a[i + 14], a[i + 15]));
  }

  // ---- read-only 8-byte loads ----

  public static Int2 ldg2(int[] a, int i) {
    aligned(i, 2);
    return new Int2(a[i], a[i + 1]);
  }

  public static Int2 ldg2(short[] a, int i) {
    aligned(i, 4);
    return new Int2(pack(a[i], a[i + 1]), pack(a[i + 2], a[i + 3]));
  }

  // ---- coherent 16-byte loads (global or shared) ----

  public static Int4 load4(int[] a, int i) {
    aligned(i, 4);
    return new Int4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Float4 load4(float[] a, int i) {
    aligned(i, 4);
    return new Float4(a[i], a[i + 1], a[i + 2], a[i + 3]);
  }

  public static Int4 load4(short[] a, int i) {
    aligned(i, 8);
    return new Int4(
        pack(a[i], a[i + 1]),
        pack(a[i + 2], a[i + 3]),
        pack(a[i + 4], a[i + 5]),
        pack(a[i + 6], a[i + 7]));
  }

  // ---- 16-byte stores (global or shared) ----

  public static void store4(int[] a, int i, Int4 v) {
    aligned(i, 4);
    a[i] = v.x();
    a[i + 1] = v.y();
    a[i + 2] = v.z();
    a[i + 3] = v.w();
  }

  public static void store4(float[] a, int i, Float4 v) {
    aligned(i, 4);
    a[i] = v.x();
    a[i + 1] = v.y();
    a[i + 2] = v.z();
    a[i + 3] = v.w();
  }

  public static void store4(short[] a, int i, Int4 v) {
    aligned(i, 8);
    int[] words = {v.x(), v.y(), v.z(), v.w()};
    for (int k = 0; k < 4; k++) {
      a[i + 2 * k] = (short) words[k];
      a[i + 2 * k + 1] = (short) (words[k] >>> 16);
    }
  }
}
