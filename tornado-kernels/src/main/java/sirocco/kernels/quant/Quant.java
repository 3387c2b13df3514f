package sirocco.kernels.quant;

/**
 * Codes shared by the quantization kernels, their launch plans and the dispatch layer: modes,
 * activation dtypes and the shape arithmetic of MLX's packed formats.
 *
 * <p>Kernels take these as {@link sirocco.api.Specialize} ints, so the compiler folds every branch
 * on them; the names here are what the dispatch layer and the tests pass.
 */
public final class Quant {
  private Quant() {}

  /** Affine mode: {@code w = q * scale + bias}, bits 2, 3, 4, 5, 6, 8, groups 32, 64, 128. */
  public static final int AFFINE = 0;

  /** mxfp4: E2M1 elements, groups of 32, E8M0 scales. */
  public static final int MXFP4 = 1;

  /** nvfp4: E2M1 elements, groups of 16, E4M3 scales, optional float32 global scale. */
  public static final int NVFP4 = 2;

  /** mxfp8: E4M3 elements, groups of 32, E8M0 scales. */
  public static final int MXFP8 = 3;

  /** Activation dtype code: bfloat16 carried in {@code short[]}. */
  public static final int BF16 = 0;

  /** Activation dtype code: IEEE binary16 carried in {@code short[]}. */
  public static final int F16 = 1;

  /** Activation dtype code: float32 in {@code float[]}. */
  public static final int F32 = 2;

  /**
   * The global scale value that makes nvfp4 encode and decode exactly as without one: the encode
   * factor is {@code 448 * 6 / globalScale} = 1 and the decode factor {@code globalScale / (448 *
   * 6)} = 1, both exact in float.
   */
  public static final float NO_GLOBAL_SCALE = 448f * 6f;

  public static String modeName(int mode) {
    return switch (mode) {
      case AFFINE -> "affine";
      case MXFP4 -> "mxfp4";
      case NVFP4 -> "nvfp4";
      case MXFP8 -> "mxfp8";
      default -> "mode#" + mode;
    };
  }

  public static String dtypeName(int dtype) {
    return switch (dtype) {
      case BF16 -> "bf16";
      case F16 -> "f16";
      case F32 -> "f32";
      default -> "dtype#" + dtype;
    };
  }

  /** Element bits of a mode ({@code bits} for affine). */
  public static int elementBits(int mode, int bits) {
    return switch (mode) {
      case MXFP4, NVFP4 -> 4;
      case MXFP8 -> 8;
      default -> bits;
    };
  }

  /** Group size of a mode ({@code groupSize} for affine). */
  public static int modeGroupSize(int mode, int groupSize) {
    return switch (mode) {
      case MXFP4, MXFP8 -> 32;
      case NVFP4 -> 16;
      default -> groupSize;
    };
  }

  /** u32 words per packed row of {@code cols} elements ({@code cols * bits / 32}). */
  public static int wordsPerRow(int cols, int bits) {
    return cols * bits / 32;
  }

  /** Reason why {@code (mode, bits, groupSize)} is not a format MLX defines, or null. */
  public static String checkFormat(int mode, int bits, int groupSize) {
    switch (mode) {
      case AFFINE -> {
        if (bits != 2 && bits != 3 && bits != 4 && bits != 5 && bits != 6 && bits != 8) {
          return "bits must be 2, 3, 4, 5, 6 or 8 for affine quantization, got " + bits;
        }
        if (groupSize != 32 && groupSize != 64 && groupSize != 128) {
          return "groupSize must be 32, 64 or 128 for affine quantization, got " + groupSize;
        }
        return null;
      }
      case MXFP4, NVFP4, MXFP8 -> {
        int b = elementBits(mode, bits);
        int g = modeGroupSize(mode, groupSize);
        if (bits != b) {
          return "bits must be " + b + " for " + modeName(mode) + ", got " + bits;
        }
        if (groupSize != g) {
          return "groupSize must be " + g + " for " + modeName(mode) + ", got " + groupSize;
        }
        return null;
      }
      default -> {
        return "mode must be affine, mxfp4, nvfp4 or mxfp8, got " + mode;
      }
    }
  }
}
