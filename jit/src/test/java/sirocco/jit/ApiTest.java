package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sirocco.jit.testkernels.ScalarParamKernels;
import sirocco.jit.testkernels.SpecializeKernels;

/** The public API: parameters, specialization checks, cache keys, targets. */
class ApiTest {
  private static final Method GROUP_SUMS = TestKernels.method(SpecializeKernels.class, "groupSums");
  private static final Method SCALED = TestKernels.method(SpecializeKernels.class, "scaled");

  private static IllegalArgumentException bad(Method m, Map<String, Object> specs) {
    return assertThrows(
        IllegalArgumentException.class, () -> KernelCompiler.compile(m, specs, Target.sm90()));
  }

  @Test
  void missingSpecializationNamesTheParameter() {
    var e = bad(GROUP_SUMS, Map.of("tile", 128));
    assertTrue(
        e.getMessage().contains("missing value for @Specialize parameter 'group'"), e.getMessage());
  }

  @Test
  void extraSpecializationNamesTheParameter() {
    var e = bad(GROUP_SUMS, Map.of("tile", 128, "group", 4, "warps", 2));
    assertTrue(e.getMessage().contains("'warps'"), e.getMessage());
    assertTrue(e.getMessage().contains("no such parameter"), e.getMessage());
    var f = bad(TestKernels.method(SpecializeKernels.class, "unpack"), Map.of("bits", 4, "n", 3));
    assertTrue(f.getMessage().contains("'n'"), f.getMessage());
    assertTrue(f.getMessage().contains("not marked @Specialize"), f.getMessage());
  }

  @Test
  void wronglyTypedSpecializationNamesTheParameterAndType() {
    var e = bad(GROUP_SUMS, Map.of("tile", 128L, "group", 4));
    assertTrue(e.getMessage().contains("'tile'"), e.getMessage());
    assertTrue(e.getMessage().contains("must be of type Integer, got Long 128"), e.getMessage());
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("tile", null);
    withNull.put("group", 4);
    assertTrue(bad(GROUP_SUMS, withNull).getMessage().contains("got null"));
    var f = bad(SCALED, Map.of("scale", 0.5, "addOne", true));
    assertTrue(f.getMessage().contains("'scale'"), f.getMessage());
  }

  @Test
  void parametersDescribeTheLaunch() {
    Method m = TestKernels.method(ScalarParamKernels.class, "scalars");
    CompiledKernel k = KernelCompiler.compile(m, Map.of(), Target.sm90());
    List<KernelParam> ps = k.params();
    assertEquals(9, ps.size());
    assertEquals(new KernelParam("out", 1, long[].class, KernelParam.Kind.ARRAY, false), ps.get(0));
    assertEquals(KernelParam.Kind.I32, ps.get(1).kind()); // byte
    assertEquals(KernelParam.Kind.I32, ps.get(4).kind()); // boolean
    assertEquals(KernelParam.Kind.I64, ps.get(6).kind());
    assertEquals(KernelParam.Kind.F32, ps.get(7).kind());
    assertEquals(KernelParam.Kind.F64, ps.get(8).kind());
    assertEquals(0, k.staticSharedBytes());
    String p = k.ptx();
    assertTrue(
        p.contains(
            ".param .u64 p_out,\n\t.param .s32 p_b,\n\t.param .s32 p_s,\n\t.param .u32 p_c,"),
        p);
    assertTrue(p.contains("cvt.s32.s8"), "byte parameters are sign-extended: " + p);
    assertTrue(p.contains(".param .s64 p_l,\n\t.param .f32 p_f,\n\t.param .f64 p_d\n)"), p);
  }

  @Test
  void sharedBytesAreReported() {
    CompiledKernel k =
        KernelCompiler.compile(GROUP_SUMS, Map.of("tile", 256, "group", 8), Target.sm90());
    assertEquals(1024, k.staticSharedBytes());
    assertTrue(k.ptx().contains(".shared .align 16 .b8 smem0[1024];"), k.ptx());
  }

  @Test
  void keysIdentifyMethodSpecializationAndTarget() {
    KernelKey a =
        KernelCompiler.compile(SCALED, Map.of("scale", 0.5f, "addOne", true), Target.sm90()).key();
    KernelKey b =
        KernelCompiler.compile(SCALED, Map.of("addOne", true, "scale", 0.5f), Target.sm90()).key();
    KernelKey c =
        KernelCompiler.compile(SCALED, Map.of("scale", -0.0f, "addOne", true), Target.sm90()).key();
    KernelKey d =
        KernelCompiler.compile(SCALED, Map.of("scale", 0.0f, "addOne", true), Target.sm90()).key();
    KernelKey e =
        KernelCompiler.compile(SCALED, Map.of("scale", 0.5f, "addOne", true), Target.sm80()).key();
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(c, d, "-0.0f and 0.0f compile differently");
    assertNotEquals(a, e);
    assertEquals(List.<Object>of(0.5f, true), a.specializationValues());
    assertEquals(SCALED, a.method());
  }

  @Test
  void entryNamesDifferBySpecialization() {
    String x =
        KernelCompiler.compile(GROUP_SUMS, Map.of("tile", 128, "group", 4), Target.sm90())
            .entryName();
    String y =
        KernelCompiler.compile(GROUP_SUMS, Map.of("tile", 256, "group", 8), Target.sm90())
            .entryName();
    assertTrue(x.startsWith("SpecializeKernels_groupSums_"), x);
    assertNotEquals(x, y);
  }

  @Test
  void validationSetsParseToParameterTypes() {
    assertEquals(
        List.of(Map.of("scale", 0.5f, "addOne", true)), KernelCompiler.validationSets(SCALED));
    assertEquals(
        List.of(Map.of()),
        KernelCompiler.validationSets(TestKernels.method(ScalarParamKernels.class, "scalars")));
  }

  @Test
  void targets() {
    assertEquals("sm_90", Target.sm90().arch());
    assertEquals("8.0", Target.sm90().isa());
    assertEquals(new Target(8, 0, 8, 0), Target.sm80());
    // H200 with driver 580 (CUDA 13.0): sm_90 needs 7.8, floor 8.0.
    assertEquals(new Target(9, 0, 8, 0), Target.forDevice(9, 0, 13000));
    assertEquals(new Target(8, 6, 8, 0), Target.forDevice(8, 6, 12060));
    // Blackwell needs 8.6; CUDA 12.8 offers 8.7.
    assertEquals(new Target(10, 0, 8, 6), Target.forDevice(10, 0, 12080));
    // CUDA 11.8 caps at 7.8, below the 8.0 floor but enough for sm_90.
    assertEquals(new Target(9, 0, 7, 8), Target.forDevice(9, 0, 11080));
    var old = assertThrows(IllegalArgumentException.class, () -> Target.forDevice(10, 0, 12040));
    assertTrue(old.getMessage().contains("update the driver"), old.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Target.forDevice(7, 5, 13000));
    assertThrows(IllegalArgumentException.class, () -> new Target(9, 0, 6, 5));
  }

  @Test
  void nullArgumentsAreRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> KernelCompiler.compile(null, Map.of(), Target.sm90()));
    assertThrows(
        IllegalArgumentException.class, () -> KernelCompiler.compile(SCALED, null, Target.sm90()));
  }
}
