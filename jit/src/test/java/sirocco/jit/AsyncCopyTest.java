package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static sirocco.jit.testkernels.AsyncCopyKernels.BLOCK;
import static sirocco.jit.testkernels.AsyncCopyKernels.HTILE;
import static sirocco.jit.testkernels.AsyncCopyKernels.WTILE;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.api.KernelCompileException;
import sirocco.api.Vec;
import sirocco.jit.rejects.AsyncRejected;
import sirocco.jit.testkernels.AsyncCopyKernels;
import sirocco.jit.testutil.Geometry;
import sirocco.jit.testutil.SeqContext;
import sirocco.jit.testutil.ThreadedContext;

/**
 * {@code Vec.copyAsync/commitAsync/waitAsync}: the pipelines of {@link AsyncCopyKernels} on the
 * Java backend against checksums computed here straight from the inputs, the Java bodies' own
 * checks, and the compile errors for operands {@code cp.async} cannot take. (The PTX order is in
 * {@link GoldenPtxTest}; ptxas validation and the GPU differential test take the kernels through
 * {@link TestKernels}.)
 */
class AsyncCopyTest {
  private static final Map<String, Integer> LINES = new HashMap<>();
  private static final String CLASS = "sirocco.jit.rejects.AsyncRejected";

  @BeforeAll
  static void readMarkers() throws IOException {
    List<String> src =
        Files.readAllLines(Path.of("src/test/java/sirocco/jit/rejects/AsyncRejected.java"));
    Pattern p = Pattern.compile("// reject: (\\w+)");
    for (int i = 0; i < src.size(); i++) {
      Matcher m = p.matcher(src.get(i));
      if (m.find()) {
        LINES.put(m.group(1), i + 1);
      }
    }
  }

