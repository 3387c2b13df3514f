package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelCompileException;
import sirocco.jit.testkernels.ArithKernels;
import sirocco.jit.testkernels.AsyncCopyKernels;
import sirocco.jit.testkernels.AtomicKernels;
import sirocco.jit.testkernels.GoldenKernels;
import sirocco.jit.testkernels.LargeSharedKernels;
import sirocco.jit.testkernels.MathKernels;
import sirocco.jit.testkernels.MemoryKernels;
import sirocco.jit.testkernels.MmaKernels;
import sirocco.jit.testkernels.SpecializeKernels;
import sirocco.jit.testkernels.VectorKernels;
import sirocco.jit.testkernels.WarpKernels;
import sirocco.jit.testkernels.WgmmaKernels;

/** Structural requirements on the generated PTX (the Java-vs-PTX table of JIT-NOTES.md). */
class GoldenPtxTest {
  private static String ptx(Class<?> c, String name) {
    return ptx(c, name, Target.sm90());
  }

  private static String ptx(Class<?> c, String name, Target t) {
    var m = TestKernels.method(c, name);
    return KernelCompiler.compile(m, KernelCompiler.validationSets(m).get(0), t).ptx();
  }

  /** The body of the entry, without the header comment (which quotes Java names). */
  private static String body(String ptx) {
    return ptx.substring(ptx.indexOf(".entry"));
  }

  @Test
  void floatMultiplyAddIsTwoRoundedOperations() {
    String p = body(ptx(GoldenKernels.class, "mulAdd"));
    assertTrue(p.contains("mul.rn.f32"), p);
    assertTrue(p.contains("add.rn.f32"), p);
    assertFalse(p.contains("fma"), p);
    assertFalse(
        Pattern.compile("\\b(mul|add|sub)\\.f32").matcher(p).find(), "no unrounded op: " + p);
  }

  @Test
  void mathFmaIsOneFusedOperation() {
    String p = body(ptx(GoldenKernels.class, "explicitFma"));
    assertTrue(p.contains("fma.rn.f32"), p);
    assertFalse(p.contains("mul.rn.f32"), p);
  }

  @Test
  void halfPairFmaIsOneInstructionPerPair() {
    String p = body(ptx(MathKernels.class, "halfPairFma"));
    // The loop over cols is not unrolled (cols is a runtime parameter): one of each in the body.
    assertEquals(1, count(p, "fma.rn.bf16x2 %r"), p);
    assertEquals(1, count(p, "fma.rn.f16x2 %r"), p);
    assertFalse(p.contains("fma.rn.f32"), "no float fallback: " + p);
  }

  @Test
  void bytePermuteIsOnePrmt() {
    String p = body(ptx(MathKernels.class, "bytePermute"));
    assertEquals(2, count(p, "prmt.b32 %r"), p);
    assertTrue(p.contains(", 37184;"), "the constant selector 0x9140 as an immediate: " + p);
  }

  @Test
  void floatMaxMinPropagateNaN() {
    String p = body(ptx(GoldenKernels.class, "maxMin"));
    assertTrue(p.contains("max.NaN.f32"), p);
    assertTrue(p.contains("min.NaN.f32"), p);
  }

  @Test
  void variableShiftCountsAreMasked() {
    String p = body(ptx(GoldenKernels.class, "shiftByVariable"));
    Matcher m =
        Pattern.compile("and\\.b32 (%r\\d+), %r\\d+, 31;\\s+shl\\.b32 %r\\d+, %r\\d+, (%r\\d+);")
            .matcher(p);
    assertTrue(m.find(), p);
    assertEquals(m.group(1), m.group(2), "shl uses the masked count");
    assertTrue(Pattern.compile("and\\.b32 %r\\d+, %r\\d+, 63;\\s+shr\\.u64").matcher(p).find(), p);
  }

  @Test
  void constantShiftCountsAreReducedAtCompileTime() {
    String p = body(ptx(GoldenKernels.class, "shiftByConstant"));
    assertTrue(Pattern.compile("shl\\.b32 %r\\d+, %r\\d+, 1;").matcher(p).find(), p);
    assertFalse(p.contains(", 31;"), p);
  }

