package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every test kernel, with each of its specialization sets, compiles to PTX and then to SASS with
 * NVIDIA's PTX compiler (in-process, through JCuda) for sm_80 and sm_90, with no spills.
 */
class TestKernelsValidateTest {
  @BeforeAll
  static void compilerPresent() {
    assertTrue(PtxValidator.isAvailable(), "JCuda's nvPTXCompiler must load for these tests");
  }

  @Test
  void catalogueIsComplete() {
    // One kernel per construct family; adding a kernel class without listing it fails here.
    assertTrue(TestKernels.cases().size() >= 30, "cases: " + TestKernels.cases().size());
  }

  @TestFactory
  Stream<DynamicTest> everyKernelValidatesOnSm80AndSm90() {
    List<DynamicTest> tests = new ArrayList<>();
    for (TestKernels.Case c : TestKernels.cases()) {
      for (Target t : List.of(Target.sm80(), Target.sm90())) {
        tests.add(
            DynamicTest.dynamicTest(
                c.label() + " " + t.arch(),
                () -> {
                  CompiledKernel k = KernelCompiler.compile(c.method(), c.specs(), t);
                  PtxResources r = PtxValidator.validate(k);
                  assertTrue(r.registers() > 0, r.log());
                  assertEquals(0, r.spillStoreBytes(), r.log());
                  assertEquals(0, r.spillLoadBytes(), r.log());
                  assertEquals(k.staticSharedBytes(), r.sharedBytes(), r.log());
                  assertFalse(k.ptx().contains(".ftz"), "no .ftz anywhere");
                }));
      }
    }
    return tests.stream();
  }
}
