package sirocco.kernels.diff;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Random;
import sirocco.kernels.attention.MaskToBias;
import sirocco.kernels.diff.Prepared.Kind;
import sirocco.kernels.diff.Prepared.Out;
import sirocco.kernels.diff.Prepared.Spec;
import sirocco.kernels.diff.Prepared.Tolerance;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.util.StridedCopy;

/**
 * Case builders for the data-movement kernels: {@link StridedCopy} (how {@code OpLauncher} and
 * {@code SdpaOp} make views dense: {@link StridedCopy#grid}, {@link StridedCopy#block}, {@link
 * StridedCopy#args}) and {@link MaskToBias} (how {@code MaskBias.materialize} turns a mask into
 * cuDNN's bias: {@link MaskToBias#grid}, {@link MaskToBias#BLOCK}). Both move or convert values
 * without arithmetic, so every output must be bit-exact.
 */
final class UtilCases {
  private UtilCases() {}

  /**
   * A 4-axis view [3, 5, 7, 11] of a source laid out [7][11][3] from element 4, axis 1 broadcast
   * (stride 0), written from element 6 of a destination with 5 spare elements after it: 1155
   * elements, a partial last block, and poison on both sides of the range that must survive.
   */
  static Prepared stridedCopy(Method m, Spec sp) {
    long[] shape = {3, 5, 7, 11};
    long[] strides = {1, 0, 33, 3};
    int srcOff = 4;
    int dstOff = 6;
    int n = 3 * 5 * 7 * 11;
    int srcLen = srcOff + 7 * 11 * 3;
    Random r = sp.rnd();
    Object src;
    Object dst;
    switch (m.getName()) {
      case "copy8" -> {
        byte[] a = new byte[srcLen];
        for (int i = 0; i < srcLen; i++) {
          a[i] = (byte) r.nextInt(255); // never 0xFF, the byte poison
        }
        src = a;
        dst = Gen.poison8(dstOff + n + 5);
      }
      case "copy16" -> {
        short[] a = new short[srcLen];
        for (int i = 0; i < srcLen; i++) {
          do {
            a[i] = (short) r.nextInt(1 << 16);
          } while (a[i] == Gen.POISON_16);
        }
        src = a;
        dst = Gen.poison16(dstOff + n + 5);
      }
      case "copy32" -> {
        int[] a = new int[srcLen];
        for (int i = 0; i < srcLen; i++) {
          do {
            a[i] = r.nextInt();
          } while (a[i] == Gen.POISON_32);
        }
        src = a;
        dst = Gen.poison32(dstOff + n + 5);
      }
      case "copyF32" -> {
        // Finite values only: copyF32 may quieten a signalling NaN (documented), which a bit
        // comparison would report.
        src = Gen.normal(r, srcLen, 100);
        dst = Gen.poisonF32(dstOff + n + 5);
      }
      default -> throw new IllegalStateException("no strided copy case for " + m.getName());
    }
    return new Prepared(
        m,
        StridedCopy.grid(n),
        StridedCopy.block(),
        StridedCopy.args(src, dst, shape, strides, srcOff, dstOff),
        List.of(
            new Out(1, Kind.BITS, Tolerance.EXACT, true, i -> i >= dstOff && i < dstOff + n, null)),
        "dispatch",
        "[3, 5, 7, 11] strides [1, 0, 33, 3]");
  }

  /**
   * A bias [mb=2, mh=3, Lq=4, Lkv=300] (24 rows; 300 columns take two column blocks) read from a
   * mask broadcast over the queries (stride 0), from element 5. fromHalf reads a mask with heads
   * interleaved (key stride 3, head stride 1).
   */
  static Prepared maskToBias(Method m, Spec sp) {
    int mb = 2;
    int mh = 3;
    int lq = 4;
    int lkv = 300;
    int offset = 5;
    int rows = mb * mh * lq;
    boolean dstBf16 = sp.b("dstBf16");
    boolean half = m.getName().equals("fromHalf");
    int s0 = mh * lkv;
    int s1 = half ? 1 : lkv;
    int s2 = 0;
    int s3 = half ? mh : 1;
    int srcLen = offset + mb * mh * lkv;
    Random r = sp.rnd();
    Object src =
        switch (m.getName()) {
          case "fromBool" -> {
            byte[] a = new byte[srcLen];
            byte[] keep = {1, 2, 0x7F, (byte) 0x80, -1};
            for (int i = 0; i < srcLen; i++) {
              a[i] = r.nextDouble() < 0.3 ? 0 : keep[r.nextInt(keep.length)];
            }
            yield a;
          }
          case "fromF32" -> {
            // Values that round, overflow f16 (1e6), fall into f16 subnormals (1e-6), ±0, ±inf.
            float[] a = Gen.normal(r, srcLen, 3.0);
            float[] special = {
              1e6f, -1e6f, 1e-6f, -3e-7f, 0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY
            };
            for (int i = 0; i < srcLen; i += 7) {
              a[i] = special[r.nextInt(special.length)];
            }
            yield a;
          }
          case "fromHalf" -> Gen.anyHalfBits(r, sp.b("srcBf16") ? Quant.BF16 : Quant.F16, srcLen);
          default -> throw new IllegalStateException("no mask case for " + m.getName());
        };
    Object[] args =
        half
            ? new Object[] {
              src,
              Gen.poison16(rows * lkv),
              offset,
              rows,
              mh,
              lq,
              lkv,
              s0,
              s1,
              s2,
              s3,
              sp.b("srcBf16"),
              dstBf16
            }
            : new Object[] {
              src, Gen.poison16(rows * lkv), offset, rows, mh, lq, lkv, s0, s1, s2, s3, dstBf16
            };
    return new Prepared(
        m,
        MaskToBias.grid(rows, lkv),
        sirocco.runtime.Dim3.of(MaskToBias.BLOCK),
        args,
        List.of(Out.of(1, dstBf16 ? Kind.BF16 : Kind.F16, Tolerance.EXACT)),
        "dispatch",
        "["
            + mb
            + ", "
            + mh
            + ", "
            + lq
            + ", "
            + lkv
            + "] strides ["
            + s0
            + ", "
            + s1
            + ", "
            + s2
            + ", "
            + s3
            + "]");
  }
}