  @Test
  void specializeRemovesTheParameterAndFoldsTheConstant() {
    var m = TestKernels.method(GoldenKernels.class, "specialized");
    CompiledKernel k = KernelCompiler.compile(m, Map.of("k", 7), Target.sm90());
    String p = body(k.ptx());
    assertFalse(p.contains("p_k"), p);
    assertTrue(p.contains("p_n"), p);
    assertTrue(Pattern.compile("mul\\.lo\\.s32 %r\\d+, %r\\d+, 8;").matcher(p).find(), p);
    assertEquals(List.of("out", "n", "k"), k.params().stream().map(KernelParam::name).toList());
    assertTrue(k.params().get(2).specialized());
    assertEquals(List.of("out", "n"), k.launchParams().stream().map(KernelParam::name).toList());
    assertEquals(List.<Object>of(7), k.key().specializationValues());
  }

  @Test
  void floatToLongGuardsNaN() {
    String p = body(ptx(GoldenKernels.class, "floatToLong"));
    assertTrue(p.contains("cvt.rzi.s64.f32"), p);
    assertTrue(p.contains("setp.nan.f32"), p);
    assertTrue(p.contains("selp.b64"), p);
  }

  @Test
  void doubleToIntGuardsNaNButFloatToIntNeedsNot() {
    // On the H200, cvt.rzi.s32.f64 turns NaN into 0x80000000 (Java: 0); the f32 form gives 0.
    String p = body(ptx(sirocco.jit.testkernels.ConvKernels.class, "conversions"));
    assertTrue(
        Pattern.compile(
                "cvt\\.rzi\\.s32\\.f64 (%r\\d+), (%fd\\d+);\\s+setp\\.nan\\.f64 (%p\\d+), \\2, \\2;\\s+"
                    + "selp\\.b32 %r\\d+, 0, \\1, \\3;")
            .matcher(p)
            .find(),
        p);
    assertTrue(
        Pattern.compile("cvt\\.rzi\\.s32\\.f32 %r\\d+, %f\\d+;\\s+mul").matcher(p).find(), p);
  }

  @Test
  void floatSqrtDivisionAndExpStayInSinglePrecision() {
    String p = body(ptx(GoldenKernels.class, "floatSqrtDivExp"));
    assertTrue(p.contains("sqrt.rn.f32"), p);
    assertTrue(p.contains("div.rn.f32"), p);
    assertFalse(p.contains("f64"), p);
    assertFalse(p.contains("ex2"), "exp is the exact FMA sequence, not ex2.approx: " + p);
    assertFalse(p.contains(".approx"), p);
  }

  @Test
  void vecLdg4IsOneNonCoherent16ByteLoad() {
    String p = body(ptx(GoldenKernels.class, "loadInt4"));
    assertTrue(p.contains("ld.global.nc.v4.u32"), p);
    assertEquals(1, count(p, "ld.global"), p);
    String v = body(ptx(VectorKernels.class, "vectors"));
    assertTrue(v.contains("ld.global.nc.v4.f32"), v);
    assertTrue(v.contains("ld.global.v4.u32"), v);
    assertTrue(v.contains("st.global.v4.f32"), v);
    assertTrue(v.contains("ld.global.nc.v2.u32"), v);
    String s = body(ptx(VectorKernels.class, "sharedVectors"));
    assertTrue(s.contains("st.shared.v4.f32"), s);
    assertTrue(s.contains("ld.shared.v4.u32"), s);
    assertTrue(s.contains("ld.shared.v2.u32"), s);
    assertTrue(v.contains("ld.global.v2.u32"), v);
  }

  @Test
  void narrowLoadsExtendByElementType() {
    String p = body(ptx(GoldenKernels.class, "narrowLoads"));
    assertTrue(p.contains("ld.global.s8"), p);
    assertTrue(p.contains("ld.global.u16"), p);
    assertTrue(p.contains("ld.global.s16"), p);
  }

