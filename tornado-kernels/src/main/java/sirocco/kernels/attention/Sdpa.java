package sirocco.kernels.attention;

import sirocco.api.Bf16;
import sirocco.api.Float4;
import sirocco.api.Int4;

/**
 * Constants and small helpers shared by the attention kernels ({@link SdpaVector}, {@link
 * SdpaSplitK}, {@link SdpaUnfused}). The helpers are static methods of the kernel subset, so
 * kernels call them and the compiler inlines them.
 *
 * <h2>Semantics (MLX {@code fast.scaled_dot_product_attention})</h2>
 *
 * q {@code [B, Hq, Lq, D]}, k and v {@code [B, Hkv, Lkv, D]}, {@code Hq % Hkv == 0}; q head {@code
 * h} reads kv head {@code h / (Hq / Hkv)}. {@code out = softmax(scale·q·kᵀ + mask) · v} in q's
 * dtype, with the softmax taken in float32 with max subtraction. Masks: none; causal aligned
 * bottom-right (query {@code i} sees keys {@code j <= i + Lkv - Lq}); additive (float32, element
 * strides so that any broadcast to {@code [B, Hq, Lq, Lkv]} is a stride of 0); boolean (one byte,
 * non-zero = keep). Optional sinks: one logit per q head that joins every row's softmax denominator
 * but has no value row. A row whose every key is masked yields 0, never NaN.
 *
 * <h2>Conventions of every kernel here</h2>
 *
 * <ul>
 *   <li>16-bit tensors travel as {@code short[]} bits with a {@code @Specialize int dtype} ({@link
 *       #BF16} or {@link #F16}); float32 tensors as {@code float[]} ({@link #F32}).
 *   <li>An input tensor is addressed through an element offset and element strides: element {@code
 *       (b, h, l, d)} of k lives at {@code kOff + b*kSB + h*kSH + l*kSL + d} (the vector kernels
 *       need the last stride to be 1; the unfused kernels take it as a parameter), so a view into a
 *       longer cache needs no copy.
 *   <li>Outputs are written contiguous {@code [B, Hq, Lq, D]}.
 *   <li>Arrays a launch does not use (the mask of the other kind, sinks when there are none) may be
 *       any array of the right type; kernels never touch them.
 * </ul>
 */
public final class Sdpa {
  private Sdpa() {}

  /** bfloat16 bits in {@code short[]}. */
  public static final int BF16 = 0;

  /** IEEE binary16 bits in {@code short[]}. */
  public static final int F16 = 1;

  /** float32 in {@code float[]}. */
  public static final int F32 = 2;

  /** No mask. */
  public static final int MASK_NONE = 0;

  /** Causal, aligned bottom-right: query {@code i} sees keys {@code j <= i + Lkv - Lq}. */
  public static final int MASK_CAUSAL = 1;

  /** Additive float32 mask added to {@code scale·q·kᵀ} (a {@code -inf} entry masks the key). */
  public static final int MASK_ADDITIVE = 2;

  /** Boolean byte mask: non-zero keeps the key, zero masks it. */
  public static final int MASK_BOOL = 3;

  /** log2(e) as a float: scores are kept in base 2 so that the GPU's {@code ex2} applies. */
  public static final float LOG2E = 1.4426950408889634f;

  static final float NEG_INF = Float.NEGATIVE_INFINITY;

  /** A short name for messages and test names. */
  public static String dtypeName(int dtype) {
    return switch (dtype) {
      case BF16 -> "bf16";
      case F16 -> "f16";
      case F32 -> "f32";
      default -> "dtype#" + dtype;
    };
  }

  /** A short name for messages and test names. */
  public static String maskName(int maskKind) {
    return switch (maskKind) {
      case MASK_NONE -> "none";
      case MASK_CAUSAL -> "causal";
      case MASK_ADDITIVE -> "additive";
      case MASK_BOOL -> "bool";
      default -> "mask#" + maskKind;
    };
  }

  /** {@code scale * log2(e)} rounded once to float: the factor the kernels pre-scale q by. */
  public static float scaleLog2(double scale) {
    return (float) (scale / Math.log(2.0));
  }

  /** The strides of an absent mask (none or causal): all zero. */
  static SdpaStrides noMask(SdpaStrides maskStrides) {
    return maskStrides == null ? new SdpaStrides(0, 0, 0, 0, 0) : maskStrides;
  }

  // ---- kernel helpers (inlined) ----

  /** The element in the low half of a packed pair, as float. */
  static float lo(int packed, int dtype) {
    return dtype == F16 ? sirocco.api.F16.lo(packed) : Bf16.lo(packed);
  }

  /** The element in the high half of a packed pair, as float. */
  static float hi(int packed, int dtype) {
    return dtype == F16 ? sirocco.api.F16.hi(packed) : Bf16.hi(packed);
  }

  /** One 16-bit element as float. */
  static float toFloat(short bits, int dtype) {
    return dtype == F16 ? sirocco.api.F16.toFloat(bits) : Bf16.toFloat(bits);
  }

  /** One float rounded to the 16-bit dtype. */
  static short fromFloat(float value, int dtype) {
    return dtype == F16 ? sirocco.api.F16.fromFloat(value) : Bf16.fromFloat(value);
  }

  /** Two floats rounded to the 16-bit dtype and packed, low element first. */
  static int pack(float lo, float hi, int dtype) {
    return dtype == F16 ? sirocco.api.F16.pack(lo, hi) : Bf16.pack(lo, hi);
  }

  /** Eight floats (two groups of four) rounded to the 16-bit dtype: one 16-byte store. */
  static Int4 pack8(Float4 a, Float4 b, int dtype) {
    return new Int4(
        pack(a.x(), a.y(), dtype),
        pack(a.z(), a.w(), dtype),
        pack(b.x(), b.y(), dtype),
        pack(b.z(), b.w(), dtype));
  }

  /**
   * An additive mask value in base-2 units. A finite mask whose product with log2(e) overflows
   * (MLX's {@code finfo(float32).min} convention for "masked") is clamped to {@code -MAX_VALUE}, so
   * that such a row stays a finite softmax, as in float64; {@code -inf} stays {@code -inf} (a
   * masked key).
   */
  static float additiveLog2(float mask) {
    float t = mask * LOG2E;
    return t < -Float.MAX_VALUE && mask != NEG_INF ? -Float.MAX_VALUE : t;
  }

  static Float4 scale4(Float4 a, float s) {
    return new Float4(a.x() * s, a.y() * s, a.z() * s, a.w() * s);
  }

  /** {@code acc + f·x}, one rounding per element. */
  static Float4 fma4(float f, Float4 x, Float4 acc) {
    return new Float4(
        Math.fma(f, x.x(), acc.x()),
        Math.fma(f, x.y(), acc.y()),
        Math.fma(f, x.z(), acc.z()),
        Math.fma(f, x.w(), acc.w()));
  }

  static Float4 zero4() {
    return new Float4(0f, 0f, 0f, 0f);
  }
}
