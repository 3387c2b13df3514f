package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import sirocco.api.KernelCompileException;
import sirocco.jit.rejects.DeepNesting;
import sirocco.jit.rejects.Rejected;

/**
 * Each rejected construct gives a KernelCompileException naming the class, the method, the source
 * line (the line marked "reject: name" in Rejected.java), the bytecode offset and the construct.
 */
class RejectionTest {
  private static final Map<String, Integer> LINES = new HashMap<>();
  private static final Map<String, Integer> DEEP_LINES = new HashMap<>();
  private static final String CLASS = "sirocco.jit.rejects.Rejected";
  private static final String DEEP = "sirocco.jit.rejects.DeepNesting";

  @BeforeAll
  static void readMarkers() throws IOException {
    readMarkers("Rejected.java", LINES);
    readMarkers("DeepNesting.java", DEEP_LINES);
  }

  private static void readMarkers(String file, Map<String, Integer> into) throws IOException {
    List<String> src = Files.readAllLines(Path.of("src/test/java/sirocco/jit/rejects", file));
    Pattern p = Pattern.compile("// reject: (\\w+)");
    for (int i = 0; i < src.size(); i++) {
      Matcher m = p.matcher(src.get(i));
      if (m.find()) {
        into.put(m.group(1), i + 1);
      }
    }
  }

  private static KernelCompileException reject(String method, Map<String, Object> specs) {
    return reject(Rejected.class, method, specs);
  }