  @Test
  void arraysAreGlobalPointersIndexedWithMulWide() {
    String p = body(ptx(GoldenKernels.class, "mulAdd"));
    assertEquals(4, count(p, "cvta.to.global.u64"), p);
    assertTrue(p.contains("mul.wide.s32"), p);
    assertTrue(p.contains(".param .u64 p_a"), p);
    assertTrue(p.contains(".param .s32 p_n"), p);
  }

  @Test
  void sharedArraysBarriersAndGenericMerges() {
    String p = body(ptx(MemoryKernels.class, "blockReverse"));
    assertTrue(p.contains(".shared .align 16 .b8 smem0[1024];"), p);
    assertTrue(p.contains("st.shared.f32"), p);
    assertTrue(p.contains("ld.shared.f32"), p);
    assertTrue(p.contains("bar.sync 0;"), p);
    String g = body(ptx(MemoryKernels.class, "arrayRefs"));
    assertTrue(g.contains("cvta.shared.u64"), "shared and global merged: generic address " + g);
    assertTrue(Pattern.compile("\\bld\\.f32").matcher(g).find(), g);
  }

  @Test
  void sharedArraysOver48KiBShareOneDynamicWindow() {
    for (Target t : List.of(Target.sm80(), Target.sm90())) {
      var m = TestKernels.method(LargeSharedKernels.class, "largeShared");
      CompiledKernel k = KernelCompiler.compile(m, Map.of(), t);
      String p = k.ptx();
      int entry = p.indexOf(".visible .entry");
      // One unsized window at module scope, before the entry; no static array declarations.
      assertEquals(1, count(p, ".extern .shared"), p);
      int extern = p.indexOf("\n.extern .shared .align 16 .b8 dsmem[];\n");
      assertTrue(extern > 0 && extern < entry, p);
      assertFalse(Pattern.compile("\\.shared \\.align 16 \\.b8 smem\\d*\\[").matcher(p).find(), p);
      assertFalse(Pattern.compile("^\\s*\\.shared ", Pattern.MULTILINE).matcher(p).find(), p);
      assertTrue(p.contains("// dynamic shared memory: 81920 bytes"), p);
      assertEquals(0, k.staticSharedBytes());
      assertEquals(2L * LargeSharedKernels.WORDS * 4, k.dynamicSharedBytes());
      // Each array's base is the window plus its offset: the float array at 0, the int array
      // right after its 40960 bytes (both 16-byte aligned); no other base exists.
      Matcher bases = Pattern.compile("mov\\.u32 %r\\d+, dsmem(\\+(\\d+))?;").matcher(body(p));
      Set<Long> offsets = new java.util.TreeSet<>();
      while (bases.find()) {
        offsets.add(bases.group(2) == null ? 0L : Long.parseLong(bases.group(2)));
      }
      assertEquals(Set.of(0L, 40960L), offsets, p);
      long bytes = LargeSharedKernels.WORDS * 4L;
      long previousEnd = 0;
      for (long off : offsets) {
        assertEquals(0, off % 16, "aligned");
        assertTrue(off >= previousEnd, "arrays do not overlap: " + offsets);
        previousEnd = off + bytes;
      }
      assertTrue(previousEnd <= k.dynamicSharedBytes());
      assertFalse(Pattern.compile("dsmem[^+\\[;]").matcher(body(p)).find(), "only as a base: " + p);
      // Stores, cp.async copies and loads address the window through those bases.
      assertTrue(p.contains("st.shared.f32"), p);
      assertTrue(p.contains("cp.async.cg.shared.global"), p);
      assertTrue(p.contains("ld.shared.u32") || p.contains("ld.shared.s32"), p);
      assertTrue(p.contains("bar.sync 0;"), p);
    }
    // At or under 48 KiB nothing changes: static arrays, no window, no comment.
    String small = ptx(MemoryKernels.class, "sharedSmallTypes");
    assertTrue(small.contains("\t.shared .align 16 .b8 smem0[64];"), small);
    assertFalse(small.contains(".extern") || small.contains("dsmem"), small);
  }

