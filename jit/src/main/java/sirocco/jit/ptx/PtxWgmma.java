package sirocco.jit.ptx;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MmaKind;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.WgmmaKind;
import sirocco.jit.ptx.PtxEmitter.Cls;

/**
 * Emission of warpgroup products ({@code wgmma.mma_async}, sm_90a).
 *
 * <p>The accumulators are written in place. A product in flight owns its accumulator registers
 * until the warpgroup waits for it, and ptxas serializes every product of a kernel (C7514, "non
 * wgmma instructions reading accumulator registers ... between start and end of the pipeline
 * stage") if a copy reads them in between: the SSA form's copy of C into fresh D registers before
 * each chained product is exactly such a read. So D takes C's registers wherever C's value is dead
 * after the product (no use reachable from it without passing C's definition again), which is the
 * case for every accumulator threaded through a loop; only a C still read afterwards is copied
 * first.
 */
final class PtxWgmma {
  private PtxWgmma() {}

  /**
   * Where an instruction reads a value: a block and an index (phi reads: the predecessor's end).
   */
  record Use(Block block, int index) {}

  static void emit(PtxEmitter em, Inst i, Map<Inst, List<Use>> uses) {
    WgmmaKind wk = (WgmmaKind) i.aux;
    MmaKind kind = wk.mma();
    String[] a = new String[4];
    for (int n = 0; n < 4; n++) {
      a[n] = em.reg(i.args[n]);
    }
    String desc =
        wk.swizzled()
            ? descriptor(em, i.args[4], i.args[5], swizzledFields(((Const) i.args[6]).asInt()))
            : descriptor(
                em, i.args[4], i.args[5], coreFields((Const) i.args[6], (Const) i.args[7]));
    int wIndex = i.block.insts.indexOf(i);
    String[] d = new String[64];
    Set<String> taken = new HashSet<>();
    for (int n = 0; n < 64; n++) {
      Value c = i.args[8 + n];
      if (c instanceof Inst x && deadAfter(i, wIndex, x, uses) && taken.add(em.name(x))) {
        d[n] = em.name(x);
      } else {
        d[n] = em.fresh(Cls.F32);
        em.line("mov.f32 ", d[n], ", ", em.op(c));
      }
    }
    em.tuples.put(i, d);
    em.line(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.",
        kind.ptx,
        ".",
        kind.ptx,
        " {",
        String.join(", ", d),
        "}, {",
        String.join(", ", a),
        "}, ",
        desc,
        ", 1, 1, 1, 0");
  }

  /**
   * The 64-bit shared-memory matrix descriptor of B: bits 0-13 the start address / 16, and the
   * constant {@code fields} above them.
   */
  private static String descriptor(PtxEmitter em, Value arr, Value idx, long fields) {
    String base = em.reg(arr);
    String addr = em.fresh(Cls.R32);
    if (idx instanceof Const c) {
      em.line("add.u32 ", addr, ", ", base, ", ", 2L * c.asInt());
    } else {
      em.line("mad.lo.u32 ", addr, ", ", em.reg(idx), ", 2, ", base);
    }
    String field = em.fresh(Cls.R32);
    em.line("bfe.u32 ", field, ", ", addr, ", 4, 14");
    String desc = em.fresh(Cls.R64);
    em.line("cvt.u64.u32 ", desc, ", ", field);
    em.line("or.b64 ", desc, ", ", desc, ", ", fields);
    return desc;
  }

  /** Core matrices: bits 16-29 the leading (k) byte offset / 16, 32-45 the stride (n) one. */
  private static long coreFields(Const lbo, Const sbo) {
    return ((long) (lbo.asInt() >> 4) << 16) | ((long) (sbo.asInt() >> 4) << 32);
  }

  /**
   * Swizzled K-major rows of {@code swizzle} bytes, 8-row groups one after another: the stride byte
   * offset is the group's {@code 8 swizzle} bytes; the leading one is unused for K-major swizzled B
   * (a k16 slice never leaves its row) and holds 1, as CUTLASS writes it; bits 62-63 the layout (1:
   * 128-byte swizzle, 2: 64, 3: 32); base offset 0 (the compiler aligns the arrays to the pattern's
   * 1024 bytes).
   */
  private static long swizzledFields(int swizzle) {
    long layout =
        switch (swizzle) {
          case 128 -> 1;
          case 64 -> 2;
          default -> 3;
        };
    return (1L << 16) | ((long) (8 * swizzle >> 4) << 32) | (layout << 62);
  }

  /** Every read of every instruction's value, for {@link #deadAfter}. */
  static Map<Inst, List<Use>> uses(Function fn) {
    Map<Inst, List<Use>> uses = new IdentityHashMap<>();
    for (Block b : fn.blocks) {
      for (Inst p : b.phis) {
        for (int k = 0; k < p.args.length; k++) {
          if (p.args[k] instanceof Inst x) {
            uses.computeIfAbsent(x, z -> new ArrayList<>())
                .add(new Use(b.preds.get(k), Integer.MAX_VALUE));
          }
        }
      }
      for (int q = 0; q < b.insts.size(); q++) {
        for (Value v : b.insts.get(q).args) {
          if (v instanceof Inst x) {
            uses.computeIfAbsent(x, z -> new ArrayList<>()).add(new Use(b, q));
          }
        }
      }
    }
    return uses;
  }

  /**
   * Whether no read of {@code v} other than {@code w}'s own is reachable from {@code w} without
   * passing {@code v}'s definition again (entering its block redefines it: SSA reads in that block
   * come after the definition, phi reads count at a predecessor's end).
   */
  private static boolean deadAfter(Inst w, int wIndex, Inst v, Map<Inst, List<Use>> uses) {
    List<Use> us = uses.getOrDefault(v, List.of());
    Set<Block> withUse = new HashSet<>();
    for (Use u : us) {
      if (u.block() == w.block && u.index() == wIndex) {
        // The product's own read: harmless now, but a path back to this block that does not pass
        // v's definition (a loop around the product, v defined outside it) reads v again there.
        withUse.add(w.block);
        continue;
      }
      if (u.block() == w.block && u.index() > wIndex) {
        return false;
      }
      withUse.add(u.block());
    }
    Set<Block> seen = new HashSet<>();
    ArrayDeque<Block> work = new ArrayDeque<>(w.block.succs);
    while (!work.isEmpty()) {
      Block x = work.poll();
      if (x == v.block || !seen.add(x)) {
        continue;
      }
      if (withUse.contains(x)) {
        return false;
      }
      work.addAll(x.succs);
    }
    return true;
  }
}