  private static KernelCompileException reject(
      Class<?> c, String method, Map<String, Object> specs) {
    Method m = TestKernels.method(c, method);
    return assertThrows(
        KernelCompileException.class, () -> KernelCompiler.compile(m, specs, Target.sm90()));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "newArray | allocation of new float[8] is not supported in kernels; use ctx.allocateFloatLocalArray(n) for shared memory or scalar locals / Float4 for registers",
        "arrayLength | array.length is not available in kernels; pass the length as a parameter",
        "putContextField | assignment to ctx.globalIdx: KernelContext fields are read-only",
        "mutableStatic | read of static field sirocco.jit.rejects.Rejected.counter is not supported",
        "staticArray | read of static final array sirocco.jit.rejects.Rejected.TABLE",
        "recordHashCode | Int4.hashCode() is not supported on value records",
        "stringConcat | invokedynamic (string concatenation)",
        "lambda | invokedynamic (lambda or method reference",
        "synchronizedBlock | synchronized",
        "throwing | throw new java.lang.IllegalStateException(...) is not supported in kernels",
        "tryCatch | exception handlers (try/catch/finally",
        "doubleExp | Math.exp on a double value is not supported",
        "floatRemainder | float remainder (%) is not supported",
        "sharedLength | must be a compile-time constant after specialization",
        "nullArray | null is not supported in kernels",
        "jdkCall | call to java.lang.Math.sin(double) is not supported in kernels",
        "multiArray | multi-dimensional array",
        "referenceCompare | reference comparison",
        "instanceOf | instanceof is not supported in kernels",
        // An instance helper cannot be called: every way to get a receiver is rejected first.
        "instanceHelperField | read of static final field sirocco.jit.rejects.Rejected.SCALER is"
            + " not supported in kernels: the GPU cannot see Java heap objects; make helper methods"
            + " static",
        "instanceHelperNew | allocation of new sirocco.jit.rejects.Rejected$Scaler is not"
            + " supported in kernels; objects cannot be created on the GPU",
      })
  void rejectedWithPosition(String method, String construct) {
    KernelCompileException e = reject(method, Map.of());
    String msg = e.getMessage();
    int line = LINES.get(method);
    assertTrue(msg.contains(construct), msg);
    assertTrue(msg.startsWith(CLASS + "." + method + " ("), msg);
    assertTrue(msg.contains("Rejected.java:line " + line + ","), "line " + line + ": " + msg);
    assertTrue(Pattern.compile("bytecode offset \\d+").matcher(msg).find(), msg);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"recursion", "inlinedHelper"})
  void rejectedInsideHelperNamesTheChain(String kernel) {
    KernelCompileException e = reject(kernel, Map.of());
    String msg = e.getMessage();
    String marker = kernel.equals("recursion") ? "recursion" : "inlinedHelper";
    assertTrue(msg.contains("Rejected.java:line " + LINES.get(marker) + ","), msg);
    assertTrue(msg.contains("inlined from " + CLASS + "." + kernel + " ("), msg);
    if (kernel.equals("recursion")) {
      assertTrue(
          msg.contains(
              "recursive call is not supported in kernels: Rejected.recursion -> Rejected.factorial"
                  + " -> Rejected.factorial"),
          msg);
    } else {
      assertTrue(msg.contains("allocation of new int[4]"), msg);
    }
  }

  @org.junit.jupiter.api.Test
  void throwIsFineWhereSpecializationRemovesIt() {
    Method m = TestKernels.method(Rejected.class, "specializedThrow");
    CompiledKernel k = KernelCompiler.compile(m, Map.of("bits", 4), Target.sm90());
    assertTrue(k.ptx().contains(".entry"));
    KernelCompileException e = reject("specializedThrow", Map.of("bits", 3));
    assertTrue(
        e.getMessage().contains("throw new java.lang.IllegalArgumentException"), e.getMessage());
    assertTrue(
        e.getMessage().contains("line " + LINES.get("specializedThrow") + ","), e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "instanceKernel | kernel sirocco.jit.rejects.Rejected.instanceKernel must be static",
        "returnsValue | must return void (it returns int)",
        "noContext | the first parameter of kernel sirocco.jit.rejects.Rejected.noContext must be a KernelContext",
        "objectParam | has type java.lang.String; kernel parameters must be primitive arrays or primitive scalars",
        "recordParam | has type sirocco.api.Int4",
        "matrixParam | has type int[][]",
        "specializeArray | @Specialize applies to scalar parameters only, not to array parameter"
            + " table",
      })
  void signatureErrors(String method, String construct) {
    KernelCompileException e = reject(method, Map.of());
    assertTrue(e.getMessage().contains(construct), e.getMessage());
    assertTrue(e.getMessage().startsWith(CLASS + "." + method + " ("), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void sharedMemoryIsLimitedByTheTarget() {
    // 32768 bytes, then `extra` floats after 16-byte alignment. Past 48 KiB the arrays are dynamic
    // shared memory, up to the architecture's opt-in limit; unknown architectures keep 48 KiB.
    Method m = TestKernels.method(Rejected.class, "sharedLimit");
    String dynamicNote =
        " (arrays above 48 KiB in all are dynamic shared memory, opted in up to this limit)";
    Object[][] limits = {
      {Target.sm80(), 33536, 166912, dynamicNote}, // 163 KiB
      {new Target(8, 6, 8, 0), 17152, 101376, dynamicNote}, // 99 KiB
      {Target.sm90(), 49920, 232448, dynamicNote}, // 227 KiB
      {new Target(11, 0, 9, 0), 4096, 49152, " (48 KiB: no larger opt-in limit is known for it)"},
    };
    for (Object[] l : limits) {
      Target t = (Target) l[0];
      int fits = (Integer) l[1];
      int max = (Integer) l[2];
      CompiledKernel k = KernelCompiler.compile(m, Map.of("extra", fits), t);
      assertEquals(max, k.sharedBytes(), t.arch());
      String msg =
          assertThrows(
                  KernelCompileException.class,
                  () -> KernelCompiler.compile(m, Map.of("extra", fits + 1), t))
              .getMessage();
      assertTrue(msg.startsWith(CLASS + ".sharedLimit ("), msg);
      assertTrue(msg.contains("Rejected.java:line " + LINES.get("sharedLimit") + ","), msg);
      assertTrue(Pattern.compile("bytecode offset \\d+").matcher(msg).find(), msg);
      assertTrue(
          msg.endsWith(
              "the kernel's shared arrays need "
                  + (max + 4)
                  + " bytes, more than the "
                  + max
                  + " bytes of shared memory a block may use on "
                  + t.arch()
                  + l[3]),
          msg);
    }
    // sm_80's refusal is sm_80's: sm_90 takes the same arrays.
    assertEquals(
        166916,
        KernelCompiler.compile(m, Map.of("extra", 33537), Target.sm90()).dynamicSharedBytes());
  }

  @org.junit.jupiter.api.Test
  void helpersNestedDeeperThan64AreRejected() {
    Method ok = TestKernels.method(DeepNesting.class, "deepest");
    assertTrue(KernelCompiler.compile(ok, Map.of(), Target.sm90()).ptx().contains(".entry"));
    String msg = reject(DeepNesting.class, "tooDeep", Map.of()).getMessage();
    List<String> lines = msg.lines().toList();
    String first = lines.get(0);
    assertTrue(first.startsWith(DEEP + ".h63 ("), first);
    assertTrue(first.contains("DeepNesting.java:line " + DEEP_LINES.get("tooDeep") + ","), first);
    assertTrue(Pattern.compile("bytecode offset \\d+").matcher(first).find(), first);
    StringBuilder chain = new StringBuilder("DeepNesting.tooDeep");
    for (int i = 0; i <= 64; i++) {
      chain.append(" -> DeepNesting.h").append(i);
    }
    assertTrue(first.endsWith("helper calls nest deeper than 64: " + chain), first);
    // One line per inlined frame: h62 ... h0, then the kernel.
    assertEquals(65, lines.size(), msg);
    assertTrue(lines.get(64).contains("inlined from " + DEEP + ".tooDeep ("), lines.get(64));
  }

  @org.junit.jupiter.api.Test
  void messagesHaveOneLinePerInlinedFrame() {
    KernelCompileException e = reject("inlinedHelper", Map.of());
    assertEquals(2, e.getMessage().lines().count(), e.getMessage());
  }
}