  @Test
  void shufflesAndWarpBarrier() {
    String p = body(ptx(WarpKernels.class, "shuffles"));
    assertTrue(p.contains("shfl.sync.bfly.b32"), p);
    assertTrue(
        Pattern.compile("shfl\\.sync\\.down\\.b32 [^;]*, 0x1f, 0xffffffff;").matcher(p).find(), p);
    assertTrue(
        Pattern.compile("shfl\\.sync\\.up\\.b32 [^;]*, 0, 0xffffffff;").matcher(p).find(), p);
    assertTrue(p.contains("shfl.sync.idx.b32"), p);
    assertTrue(p.contains("bar.warp.sync -1;"), p);
  }

  @Test
  void threadFenceIsADeviceScopeFenceKeptInPlace() {
    String p = body(ptx(AtomicKernels.class, "lastBlockSum"));
    int first = p.indexOf("fence.acq_rel.gpu;");
    int atom = p.indexOf("atom.global.add.s32");
    int second = p.indexOf("fence.acq_rel.gpu;", first + 1);
    assertTrue(first >= 0 && atom > first && second > atom, "fence, atomic, fence in order: " + p);
    assertEquals(-1, p.indexOf("fence.acq_rel.gpu;", second + 1), "exactly two fences: " + p);
    // The partials written by other blocks are read with coherent loads (never ld.global.nc).
    assertFalse(p.contains(".nc."), p);
    // The fence needs PTX ISA 6.0 and sm_70: the sm_80 target accepts it too.
    assertTrue(
        body(ptx(AtomicKernels.class, "lastBlockSum", Target.sm80()))
            .contains("fence.acq_rel.gpu;"));
  }

  @Test
  void gridDependencyControlOnSm90Only() {
    String p = body(ptx(MemoryKernels.class, "scaleAfterPriorGrids"));
    int release = p.indexOf("griddepcontrol.launch_dependents;");
    int wait = p.indexOf("griddepcontrol.wait;");
    int load = p.indexOf("ld.global");
    assertTrue(release >= 0 && wait > release && load > wait, "release, wait, load in order: " + p);
    assertEquals(-1, p.indexOf("griddepcontrol.wait;", wait + 1), "one wait: " + p);
    // sm_80 has no early-start launches: the calls emit nothing.
    String p80 = body(ptx(MemoryKernels.class, "scaleAfterPriorGrids", Target.sm80()));
    assertFalse(p80.contains("griddepcontrol"), p80);
    assertTrue(p80.contains("ld.global"), p80);
  }

  /**
   * The asynchronous-copy and memory events of a PTX body, one token each, in program order: {@code
   * cg16}/{@code ca8}/{@code ca4} copies, {@code commit}, {@code waitN}, {@code bar}, {@code ld}
   * (scalar ld.shared), {@code ld4} (ld.shared.v4), {@code st} (st.global); anything else ({@code
   * ld.global}, other spaces) as the whole line, so that it fails the comparison.
   */
  private static String asyncEvents(String p) {
    Pattern copy =
        Pattern.compile(
            "cp\\.async\\.(cg|ca)\\.shared\\.global \\[%r\\d+(\\+\\d+)?\\],"
                + " \\[%rd\\d+(\\+\\d+)?\\], (\\d+)");
    List<String> out = new ArrayList<>();
    for (String line : p.lines().map(String::strip).toList()) {
      Matcher m = copy.matcher(line);
      if (m.lookingAt()) {
        out.add(m.group(1) + m.group(4));
      } else if (line.startsWith("cp.async.commit_group;")) {
        out.add("commit");
      } else if (line.startsWith("cp.async.wait_group ")) {
        out.add("wait" + line.substring(20, line.length() - 1));
      } else if (line.startsWith("cp.async") || line.startsWith("ld.global")) {
        out.add(line);
      } else if (line.startsWith("bar.sync 0;")) {
        out.add("bar");
      } else if (line.startsWith("ld.shared.v4.")) {
        out.add("ld4");
      } else if (line.startsWith("ld.shared.")) {
        out.add("ld");
      } else if (line.startsWith("st.")) {
        out.add(line.startsWith("st.global.") ? "st" : line);
      }
    }
    return String.join(" ", out);
  }

