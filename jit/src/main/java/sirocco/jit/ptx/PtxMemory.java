package sirocco.jit.ptx;

import java.util.ArrayList;
import java.util.List;
import sirocco.jit.ir.AtomicOp;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Elem;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MbarrierOp;
import sirocco.jit.ir.MemFlavor;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Space;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.VecAccess;
import sirocco.jit.ptx.PtxEmitter.Cls;

/**
 * Instruction selection for memory: element addresses (computed once per block, constant index
 * parts folded into the operand), loads and stores in each state space, vector accesses and
 * atomics. Static helpers of {@link PtxEmitter}, which owns the registers, the text and the
 * per-block address cache.
 */
final class PtxMemory {
  private PtxMemory() {}

  /** A key of the emitter's per-block address cache ({@link PtxEmitter#addresses}). */
  static final class AddrKey {
    final Value arr;
    final Value base;
    final int size;

    AddrKey(Value arr, Value base, int size) {
      this.arr = arr;
      this.base = base;
      this.size = size;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof AddrKey k && k.arr == arr && k.base.equals(base) && k.size == size;
    }

    @Override
    public int hashCode() {
      return (System.identityHashCode(arr) * 31 + base.hashCode()) * 31 + size;
    }
  }

  /**
   * The address of {@code arr[idx]} as a PTX memory operand, emitting any arithmetic needed. A
   * constant part of the index ({@code i + 3}) becomes the operand's immediate offset and the rest
   * is computed once per block: an index that wraps around in 32 bits is out of bounds in Java
   * anyway (and undefined on the GPU), so 64-bit offset arithmetic gives the same address for every
   * valid access.
   */
  static String address(PtxEmitter em, Value arr, Value idx, int size) {
    Space sp = space(arr);
    String base = em.reg(arr);
    long off = 0;
    Value rest = idx;
    for (int depth = 0; depth < 4 && rest instanceof Inst x && x.type == Type.INT; depth++) {
      if (x.op == Op.ADD && x.args[1] instanceof Const c) {
        off += c.asInt();
        rest = x.args[0];
      } else if (x.op == Op.ADD && x.args[0] instanceof Const c) {
        off += c.asInt();
        rest = x.args[1];
      } else if (x.op == Op.SUB && x.args[1] instanceof Const c) {
        off -= c.asInt();
        rest = x.args[0];
      } else {
        break;
      }
    }
    if (rest instanceof Const c) {
      off += c.asInt();
      rest = null;
    }
    long bytes = off * size;
    if (bytes < Integer.MIN_VALUE || bytes > Integer.MAX_VALUE) {
      rest = idx;
      bytes = 0;
    }
    String r;
    if (rest == null) {
      r = base;
    } else {
      AddrKey key = new AddrKey(arr, rest, size);
      r = em.addresses.get(key);
      if (r == null) {
        if (sp == Space.SHARED) {
          r = em.fresh(Cls.R32);
          em.line("mad.lo.s32 ", r, ", ", em.op(rest), ", ", size, ", ", base);
        } else {
          String o = em.fresh(Cls.R64);
          r = em.fresh(Cls.R64);
          em.line("mul.wide.s32 ", o, ", ", em.reg(rest), ", ", size);
          em.line("add.s64 ", r, ", ", base, ", ", o);
        }
        em.addresses.put(key, r);
      }
    }
    return "[" + r + (bytes == 0 ? "" : "+" + bytes) + "]";
  }

  static Space space(Value arr) {
    if (arr instanceof Inst i && i.space != null) {
      return i.space;
    }
    return Space.GLOBAL;
  }

  private static String spaceSuffix(Space s) {
    return switch (s) {
      case GLOBAL -> ".global";
      case SHARED -> ".shared";
      case GENERIC -> "";
    };
  }

  static void load(PtxEmitter em, Inst i) {
    Value arr = i.args[0];
    Elem e = arr.type().elem;
    Space sp = space(arr);
    String addr = address(em, arr, i.args[1], e.size);
    MemFlavor f = (MemFlavor) i.aux;
    String qual =
        switch (f) {
          case PLAIN -> "ld" + spaceSuffix(sp);
          case NC -> sp == Space.GLOBAL ? "ld.global.nc" : "ld" + spaceSuffix(sp);
          case VOLATILE -> "ld.volatile" + spaceSuffix(sp);
        };
    em.line(qual, ".", e.ptxLoad, " ", em.name(i), ", ", addr);
  }

  static void store(PtxEmitter em, Inst i) {
    Value arr = i.args[0];
    Elem e = arr.type().elem;
    String addr = address(em, arr, i.args[1], e.size);
    String v = em.op(i.args[2]);
    if (e == Elem.BOOLEAN) {
      String t = em.fresh(Cls.R32);
      em.line("and.b32 ", t, ", ", v, ", 1");
      v = t;
    }
    em.line("st", spaceSuffix(space(arr)), ".", e.ptxStore(), " ", addr, ", ", v);
  }

