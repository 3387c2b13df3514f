package sirocco.kernels.quant;

import sirocco.api.Bf16;
import sirocco.api.F16;

/**
 * Host-side (plain Java, not kernel) implementation of MLX's quantized formats: bit packing for
 * every affine width, affine and fp-mode quantize/dequantize, and the dtype conversions they need.
 * The kernels in this package compute exactly what these methods compute (tests hold them to bit
 * equality), so this class is both the specification and the CPU fallback.
 *
 * <h2>Packing (MLX layout)</h2>
 *
 * Each row of {@code cols} elements is one little-endian bit stream: element {@code k} occupies
 * bits {@code [k*bits, k*bits + bits)}, least significant bit first, and the stream is stored as
 * u32 words ({@code cols * bits / 32} per row). For 2, 4 and 8 bits this is "element i of a word in
 * bits [i*bits, (i+1)*bits)"; for 3, 5 and 6 bits it is MLX's byte packing (8 elements in 3 bytes,
 * 8 in 5 bytes, 4 in 3 bytes, each least significant bit first), read as little-endian words, so
 * elements may straddle two words. fp modes pack their 4- or 8-bit codes the same way.
 *
 * <h2>Affine quantization (MLX's Metal and CUDA kernels, float32 arithmetic)</h2>
 *
 * Per group: {@code wmin} = minimum, {@code wmax} = maximum of the group and 0 (the GPU kernels
 * start their maximum at 0); {@code scale = max((wmax - wmin) / (2^bits - 1), 1e-7)}; the edge is
 * {@code wmin} if {@code |wmin| > |wmax|} (scale kept positive) else {@code wmax} (scale negated);
 * {@code q0 = round(edge / scale)}; if {@code q0 != 0} then {@code scale = edge / q0} and {@code
 * bias = edge}, else {@code bias = 0}; each element is {@code q = min(round((w - bias) / scale),
 * 2^bits - 1)} with {@code round} halfway-away-from-zero; scale and bias are stored rounded to the
 * activation dtype. MLX's CPU fallback differs in two details (ties to even, and the maximum not
 * starting at 0); the GPU behaviour is what Sirocco matches. Dequantize is {@code q * scale +
 * bias}, computed in float and rounded once to the output dtype (MLX's GPU kernels round the
 * product to the dtype before adding, so results may differ by one unit in the last place).
 *
 * <h2>fp modes (MLX's CUDA kernels)</h2>
 *
 * Per group: {@code amax = max |w|}; {@code d = amax / (fp4 ? 6 : 448) * enc} with {@code enc =
 * 448*6 / globalScale} (nvfp4 with a global scale) or 1; the scale code is {@code E8M0_up(d)} (mx)
 * or {@code E4M3(d)} (nvfp4); elements are {@code E2M1(w * (enc / s))} or {@code E4M3(w * (enc /
 * s))} where {@code s} is the decoded scale (a zero scale encodes every element as 0). Dequantize
 * is {@code (s * globalScale / (448*6)) * value}.
 */
public final class QuantFormats {
  private QuantFormats() {}

  // ---- packing ----

