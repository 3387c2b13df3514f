package sirocco.kernels.quant;

import sirocco.api.Int4;
import sirocco.api.Vec;

/**
 * The asynchronous copies of {@link QmmMmaAsyncKernel}: each warp's slice of a batch of 16 weight
 * rows (16-byte chunks of packed words) and its rows' scales and biases, from global memory into
 * the warp's own region of a shared-memory stage. Kept apart from the kernel's consuming loop; the
 * JIT inlines them into it.
 */
final class QmmMmaAsyncCopies {
  private QmmMmaAsyncCopies() {}

  /** Word offset of chunk {@code q} of a batch from the batch's first weight row. */
  static int srcOffset(int q, int wps, int wpr, int lw) {
    int r = q / wps;
    return r * wpr + lw + 4 * (q - r * wps);
  }

  /** Word offset of chunk {@code q} in a warp's staged rows ({@code rs} words per row). */
  static int dstOffset(int q, int wps, int rs) {
    return dstOffset(q, wps, rs, 0);
  }

  /**
   * {@link #dstOffset} with the chunks of row r xor-ed by {@code 2·(r & 3)} where {@code swz} is 1:
   * unpadded rows whose 8-byte reads stay in distinct banks ({@link QmmMmaAsyncFpKernel}'s 8-bit
   * rows, too wide for a pad in sm_80's shared memory).
   */
  static int dstOffset(int q, int wps, int rs, int swz) {
    int r = q / wps;
    return r * rs + 4 * ((q - r * wps) ^ (swz * 2 * (r & 3)));
  }

  /** {@link #srcOffset} of the lane's chunks q = lane + 32u, u = 0..3 (x, y, z, w). */
  static Int4 srcOffsets(int lane, int wps, int wpr, int lw) {
    return new Int4(
        srcOffset(lane, wps, wpr, lw),
        srcOffset(lane + 32, wps, wpr, lw),
        srcOffset(lane + 64, wps, wpr, lw),
        srcOffset(lane + 96, wps, wpr, lw));
  }

  /** {@link #dstOffset} of the lane's chunks q = lane + 32u, u = 0..3 (x, y, z, w). */
  static Int4 dstOffsets(int lane, int wps, int rs) {
    return dstOffsets(lane, wps, rs, 0);
  }

  /** {@link #dstOffset(int, int, int, int)} of the lane's chunks q = lane + 32u, u = 0..3. */
  static Int4 dstOffsets(int lane, int wps, int rs, int swz) {
    return new Int4(
        dstOffset(lane, wps, rs, swz),
        dstOffset(lane + 32, wps, rs, swz),
        dstOffset(lane + 64, wps, rs, swz),
        dstOffset(lane + 96, wps, rs, swz));
  }

  /**
   * Whether {@link #requestFullWords} covers a slice of {@code wps} chunks per row with the lane's
   * precomputed offsets: 2, 3, 4, 5, 6, 8, 10, 12 or 16. Others (3- and 5-bit slices of 8 groups:
   * 12 at 3-bit g64 aside, 20, 24, 40) take {@link #request}'s general loop for every batch.
   */
  static boolean fullCopies(int wps) {
    return wps <= 6 || wps == 8 || wps == 10 || wps == 12 || wps == 16;
  }

  /**
   * One refill of stage {@code stage} with batch {@code batch}, committed as one group (empty past
   * the last batch, so that every wait counts the same groups): {@link #requestFull} where the
   * batch's 16 rows all exist, else {@link #request}.
   */
  static void refill(
      int[] wq, // [n, wpr] packed u32
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      int[] wsh, // [stages, ks, 16, rs] (shared)
      short[] ssh, // [stages, ks, 2, 16, cpw] (shared)
      int batch,
      int stage,
      int batches,
      int n,
      int ks,
      int wps,
      int cpw,
      int rs,
      int lane,
      int warp,
      int lw,
      int gw,
      int wpr,
      int groups,
      int sso,
      Int4 so, // srcOffsets
      Int4 dso) { // dstOffsets
    if (batch * 16 + 16 <= n && fullCopies(wps)) {
      requestFull(
          wq, scales, biases, wsh, ssh, batch, stage, ks, wps, cpw, rs, lane, warp, wpr, groups,
          sso, so, dso);
    } else {
      request(
          wq, scales, biases, wsh, ssh, batch, stage, batches, n, ks, wps, cpw, rs, lane, warp, lw,
          gw, wpr, groups);
    }
    Vec.commitAsync();
  }

