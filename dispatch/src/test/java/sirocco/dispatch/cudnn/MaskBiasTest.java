package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import sirocco.DType;

/**
 * How masks become cuDNN's bias, and the conversion kernel's PTX (compiled here, without a GPU).
 */
class MaskBiasTest {
  static final long B = 2, HQ = 8, LQ = 64, LKV = 128;

  static MaskBias.Layout layout(boolean bool, DType dt, long[] shape, long[] strides) {
    return MaskBias.layout(bool, dt, shape, strides, DType.BF16, B, HQ, LQ, LKV);
  }

  @Test
  void aContiguousAdditiveMaskInTheIoTypeIsPassedThrough() {
    MaskBias.Layout l = layout(false, DType.BF16, new long[] {LQ, LKV}, new long[] {LKV, 1});
    assertTrue(l.direct());
    assertArrayEquals(new long[] {1, 1, LQ, LKV}, l.dims());
    assertArrayEquals(new long[] {LQ * LKV, LQ * LKV, LKV, 1}, l.strides());
  }

  @Test
  void perBatchAndHeadMasksKeepTheirStrides() {
    long[] strides = {HQ * LQ * LKV, LQ * LKV, LKV, 1};
    MaskBias.Layout l = layout(false, DType.BF16, new long[] {B, HQ, LQ, LKV}, strides);
    assertTrue(l.direct());
    assertArrayEquals(new long[] {B, HQ, LQ, LKV}, l.dims());
    assertArrayEquals(strides, l.strides());
  }

  @Test
  void booleanMasksAreAlwaysConverted() {
    MaskBias.Layout l =
        layout(true, DType.U8, new long[] {1, 1, LQ, LKV}, new long[] {LQ * LKV, LQ * LKV, LKV, 1});
    assertFalse(l.direct());
    assertEquals(0, l.srcKind());
    assertArrayEquals(new long[] {1, 1, LQ, LKV}, l.dims());
    assertArrayEquals(new long[] {LQ * LKV, LQ * LKV, LKV, 1}, l.strides());
    assertArrayEquals(new long[] {0, 0, LKV, 1}, l.srcStrides());
  }

  @Test
  void otherDtypesAndBroadcastsAlongTheSequenceAreConverted() {
    MaskBias.Layout f32 = layout(false, DType.F32, new long[] {LQ, LKV}, new long[] {LKV, 1});
    assertFalse(f32.direct());
    assertEquals(1, f32.srcKind());
    MaskBias.Layout f16 = layout(false, DType.F16, new long[] {LQ, LKV}, new long[] {LKV, 1});
    assertEquals(2, f16.srcKind());
    MaskBias.Layout row = layout(false, DType.BF16, new long[] {LKV}, new long[] {1});
    assertFalse(row.direct(), "broadcast along Lq becomes a materialized [1, 1, Lq, Lkv]");
    assertEquals(3, row.srcKind());
    assertArrayEquals(new long[] {1, 1, LQ, LKV}, row.dims());
    assertArrayEquals(new long[] {0, 0, 0, 1}, row.srcStrides());
    MaskBias.Layout oddRows =
        layout(false, DType.BF16, new long[] {LQ, LKV}, new long[] {LKV + 3, 1});
    assertFalse(oddRows.direct(), "rows not 16-byte aligned are copied");
    MaskBias.Layout transposed =
        layout(false, DType.BF16, new long[] {LQ, LKV}, new long[] {1, LQ});
    assertFalse(transposed.direct());
    assertArrayEquals(new long[] {0, 0, 1, LQ}, transposed.srcStrides());
  }

  @Test
  void shapesThatDoNotBroadcastAreRefused() {
    assertNull(layout(false, DType.BF16, new long[] {3, LQ, LKV}, new long[] {LQ * LKV, LKV, 1}));
    assertNull(layout(false, DType.BF16, new long[] {1, 1, 1, 1, LKV}, new long[] {1, 1, 1, 1, 1}));
    assertNull(layout(false, DType.U32, new long[] {LQ, LKV}, new long[] {LKV, 1}));
  }
}