  private static int[] ints(int n, long seed) {
    Random r = new Random(seed);
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = r.nextInt();
    }
    return a;
  }

  private static short[] shorts(int n, long seed) {
    Random r = new Random(seed);
    short[] a = new short[n];
    for (int i = 0; i < n; i++) {
      a[i] = (short) r.nextInt();
    }
    return a;
  }

  // ---------------------------------------------------------------- pipelines, Java backend

  /** What asyncPipeline must write, read from the inputs directly (no stages, no copies). */
  private static int[] pipelineExpected(int[] words, short[] halves, int blocks, int tiles) {
    int[] out = new int[blocks * BLOCK];
    for (int b = 0; b < blocks; b++) {
      for (int t = 0; t < BLOCK; t++) {
        int acc = 0;
        for (int k = 0; k < tiles; k++) {
          int wt = (b * tiles + k) * WTILE;
          int ht = (b * tiles + k) * HTILE;
          int a = words[wt + 4 * ((t + 1) % BLOCK) + k % 4];
          int c = words[wt + WTILE - 1 - t];
          int h = halves[ht + HTILE - 1 - t];
          acc = 31 * acc + (a ^ c) + h;
        }
        out[b * BLOCK + t] = acc;
      }
    }
    return out;
  }

  @ParameterizedTest(name = "tiles={0}")
  @ValueSource(ints = {1, 2, 3, 4, 7, 12})
  void pipelineReadsTheTilesOtherThreadsCopied(int tiles) {
    int blocks = 3;
    int[] words = ints(blocks * tiles * WTILE, tiles);
    short[] halves = shorts(blocks * tiles * HTILE, tiles + 100);
    int[] out = new int[blocks * BLOCK];
    ThreadedContext.launch(
        blocks, BLOCK, ctx -> AsyncCopyKernels.asyncPipeline(ctx, words, halves, out, tiles));
    assertArrayEquals(pipelineExpected(words, halves, blocks, tiles), out);
  }

  /** What asyncOwnPipeline must write. */
  private static int[] ownExpected(int[] words, short[] halves, int threads, int tiles) {
    int[] out = new int[threads];
    for (int g = 0; g < threads; g++) {
      int acc = 0;
      for (int k = 0; k < tiles; k++) {
        int w = (k * threads + g) * 4;
        int x = words[w];
        int y = words[w + 1];
        int z = words[w + 2];
        int v = words[w + 3];
        int s = (k * threads + g) * 8;
        acc = 31 * acc + (((x + 3 * y) ^ (z - v)) + 7 * halves[s + k % 8] + halves[s + 7 - k % 8]);
      }
      out[g] = acc;
    }
    return out;
  }

  @ParameterizedTest(name = "tiles={0}")
  @ValueSource(ints = {1, 2, 5, 9})
  void ownPipelineReadsItsOwnCopiesWithoutABarrier(int tiles) {
    int blocks = 2;
    int threads = blocks * BLOCK;
    int[] words = ints(tiles * threads * 4, tiles + 7);
    short[] halves = shorts(tiles * threads * 8, tiles + 8);
    int[] want = ownExpected(words, halves, threads, tiles);
    int[] threaded = new int[threads];
    ThreadedContext.launch(
        blocks,
        BLOCK,
        ctx -> AsyncCopyKernels.asyncOwnPipeline(ctx, words, halves, threaded, tiles));
    assertArrayEquals(want, threaded, "threaded");
    // One thread at a time: no thread needs another's progress.
    int[] seq = new int[threads];
    SeqContext ctx = new SeqContext();
    Geometry g = Geometry.oneD(BLOCK, threads);
    for (int b = 0; b < blocks; b++) {
      ctx.newBlock();
      for (int t = 0; t < BLOCK; t++) {
        ctx.at(g, b, t);
        AsyncCopyKernels.asyncOwnPipeline(ctx, words, halves, seq, tiles);
      }
    }
    assertArrayEquals(want, seq, "sequential");
  }

  // ---------------------------------------------------------------- the Java bodies

  @Test
  void javaBodiesCopyBytesOverElementSizeElementsAtOnce() {
    int[] src = new int[32];
    for (int i = 0; i < src.length; i++) {
      src[i] = 100 + i;
    }
    for (int bytes : new int[] {4, 8, 16}) {
      int[] dst = new int[16];
      java.util.Arrays.fill(dst, -1);
      Vec.copyAsync(dst, 8, src, 16, bytes);
      for (int i = 0; i < dst.length; i++) {
        boolean copied = i >= 8 && i < 8 + bytes / 4;
        assertEquals(copied ? 100 + 16 + (i - 8) : -1, dst[i], bytes + " bytes, dst[" + i + "]");
      }
    }
    short[] hs = new short[32];
    for (int i = 0; i < hs.length; i++) {
      hs[i] = (short) (-i);
    }
    for (int bytes : new int[] {4, 8, 16}) {
      short[] dst = new short[24];
      java.util.Arrays.fill(dst, (short) 7);
      Vec.copyAsync(dst, 8, hs, 24, bytes);
      for (int i = 0; i < dst.length; i++) {
        boolean copied = i >= 8 && i < 8 + bytes / 2;
        assertEquals(copied ? -(24 + i - 8) : 7, dst[i], bytes + " bytes, dst[" + i + "]");
      }
    }
    byte[] bs = new byte[48];
    for (int i = 0; i < bs.length; i++) {
      bs[i] = (byte) (3 * i + 1);
    }
    for (int bytes : new int[] {4, 8, 16}) {
      byte[] dst = new byte[40];
      java.util.Arrays.fill(dst, (byte) -9);
      Vec.copyAsync(dst, 16, bs, 32, bytes);
      for (int i = 0; i < dst.length; i++) {
        boolean copied = i >= 16 && i < 16 + bytes;
        assertEquals(
            copied ? (byte) (3 * (32 + i - 16) + 1) : -9, dst[i], bytes + " bytes, dst[" + i + "]");
      }
    }
    byte[] b8 = new byte[32];
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Vec.copyAsync(b8, 4, b8, 16, 8));
    assertTrue(
        e.getMessage().startsWith("copyAsync: dstIndex 4 is not a non-negative multiple of 8"));
    Vec.commitAsync(); // no-ops that must not throw
    Vec.waitAsync(0);
    Vec.waitAsync(7);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "int bytes 2 | copyAsync: bytes must be 4, 8 or 16, got 2",
        "int bytes 32 | copyAsync: bytes must be 4, 8 or 16, got 32",
        "short bytes 0 | copyAsync: bytes must be 4, 8 or 16, got 0",
        "int dst 2 | copyAsync: dstIndex 2 is not a non-negative multiple of 4 (16-byte copies"
            + " must start at a multiple of 16 bytes)",
        "int src 6 | copyAsync: srcIndex 6 is not a non-negative multiple of 4",
        "int dst -4 | copyAsync: dstIndex -4 is not a non-negative multiple of 4",
        "short src 4 | copyAsync: srcIndex 4 is not a non-negative multiple of 8",
        "short dst 1 | copyAsync: dstIndex 1 is not a non-negative multiple of 8",
        "int8 src 1 | copyAsync: srcIndex 1 is not a non-negative multiple of 2 (8-byte copies",
        "short4 dst 3 | copyAsync: dstIndex 3 is not a non-negative multiple of 2 (4-byte copies",
        "wait n 8 | waitAsync: pendingGroups must be 0 to 7, got 8",
        "wait n -1 | waitAsync: pendingGroups must be 0 to 7, got -1",
      })
  void javaBodiesRejectWhatTheGpuCannotDo(String call, String message) {
    String[] c = call.split(" ");
    int v = Integer.parseInt(c[2]);
    int[] i32 = new int[64];
    short[] i16 = new short[64];
    Runnable r =
        switch (c[0] + " " + c[1]) {
          case "int bytes" -> () -> Vec.copyAsync(i32, 0, i32, 8, v);
          case "short bytes" -> () -> Vec.copyAsync(i16, 0, i16, 8, v);
          case "int dst" -> () -> Vec.copyAsync(i32, v, i32, 8, 16);
          case "int src" -> () -> Vec.copyAsync(i32, 0, i32, v, 16);
          case "short dst" -> () -> Vec.copyAsync(i16, v, i16, 8, 16);
          case "short src" -> () -> Vec.copyAsync(i16, 0, i16, v, 16);
          case "int8 src" -> () -> Vec.copyAsync(i32, 0, i32, v, 8);
          case "short4 dst" -> () -> Vec.copyAsync(i16, v, i16, 8, 4);
          case "wait n" -> () -> Vec.waitAsync(v);
          default -> throw new IllegalArgumentException(call);
        };
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  @Test
  void javaBodiesKeepJavasBoundsChecks() {
    int[] dst = new int[8];
    int[] src = new int[8];
    assertThrows(IndexOutOfBoundsException.class, () -> Vec.copyAsync(dst, 8, src, 0, 16));
    assertThrows(IndexOutOfBoundsException.class, () -> Vec.copyAsync(dst, 0, src, 8, 4));
  }

  // ---------------------------------------------------------------- compile errors

  private static KernelCompileException reject(String method, Map<String, Object> specs) {
    Method m = TestKernels.method(AsyncRejected.class, method);
    return assertThrows(
        KernelCompileException.class, () -> KernelCompiler.compile(m, specs, Target.sm90()));
  }

  private static void assertPosition(String method, String marker, String msg) {
    assertTrue(msg.startsWith(CLASS + "." + method + " ("), msg);
    assertTrue(msg.contains("AsyncRejected.java:line " + LINES.get(marker) + ","), msg);
    assertTrue(Pattern.compile("bytecode offset \\d+").matcher(msg).find(), msg);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "variableBytes | the bytes argument of Vec.copyAsync(int[] dst, dstIndex, int[] src,"
            + " srcIndex, bytes) must be a compile-time constant after specialization",
        "variableWait | the pendingGroups argument of Vec.waitAsync(pendingGroups) must be a"
            + " compile-time constant after specialization",
        "globalDst | the dst array of Vec.copyAsync(int[] dst, dstIndex, int[] src, srcIndex,"
            + " bytes) must be a shared array from ctx.allocateIntLocalArray (cp.async copies"
            + " global to shared memory), but it is a kernel parameter (global memory)",
        "sharedSrc | the src array of Vec.copyAsync(int[] dst, dstIndex, int[] src, srcIndex,"
            + " bytes) must be a kernel parameter array (cp.async copies global to shared"
            + " memory), but it is a shared array",
        "mergedDst | the dst array of Vec.copyAsync(short[] dst, dstIndex, short[] src, srcIndex,"
            + " bytes) must be a shared array from ctx.allocateShortLocalArray (cp.async copies"
            + " global to shared memory), but it is a merge of a parameter and a shared array",
        "misalignedIndex | the dstIndex of Vec.copyAsync(int[] dst, dstIndex, int[] src,"
            + " srcIndex, bytes) is 2, not a multiple of 4: 16-byte copies must start at a"
            + " multiple of 16 bytes",
        "matrixFromGlobal | the array of ctx.loadMatrixX4(int[] shared, index) must be a shared"
            + " array from ctx.allocateIntLocalArray (ldmatrix reads shared memory only), but it is"
            + " a kernel parameter (global memory)",
        "matrixMisaligned | the index of ctx.loadMatrixX4(int[] shared, index) is 6, not a"
            + " multiple of 4: 16-byte matrix rows must start at a multiple of 16 bytes",
      })
  void misuseIsACompileErrorNamingTheConstruct(String method, String construct) {
    String msg = reject(method, Map.of()).getMessage();
    assertTrue(msg.contains(construct), msg);
    assertPosition(method, method, msg);
  }

  @Test
  void copySizeMustBe4Or8Or16AfterSpecialization() {
    Method m = TestKernels.method(AsyncRejected.class, "specializedBytes");
    for (int bytes : new int[] {4, 8, 16}) {
      CompiledKernel k = KernelCompiler.compile(m, Map.of("bytes", bytes), Target.sm80());
      String op = bytes == 16 ? "cp.async.cg.shared.global" : "cp.async.ca.shared.global";
      assertTrue(
          Pattern.compile(Pattern.quote(op) + " \\[%r\\d+\\], \\[%rd\\d+\\], " + bytes + ";")
              .matcher(k.ptx())
              .find(),
          k.ptx());
      assertEquals(0, PtxValidator.validate(k).spillStoreBytes());
    }
    for (int bytes : new int[] {2, 1, 32, 0, 12}) {
      String msg = reject("specializedBytes", Map.of("bytes", bytes)).getMessage();
      assertTrue(
          msg.contains(
              "Vec.copyAsync(short[] dst, dstIndex, short[] src, srcIndex, bytes) copies 4, 8 or"
                  + " 16 bytes (cp.async cp-size), not "
                  + bytes
                  + " bytes"),
          msg);
      assertPosition("specializedBytes", "specializedBytes", msg);
    }
  }

  @Test
  void pendingGroupsMustBe0To7AfterSpecialization() {
    Method m = TestKernels.method(AsyncRejected.class, "specializedWait");
    for (int n = 0; n <= 7; n++) {
      CompiledKernel k = KernelCompiler.compile(m, Map.of("pending", n), Target.sm90());
      assertTrue(k.ptx().contains("\tcp.async.wait_group " + n + ";\n"), k.ptx());
      assertEquals(0, PtxValidator.validate(k).spillStoreBytes());
    }
    for (int n : new int[] {8, -1, 100}) {
      String msg = reject("specializedWait", Map.of("pending", n)).getMessage();
      assertTrue(
          msg.contains(
              "Vec.waitAsync(pendingGroups) takes 0 to 7 pending groups (cp.async.wait_group N),"
                  + " not "
                  + n),
          msg);
      assertPosition("specializedWait", "specializedWait", msg);
    }
  }

  @Test
  void everyTargetHasCpAsync() {
    // cp.async needs PTX ISA 7.0 and sm_80; a Target below either cannot be made.
    assertThrows(IllegalArgumentException.class, () -> new Target(7, 5, 8, 0));
    assertThrows(IllegalArgumentException.class, () -> new Target(8, 0, 6, 5));
    assertThrows(IllegalArgumentException.class, () -> Target.forDevice(7, 5, 13000));
  }
}
