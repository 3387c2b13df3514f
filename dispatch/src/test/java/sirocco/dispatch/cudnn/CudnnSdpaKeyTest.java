package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** What the graph-cache key distinguishes, and what it deliberately does not. */
class CudnnSdpaKeyTest {
  /** Mutable inputs of a key, so each test changes one field. */
  static final class K {
    int device = 0;
    int dataType = CudnnConstants.DATA_BFLOAT16;
    long b = 1, hq = 32, hkv = 8, lq = 128, lkv = 128, d = 64, dv = 64;
    long[] q = {32 * 128 * 64, 128 * 64, 64, 1};
    long[] k = {8 * 128 * 64, 128 * 64, 64, 1};
    long[] v = {8 * 128 * 64, 128 * 64, 64, 1};
    long[] o = {32 * 128 * 64, 128 * 64, 64, 1};
    CudnnSdpaKey.MaskKind mask = CudnnSdpaKey.MaskKind.BIAS;
    long[] biasDims = {1, 1, 128, 128};
    long[] biasStrides = {128 * 128, 128 * 128, 128, 1};

    CudnnSdpaKey key() {
      return new CudnnSdpaKey(
          device, dataType, b, hq, hkv, lq, lkv, d, dv, q, k, v, o, mask, biasDims, biasStrides);
    }
  }

  static CudnnSdpaKey with(UnaryOperator<K> change) {
    return change.apply(new K()).key();
  }

  @Test
  void equalInputsGiveEqualKeys() {
    CudnnSdpaKey a = new K().key();
    CudnnSdpaKey b = new K().key();
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
  }

  @Test
  void everyFieldInTheKeyDistinguishes() {
    List<CudnnSdpaKey> variants = new ArrayList<>();
    variants.add(new K().key());
    variants.add(
        with(
            k -> {
              k.device = 1;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.dataType = CudnnConstants.DATA_HALF;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.b = 2;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.hq = 16;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.hkv = 32;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.lq = 127;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.lkv = 129;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.d = 128;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.dv = 128;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.q = new long[] {128 * 32 * 64, 64, 32 * 64, 1};
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.k = new long[] {128 * 8 * 64, 64, 8 * 64, 1};
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.v = new long[] {128 * 8 * 64, 64, 8 * 64, 1};
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.o = new long[] {128 * 32 * 64, 64, 32 * 64, 1};
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.NONE;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.CAUSAL;
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.biasDims = new long[] {1, 32, 128, 128};
              k.biasStrides = new long[] {32 * 128 * 128, 128 * 128, 128, 1};
              return k;
            }));
    variants.add(
        with(
            k -> {
              k.biasStrides = new long[] {128 * 136, 128 * 136, 136, 1};
              return k;
            }));
    Set<CudnnSdpaKey> distinct = new HashSet<>(variants);
    assertEquals(variants.size(), distinct.size(), "some field change did not change the key");
    for (int i = 1; i < variants.size(); i++) {
      assertNotEquals(variants.get(0), variants.get(i), "variant " + i);
    }
  }

  @Test
  void maskKindsWithoutABiasIgnoreBiasLayouts() {
    CudnnSdpaKey a =
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.CAUSAL;
              return k;
            });
    CudnnSdpaKey b =
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.CAUSAL;
              k.biasDims = null;
              k.biasStrides = null;
              return k;
            });
    assertEquals(a, b);
    assertEquals(0, a.biasDims.length);
  }

  @Test
  void sizeOneDimensionsGetCanonicalStridesSoEquivalentViewsShareAPlan() {
    // B = 1: the batch stride never moves a pointer, so any value is the same graph.
    long[] shape = {1, 8, 128, 64};
    long[] a = CudnnSdpa.canonicalStrides(shape, new long[] {999, 128 * 64, 64, 1});
    long[] b = CudnnSdpa.canonicalStrides(shape, new long[] {8 * 128 * 64, 128 * 64, 64, 1});
    assertArrayEquals(b, a);
    assertArrayEquals(new long[] {8 * 128 * 64, 128 * 64, 64, 1}, a);
    // A single-row view keeps its real row stride for the other dims.
    assertArrayEquals(
        new long[] {64 * 4096, 4096, 64, 1},
        CudnnSdpa.canonicalStrides(
            new long[] {2, 64, 1, 64}, new long[] {64 * 4096, 4096, 64 * 7, 1}));
  }

  @Test
  void causalShiftOnlyWhenLengthsDiffer() {
    CudnnSdpaKey square =
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.CAUSAL;
              return k;
            });
    CudnnSdpaKey wide =
        with(
            k -> {
              k.mask = CudnnSdpaKey.MaskKind.CAUSAL;
              k.lq = 64;
              return k;
            });
    assertEquals(false, square.causalNeedsShift());
    assertEquals(true, wide.causalNeedsShift());
  }

  @Test
  void stridesMustHaveFourEntries() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            with(
                k -> {
                  k.q = new long[] {64, 1};
                  return k;
                }));
  }
}