  /**
   * {@link #request} for a batch whose 16 rows all exist ({@code batch·16 + 16 <= n}): the same
   * copies from the per-lane offsets computed once per kernel ({@link #srcOffset}, {@link
   * #dstOffset}, {@code sso}), so a copy costs two additions and no clamp, division or multiply
   * (run 93's SASS: ≈ 80 instructions per warp and batch for the general form). A slice has {@code
   * 16·wps} = 32, 64 or 128 chunks: every lane copies {@code wps / 2} of them.
   */
  static void requestFull(
      int[] wq, // [n, wpr] packed u32
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      int[] wsh, // [stages, ks, 16, rs] (shared)
      short[] ssh, // [stages, ks, 2, 16, cpw] (shared)
      int batch,
      int stage,
      int ks,
      int wps,
      int cpw,
      int rs,
      int lane,
      int warp,
      int wpr,
      int groups,
      int sso,
      Int4 so, // srcOffsets
      Int4 dso) { // dstOffsets
    requestFullWords(wq, wsh, batch, stage, ks, wps, rs, lane, warp, wpr, 0, so, dso);
    requestGroups(scales, biases, ssh, stage, ks, cpw, lane, warp, batch * 16 * groups + sso);
  }

  /**
   * The weight words of {@link #requestFull}: the lane's {@code wps / 2} chunks ({@code wps} = 2,
   * 3, 4, 5, 6, 8, 10, 12 or 16 chunks of a row slice).
   */
  static void requestFullWords(
      int[] wq, // [n, wpr] packed u32
      int[] wsh, // [stages, ks, 16, rs] (shared)
      int batch,
      int stage,
      int ks,
      int wps,
      int rs,
      int lane,
      int warp,
      int wpr,
      int swz, // 1: chunks swizzled (dstOffset)
      Int4 so, // srcOffsets
      Int4 dso) { // dstOffsets (with the same swz)
    int wBase = (stage * ks + warp) * 16 * rs;
    int rowW = batch * 16 * wpr;
    if (wps == 6 || wps == 12) {
      // 6-bit codes (QmmMmaAsyncKernel): three copies per lane cover 96 chunks, all 16 rows at 6
      // chunks per row; at 12, half the rows, and chunks q + 96 are those of q 8 rows down.
      for (int h = 0; h < wps / 6; h++) {
        int sr = rowW + 8 * h * wpr;
        int dr = wBase + 8 * h * rs;
        Vec.copyAsync(wsh, dr + dso.x(), wq, sr + so.x(), 16);
        Vec.copyAsync(wsh, dr + dso.y(), wq, sr + so.y(), 16);
        Vec.copyAsync(wsh, dr + dso.z(), wq, sr + so.z(), 16);
      }
      return;
    }
    if (wps == 3 || wps == 5 || wps == 10) {
      // 3- and 5-bit slices: rows 0–7 hold 8·wps chunks (24, 40, 80), chunks q = lane + 32u of
      // them (u = 0..2) at the lane's offsets; rows 8–15 the same 8 rows down.
      int half = 8 * wps;
      for (int h = 0; h < 2; h++) {
        int sr = rowW + 8 * h * wpr;
        int dr = wBase + 8 * h * rs;
        if (lane < half) {
          Vec.copyAsync(wsh, dr + dso.x(), wq, sr + so.x(), 16);
        }
        if (lane + 32 < half) {
          Vec.copyAsync(wsh, dr + dso.y(), wq, sr + so.y(), 16);
        }
        if (lane + 64 < half) {
          Vec.copyAsync(wsh, dr + dso.z(), wq, sr + so.z(), 16);
        }
      }
      return;
    }
    if (swz == 0 && wps <= 8) {
      // Unswizzled, wps dividing 32: chunk q + 32u lies 32u / wps rows below chunk q, so the
      // stage offsets after the first are constants that the shared address carries (one
      // instruction less per copy than dso's registers).
      int d = wBase + dso.x();
      int rd = 32 / wps * rs;
      Vec.copyAsync(wsh, d, wq, rowW + so.x(), 16);
      if (wps > 2) {
        Vec.copyAsync(wsh, d + rd, wq, rowW + so.y(), 16);
      }
      if (wps > 4) {
        Vec.copyAsync(wsh, d + 2 * rd, wq, rowW + so.z(), 16);
        Vec.copyAsync(wsh, d + 3 * rd, wq, rowW + so.w(), 16);
      }
      return;
    }
    Vec.copyAsync(wsh, wBase + dso.x(), wq, rowW + so.x(), 16);
    if (wps > 2) {
      Vec.copyAsync(wsh, wBase + dso.y(), wq, rowW + so.y(), 16);
    }
    if (wps > 4) {
      Vec.copyAsync(wsh, wBase + dso.z(), wq, rowW + so.z(), 16);
      Vec.copyAsync(wsh, wBase + dso.w(), wq, rowW + so.w(), 16);
    }
    if (wps > 8) {
      // 16 words per lane (8-bit codes, QmmMmaAsyncFpKernel): chunks q + 128 are those of q,
      // 128 / wps rows further down.
      int sr = rowW + 128 / wps * wpr;
      int dr = wBase + 128 / wps * rs;
      Vec.copyAsync(wsh, dr + dso.x(), wq, sr + so.x(), 16);
      Vec.copyAsync(wsh, dr + dso.y(), wq, sr + so.y(), 16);
      Vec.copyAsync(wsh, dr + dso.z(), wq, sr + so.z(), 16);
      Vec.copyAsync(wsh, dr + dso.w(), wq, sr + so.w(), 16);
    }
  }