  /**
   * Packs {@code rows x cols} codes (each in {@code [0, 2^bits)}) into MLX's u32 layout: {@code
   * rows x cols*bits/32} words.
   */
  public static int[] pack(int[] codes, int rows, int cols, int bits) {
    if ((cols * bits) % 32 != 0) {
      throw new IllegalArgumentException(
          "cols * bits must be a multiple of 32, got cols=" + cols + " bits=" + bits);
    }
    int wpr = cols * bits / 32;
    int[] out = new int[rows * wpr];
    int mask = (1 << bits) - 1;
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        int v = codes[r * cols + k];
        if ((v & ~mask) != 0) {
          throw new IllegalArgumentException("code " + v + " does not fit in " + bits + " bits");
        }
        long bit = (long) k * bits;
        int word = r * wpr + (int) (bit >>> 5);
        int shift = (int) (bit & 31);
        out[word] |= v << shift;
        if (shift + bits > 32) {
          out[word + 1] |= v >>> (32 - shift);
        }
      }
    }
    return out;
  }

  /** Inverse of {@link #pack}: the {@code rows x cols} codes. */
  public static int[] unpack(int[] words, int rows, int cols, int bits) {
    int wpr = cols * bits / 32;
    int[] out = new int[rows * cols];
    int mask = (1 << bits) - 1;
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        out[r * cols + k] = code(words, r * wpr, k, bits) & mask;
      }
    }
    return out;
  }

  /** The {@code bits}-wide code of element {@code k} of the row starting at word {@code base}. */
  public static int code(int[] words, int base, int k, int bits) {
    long bit = (long) k * bits;
    int word = base + (int) (bit >>> 5);
    int shift = (int) (bit & 31);
    long pair = words[word] & 0xFFFFFFFFL;
    if (shift + bits > 32) {
      pair |= (long) words[word + 1] << 32;
    }
    return (int) (pair >>> shift) & ((1 << bits) - 1);
  }

  // ---- dtypes ----

  /** Rounds {@code v} to the dtype and returns the rounded value as a float. */
  public static float roundTo(int dtype, float v) {
    return switch (dtype) {
      case Quant.BF16 -> Bf16.toFloat(Bf16.fromFloat(v));
      case Quant.F16 -> F16.toFloat(F16.fromFloat(v));
      default -> v;
    };
  }

  /** bf16/f16 bits of {@code v} (dtype BF16 or F16). */
  public static short toHalfBits(int dtype, float v) {
    return dtype == Quant.F16 ? F16.fromFloat(v) : Bf16.fromFloat(v);
  }

  /** bf16/f16 bits of every element. */
  public static short[] toHalfBits(int dtype, float[] v) {
    short[] out = new short[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = toHalfBits(dtype, v[i]);
    }
    return out;
  }

  /** Float values of bf16/f16 bits. */
  public static float[] fromHalfBits(int dtype, short[] v) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = QuantMath.halfToFloat(v[i], dtype);
    }
    return out;
  }

  // ---- affine ----

  /** An affine-quantized matrix: packed words, and scales/biases as values of the dtype. */
  public record Affine(int[] wq, float[] scales, float[] biases) {}

  /**
   * Quantizes {@code rows x cols} values (already values of {@code dtype}) exactly as the affine
   * quantize kernel does; scales and biases come back rounded to {@code dtype}.
   */
  public static Affine quantizeAffine(
      float[] w, int rows, int cols, int groupSize, int bits, int dtype) {
    String bad = Quant.checkFormat(Quant.AFFINE, bits, groupSize);
    if (bad != null) {
      throw new IllegalArgumentException(bad);
    }
    if (cols % groupSize != 0) {
      throw new IllegalArgumentException(
          "cols (" + cols + ") must be a multiple of groupSize (" + groupSize + ")");
    }
    int groups = cols / groupSize;
    int[] codes = new int[rows * cols];
    float[] scales = new float[rows * groups];
    float[] biases = new float[rows * groups];
    for (int r = 0; r < rows; r++) {
      for (int g = 0; g < groups; g++) {
        int base = r * cols + g * groupSize;
        float wmin = Float.MAX_VALUE;
        float wmax = 0f;
        for (int j = 0; j < groupSize; j++) {
          wmin = Math.min(wmin, w[base + j]);
          wmax = Math.max(wmax, w[base + j]);
        }
        float scale = QuantMath.affineScale(wmin, wmax, bits);
        float bias = QuantMath.affineBias(wmin, wmax, bits);
        for (int j = 0; j < groupSize; j++) {
          codes[base + j] = QuantMath.affineCode(w[base + j], scale, bias, bits);
        }
        scales[r * groups + g] = roundTo(dtype, scale);
        biases[r * groups + g] = roundTo(dtype, bias);
      }
    }
    return new Affine(pack(codes, rows, cols, bits), scales, biases);
  }

  /** Dequantizes to float values before rounding to the output dtype ({@code q*scale + bias}). */
  public static float[] dequantizeAffine(
      int[] wq, float[] scales, float[] biases, int rows, int cols, int groupSize, int bits) {
    int groups = cols / groupSize;
    int wpr = Quant.wordsPerRow(cols, bits);
    float[] out = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        int q = code(wq, r * wpr, k, bits);
        int g = r * groups + k / groupSize;
        out[r * cols + k] = Math.fma((float) q, scales[g], biases[g]);
      }
    }
    return out;
  }

  // ---- fp modes ----

  /** An fp-mode-quantized matrix: packed codes and U8 scale codes. */
  public record Fp(int[] wq, byte[] scales) {}

  /**
   * Quantizes {@code rows x cols} values in fp mode {@code mode} exactly as the fp quantize kernel
   * does. {@code globalScale} is only used by nvfp4 ({@link Quant#NO_GLOBAL_SCALE} for none).
   */
  public static Fp quantizeFp(float[] w, int rows, int cols, int mode, float globalScale) {
    int bits = Quant.elementBits(mode, 0);
    int group = Quant.modeGroupSize(mode, 0);
    if (mode == Quant.AFFINE) {
      throw new IllegalArgumentException("quantizeFp needs an fp mode, got affine");
    }
    if (cols % group != 0) {
      throw new IllegalArgumentException(
          "cols (" + cols + ") must be a multiple of the group size " + group);
    }
    int groups = cols / group;
    int[] codes = new int[rows * cols];
    byte[] scales = new byte[rows * groups];
    float enc = mode == Quant.NVFP4 ? (448f * 6f) / globalScale : 1f;
    for (int r = 0; r < rows; r++) {
      for (int g = 0; g < groups; g++) {
        int base = r * cols + g * group;
        float amax = 0f;
        for (int j = 0; j < group; j++) {
          amax = Math.max(amax, Math.abs(w[base + j]));
        }
        int s = QuantMath.fpScaleCode(amax, mode, enc);
        float factor = QuantMath.fpEncodeFactor(s, mode, enc);
        for (int j = 0; j < group; j++) {
          codes[base + j] = QuantMath.fpCode(w[base + j], factor, bits);
        }
        scales[r * groups + g] = (byte) s;
      }
    }
    return new Fp(pack(codes, rows, cols, bits), scales);
  }

  /** The decoded group scale including nvfp4's global factor. */
  public static float fpScale(int scaleCode, int mode, float globalScale) {
    if (mode == Quant.NVFP4) {
      return QuantMath.e4m3Decode(scaleCode & 0xFF) * (globalScale / (448f * 6f));
    }
    return QuantMath.e8m0Decode(scaleCode & 0xFF);
  }

  /** The value of an element code. */
  public static float fpValue(int code, int mode) {
    return mode == Quant.MXFP8 ? QuantMath.e4m3Decode(code) : QuantMath.e2m1Decode(code);
  }

  /** Dequantizes to float values before rounding to the output dtype ({@code scale * value}). */
  public static float[] dequantizeFp(
      int[] wq, byte[] scales, int rows, int cols, int mode, float globalScale) {
    int bits = Quant.elementBits(mode, 0);
    int group = Quant.modeGroupSize(mode, 0);
    int groups = cols / group;
    int wpr = Quant.wordsPerRow(cols, bits);
    float[] out = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < cols; k++) {
        int c = code(wq, r * wpr, k, bits);
        float s = fpScale(scales[r * groups + k / group], mode, globalScale);
        out[r * cols + k] = s * fpValue(c, mode);
      }
    }
    return out;
  }
}
