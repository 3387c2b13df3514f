package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import sirocco.jit.ir.BarrierKind;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.VecAccess;
import sirocco.jit.testutil.Geometry;
import sirocco.jit.testutil.Inputs;
import sirocco.jit.testutil.IrInterpreter;
import sirocco.jit.testutil.SeqContext;

/**
 * Runs every test kernel whose threads do not communicate twice on the CPU, once as Java and once
 * as the compiler's final IR (through {@link IrInterpreter}), on the same inputs, and compares
 * every output element bit for bit (any NaN equals any NaN; {@code (float) Math.exp} may differ by
 * one ulp, the documented bound of the GPU sequence). This checks the front end (SSA, stack merges,
 * slot reuse, switches), inlining, records, specialization, folding, unrolling and CSE by
 * execution; the PTX emitter is covered by the golden tests and ptxas validation.
 */
class DifferentialIrTest {
  private static final List<String> EXPECTED_SEQUENTIAL =
      List.of(
          "ArithKernels.intOps",
          "ArithKernels.longOps",
          "ArithKernels.powerOfTwoDivision",
          "ArithKernels.floatOps",
          "ArithKernels.doubleOps",
          "ArithKernels.compares",
          "ArithKernels.smallTypes",
          "ConvKernels.conversions",
          "ControlKernels.loops",
          "ControlKernels.switches",
          "ControlKernels.stackMerges",
          "ControlKernels.slotReuse",
          "ControlKernels.earlyExit",
          "MemoryKernels.elementTypes",
          "VectorKernels.vectors",
          "RecordKernels.records",
          "MathKernels.floatMath",
          "MathKernels.doubleMath",
          "MathKernels.bits",
          "MathKernels.approx",
          "MathKernels.halfPairFma",
          "MathKernels.bytePermute",
          "SpecializeKernels.unpack",
          "SpecializeKernels.scaled",
          "ScalarParamKernels.scalars",
          "WarpKernels.contextFields",
          "WarpKernels.contextFields3d",
          "AtomicKernels.volatileRead",
          "AsyncCopyKernels.asyncOwnPipeline");

  /**
   * No barrier, shuffle or mma: asynchronous-copy commits and waits (BARRIER instructions too)
   * order a thread's own accesses only.
   */
  private static boolean sequential(Function fn) {
    for (Block b : fn.blocks) {
      for (Inst i : b.insts) {
        boolean asyncGroup = i.aux == BarrierKind.ASYNC_COMMIT || i.aux == BarrierKind.ASYNC_WAIT;
        boolean ldmatrix = i.op == Op.LOAD_VEC && ((VecAccess) i.aux).matrix();
        if ((i.op == Op.BARRIER && !asyncGroup) || i.op == Op.SHFL || i.op == Op.MMA || ldmatrix) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void theSequentialKernelsAreCovered() {
    List<String> seen = new ArrayList<>();
    for (TestKernels.Case c : TestKernels.cases()) {
      var r =
          KernelCompiler.compileWithIr(
              c.method(), c.specs(), Target.sm90(), CompileOptions.defaults());
      if (sequential(r.ir())) {
        seen.add(c.method().getDeclaringClass().getSimpleName() + "." + c.method().getName());
      }
    }
    assertTrue(seen.containsAll(EXPECTED_SEQUENTIAL), "covered: " + seen);
  }

  @TestFactory
  Stream<DynamicTest> irMatchesJava() {
    List<DynamicTest> tests = new ArrayList<>();
    for (TestKernels.Case c : TestKernels.cases()) {
      for (boolean unroll : new boolean[] {true, false}) {
        tests.add(
            DynamicTest.dynamicTest(
                c.label() + (unroll ? "" : " (no unroll)"),
                () -> {
                  var r =
                      KernelCompiler.compileWithIr(
                          c.method(),
                          c.specs(),
                          Target.sm90(),
                          CompileOptions.defaults().withUnroll(unroll));
                  if (!sequential(r.ir())) {
                    return;
                  }
                  compare(c, r.ir());
                }));
      }
    }
    return tests.stream();
  }

  private static void compare(TestKernels.Case c, Function ir) throws Exception {
    Object[] args = Inputs.forKernel(c.method(), c.specs(), 42);
    Object[] javaArgs = Inputs.copy(args);
    Object[] irArgs = Inputs.copy(args);
    Geometry g = GpuCaseExporter.launch(c.method(), c.specs());
    SeqContext ctx = new SeqContext();
    javaArgs[0] = ctx;
    IrInterpreter interp = new IrInterpreter(ir);
    for (int b = 0; b < g.blocks(); b++) {
      ctx.newBlock();
      interp.newBlock();
      for (int t = 0; t < g.blockThreads(); t++) {
        ctx.at(g, b, t);
        try {
          c.method().invoke(null, javaArgs);
        } catch (InvocationTargetException e) {
          throw new AssertionError(
              "Java run failed at thread " + t + " of block " + b + " of " + g, e.getCause());
        }
        interp.run(irArgs, g, b, t);
      }
    }
    for (int a = 1; a < args.length; a++) {
      if (args[a] == null || !args[a].getClass().isArray()) {
        continue;
      }
      Object x = javaArgs[a];
      Object y = irArgs[a];
      int n = Array.getLength(x);
      for (int k = 0; k < n; k++) {
        Object p = Array.get(x, k);
        Object q = Array.get(y, k);
        if (!same(p, q, ulps(c, a, k))) {
          fail(
              c.label()
                  + ": argument "
                  + c.method().getParameters()[a].getName()
                  + "["
                  + k
                  + "] is "
                  + q
                  + " from the IR but "
                  + p
                  + " from Java");
        }
      }
    }
  }

  /** Allowed difference in ulps: (float) Math.exp goes through the GPU's f32 sequence. */
  private static int ulps(TestKernels.Case c, int arg, int k) {
    if (c.method().getName().equals("floatMath") && arg == 3 && k % 20 == 11) {
      return 1;
    }
    if (c.method().getName().equals("floatSqrtDivExp")) {
      return 2; // sqrt(x) / exp(x): exp's ulp, plus the rounding of the quotient
    }
    return 0;
  }

  private static boolean same(Object p, Object q, int ulps) {
    if (p instanceof Float f && q instanceof Float g) {
      if (f.isNaN() || g.isNaN()) {
        return f.isNaN() && g.isNaN();
      }
      return Math.abs(Float.floatToRawIntBits(f) - (long) Float.floatToRawIntBits(g)) <= ulps;
    }
    if (p instanceof Double f && q instanceof Double g) {
      if (f.isNaN() || g.isNaN()) {
        return f.isNaN() && g.isNaN();
      }
      return Double.doubleToRawLongBits(f) == Double.doubleToRawLongBits(g);
    }
    return p.equals(q);
  }
}