  @Test
  void asyncCopiesCommitsAndWaitsKeepProgramOrder() {
    // asyncPipeline, tiles = 7, 4 stages: three tiles in the prologue, then per tile a wait for
    // all but the 2 newest groups, the barrier, the three shared loads of that tile, the copies
    // of the tile 3 ahead (while there is one) and a commit. Nothing moves across a wait.
    StringBuilder want = new StringBuilder("cg16 ca4 commit cg16 ca4 commit cg16 ca4 commit");
    for (int k = 0; k < 7; k++) {
      want.append(" wait2 bar ld ld ld").append(k + 3 < 7 ? " cg16 ca4" : "").append(" commit");
    }
    want.append(" st");
    for (Target t : List.of(Target.sm90(), Target.sm80())) {
      String p = body(ptx(AsyncCopyKernels.class, "asyncPipeline", t));
      assertEquals(want.toString(), asyncEvents(p), p);
      // Parameters are global addresses (cvta.to.global), shared arrays 32-bit window addresses.
      assertTrue(p.contains("cvta.to.global.u64"), p);
      assertTrue(Pattern.compile("mov\\.u32 %r\\d+, smem\\d+;").matcher(p).find(), p);
    }
    // asyncOwnPipeline, tiles = 5, 3 stages, no barrier: the 16-byte shared load (Vec.load4) and
    // the short loads (Vec.ldg and a plain one, both ld.shared on a shared array) of tile k come
    // after the wait that covers it, and before the copies that reuse a stage.
    want = new StringBuilder("ca8 ca8 cg16 commit ca8 ca8 cg16 commit");
    for (int k = 0; k < 5; k++) {
      want.append(" wait1 ld4 ld ld").append(k + 2 < 5 ? " ca8 ca8 cg16" : "").append(" commit");
    }
    want.append(" st");
    String own = body(ptx(AsyncCopyKernels.class, "asyncOwnPipeline"));
    assertEquals(want.toString(), asyncEvents(own), own);
    assertFalse(own.contains(".nc"), own);
  }

  @Test
  void atomicsAndVolatileLoads() {
    String p = body(ptx(AtomicKernels.class, "atomics"));
    for (String s :
        List.of(
            "atom.global.add.s32",
            "atom.global.add.f32",
            "atom.global.max.s32",
            "atom.global.min.s32",
            "atom.global.cas.b32",
            "atom.global.exch.b32",
            "atom.shared.add.s32")) {
      assertTrue(p.contains(s), s + " in " + p);
    }
    assertTrue(body(ptx(AtomicKernels.class, "volatileRead")).contains("ld.volatile.global.u32"));
  }

