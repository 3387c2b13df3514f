package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
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

  static boolean jcudaPresent() {
    try {
      Class.forName("jcuda.nvptxcompiler.JNvPTXCompiler");
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false; // the GPU bundle leaves JCuda out; the driver compiles the PTX there
    }
  }

  @Test
  @EnabledIf("jcudaPresent")
  void theConversionKernelCompilesForSm80AndSm90() {
    String ptx = MaskBias.ptxSource();
    assertTrue(ptx.contains(".visible .entry " + MaskBias.ENTRY));
    for (String arch : new String[] {"sm_80", "sm_90"}) {
      nvPTXCompilerHandle h = new nvPTXCompilerHandle();
      byte[] src = ptx.getBytes(StandardCharsets.US_ASCII);
      byte[] z = java.util.Arrays.copyOf(src, src.length + 1);
      assertEquals(0, JNvPTXCompiler.nvPTXCompilerCreate(h, src.length, z));
      try {
        int rc =
            JNvPTXCompiler.nvPTXCompilerCompile(
                h, 2, new String[] {"--gpu-name=" + arch, "--verbose"});
        long[] n = new long[1];
        JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(h, n);
        byte[] err = new byte[(int) n[0] + 1];
        JNvPTXCompiler.nvPTXCompilerGetErrorLog(h, err);
        JNvPTXCompiler.nvPTXCompilerGetInfoLogSize(h, n);
        byte[] info = new byte[(int) n[0] + 1];
        JNvPTXCompiler.nvPTXCompilerGetInfoLog(h, info);
        String log = new String(info, StandardCharsets.UTF_8).trim();
        System.out.println(arch + ": " + log);
        assertEquals(0, rc, arch + ": " + new String(err, StandardCharsets.UTF_8).trim());
        assertTrue(log.contains("0 bytes spill stores"), log);
      } finally {
        JNvPTXCompiler.nvPTXCompilerDestroy(h);
      }
    }
  }
}
