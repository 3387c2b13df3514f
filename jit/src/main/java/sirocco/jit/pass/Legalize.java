package sirocco.jit.pass;

import sirocco.jit.ir.BarrierKind;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Errors;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.MbarrierOp;
import sirocco.jit.ir.MmaKind;
import sirocco.jit.ir.Space;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.VecAccess;
import sirocco.jit.ir.WgmmaKind;

/**
 * Rejects what is still unsupported after specialization and dead-code elimination: reachable traps
 * (unsupported constructs found by the front end), functions with no PTX mapping, and asynchronous
 * copies whose operands {@code cp.async} cannot take, matrix loads from anything but shared memory
 * and warpgroup products off sm_90 or with operands {@code wgmma} cannot take (checked here because
 * constants and address spaces are known only now).
 */
public final class Legalize implements Pass {
  /**
   * Largest {@code Vec.waitAsync} count (8 groups in flight). The PTX ISA says only that N is "an
   * integer constant", and ptxas 12.0 (JCuda's nvPTXCompiler) accepted every value tried, up to
   * 1000, for sm_80 and sm_90; what the hardware's dependency counter does with large counts has
   * not been checked (no disassembler here), so the API keeps to a range that deep pipelines need
   * and {@code Vec.waitAsync}'s Java body enforces the same.
   */
  public static final int MAX_PENDING_GROUPS = 7;

  private static final String CONSTANT =
      "a compile-time constant after specialization (a literal, a static final constant, or an"
          + " expression of @Specialize parameters)";

  @Override
  public String name() {
    return "legalize";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    for (Block b : fn.reversePostOrder()) {
      for (int k = 0, n = b.insts.size(); k < n; k++) {
        Inst i = b.insts.get(k);
        switch (i.op) {
          case TRAP -> throw Errors.at(i.pos, (String) i.aux);
          case CALL -> throw Errors.at(i.pos, "call to " + i.aux + " was not inlined");
          case MATH -> {
            if (i.aux == MathFn.EXP_D) {
              throw Errors.at(
                  i.pos,
                  "Math.exp on a double value is not supported in kernels; write (float)"
                      + " Math.exp(floatValue) (float accuracy, within 2 ulp) or"
                      + " Intrinsics.exp2(x * 1.442695f) (approximate)");
            }
          }
          case COPY_ASYNC -> copyAsync(i);
          case TILE_COPY -> tileCopy(i, ctx.arch);
          case MBARRIER -> {
            String call = "Mbarrier." + ((MbarrierOp) i.aux).method + "(long[] bars, index, ...)";
            requireSm90(i, ctx.arch, call);
            requireShared(i, 0, "the bars array of ", call, "barriers live in shared memory");
          }
          case LOAD_VEC -> {
            if (((VecAccess) i.aux).matrix()) {
              loadMatrix(i);
            }
          }
          case WGMMA -> warpgroupMma(i, ctx.arch);
          case BARRIER -> {
            if (i.aux == BarrierKind.ASYNC_WAIT) {
              waitAsync(i);
            } else if (i.aux == BarrierKind.WG_WAIT) {
              warpgroupWait(i, ctx.arch);
            } else if (i.aux == BarrierKind.WG_FENCE || i.aux == BarrierKind.WG_COMMIT) {
              requireHopper(i, ctx.arch, "ctx.warpgroupFence() and ctx.warpgroupCommit()");
            } else if (i.aux == BarrierKind.MBARRIER_INIT) {
              requireSm90(i, ctx.arch, "Mbarrier.fenceInit()");
            } else if (i.aux == BarrierKind.PROXY_ASYNC && !ctx.arch.startsWith("sm_9")) {
              throw Errors.at(
                  i.pos,
                  "ctx.fenceSharedAsync() (fence.proxy.async) needs sm_90; the target is "
                      + ctx.arch);
            }
          }
          default -> {}
        }
      }
    }
  }

