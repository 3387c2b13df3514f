package sirocco.kernels.quant;

import sirocco.api.Int2;
import sirocco.api.Int4;
import sirocco.api.Vec;

/**
 * The layout arithmetic of {@link QmmMmaAsyncKernel}, shared by its body (which the JIT inlines
 * these into) and its dispatch helpers: words and x slots per lane, the padded staged rows, the
 * block's shared memory, and the k split, for 4-, 2- and 6-bit codes.
 *
 * <p>A lane's codes of a group come in <em>units</em>: at 4 bits a word of 8 codes (one x slot, two
 * k steps), at 2 bits a word of 16 codes and at 6 bits three words of 16 codes (two x slots, four k
 * steps, codes i and i+8 paired in one fragment register).
 */
final class QmmMmaAsyncLayout {
  private QmmMmaAsyncLayout() {}

  /** Words of a unit: 3 at 6 bits, else 1 (3 and 5 bits: see {@link #halfWordUnits}). */
  static int wordsPerUnit(int bits) {
    return bits == 6 ? 3 : 1;
  }

  /**
   * Whether a 16-code unit is no whole number of words: 3 and 5 bits (48 and 80 bits), where every
   * other unit of a row starts at bit 16 of a word. Such a unit is read as the two or three words
   * it touches and moved down to bit 0 ({@link #unitWords}).
   */
  static boolean halfWordUnits(int bits) {
    return bits == 3 || bits == 5;
  }

  /** Words of one group's row segment: {@code groupSize·bits/32} (3-bit g64: 6, 5-bit g64: 10). */
  static int groupWords(int groupSize, int bits) {
    return groupSize * bits / 32;
  }

  /** Groups per warp slice of {@code wps} words per lane (the slice's row is {@code 4·wps}). */
  static int groupsPerSlice(int wps, int groupSize, int bits) {
    return 4 * wps / groupWords(groupSize, bits);
  }

  /**
   * Unit {@code i} of a lane at 3 or 5 bits from the words {@code w0..w2} that hold it, the first
   * of them the unit's start word: moved down by 16 bits where the unit starts mid-word ({@code
   * odd} = 1), so code c of the unit sits at bit {@code bits·c} of {@code w2:w1:w0} as {@link
   * QmmMmaFragments#fragAUnit} reads it.
   */
  static Int4 unitWords(int w0, int w1, int w2, int odd) {
    if (odd == 0) {
      return new Int4(w0, w1, w2, 0);
    }
    return new Int4(
        QmmMmaFragments.bytesFrom(w0, w1, 2), QmmMmaFragments.bytesFrom(w1, w2, 2), w2 >>> 16, 0);
  }

  /** x fragment slots of a unit (one per two k steps): 1 at 4 bits (8 codes), else 2 (16). */
  static int slotsPerUnit(int bits) {
    return bits == 4 ? 1 : 2;
  }

  /** Units per lane of one group's row segment: a quarter of the group's units. */
  static int unitsPerLane(int groupSize, int bits) {
    return bits == 4 ? groupSize / 32 : groupSize / 64;
  }

  /** x slots per lane (8 codes' x each) of a slice of {@code wps} words per lane. */
  static int slots(int wps, int bits) {
    return 4 * wps / bits;
  }

  /** Words per lane of one group's row segment (a group's row is 4 lanes' worth). */
  static int wordsPerLane(int groupSize, int bits) {
    return groupSize * bits / 128;
  }

  /**
   * Words of a staged row: the slice's {@code 4·wps} words and a pad that puts the rows a lane
   * group reads at once in distinct banks. Lane (g, t) reads {@code wpl} words at word {@code
   * t·wpl} of rows g and g+8. With 8-byte reads (4-bit, and even {@code wpl}) rows 8 (mod 32) words
   * apart: 8 words of pad, as measured since run 30. Odd {@code wpl} (2-bit g64: 1, 6-bit g64: 3)
   * reads words one at a time: rows 4 (mod 8) apart keep lane (g, t)'s word {@code t·wpl + i} in a
   * distinct bank for every g and t (rs·Δg is a multiple of 4 that is not of 32, wpl·Δt is not a
   * multiple of 4). 2-bit g64: 20 words, 6-bit g64: 52.
   */
  static int rowWords(int bits, int wps, int wpl) {
    if (halfWordUnits(bits)) {
      // Lane (g, t) reads words from (bits·t)/2 (g64) or bits·t (g128) of a group's segment: with
      // rows 4 (mod 8) apart those hit distinct banks at 5 bits and at g128, and at most two
      // lanes a bank at 3-bit g64, whose offsets 0, 1, 3, 4 cannot tile the 32 banks.
      return 4 * wps + (wps % 2 == 0 ? 4 : 8);
    }
    if (bits == 4 || wpl % 2 == 0) {
      return 4 * wps + 8;
    }
    return 4 * wps + (wps % 2 == 0 ? 4 : 8);
  }