  /**
   * Lane l's copy of the {@code cpw} scales (l < 16) or biases (l ≥ 16) of row {@code l & 15} of a
   * batch, from element {@code src}, into stage {@code stage}.
   */
  static void requestGroups(
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      short[] ssh, // [stages, ks, 2, 16, cpw] (shared)
      int stage,
      int ks,
      int cpw,
      int lane,
      int warp,
      int src) {
    int dst = ((stage * ks + warp) * 32 + lane) * cpw;
    if (lane < 16) {
      Vec.copyAsync(ssh, dst, scales, src, 2 * cpw);
    } else {
      Vec.copyAsync(ssh, dst, biases, src, 2 * cpw);
    }
  }

  /**
   * The warp's copies of batch {@code batch} into stage {@code stage}: 16 rows (features {@code
   * batch·16 + r}, clamped to the last) × {@code wps} 16-byte chunks of the warp's k slice, spread
   * over the lanes, then lane l copies the scales (l < 16) or biases (l ≥ 16) of row {@code l &
   * 15}. Nothing past the last batch.
   */
  static void request(
      int[] wq, // [n, wpr] packed u32
      short[] scales, // [n, groups]
      short[] biases, // [n, groups]
      int[] wsh, // [stages, ks, 16, rs] (shared)
      short[] ssh, // [stages, ks, 2, 16, cpw] (shared)
      int batch,
      int stage,
      int batches,
      int n,
      int ks,
      int wps,
      int cpw,
      int rs,
      int lane,
      int warp,
      int lw,
      int gw,
      int wpr,
      int groups) {
    if (batch < batches) {
      requestWords(wq, wsh, batch, stage, n, ks, wps, rs, lane, warp, lw, wpr, 0);
      int f = Math.min(batch * 16 + (lane & 15), n - 1);
      requestGroups(scales, biases, ssh, stage, ks, cpw, lane, warp, f * groups + gw);
    }
  }

  /**
   * The weight words of {@link #request}: 16 rows (features {@code batch·16 + r}, clamped to the
   * last) × {@code wps} 16-byte chunks of the warp's k slice, spread over the lanes.
   */
  static void requestWords(
      int[] wq, // [n, wpr] packed u32
      int[] wsh, // [stages, ks, 16, rs] (shared)
      int batch,
      int stage,
      int n,
      int ks,
      int wps,
      int rs,
      int lane,
      int warp,
      int lw,
      int wpr,
      int swz) { // 1: chunks swizzled as dstOffset(q, wps, rs, 1)
    int base = (stage * ks + warp) * 16;
    int chunks = 16 * wps;
    for (int u = 0; u < (chunks + 31) / 32; u++) {
      int q = lane + 32 * u;
      if (q < chunks) {
        int r = q / wps;
        int part = q - r * wps;
        int f = Math.min(batch * 16 + r, n - 1);
        int at = (base + r) * rs + 4 * (part ^ (swz * 2 * (r & 3)));
        Vec.copyAsync(wsh, at, wq, f * wpr + lw + 4 * part, 16);
      }
    }
  }

  /**
   * {@link QmmMmaAsyncFpKernel}'s refill of stage {@code stage} with batch {@code batch}, one group
   * (empty past the last batch): the weight words as the affine kernel's (swizzled where {@code
   * swz} is 1), then lanes 0–15 copy the {@code cpb} U8 scale codes of their row ({@code cpb} = 4,
   * 8 or 16 bytes, one copy).
   */
  static void refillFp(
      int[] wq, // [n, wpr] packed u32
      byte[] scales, // [n, groups] U8 codes
      int[] wsh, // [stages, ks, 16, rs] (shared)
      byte[] ssh, // [stages, ks, 16, cpb] (shared)
      int batch,
      int stage,
      int batches,
      int n,
      int ks,
      int wps,
      int cpb,
      int rs,
      int lane,
      int warp,
      int lw,
      int gw,
      int wpr,
      int groups,
      int sso,
      int swz, // 1: 8-bit rows, chunks swizzled (dstOffset)
      Int4 so, // srcOffsets
      Int4 dso) { // dstOffsets (with the same swz)
    int dst = ((stage * ks + warp) * 16 + (lane & 15)) * cpb;
    if (batch * 16 + 16 <= n) {
      requestFullWords(wq, wsh, batch, stage, ks, wps, rs, lane, warp, wpr, swz, so, dso);
      if (lane < 16) {
        Vec.copyAsync(ssh, dst, scales, batch * 16 * groups + sso, cpb);
      }
    } else if (batch < batches) {
      requestWords(wq, wsh, batch, stage, n, ks, wps, rs, lane, warp, lw, wpr, swz);
      if (lane < 16) {
        int f = Math.min(batch * 16 + lane, n - 1);
        Vec.copyAsync(ssh, dst, scales, f * groups + gw, cpb);
      }
    }
    Vec.commitAsync();
  }
}