  private static void copyAsync(Inst i) {
    String elem = i.args[0].type().elem.javaName();
    String call =
        "Vec.copyAsync(" + elem + "[] dst, dstIndex, " + elem + "[] src, srcIndex, bytes)";
    if (!(i.args[4] instanceof Const c)) {
      throw Errors.at(
          i.pos, "the bytes argument of " + call + " must be " + CONSTANT + ": 4, 8 or 16");
    }
    int bytes = c.asInt();
    if (bytes != 4 && bytes != 8 && bytes != 16) {
      throw Errors.at(
          i.pos, call + " copies 4, 8 or 16 bytes (cp.async cp-size), not " + bytes + " bytes");
    }
    requireShared(i, 0, "the dst array of ", call, "cp.async copies global to shared memory");
    Space src = space(i.args[2]);
    if (src != Space.GLOBAL) {
      throw Errors.at(
          i.pos,
          "the src array of "
              + call
              + " must be a kernel parameter array (cp.async copies global to shared memory), but"
              + " it is "
              + describe(src));
    }
    int size = i.args[0].type().elem.size;
    aligned(i, call, "dstIndex", i.args[1], size, bytes, "copies");
    aligned(i, call, "srcIndex", i.args[3], size, bytes, "copies");
  }

  private static void tileCopy(Inst i, String arch) {
    String elem = i.args[0].type().elem.javaName();
    String call = "Vec.copyTileAsync(" + elem + "[] dst, dstIndex, map, col, row, bars, bar)";
    requireSm90(i, arch, call);
    requireShared(i, 0, "the dst array of ", call, "the tensor copy writes shared memory");
    requireShared(i, 5, "the bars array of ", call, "barriers live in shared memory");
    Space map = space(i.args[2]);
    if (map != Space.GLOBAL) {
      throw Errors.at(
          i.pos,
          "the map of "
              + call
              + " must be a kernel parameter (a tile map from Device.tileMap), but it is "
              + describe(map));
    }
    aligned(i, call, "dstIndex", i.args[1], i.args[0].type().elem.size, 128, "copies");
  }

  /**
   * Refuses {@code i} below sm_90: transaction counts on barriers and tensor copies are Hopper's
   * (plain {@code mbarrier} exists from sm_80, but nothing here uses it without them).
   */
  private static void requireSm90(Inst i, String arch, String call) {
    if (Integer.parseInt(arch.substring(3).replaceAll("\\D+$", "")) < 90) {
      throw Errors.at(
          i.pos,
          call
              + " needs sm_90 (tensor memory accelerator and transaction barriers); the target is "
              + arch
              + ": select another kernel there");
    }
  }

  private static void loadMatrix(Inst i) {
    String elem = i.args[0].type().elem.javaName();
    String call = "ctx.loadMatrixX4(" + elem + "[] shared, index)";
    requireShared(i, 0, "the array of ", call, "ldmatrix reads shared memory only");
    aligned(i, call, "index", i.args[1], i.args[0].type().elem.size, 16, "matrix rows");
  }

  /**
   * Refuses argument {@code arg} of {@code i} unless it is a shared array, naming the call and why.
   */
  private static void requireShared(Inst i, int arg, String which, String call, String why) {
    Space sp = space(i.args[arg]);
    if (sp != Space.SHARED) {
      String elem = i.args[arg].type().elem.javaName();
      throw Errors.at(
          i.pos,
          which
              + call
              + " must be a shared array from ctx.allocate"
              + Character.toUpperCase(elem.charAt(0))
              + elem.substring(1)
              + "LocalArray ("
              + why
              + "), but it is "
              + describe(sp));
    }
  }

  /** A constant index that is not a multiple of the access (the GPU would fault). */
  private static void aligned(
      Inst i, String call, String name, Value index, int size, int bytes, String what) {
    if (index instanceof Const c && ((long) c.asInt() * size) % bytes != 0) {
      throw Errors.at(
          i.pos,
          "the "
              + name
              + " of "
              + call
              + " is "
              + c.asInt()
              + ", not a multiple of "
              + bytes / size
              + ": "
              + bytes
              + "-byte "
              + what
              + " must start at a multiple of "
              + bytes
              + " bytes");
    }
  }

  private static Space space(Value arr) {
    return arr instanceof Inst x && x.space != null ? x.space : Space.GLOBAL;
  }