  /** Shared bytes of a block: the stages, the reduction slab, the x sums ({@code rt} row tiles). */
  static int sharedBytes(int bits, int ks, int wps, int cpw, int stages, int rt) {
    return sharedBytes(bits, ks, wps, cpw, stages, rt, 1);
  }

  /** {@link #sharedBytes(int, int, int, int, int, int)} with a slab for rounds of {@code rb}. */
  static int sharedBytes(int bits, int ks, int wps, int cpw, int stages, int rt, int rb) {
    int stage = ks * (16 * rowWords(bits, wps, wps / cpw) * 4 + 64 * cpw);
    return stages * stage + rt * (2 * rb * ks * 128 * 4 + ks * cpw * 8 * 4);
  }

  /** Whether a row's {@code cpw} scales make one asynchronous copy (4, 8 or 16 bytes). */
  static boolean copyableGroups(int cpw) {
    return cpw == 2 || cpw == 4 || cpw == 8;
  }

  /**
   * The affine 4-bit shape of {@code s}'s size, groups and dtype: its words per lane of a slice are
   * {@code s}'s x slots per lane at every k split (4 bits: {@code s} itself; 2 bits: half the
   * words, two slots each; 6 bits: 1.5 times the words, three per two slots), so its k split (at
   * most {@link QmmMmaSplitKKernel#MAX_WPS} slots), grid and register hint are {@code s}'s. {@link
   * QmmMmaSplitKKernel}'s checks and plan are asked of it.
   */
  static QmmShape layoutTwin(QmmShape s) {
    if (s.bits() == 4) {
      return s;
    }
    return QmmShape.affine(4, s.groupSize(), s.dtype(), s.rows(), s.n(), s.k())
        .withTranspose(s.transpose());
  }

  /** The k split of the default plan: {@link QmmMmaSplitKKernel#defaultKs} of the layout twin. */
  static int defaultKs(QmmShape s) {
    return QmmMmaSplitKKernel.defaultKs(layoutTwin(s));
  }

  /** Words per lane of a warp slice at {@code ks} warps. */
  static int sliceWords(QmmShape s, int ks) {
    return s.k() / s.groupSize() / ks * groupWords(s.groupSize(), s.bits()) / 4;
  }

  /**
   * Slot {@code j} of the lane's slice of 4-bit x row {@code xr} (zeros past the slice's {@code
   * wps} words, or for a row past the end, {@code xr < 0}), in 4-bit order (8 halves, which {@link
   * QmmMmaFragments#fragB} pairs as (0, 4), (1, 5), (2, 6), (3, 7)): word {@code j} (group {@code j
   * / wpl}, word {@code j % wpl}), its 8 codes' x. The unit widths: {@link #loadXUnitSlot}.
   */
  static Int4 loadXWord(
      short[] x, // [rows, k] bf16/f16 bits
      int xr,
      int lanew,
      int j,
      int wpl,
      int wps,
      int bits) {
    if (j >= slots(wps, bits)) {
      return new Int4(0, 0, 0, 0);
    }
    return QmmMmaKernel.loadX(x, xr, (lanew + 4 * wpl * (j / wpl) + j % wpl) * 8, bits);
  }

  /**
   * The affine kernel's slot {@code j}: {@link #loadXWord} at 4 bits, else {@link #loadXUnitSlot}
   * from {@code lanek}, the lane's first code of the row.
   */
  static Int4 xSlot(
      short[] x, // [rows, k] bf16/f16 bits
      int xr,
      int lanew,
      int lanek,
      int j,
      int wpl,
      int wps,
      int groupSize,
      int bits) {
    if (bits == 4) {
      return loadXWord(x, xr, lanew, j, wpl, wps, bits);
    }
    return loadXUnitSlot(x, xr, lanek, j, groupSize, wps, bits);
  }

