package sirocco.jit.pass;

import java.util.HashMap;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Errors;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.SharedSite;
import sirocco.jit.ir.Space;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.WgmmaKind;

/**
 * Decides the address space of every array reference (parameters are global, {@code
 * ctx.allocate*LocalArray} results shared, and a phi mixing both is generic) and lays out the
 * shared arrays, whose lengths must be constants by now: in the order they are met, each at the
 * next 16-byte boundary (1024 in a kernel that copies tiles or reads swizzled tiles: see {@link
 * PassContext#sharedAlign}). Up to 48 KiB in all they are static {@code .shared} arrays; above that
 * (ptxas refuses more static shared memory) they are placed at those offsets in one dynamic shared
 * window, up to the target's opt-in limit ({@code Target.maxSharedBytesPerBlock}), and the kernel
 * must be launched with that many dynamic bytes.
 */
public final class Memory implements Pass {
  /** Largest static shared memory a kernel may declare (48 KiB, the limit without opt-in). */
  public static final long MAX_STATIC_SHARED = 48 * 1024;

  @Override
  public String name() {
    return "memory";
  }

  private static boolean swizzles(Function fn) {
    for (int k = 0, m = fn.blocks.size(); k < m; k++) {
      for (Inst i : fn.blocks.get(k).insts) {
        if (i.op == Op.TILE_COPY
            || (i.op == Op.WGMMA && i.aux instanceof WgmmaKind w && w.swizzled())) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    Map<SharedSite, Long> lengths = new HashMap<>();
    long total = 0;
    Inst over = null; // the allocation whose array first ends past the target's limit
    int align = swizzles(fn) ? 1024 : 16;
    for (int k = 0, m = fn.blocks.size(); k < m; k++) {
      Block b = fn.blocks.get(k);
      for (int j = 0, len = b.insts.size(); j < len; j++) {
        Inst i = b.insts.get(j);
        if (i.op == Op.PARAM && i.type.isArray()) {
          i.space = Space.GLOBAL;
        } else if (i.op == Op.SHARED_ALLOC) {
          i.space = Space.SHARED;
          SharedSite site = (SharedSite) i.aux;
          String call =
              "ctx.allocate"
                  + switch (site.elem()) {
                    case FLOAT -> "Float";
                    case INT -> "Int";
                    case SHORT -> "Short";
                    case LONG -> "Long";
                    default -> "Byte";
                  }
                  + "LocalArray";
          if (!(i.args[0] instanceof Const c)) {
            throw Errors.at(
                i.pos,
                "the length of "
                    + call
                    + "(n) must be a compile-time constant after specialization (a literal, a"
                    + " static final constant, or an expression of @Specialize parameters)");
          }
          int n = c.asInt();
          if (n <= 0) {
            throw Errors.at(i.pos, "the length of " + call + "(" + n + ") must be positive");
          }
          Long prev = lengths.putIfAbsent(site, (long) n);
          if (prev != null && prev != n) {
            throw Errors.at(
                i.pos,
                "the allocation site "
                    + call
                    + " is reached with two lengths ("
                    + prev
                    + " and "
                    + n
                    + "); every thread of a block shares one array per allocation site");
          }
          if (prev == null) {
            long bytes = (long) n * site.elem().size;
            long offset = (total + align - 1) & -align;
            ctx.sharedBytes.put(site, bytes);
            ctx.sharedOffsets.put(site, offset);
            total = offset + bytes;
            if (over == null && total > ctx.maxSharedBytes) {
              over = i;
            }
          }
        }
      }
    }
    if (over != null) {
      // Reported at the first array that does not fit, with what all of them need.
      throw Errors.at(
          over.pos,
          "the kernel's shared arrays need "
              + total
              + " bytes, more than the "
              + ctx.maxSharedBytes
              + " bytes of shared memory a block may use on "
              + ctx.arch
              + (ctx.maxSharedBytes > MAX_STATIC_SHARED
                  ? " (arrays above 48 KiB in all are dynamic shared memory, opted in up to this"
                      + " limit)"
                  : " (48 KiB: no larger opt-in limit is known for it)"));
    }
    ctx.sharedTotal = total;
    ctx.sharedAlign = align;
    ctx.dynamicShared = total > MAX_STATIC_SHARED;
    // Phis of arrays: join the spaces of their arguments until nothing changes.
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int k = 0, m = fn.blocks.size(); k < m; k++) {
        Block b = fn.blocks.get(k);
        for (int j = 0, len = b.phis.size(); j < len; j++) {
          Inst p = b.phis.get(j);
          if (!p.type.isArray()) {
            continue;
          }
          Space s = p.space;
          for (Value a : p.args) {
            if (a instanceof Inst x && x.space != null) {
              s = s == null ? x.space : s.join(x.space);
            }
          }
          if (s != p.space) {
            p.space = s;
            changed = true;
          }
        }
      }
    }
    for (int q = 0, cnt = fn.blocks.size(); q < cnt; q++) {
      Block b = fn.blocks.get(q);
      for (int u = 0, n2 = b.phis.size(); u < n2; u++) {
        Inst p = b.phis.get(u);
        if (p.type.isArray() && p.space == null) {
          p.space = Space.GLOBAL; // only undefined inputs: any space will do
        }
      }
    }
  }
}
