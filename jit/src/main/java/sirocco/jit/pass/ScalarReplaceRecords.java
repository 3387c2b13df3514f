package sirocco.jit.pass;

import java.util.ArrayList;
import java.util.List;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.RecordKind;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Replaces value records (Int4, Int2, Float4) by their components. After this pass a record-typed
 * value exists only as the tuple result of a vector load or an mma, read through {@link
 * Op#EXTRACT}; {@code new}, accessors and record phis are gone, and vector stores and mmas take
 * components as arguments.
 */
public final class ScalarReplaceRecords implements Pass {
  @Override
  public String name() {
    return "records";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    if (!usesRecords(fn)) {
      return;
    }
    // Components of record values and replacements of accessors, by instruction id (only
    // instructions that exist now are keys).
    int limit = fn.instIdLimit();
    Value[][] comps = new Value[limit][];
    Value[] scalar = new Value[limit];
    List<Inst> recordPhis = new ArrayList<>();
    for (int j = 0, n = fn.blocks.size(); j < n; j++) {
      Block b = fn.blocks.get(j);
      List<Inst> newPhis = new ArrayList<>();
      for (int q = 0, m = b.phis.size(); q < m; q++) {
        Inst p = b.phis.get(q);
        if (p.type.isRecord()) {
          RecordKind k = p.type.record;
          Value[] c = new Value[k.count];
          for (int i = 0; i < k.count; i++) {
            Inst np = fn.newInst(Op.PHI, k.componentType, null, null, p.pos);
            np.block = b;
            newPhis.add(np);
            c[i] = np;
          }
          comps[p.id] = c;
          recordPhis.add(p);
        }
      }
      if (!newPhis.isEmpty()) {
        List<Inst> kept = new ArrayList<>(b.phis.size());
        for (int u = 0, len = b.phis.size(); u < len; u++) {
          Inst p = b.phis.get(u);
          if (!p.type.isRecord()) {
            kept.add(p);
          }
        }
        b.phis.clear();
        b.phis.addAll(kept);
        b.phis.addAll(newPhis);
      }
    }
    boolean anyScalar = false;
    for (Block b : fn.reversePostOrder()) {
      List<Inst> out = new ArrayList<>(b.insts.size());
      for (int w = 0, cnt = b.insts.size(); w < cnt; w++) {
        Inst i = b.insts.get(w);
        if (anyScalar) {
          resolveArgs(i, scalar);
        }
        switch (i.op) {
          case NEW_RECORD -> {
            comps[i.id] = i.args.clone();
            i.block = null;
            continue;
          }
          case GET_FIELD -> {
            scalar[i.id] = componentsOf(i.args[0], comps)[i.auxInt()];
            anyScalar = true;
            i.block = null;
            continue;
          }
          case STORE_VEC -> i.args = expand(i.args, comps);
          case MMA, WGMMA -> i.args = expand(i.args, comps);
          default -> {
            for (Value a : i.args) {
              if (a.type().isRecord()) {
                throw new IllegalStateException("record used by " + i.op + " at " + i.pos);
              }
            }
          }
        }
        out.add(i);
        if (i.type.isRecord()) {
          RecordKind k = i.type.record;
          Value[] c = new Value[k.count];
          for (int n = 0; n < k.count; n++) {
            Inst x = fn.newInst(Op.EXTRACT, k.componentType, new Value[] {i}, n, i.pos);
            x.block = b;
            out.add(x);
            c[n] = x;
          }
          comps[i.id] = c;
        }
      }
      b.insts.clear();
      b.insts.addAll(out);
    }
    for (Inst p : recordPhis) {
      Value[] c = comps[p.id];
      for (int n = 0; n < c.length; n++) {
        Inst np = (Inst) c[n];
        Value[] args = new Value[p.args.length];
        for (int k = 0; k < args.length; k++) {
          args[k] = componentsOf(p.args[k], comps)[n];
        }
        np.args = args;
      }
    }
    // Phis of scalars may use accessors that were just removed.
    if (anyScalar) {
      for (int j = 0, m = fn.blocks.size(); j < m; j++) {
        Block b = fn.blocks.get(j);
        for (int q = 0, len = b.phis.size(); q < len; q++) {
          Inst p = b.phis.get(q);
          resolveArgs(p, scalar);
        }
      }
    }
  }

  private static boolean usesRecords(Function fn) {
    for (int u = 0, cnt = fn.blocks.size(); u < cnt; u++) {
      Block b = fn.blocks.get(u);
      for (int w = 0, n2 = b.phis.size(); w < n2; w++) {
        Inst p = b.phis.get(w);
        if (p.type.isRecord()) {
          return true;
        }
      }
      for (int z = 0, m2 = b.insts.size(); z < m2; z++) {
        Inst i = b.insts.get(z);
        if (i.type.isRecord() || i.op == Op.STORE_VEC || i.op == Op.MMA || i.op == Op.WGMMA) {
          return true;
        }
      }
    }
    return false;
  }

  private static void resolveArgs(Inst i, Value[] scalar) {
    for (int k = 0; k < i.args.length; k++) {
      if (i.args[k] instanceof Inst x && x.id < scalar.length && scalar[x.id] != null) {
        i.args[k] = Function.resolve(x, scalar);
      }
    }
  }

  private static Value[] componentsOf(Value v, Value[][] comps) {
    Value[] c = v instanceof Inst x && x.id < comps.length ? comps[x.id] : null;
    if (c != null) {
      return c;
    }
    if (v instanceof Const k && k.type().isRecord()) {
      RecordKind r = k.type().record;
      Value[] z = new Value[r.count];
      for (int i = 0; i < z.length; i++) {
        z[i] = Const.zero(r.componentType);
      }
      return z;
    }
    throw new IllegalStateException("no components for " + v);
  }

  private static Value[] expand(Value[] args, Value[][] comps) {
    List<Value> out = new ArrayList<>();
    for (Value a : args) {
      if (a.type().isRecord()) {
        for (Value c : componentsOf(a, comps)) {
          out.add(c);
        }
      } else {
        out.add(a);
      }
    }
    return out.toArray(new Value[0]);
  }

  /** Type of component {@code i} of a record type. */
  static Type componentType(Type t) {
    return t.record.componentType;
  }
}