  /**
   * Slot {@code j} of a lane whose codes come in 16-code units (2, 3, 5, 6 bits), {@code lanek} the
   * lane's first code of the row, in {@link #loadXWord}'s 4-bit order: half {@code s = j % 2} of
   * unit {@code j / 2} (its group and place in it from {@code groupSize}), the x of its codes
   * 4s..4s+3 and 4s+8..4s+11 (two 8-byte loads), which the unit's steps 2s and 2s+1 pair that way
   * ({@link QmmMmaFragments#fragA2}, {@link QmmMmaFragments#fragA6}, {@link
   * QmmMmaFragments#fragAUnit}).
   */
  static Int4 loadXUnitSlot(
      short[] x, // [rows, k] bf16/f16 bits
      int xr,
      int lanek,
      int j,
      int groupSize,
      int wps,
      int bits) {
    if (j >= slots(wps, bits) || xr < 0) {
      return new Int4(0, 0, 0, 0);
    }
    int u = j / 2;
    int upl = unitsPerLane(groupSize, bits);
    int kw = lanek + u / upl * groupSize + 16 * (u % upl) + 4 * (j % 2);
    Int2 lo = Vec.ldg2(x, xr + kw);
    Int2 hi = Vec.ldg2(x, xr + kw + 8);
    return new Int4(lo.x(), lo.y(), hi.x(), hi.y());
  }

  /**
   * The A fragment of step {@code h} of the units of rows g ({@code a0..a2}) and g+8 ({@code
   * b0..b2}; words past the unit's are unused): 4-bit h = 0, 1; 2- and 6-bit 0–3. {@code fu} = 1:
   * bf16 4- and 2-bit by {@link QmmMmaFragments#fragA4Fma} and {@link QmmMmaFragments#fragA2Fma} (x
   * through {@link #xFragments} with the same {@code fu}).
   */
  static Int4 fragA(
      int a0,
      int a1,
      int a2,
      int b0,
      int b1,
      int b2,
      int h,
      int bits,
      int dtype,
      int magic,
      int fu) {
    if (bits == 6) {
      return QmmMmaFragments.fragA6(a0, a1, a2, b0, b1, b2, h, dtype, magic);
    }
    if (halfWordUnits(bits)) {
      return QmmMmaFragments.fragAUnit(a0, a1, a2, b0, b1, b2, h, bits, dtype, magic);
    }
    if (bits == 2) {
      return fmaUnpack(bits, dtype, fu)
          ? QmmMmaFragments.fragA2Fma(a0, b0, h, magic)
          : QmmMmaFragments.fragA2(a0, b0, h, dtype, magic);
    }
    return fmaUnpack(bits, dtype, fu)
        ? QmmMmaFragments.fragA4Fma(a0, b0, h, magic)
        : QmmMmaFragments.fragA4(a0, b0, h, dtype, magic);
  }

  /**
   * A slot's B fragments as {@link #fragA} meets them: with {@code fu} = 1, bf16 4-bit steps take
   * their register 1 times 4 ({@link QmmMmaFragments#fourfoldStep1}), bf16 2-bit slots the factors
   * of {@link QmmMmaFragments#xFactorsTwoBitFma}; otherwise as they are.
   */
  static Int4 xFragments(Int4 f, int bits, int dtype, int fu) {
    if (!fmaUnpack(bits, dtype, fu)) {
      return f;
    }
    return bits == 2 ? QmmMmaFragments.xFactorsTwoBitFma(f) : QmmMmaFragments.fourfoldStep1(f);
  }

  /**
   * Whether {@code fu} = 1 applies: bf16 4-bit ({@link QmmMmaFragments#fragA4Fma}) and 2-bit
   * ({@link QmmMmaFragments#fragA2Fma}) codes.
   */
  static boolean fmaUnpack(int bits, int dtype, int fu) {
    return fu == 1 && (bits == 4 || bits == 2) && dtype == Quant.BF16;
  }
}