  private static String describe(Space s) {
    return switch (s) {
      case GLOBAL -> "a kernel parameter (global memory)";
      case SHARED -> "a shared array";
      case GENERIC -> "a merge of a parameter and a shared array (generic address)";
    };
  }

  /**
   * A warpgroup product: sm_90 only ({@code wgmma} exists on sm_90a and nowhere else), B in shared
   * memory at a 16-byte row, constant core-matrix offsets that the descriptor can hold.
   */
  private static void warpgroupMma(Inst i, String arch) {
    if (((WgmmaKind) i.aux).swizzled()) {
      swizzledProduct(i, arch);
      return;
    }
    String call = "ctx.warpgroupMma(a, short[] b, bIndex, lbo, sbo, c)";
    requireHopper(i, arch, call);
    // After record replacement: a0..a3, b, bIndex, lbo, sbo, c0..c63.
    requireShared(i, 4, "the b array of ", call, "wgmma reads B from shared memory");
    aligned(i, call, "bIndex", i.args[5], 2, 16, "core-matrix rows");
    String[] names = {"lbo", "sbo"};
    for (int k = 0; k < 2; k++) {
      if (!(i.args[6 + k] instanceof Const c)) {
        throw Errors.at(
            i.pos,
            "the " + names[k] + " argument of " + call + " must be " + CONSTANT + " (bytes)");
      }
      int v = c.asInt();
      if (v <= 0 || v % 16 != 0 || v >= 1 << 18) {
        throw Errors.at(
            i.pos,
            "the "
                + names[k]
                + " argument of "
                + call
                + " must be a positive multiple of 16 below 2^18 bytes (the descriptor holds bits"
                + " 4..17), not "
                + v);
      }
    }
  }

  /** As {@link #warpgroupMma} for B in swizzled rows: a constant swizzle of 32, 64 or 128. */
  private static void swizzledProduct(Inst i, String arch) {
    String call =
        "ctx.warpgroupMma"
            + (((WgmmaKind) i.aux).mma() == MmaKind.F16 ? "F16" : "Bf16")
            + "Swizzled(a, short[] b, bIndex, swizzle, c)";
    requireHopper(i, arch, call);
    requireShared(i, 4, "the b array of ", call, "wgmma reads B from shared memory");
    aligned(i, call, "bIndex", i.args[5], 2, 16, "16-byte chunks");
    if (!(i.args[6] instanceof Const c)
        || (c.asInt() != 32 && c.asInt() != 64 && c.asInt() != 128)) {
      throw Errors.at(
          i.pos,
          "the swizzle argument of "
              + call
              + " must be "
              + CONSTANT
              + ": 32, 64 or 128 (bytes per row of the swizzled tile)");
    }
  }

  private static void requireHopper(Inst i, String arch, String call) {
    if (!arch.equals("sm_90")) {
      throw Errors.at(
          i.pos,
          call
              + " compiles to wgmma, which exists on sm_90 (Hopper) only; the target is "
              + arch
              + ": select another kernel there");
    }
  }

  private static void warpgroupWait(Inst i, String arch) {
    requireHopper(i, arch, "ctx.warpgroupWait(pending)");
    if (!(i.args[0] instanceof Const c) || c.asInt() < 0 || c.asInt() > MAX_PENDING_GROUPS) {
      throw Errors.at(
          i.pos,
          "the pending argument of ctx.warpgroupWait(pending) must be "
              + CONSTANT
              + ": 0 to "
              + MAX_PENDING_GROUPS);
    }
  }

  private static void waitAsync(Inst i) {
    String call = "Vec.waitAsync(pendingGroups)";
    if (!(i.args[0] instanceof Const c)) {
      throw Errors.at(
          i.pos,
          "the pendingGroups argument of "
              + call
              + " must be "
              + CONSTANT
              + ": 0 to "
              + MAX_PENDING_GROUPS);
    }
    int n = c.asInt();
    if (n < 0 || n > MAX_PENDING_GROUPS) {
      throw Errors.at(
          i.pos,
          call
              + " takes 0 to "
              + MAX_PENDING_GROUPS
              + " pending groups (cp.async.wait_group N), not "
              + n);
    }
  }
}
