package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Loading cuDNN, its absence, the checked-call path's messages: no GPU or cuDNN needed. */
class CudnnLibraryTest {
  @Test
  void aMissingLibraryIsUnavailableWithTheReasonNotAnException() {
    CudnnLibrary lib = CudnnLibrary.load("/nonexistent/dir/libcudnn.so.9");
    assertFalse(lib.available());
    assertTrue(
        lib.unavailableReason()
            .startsWith("the cuDNN library /nonexistent/dir/libcudnn.so.9 could not be loaded"),
        lib.unavailableReason());
    assertEquals(0, lib.version);
    assertEquals(0, lib.cudartVersion());
  }

  @Test
  void aLibraryThatIsNotCudnnNamesTheMissingSymbols() {
    CudnnLibrary lib = CudnnLibrary.load("libc.so.6");
    assertFalse(lib.available());
    assertTrue(
        lib.unavailableReason().contains("lacks the cuDNN backend-API symbols cudnnGetVersion"),
        lib.unavailableReason());
    assertTrue(lib.unavailableReason().contains("cudnnBackendExecute"), lib.unavailableReason());
  }

  @Test
  void theOverridePropertyNamesTheLibrary() {
    String old = System.getProperty(CudnnLibrary.PROPERTY);
    try {
      System.setProperty(CudnnLibrary.PROPERTY, " /opt/x/libcudnn.so.9 ");
      assertEquals("/opt/x/libcudnn.so.9", CudnnLibrary.configuredName());
      System.clearProperty(CudnnLibrary.PROPERTY);
      String env = System.getenv(CudnnLibrary.ENV);
      assertEquals(
          env == null || env.isBlank() ? "libcudnn.so.9" : env.strip(),
          CudnnLibrary.configuredName());
    } finally {
      if (old == null) {
        System.clearProperty(CudnnLibrary.PROPERTY);
      } else {
        System.setProperty(CudnnLibrary.PROPERTY, old);
      }
    }
  }

  /** Prints what the process-wide path sees; in a child JVM with the override, see below. */
  public static void main(String[] args) {
    System.out.println("available=" + Cudnn.available());
    System.out.println("describe=" + Cudnn.describe());
    var p =
        CudnnSdpa.Problem.contiguous(
            sirocco.DType.BF16, 1, 32, 8, 512, 512, 128, sirocco.Mask.Kind.CAUSAL);
    var h100 = new sirocco.runtime.DeviceInfo("cuda", "H100", 9, 0, 132, 80L << 30, 0, 0, 13000);
    System.out.println("supports=" + CudnnSdpa.supports(p, h100));
  }