  static void loadVec(PtxEmitter em, Inst i) {
    VecAccess va = (VecAccess) i.aux;
    Value arr = i.args[0];
    Space sp = space(arr);
    String addr = address(em, arr, i.args[1], arr.type().elem.size);
    Cls c = va.floats() ? Cls.F32 : Cls.R32;
    String[] regs = new String[va.words()];
    for (int k = 0; k < regs.length; k++) {
      regs[k] = em.fresh(c);
    }
    em.tuples.put(i, regs);
    if (va.matrix()) {
      // Legalize checked the shared space; the address is this lane's 16-byte row.
      em.line("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {", String.join(", ", regs), "}, ", addr);
      return;
    }
    String q = va.nc() && sp == Space.GLOBAL ? "ld.global.nc" : "ld" + spaceSuffix(sp);
    em.line(
        q,
        ".v",
        va.words(),
        (va.floats() ? ".f32" : ".u32"),
        " {",
        String.join(", ", regs),
        "}, ",
        addr);
  }

  static void storeVec(PtxEmitter em, Inst i) {
    VecAccess va = (VecAccess) i.aux;
    Value arr = i.args[0];
    String addr = address(em, arr, i.args[1], arr.type().elem.size);
    List<String> vals = new ArrayList<>();
    for (int k = 2; k < i.args.length; k++) {
      vals.add(em.reg(i.args[k]));
    }
    em.line(
        "st",
        spaceSuffix(space(arr)),
        ".v",
        va.words(),
        (va.floats() ? ".f32" : ".u32"),
        " ",
        addr,
        ", {",
        String.join(", ", vals),
        "}");
  }

  /**
   * {@code cp.async}: the shared destination as a 32-bit shared-window address, the source as the
   * 64-bit global address of the converted parameter ({@code cvta.to.global}), both as every other
   * access in those spaces computes them; legalize checked the spaces and the size. 16 bytes go
   * through L2 only ({@code .cg}, allowed only for 16), 4 and 8 through L1 too ({@code .ca}).
   */
  static void copyAsync(PtxEmitter em, Inst i) {
    int size = i.args[0].type().elem.size;
    int bytes = ((Const) i.args[4]).asInt();
    String dst = address(em, i.args[0], i.args[1], size);
    String src = address(em, i.args[2], i.args[3], size);
    em.line(
        "cp.async.", (bytes == 16 ? "cg" : "ca"), ".shared.global ", dst, ", ", src, ", ", bytes);
  }

  /**
   * {@code cp.async.bulk.tensor.2d}: the box lands at the shared destination and completes on the
   * shared barrier; the map operand is the generic address of the map in global memory (the PTX ISA
   * accepts a map in .param, .const or .global space by its generic address), converted back from
   * the parameter's global one. Legalize checked the spaces and the target.
   */
  static void tileCopy(PtxEmitter em, Inst i) {
    String dst = address(em, i.args[0], i.args[1], i.args[0].type().elem.size);
    String map = em.fresh(Cls.R64);
    em.line("cvta.global.u64 ", map, ", ", em.reg(i.args[2]));
    String bar = address(em, i.args[5], i.args[6], 8);
    em.line(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes ",
        dst,
        ", [",
        map,
        ", {",
        em.reg(i.args[3]),
        ", ",
        em.reg(i.args[4]),
        "}], ",
        bar);
  }

  /**
   * Transaction-barrier operations on a shared {@code .b64} barrier; a wait spins on {@code
   * try_wait}, which itself suspends the thread for a while in hardware before it fails.
   */
  static void mbarrier(PtxEmitter em, Inst i) {
    String bar = address(em, i.args[0], i.args[1], 8);
    switch ((MbarrierOp) i.aux) {
      case INIT -> em.line("mbarrier.init.shared::cta.b64 ", bar, ", ", em.op(i.args[2]));
      case ARRIVE -> em.line("mbarrier.arrive.shared::cta.b64 _, ", bar);
      case ARRIVE_EXPECT_TX ->
          em.line("mbarrier.arrive.expect_tx.shared::cta.b64 _, ", bar, ", ", em.op(i.args[2]));
      case WAIT_PARITY -> {
        String parity = em.fresh(Cls.R32);
        em.line("and.b32 ", parity, ", ", em.op(i.args[2]), ", 1");
        String done = em.fresh(Cls.PRED);
        String again = em.waitLabel();
        em.label(again);
        em.line("mbarrier.try_wait.parity.shared::cta.b64 ", done, ", ", bar, ", ", parity);
        em.line("@!", done, " bra ", again); // not .uni: lanes may see the phase end apart
      }
    }
  }

  static void atomic(PtxEmitter em, Inst i) {
    AtomicOp a = (AtomicOp) i.aux;
    Value arr = i.args[0];
    String addr = address(em, arr, i.args[1], 4);
    StringBuilder sb = new StringBuilder("atom").append(spaceSuffix(space(arr)));
    sb.append('.').append(a.ptx).append(' ').append(em.name(i)).append(", ").append(addr);
    for (int k = 2; k < i.args.length; k++) {
      sb.append(", ").append(em.reg(i.args[k]));
    }
    em.line(sb.toString());
  }
}
