package sirocco.kernels.quant;

import sirocco.api.Bf16;
import sirocco.api.F16;

/**
 * Scalar helpers shared by the quantization kernels and their host-side formats. Everything here is
 * in the kernel subset (static, ints and floats, no allocation), so kernels call it and the
 * compiler inlines it; the host format code calls the same methods, so host and GPU agree bit for
 * bit.
 *
 * <h2>Codecs</h2>
 *
 * <ul>
 *   <li>E2M1 (fp4): sign, 2 exponent bits (bias 1), 1 mantissa bit; values ±{0, 0.5, 1, 1.5, 2, 3,
 *       4, 6}. Encode rounds to nearest, ties to the even code, and saturates to ±6 (MLX's CPU
 *       thresholds; the CUDA path uses {@code cvt.rn.satfinite}, the same result); NaN encodes as
 *       0x7.
 *   <li>E4M3 (fp8): sign, 4 exponent bits (bias 7), 3 mantissa bits, no infinities, 0x7F/0xFF are
 *       NaN, largest finite 448. Encode rounds to nearest even and saturates to ±448 ({@code
 *       cvt.rn.satfinite.e4m3x2.f32}, as MLX).
 *   <li>E8M0 (MX scales): 2<sup>s-127</sup>; MLX decodes 0 as 2<sup>-127</sup>. Encode rounds
 *       <em>up</em> to the next power of two and saturates at 2<sup>127</sup>, as MLX's CUDA
 *       backend ({@code cvt.rp.satfinite.ue8m0x2.f32}) and, since ml-explore/mlx#4353, its Metal
 *       and CPU backends: rounding up keeps the group maximum inside the element range.
 * </ul>
 */
public final class QuantMath {
  private QuantMath() {}

  /** {@code 2^126}: the factor that turns the E2M1 bit trick of {@link #e2m1Bits} into values. */
  public static final float E2M1_UNSCALE = 0x1p126f;

  /** {@code 2^120}: the factor that turns the E4M3 bit trick of {@link #e4m3Bits} into values. */
  public static final float E4M3_UNSCALE = 0x1p120f;

  /**
   * C's {@code roundf}: to nearest, halfway cases away from zero (MLX's Metal and CUDA quantizers
   * round this way). Exact for every float.
   */
  public static float roundHalfAway(float x) {
    float a = Math.abs(x);
    if (!(a < 8388608f)) {
      return x; // NaN, infinity, or already an integer
    }
    float t = (float) (int) a;
    if (a - t >= 0.5f) {
      t = t + 1f;
    }
    return x < 0f ? -t : t;
  }

  // ---- E2M1 ----

  /** Encodes to an E2M1 code (low 4 bits): nearest, ties to even, saturating; NaN gives 0x7. */
  public static int e2m1Encode(float x) {
    if (x != x) {
      return 0x7;
    }
    int sign = (Float.floatToRawIntBits(x) >>> 28) & 0x8;
    float a = Math.abs(x);
    int code;
    if (a > 5f) {
      code = 7;
    } else if (a >= 3.5f) {
      code = 6;
    } else if (a > 2.5f) {
      code = 5;
    } else if (a >= 1.75f) {
      code = 4;
    } else if (a > 1.25f) {
      code = 3;
    } else if (a >= 0.75f) {
      code = 2;
    } else if (a > 0.25f) {
      code = 1;
    } else {
      code = 0;
    }
    return code | sign;
  }

  /**
   * Float bits whose value is the E2M1 code's value times 2<sup>-126</sup>: the code's magnitude
   * bits go to the top of the float's exponent-and-mantissa so that subnormal codes land on float
   * subnormals. Multiply by {@link #E2M1_UNSCALE} (or fold that factor into the group scale).
   */
  public static int e2m1Bits(int code) {
    return ((code & 0x8) << 28) | ((code & 0x7) << 22);
  }

  /** The value of an E2M1 code (exact). */
  public static float e2m1Decode(int code) {
    return Float.intBitsToFloat(e2m1Bits(code)) * E2M1_UNSCALE;
  }

  // ---- E4M3 ----

  /** Encodes to an E4M3 code (low 8 bits): nearest, ties to even, saturating; NaN gives 0x7F. */
  public static int e4m3Encode(float x) {
    if (x != x) {
      return 0x7F;
    }
    int sign = (Float.floatToRawIntBits(x) >>> 24) & 0x80;
    float a = Math.abs(x);
    if (a > 448f) {
      return sign | 0x7E;
    }
    if (a < 0x1p-6f) {
      // Subnormal range: multiples of 2^-9; adding 2^23 rounds to an integer, ties to even.
      float m = (a * 512f + 8388608f) - 8388608f;
      return sign | (int) m; // m == 8 is the smallest normal, code 0x08
    }
    int bits = Float.floatToRawIntBits(a);
    bits = bits + 0x7FFFF + ((bits >>> 20) & 1); // round the mantissa to 3 bits, ties to even
    int e = (bits >>> 23) - 127 + 7;
    int m = (bits >>> 20) & 7;
    return sign | (e << 3) | m;
  }

  /**
   * Float bits whose value is the E4M3 code's value times 2<sup>-120</sup> (finite codes only; NaN
   * codes 0x7F/0xFF map to 480·2<sup>-120</sup>, so callers that may see them check {@link
   * #e4m3IsNaN}).
   */
  public static int e4m3Bits(int code) {
    return ((code & 0x80) << 24) | ((code & 0x7F) << 20);
  }

