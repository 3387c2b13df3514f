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
import sirocco.jit.rejects.Rejected;

/**
 * Each rejected construct gives a KernelCompileException naming the class, the method, the source
 * line (the line marked "reject: name" in Rejected.java), the bytecode offset and the construct.
 */
class RejectionTest {
  private static final Map<String, Integer> LINES = new HashMap<>();
  private static final String CLASS = "sirocco.jit.rejects.Rejected";

  @BeforeAll
  static void readMarkers() throws IOException {
    List<String> src =
        Files.readAllLines(Path.of("src/test/java/sirocco/jit/rejects/Rejected.java"));
    Pattern p = Pattern.compile("// reject: (\\w+)");
    for (int i = 0; i < src.size(); i++) {
      Matcher m = p.matcher(src.get(i));
      if (m.find()) {
        LINES.put(m.group(1), i + 1);
      }
    }
  }

  private static KernelCompileException reject(String method, Map<String, Object> specs) {
    Method m = TestKernels.method(Rejected.class, method);
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
      })
  void signatureErrors(String method, String construct) {
    KernelCompileException e = reject(method, Map.of());
    assertTrue(e.getMessage().contains(construct), e.getMessage());
    assertTrue(e.getMessage().startsWith(CLASS + "." + method + " ("), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void messagesHaveOneLinePerInlinedFrame() {
    KernelCompileException e = reject("inlinedHelper", Map.of());
    assertEquals(2, e.getMessage().lines().count(), e.getMessage());
  }
}
