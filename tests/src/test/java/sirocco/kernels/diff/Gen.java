package sirocco.kernels.diff;

import java.util.Arrays;
import java.util.Random;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.quant.QuantFormats;

/**
 * Inputs for the shipped-kernel cases: structurally valid random data (16-bit floats rounded from
 * float values, packed codes, scale codes that are not NaN) and poisoned output arrays.
 *
 * <p>The poisons are values no case can legitimately produce, so an element that still holds one
 * after a launch was not written: a float32 quiet NaN with the payload {@code 0xDEAD} (kernels
 * compute NaN only from NaN inputs, and never this payload), a 16-bit pattern that is a NaN both as
 * bfloat16 and as binary16 ({@code 0x7FDB}), {@code 0xDEADBEEF} for 32-bit words (a packed word has
 * a 2^-32 chance of equalling it), and {@code 0xFF} for bytes (the only byte outputs are scale
 * codes: E8M0 255 and E4M3 0xFF are NaN, which finite inputs never give).
 */
final class Gen {
  private Gen() {}

  static final int POISON_F32 = 0x7FC0DEAD;
  static final short POISON_16 = (short) 0x7FDB;
  static final int POISON_32 = 0xDEADBEEF;
  static final byte POISON_8 = (byte) 0xFF;

  static float[] poisonF32(int n) {
    float[] a = new float[n];
    Arrays.fill(a, Float.intBitsToFloat(POISON_F32));
    return a;
  }

  static short[] poison16(int n) {
    short[] a = new short[n];
    Arrays.fill(a, POISON_16);
    return a;
  }

  static int[] poison32(int n) {
    int[] a = new int[n];
    Arrays.fill(a, POISON_32);
    return a;
  }

  static byte[] poison8(int n) {
    byte[] a = new byte[n];
    Arrays.fill(a, POISON_8);
    return a;
  }

  /** True when element {@code i} of an output array holds its type's poison. */
  static boolean isPoison(Object array, int i) {
    return switch (array) {
      case float[] a -> Float.floatToRawIntBits(a[i]) == POISON_F32;
      case short[] a -> a[i] == POISON_16;
      case int[] a -> a[i] == POISON_32;
      case byte[] a -> a[i] == POISON_8;
      default -> false;
    };
  }

  /** {@code n} values of a normal distribution times {@code sigma}. */
  static float[] normal(Random r, int n, double sigma) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (r.nextGaussian() * sigma);
    }
    return a;
  }

  /** {@code n} values uniform in {@code [lo, hi)}. */
  static float[] uniform(Random r, int n, double lo, double hi) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (lo + r.nextDouble() * (hi - lo));
    }
    return a;
  }

  /** Values for an activation or weight tensor in {@code dtype} (Quant codes: BF16, F16, F32). */
  static Object floats(int dtype, float[] v) {
    return dtype == Quant.F32 ? v : QuantFormats.toHalfBits(dtype, v);
  }

  /** bf16/f16 bits of normal values (dtype 0 or 1, the codes Quant and Sdpa share). */
  static short[] halfNormal(Random r, int dtype, int n, double sigma) {
    return QuantFormats.toHalfBits(dtype, normal(r, n, sigma));
  }

  /** Random 32-bit words: every affine code (any width) and every E2M1 code is valid. */
  static int[] words(Random r, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = r.nextInt();
    }
    return a;
  }

  /**
   * Random words of packed E4M3 codes (mxfp8) without the NaN codes {@code 0x7F}/{@code 0xFF}: a
   * NaN weight would make whole outputs NaN and the comparison empty.
   */
  static int[] e4m3Words(Random r, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      int w = 0;
      for (int b = 0; b < 4; b++) {
        int c = r.nextInt(256);
        if ((c & 0x7F) == 0x7F) {
          c -= 1;
        }
        w |= c << (8 * b);
      }
      a[i] = w;
    }
    return a;
  }

  /** Packed weight words for a mode: see {@link #words} and {@link #e4m3Words}. */
  static int[] codeWords(Random r, int mode, int n) {
    return mode == Quant.MXFP8 ? e4m3Words(r, n) : words(r, n);
  }

  /**
   * Scale codes for an fp mode: E8M0 exponents near 127 (scales 2^-6 .. 2^3) for mx modes, positive
   * E4M3 codes 0x28..0x4F (about 0.25 .. 7.5) for nvfp4; never NaN.
   */
  static byte[] fpScales(Random r, int mode, int n) {
    byte[] a = new byte[n];
    for (int i = 0; i < n; i++) {
      a[i] = (byte) (mode == Quant.NVFP4 ? 0x28 + r.nextInt(0x28) : 121 + r.nextInt(10));
    }
    return a;
  }

  /** Affine group scales: positive, small enough that sums over a few thousand k stay in f16. */
  static float[] affineScales(Random r, int n) {
    return uniform(r, n, 0.002, 0.02);
  }

  /** Affine group biases: either sign, about the size of a weight. */
  static float[] affineBiases(Random r, int n) {
    return uniform(r, n, -0.08, 0.08);
  }

  /**
   * Random 16-bit patterns that are finite or infinite in {@code dtype} (no NaN, so no input can
   * turn into the 16-bit poison), including subnormals and signed zeros.
   */
  static short[] anyHalfBits(Random r, int dtype, int n) {
    short[] a = new short[n];
    for (int i = 0; i < n; i++) {
      short s;
      do {
        s = (short) r.nextInt(1 << 16);
      } while (Float.isNaN(
          dtype == Quant.F16 ? sirocco.api.F16.toFloat(s) : sirocco.api.Bf16.toFloat(s)));
      a[i] = s;
    }
    return a;
  }

  /** The array's elements with {@code fraction} of them set to {@code value} (e.g. -inf). */
  static float[] sprinkle(Random r, float[] a, double fraction, float value) {
    for (int i = 0; i < a.length; i++) {
      if (r.nextDouble() < fraction) {
        a[i] = value;
      }
    }
    return a;
  }

  /** {@code n} magnitudes in {@code [lo, hi)} with random signs. */
  static float[] signedMagnitudes(Random r, int n, double lo, double hi) {
    float[] a = uniform(r, n, lo, hi);
    for (int i = 0; i < n; i++) {
      if (r.nextBoolean()) {
        a[i] = -a[i];
      }
    }
    return a;
  }
}