  /** True for the two E4M3 NaN codes. */
  public static boolean e4m3IsNaN(int code) {
    return (code & 0x7F) == 0x7F;
  }

  /** The value of an E4M3 code (exact; NaN for 0x7F and 0xFF). */
  public static float e4m3Decode(int code) {
    if (e4m3IsNaN(code)) {
      return Float.NaN;
    }
    return Float.intBitsToFloat(e4m3Bits(code)) * E4M3_UNSCALE;
  }

  // ---- E8M0 ----

  /**
   * Encodes a positive scale to E8M0 rounding up to a power of two, saturating at 2<sup>127</sup>
   * (code 254); zero and negative values give 0 (2<sup>-127</sup>), NaN gives 0xFF.
   */
  public static int e8m0EncodeUp(float x) {
    if (x != x) {
      return 0xFF;
    }
    if (!(x > 0f)) {
      return 0;
    }
    int bits = Float.floatToRawIntBits(x);
    int e = bits >>> 23;
    if (e == 0) {
      // Float subnormal: below 2^-126, so the result is 2^-127 (code 0) or 2^-126 (code 1).
      return bits <= 0x00400000 ? 0 : 1;
    }
    int r = e + ((bits & 0x7FFFFF) != 0 ? 1 : 0);
    return r > 254 ? 254 : r;
  }

  /** The value of an E8M0 code: 2<sup>s-127</sup>; 0 decodes to 2<sup>-127</sup>, 255 to NaN. */
  public static float e8m0Decode(int code) {
    int s = code & 0xFF;
    if (s == 0) {
      return Float.intBitsToFloat(0x00400000);
    }
    if (s == 255) {
      return Float.NaN;
    }
    return Float.intBitsToFloat(s << 23);
  }

  // ---- affine quantization (MLX's GPU algorithm, float32) ----

  /**
   * MLX's float32 group scale from the group minimum and the maximum of the group and 0 (see {@link
   * QuantFormats}).
   */
  public static float affineScale(float wmin, float wmax, int bits) {
    float nBins = (float) ((1 << bits) - 1);
    float scale = Math.max((wmax - wmin) / nBins, 1e-7f);
    boolean side = Math.abs(wmin) > Math.abs(wmax);
    scale = side ? scale : -scale;
    float edge = side ? wmin : wmax;
    float q0 = roundHalfAway(edge / scale);
    return q0 == 0f ? scale : edge / q0;
  }

  /** MLX's float32 group bias: the edge, or 0 when the edge rounds to code 0. */
  public static float affineBias(float wmin, float wmax, int bits) {
    float nBins = (float) ((1 << bits) - 1);
    float scale = Math.max((wmax - wmin) / nBins, 1e-7f);
    boolean side = Math.abs(wmin) > Math.abs(wmax);
    scale = side ? scale : -scale;
    float edge = side ? wmin : wmax;
    float q0 = roundHalfAway(edge / scale);
    return q0 == 0f ? 0f : edge;
  }

  /** MLX's code of one element: {@code min(round((w - bias) / scale), 2^bits - 1)}, at least 0. */
  public static int affineCode(float w, float scale, float bias, int bits) {
    float nBins = (float) ((1 << bits) - 1);
    float q = Math.min(roundHalfAway((w - bias) / scale), nBins);
    return q > 0f ? (int) q : 0;
  }

  // ---- fp-mode quantization (MLX's CUDA algorithm, float32) ----

  /**
   * The scale code of a group with absolute maximum {@code amax}: {@code E8M0_up(amax / max * enc)}
   * (mx modes) or {@code E4M3(amax / 6 * enc)} (nvfp4).
   */
  public static int fpScaleCode(float amax, int mode, float enc) {
    float d = amax / (mode == Quant.MXFP8 ? 448f : 6f);
    d = d * enc;
    return mode == Quant.NVFP4 ? e4m3Encode(d) : e8m0EncodeUp(d);
  }

  /** {@code enc / s} for the decoded scale {@code s}; 0 when {@code s} is 0. */
  public static float fpEncodeFactor(int scaleCode, int mode, float enc) {
    float s = mode == Quant.NVFP4 ? e4m3Decode(scaleCode) : e8m0Decode(scaleCode);
    return s == 0f ? 0f : enc / s;
  }

  /** The element code of {@code w}: E2M1 or E4M3 of {@code w * factor}; 0 when factor is 0. */
  public static int fpCode(float w, float factor, int bits) {
    if (factor == 0f) {
      return 0;
    }
    float v = w * factor;
    return bits == 4 ? e2m1Encode(v) : e4m3Encode(v);
  }

  // ---- activation dtypes ----

  /** A bf16 or f16 value (by {@code dtype}) as a float. */
  public static float halfToFloat(short bits, int dtype) {
    return dtype == Quant.F16 ? F16.toFloat(bits) : Bf16.toFloat(bits);
  }

  /** Rounds a float to bf16 or f16 (by {@code dtype}), nearest even. */
  public static short floatToHalf(float v, int dtype) {
    return dtype == Quant.F16 ? F16.fromFloat(v) : Bf16.fromFloat(v);
  }

  /** Low element of a packed pair of bf16/f16 values. */
  public static float halfLo(int packed, int dtype) {
    return dtype == Quant.F16 ? F16.lo(packed) : Bf16.lo(packed);
  }

  /** High element of a packed pair of bf16/f16 values. */
  public static float halfHi(int packed, int dtype) {
    return dtype == Quant.F16 ? F16.hi(packed) : Bf16.hi(packed);
  }
}