  @Test
  void mmaUsesTheTensorCoreInstruction() {
    assertTrue(
        body(ptx(MmaKernels.class, "mmaBf16"))
            .contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {"));
    assertTrue(
        body(ptx(MmaKernels.class, "mmaF16"))
            .contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {"));
  }

  @Test
  void loadMatrixIsOneLdmatrixFromTheSharedTile() {
    String p = body(ptx(MmaKernels.class, "loadMatrix"));
    Matcher m =
        Pattern.compile(
                "ldmatrix\\.sync\\.aligned\\.m8n8\\.x4\\.shared\\.b16 \\{%r\\d+, %r\\d+, %r\\d+,"
                    + " %r\\d+\\}, \\[%r\\d+\\];")
            .matcher(p);
    assertTrue(m.find(), p);
    assertFalse(m.find(), "exactly one ldmatrix: " + p);
    assertFalse(p.contains("ld.shared"), "no scalar shared loads left: " + p);
  }

  @Test
  void divisionByAPowerOfTwoIsShifts() {
    String p = body(ptx(ArithKernels.class, "powerOfTwoDivision"));
    // Only x / -64, x % 63 and nothing else: every power-of-two divisor became shifts.
    assertEquals(1, count(p, "div.s32 "), p);
    assertEquals(1, count(p, "rem.s32 "), p);
    assertFalse(p.contains("div.s64") || p.contains("rem.s64"), p);
    assertTrue(p.contains("shr.u32 ") && p.contains("shr.s64 "), p);
    assertTrue(Pattern.compile("and\\.b32 %r\\d+, %r\\d+, 7;").matcher(p).find(), p);
  }

  @Test
  void specializationRemovesDeadThrowAndFoldsDivisions() {
    var m = TestKernels.method(SpecializeKernels.class, "unpack");
    String p = body(KernelCompiler.compile(m, Map.of("bits", 4), Target.sm90()).ptx());
    assertFalse(p.contains("trap"), p);
    // 32 / bits folded to 8, and i / 8, i % 8 then became shifts (PowerOfTwoDivision).
    assertTrue(Pattern.compile("shr\\.s32 %r\\d+, %r\\d+, 3;").matcher(p).find(), p);
    assertTrue(p.contains(", -8;"), p);
    assertFalse(p.contains("div.s32") || p.contains("rem.s32"), p);
    assertTrue(Pattern.compile("and\\.b32 %r\\d+, %r\\d+, 15;").matcher(p).find(), p);
  }

  @Test
  void versionTargetAndEntryName() {
    String p90 = ptx(GoldenKernels.class, "mulAdd", Target.sm90());
    assertTrue(p90.contains(".version 8.0\n.target sm_90\n.address_size 64"), p90);
    String p80 = ptx(GoldenKernels.class, "mulAdd", Target.sm80());
    assertTrue(p80.contains(".target sm_80"), p80);
    var m = TestKernels.method(GoldenKernels.class, "mulAdd");
    CompiledKernel k = KernelCompiler.compile(m, Map.of(), Target.sm90());
    assertTrue(k.entryName().matches("GoldenKernels_mulAdd_[0-9a-f]{8}"), k.entryName());
    assertTrue(k.ptx().contains(".visible .entry " + k.entryName() + "("));
  }

  @Test
  void lineInfoOnlyWhenAsked() {
    var m = TestKernels.method(GoldenKernels.class, "mulAdd");
    String off = KernelCompiler.compile(m, Map.of(), Target.sm90()).ptx();
    assertFalse(off.contains(".loc"), off);
    String on =
        KernelCompiler.compile(
                m, Map.of(), Target.sm90(), CompileOptions.defaults().withLineInfo(true))
            .ptx();
    assertTrue(on.contains(".file 1 \"sirocco/jit/testkernels/GoldenKernels.java\""), on);
    assertTrue(Pattern.compile("\\.loc 1 \\d+ 0").matcher(on).find(), on);
    PtxValidator.validate(on, "sm_90");
  }

  @Test
  void dumpAfterAPass() {
    var m = TestKernels.method(GoldenKernels.class, "mulAdd");
    List<String> dumps = new ArrayList<>();
    KernelCompiler.compile(
        m,
        Map.of(),
        Target.sm90(),
        CompileOptions.defaults().withDumpAfter(Set.of("fold", "ptx"), dumps::add));
    assertEquals(2, dumps.size(), "fold, then the PTX: " + dumps);
    assertTrue(dumps.get(0).startsWith("=== IR after fold"), dumps.get(0));
    assertTrue(dumps.get(1).startsWith("=== PTX of "), dumps.get(1));
  }

  @Test
  void constantTripLoopsAreUnrolledWithFoldedOffsets() {
    String p = body(ptx(GoldenKernels.class, "unrolled"));
    assertFalse(Pattern.compile("@%p\\d+ bra \\$B1;").matcher(p).find(), p);
    assertEquals(4, count(p, "ld.global.f32"), p);
    assertTrue(p.contains("+4];") && p.contains("+8];") && p.contains("+12];"), p);
    var m = TestKernels.method(GoldenKernels.class, "unrolled");
    String rolled =
        body(
            KernelCompiler.compile(
                    m,
                    Map.of("tile", 4),
                    Target.sm90(),
                    CompileOptions.defaults().withUnroll(false))
                .ptx());
    assertEquals(1, count(rolled, "ld.global.f32"), rolled);
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void globalTimerIsReadWithMovU64AndNeverMerged() {
    String p = ptx(AtomicKernels.class, "waitForFlag");
    Matcher m = Pattern.compile("mov\\.u64\\s+%\\w+, %globaltimer").matcher(p);
    int reads = 0;
    while (m.find()) {
      reads++;
    }
    assertTrue(reads >= 2, "the start read and the loop read stay separate: " + p);
  }

  /**
   * Chained warpgroup products accumulate in the same registers, with no copy between them (a copy
   * of accumulators in flight makes ptxas serialize every product, C7514), and ask for sm_90a.
   */
  @Test
  void warpgroupProductsAccumulateInPlace() {
    String ptx = ptx(WgmmaKernels.class, "chain");
    assertTrue(ptx.contains("\n.target sm_90a\n"), ptx);
    String p = body(ptx);
    assertEquals(3, count(p, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), p);
    String between = p.substring(p.indexOf("wgmma.mma_async"), p.lastIndexOf("wgmma.mma_async"));
    assertFalse(between.contains("mov.f32"), between);
    // The accumulator operands of the three products are the same 64 registers.
    Matcher m = Pattern.compile("wgmma\\.mma_async[^{]*(\\{[^}]*\\})").matcher(p);
    Set<String> accumulators = new java.util.HashSet<>();
    while (m.find()) {
      accumulators.add(m.group(1));
    }
    assertEquals(1, accumulators.size(), p);
    assertEquals(1, count(p, "wgmma.fence.sync.aligned"), p);
    assertEquals(1, count(p, "wgmma.commit_group.sync.aligned"), p);
    assertEquals(1, count(p, "wgmma.wait_group.sync.aligned 0"), p);
    assertEquals(1, count(p, "fence.proxy.async.shared::cta"), p);
  }

  /** An accumulator read after the product is copied first: the product must not overwrite it. */
  @Test
  void aWarpgroupAccumulatorStillReadIsCopied() {
    String p = body(ptx(WgmmaKernels.class, "keep"));
    String before = p.substring(p.indexOf("wgmma.wait_group"), p.lastIndexOf("wgmma.mma_async"));
    assertEquals(64, count(before, "mov.f32"), before);
  }

  /**
   * A product inside a loop whose accumulator input is defined before the loop is copied too: in
   * place, the second iteration would read the first one's result.
   */
  @Test
  void aLoopInvariantWarpgroupAccumulatorIsCopied() {
    String p = body(ptx(WgmmaKernels.class, "invariant"));
    String before = p.substring(p.indexOf("wgmma.wait_group"), p.lastIndexOf("wgmma.mma_async"));
    assertEquals(64, count(before, "mov.f32"), before);
  }

  /** ptxas (JCuda's, CUDA 12.0) takes the warpgroup PTX for sm_90a without serializing it. */
  @Test
  void ptxasKeepsWarpgroupProductsAsynchronous() {
    // Not "invariant": ptxas serializes products whose accumulators are copied in a loop (C7514),
    // the price of the copy that keeps C intact there.
    for (String k : List.of("chain", "keep")) {
      var m = TestKernels.method(WgmmaKernels.class, k);
      PtxResources r =
          PtxValidator.validate(
              KernelCompiler.compile(m, KernelCompiler.validationSets(m).get(0), Target.sm90()));
      assertFalse(r.log().contains("serialized"), k + ": " + r.log());
    }
  }

  @Test
  void warpgroupProductsAreRefusedOffSm90() {
    var m = TestKernels.method(WgmmaKernels.class, "chain");
    KernelCompileException e =
        assertThrows(
            KernelCompileException.class,
            () ->
                KernelCompiler.compile(m, KernelCompiler.validationSets(m).get(0), Target.sm80()));
    assertTrue(e.getMessage().contains("sm_90; the target is sm_80"), e.getMessage());
  }
}
