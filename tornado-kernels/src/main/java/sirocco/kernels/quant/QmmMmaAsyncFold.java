package sirocco.kernels.quant;

import sirocco.api.Float4;
import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * The fold of {@link QmmMmaAsyncKernel}: how a warp turns a batch's per-group mma sums into its
 * partial outputs, scaling each group's sums and adding the bias term {@code Σ_c (bias_c -
 * offset·scale_c)·X_c}, either on the tensor cores ({@link #biasTerm}, where {@link #tensorBias}
 * holds) or per group in float ({@link #biasGroup}). Kernel subset only (static, no allocation):
 * the compiler inlines these into the kernel's loop.
 */
final class QmmMmaAsyncFold {
  private QmmMmaAsyncFold() {}

  /**
   * Whether the plan adds the bias term on the tensor cores ({@link #biasTerm}) rather than per
   * group in float. bf16 only: f16's {@code -offset·X} can overflow f16. Not at two groups per warp
   * slice with two row tiles (g128 above 8 rows), where it measured slower (run 103, H100, 16 rows:
   * 12.96–13.02 µs against 12.57; with one tile 10.98–11.09 against 11.31–11.73 at 1–8 rows).
   */
  static boolean tensorBias(int dtype, int cpw, int rt) {
    return dtype != Quant.F16 && (cpw > 2 || rt == 1);
  }

  /** acc plus rows g, g + 8's group scales {@code a}, {@code b} times the group's mma sums d. */
  static Float4 scaled(float a, float b, Float4 d, Float4 acc) {
    return new Float4(
        Math.fma(a, d.x(), acc.x()),
        Math.fma(a, d.y(), acc.y()),
        Math.fma(b, d.z(), acc.z()),
        Math.fma(b, d.w(), acc.w()));
  }

  /**
   * acc plus one group's bias term per output (f16): {@code za}, {@code zb} (bias - offset·scale of
   * rows g, g + 8) times the group's x sums of x rows 2t, 2t + 1 at {@code xsum[at]}, {@code
   * xsum[at + 1]}.
   */
  static Float4 biasGroup(
      float[] xsum, // [rt, ks, cpw, 8] x sums (shared)
      int at,
      float za,
      float zb,
      Float4 acc) {
    float xa = xsum[at];
    float xb = xsum[at + 1];
    return new Float4(
        Math.fma(za, xa, acc.x()),
        Math.fma(za, xb, acc.y()),
        Math.fma(zb, xa, acc.z()),
        Math.fma(zb, xb, acc.w()));
  }

  /**
   * The {@code cpw} halves of a staged row of scales or biases from {@code idx} (a multiple of
   * {@code cpw}), packed in pairs, by one 8- or 16-byte shared load; words past the row are 0. At
   * cpw = 2 a row is 4 bytes: the 8-byte load covers it and its even or odd neighbour.
   */
  static Int4 sharedGroups(
      short[] ssh, // [stages, ks, 2, 16, cpw] (shared)
      int idx,
      int cpw) {
    if (cpw == 8) {
      return Vec.load4(ssh, idx);
    }
    if (cpw == 4) {
      Int2 v = Vec.load2(ssh, idx);
      return new Int4(v.x(), v.y(), 0, 0);
    }
    Int2 v = Vec.load2(ssh, idx & ~3);
    return new Int4((idx & 2) == 0 ? v.x() : v.y(), 0, 0, 0);
  }

  /**
   * acc plus the bias term of the lane's tile, {@code Σ_c (bias_c - offset·scale_c)·X_c} over the
   * warp's {@code cpw} groups, on the tensor cores (bf16). Per chunk of 4 groups, k slots 0–7 of
   * each row pair its 4 scales and 4 biases ({@code pa}, {@code pb}: lane t holds scales (t < 2) or
   * biases (t ≥ 2) of groups 2(t & 1), +1) with -offset·X and X split in three bf16 parts ({@link
   * #sumFragment}): the first mma takes the first two parts (slots 0–7, 8–15), the second the
   * third. Replaces, per group and row tile, two shared loads of X, two conversions and six FFMAs.
   */
  static Float4 biasTerm(
      KernelContext ctx,
      Int4 pa, // row g's cpw scales (t < 2) or biases (t >= 2), packed in pairs
      Int4 pb, // the same of row g + 8
      Int4 x0, // groups 0-3: sumFragment
      Int4 x1, // groups 4-7 (cpw = 8)
      int t,
      int cpw,
      Float4 acc) {
    if (cpw == 2) {
      // The 4 values of a row fill half of the slots: all three parts in one mma (sumFragment),
      // odd lanes' slots 2t+8, 2t+9 empty.
      boolean even = (t & 1) == 0;
      int wa = pa.x();
      int wb = pb.x();
      return QmmMmaKernel.mma(
          ctx,
          new Int4(wa, wb, even ? wa : 0, even ? wb : 0),
          new Int2(x0.x(), x0.y()),
          acc,
          Quant.BF16);
    }
    acc = biasChunk(ctx, slotPair(pa, 0, t), slotPair(pb, 0, t), x0, acc);
    if (cpw > 4) {
      acc = biasChunk(ctx, slotPair(pa, 1, t), slotPair(pb, 1, t), x1, acc);
    }
    return acc;
  }

  /** One chunk of {@link #biasTerm}: A slots {@code wa} (row g), {@code wb} (row g + 8). */
  static Float4 biasChunk(KernelContext ctx, int wa, int wb, Int4 x, Float4 acc) {
    acc = QmmMmaKernel.mma(ctx, new Int4(wa, wb, wa, wb), new Int2(x.x(), x.y()), acc, Quant.BF16);
    return QmmMmaKernel.mma(ctx, new Int4(wa, wb, 0, 0), new Int2(x.z(), 0), acc, Quant.BF16);
  }

  /** Lane t's pair of chunk h of a row's packed halves (cpw ≥ 4): groups 4h + 2(t & 1), +1. */
  static int slotPair(Int4 p, int h, int t) {
    return (t & 1) == 0 ? QmmMmaFragments.wordAt(p, 2 * h) : QmmMmaFragments.wordAt(p, 2 * h + 1);
  }

  /**
   * The B fragments of {@link #biasTerm}'s chunk {@code h} for x row g (its sums at {@code at + 8c}
   * for group c): the pairs of slots 2t, 2t+1 hold -offset·X (t < 2) or X (t ≥ 2) of groups 4h +
   * 2(t & 1), +1, split into three bf16 parts (x: the value rounded, y: what that left rounded, z:
   * the rest; w is 0). Three, because the offset's share of the term is about offset/8 times the
   * result: two parts (X to 2^-17) failed the kernel tests' 2e-5 accumulation bound, three carry X
   * to about 2^-26 and the products are exact in the mma's float accumulation. At cpw = 2 every
   * lane holds groups 0 and 1: even lanes (x, y) = (first part, third), odd lanes (second, 0).
   */
  static Int4 sumFragment(
      float[] xsum, // [rt, ks, cpw, 8] x sums (shared)
      int at,
      int h,
      int t,
      int cpw,
      float offset) {
    int c = cpw == 2 ? 0 : 4 * h + 2 * (t & 1);
    float m = t < 2 ? -offset : 1f;
    float v0 = m * xsum[at + 8 * c];
    float v1 = m * xsum[at + 8 * c + 8];
    short h0 = QuantMath.floatToHalf(v0, Quant.BF16);
    short h1 = QuantMath.floatToHalf(v1, Quant.BF16);
    float r0 = v0 - QuantMath.halfToFloat(h0, Quant.BF16);
    float r1 = v1 - QuantMath.halfToFloat(h1, Quant.BF16);
    short m0 = QuantMath.floatToHalf(r0, Quant.BF16);
    short m1 = QuantMath.floatToHalf(r1, Quant.BF16);
    short l0 = QuantMath.floatToHalf(r0 - QuantMath.halfToFloat(m0, Quant.BF16), Quant.BF16);
    short l1 = QuantMath.floatToHalf(r1 - QuantMath.halfToFloat(m1, Quant.BF16), Quant.BF16);
    if (cpw == 2) {
      return (t & 1) == 0
          ? new Int4(pair(h0, h1), pair(l0, l1), 0, 0)
          : new Int4(pair(m0, m1), 0, 0, 0);
    }
    return new Int4(pair(h0, h1), pair(m0, m1), pair(l0, l1), 0);
  }

  /** Two halves packed, {@code lo} in the low 16 bits. */
  static int pair(short lo, short hi) {
    return (lo & 0xFFFF) | (hi << 16);
  }
}