  @Test
  void theOverrideInAFreshJvmGivesACleanUnavailableReasonEverywhere() throws Exception {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process proc =
        new ProcessBuilder(
                List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dsirocco.cudnn.library=/nonexistent/libcudnn.so.9",
                    "-cp",
                    System.getProperty("java.class.path"),
                    CudnnLibraryTest.class.getName()))
            .redirectErrorStream(true)
            .start();
    assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "child JVM timed out");
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, proc.exitValue(), out);
    assertTrue(out.contains("available=false"), out);
    assertTrue(
        out.contains(
            "describe=cuDNN unavailable: the cuDNN library /nonexistent/libcudnn.so.9 could not be"
                + " loaded"),
        out);
    assertTrue(
        out.contains(
            "supports=cuDNN unavailable: the cuDNN library /nonexistent/libcudnn.so.9 could not be"
                + " loaded"),
        out);
  }

  @Test
  void exceptionsNameCallDescriptorAttributeStatusAndDetail() {
    CudnnException e =
        new CudnnException(
            "cudnnBackendSetAttribute",
            2008,
            "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH",
            "CUDNN_BACKEND_TENSOR_DESCRIPTOR",
            "CUDNN_ATTR_TENSOR_STRIDES",
            "strides and dims differ in length\nsecond line");
    assertEquals(
        "cudnnBackendSetAttribute failed on CUDNN_BACKEND_TENSOR_DESCRIPTOR setting"
            + " CUDNN_ATTR_TENSOR_STRIDES: CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH (2008): strides and"
            + " dims differ in length\nsecond line",
        e.getMessage());
    assertEquals(
        "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH: strides and dims differ in length",
        e.shortReason());
    assertFalse(e.notSupported());
    CudnnException ns =
        new CudnnException(
            "cudnnBackendFinalize", 3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE", null, null, null);
    assertEquals(
        "cudnnBackendFinalize failed: CUDNN_STATUS_NOT_SUPPORTED_SHAPE (3002)", ns.getMessage());
    assertTrue(ns.notSupported());
    assertEquals("CUDNN_STATUS_NOT_SUPPORTED_SHAPE", ns.shortReason());
  }

  @Test
  void callsWithoutTheLibraryFailClearly() {
    if (Cudnn.available()) {
      return; // a machine with cuDNN: nothing to show here
    }
    var ex =
        org.junit.jupiter.api.Assertions.assertThrows(
            CudnnException.class, () -> Cudnn.api().create(CudnnConstants.TENSOR_DESCRIPTOR));
    assertTrue(
        ex.getMessage().startsWith("cuDNN failed: CUDNN_UNAVAILABLE (-1): "), ex.getMessage());
    assertTrue(Cudnn.describe().startsWith("cuDNN unavailable: "), Cudnn.describe());
    // Without the library no descriptor or handle can exist: both destroys have nothing to do.
    Cudnn.api().destroy(new CudnnApi.Descriptor(1, CudnnConstants.TENSOR_DESCRIPTOR));
    Cudnn.destroyHandle(1);
  }

  @Test
  void namesAndVersions() {
    assertEquals("9.14.0", CudnnConstants.versionString(91400));
    assertEquals("9.6.1", CudnnConstants.versionString(90601));
    assertEquals("CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN", CudnnConstants.statusName(3001));
    assertEquals("CUDNN_STATUS_77", CudnnConstants.statusName(77));
    assertEquals("CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR", CudnnConstants.descriptorTypeName(5));
    assertEquals("CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS", CudnnConstants.attributeName(1001));
    assertEquals("BFLOAT16", CudnnConstants.dataTypeName(9));
    assertTrue(CudnnConstants.isNotSupported(3008));
    assertFalse(CudnnConstants.isNotSupported(2000));
  }

  @Test
  void attributeValuesAreLaidOutAtTheirCWidths() {
    assertEquals(1, CudnnConstants.elementBytes(CudnnConstants.TYPE_BOOLEAN));
    assertEquals(4, CudnnConstants.elementBytes(CudnnConstants.TYPE_DATA_TYPE));
    assertEquals(4, CudnnConstants.elementBytes(CudnnConstants.TYPE_POINTWISE_MODE));
    assertEquals(4, CudnnConstants.elementBytes(CudnnConstants.TYPE_FLOAT));
    assertEquals(8, CudnnConstants.elementBytes(CudnnConstants.TYPE_INT64));
    assertEquals(8, CudnnConstants.elementBytes(CudnnConstants.TYPE_BACKEND_DESCRIPTOR));
    assertEquals(8, CudnnConstants.elementBytes(CudnnConstants.TYPE_VOID_PTR));
    try (Arena arena = Arena.ofConfined()) {
      long[] v = {3, -1, 1L << 40};
      MemorySegment s = Cudnn.encode(arena, CudnnConstants.TYPE_INT64, v);
      long[] back = new long[3];
      Cudnn.decode(s, CudnnConstants.TYPE_INT64, back, 3);
      assertArrayEquals(v, back);
      MemorySegment f =
          Cudnn.encode(
              arena, CudnnConstants.TYPE_FLOAT, new long[] {Float.floatToRawIntBits(0.125f)});
      assertEquals(0.125f, f.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, 0));
      MemorySegment b = Cudnn.encode(arena, CudnnConstants.TYPE_BOOLEAN, new long[] {1, 0});
      assertEquals(1, b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
      assertEquals(0, b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1));
      MemorySegment e = Cudnn.encode(arena, CudnnConstants.TYPE_DATA_TYPE, new long[] {9, 2});
      assertEquals(9, e.get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
      assertEquals(2, e.get(java.lang.foreign.ValueLayout.JAVA_INT, 4));
    }
  }

  @Test
  void theRealLibraryWhenPresentIsCudnn9() {
    CudnnLibrary lib = CudnnLibrary.global();
    if (!lib.available()) {
      return; // no cuDNN here: the absent-library tests above cover this machine
    }
    assertTrue(lib.version >= 90000, "version " + lib.version);
  }
}
