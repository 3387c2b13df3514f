package sirocco.jit.pass;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Pos;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Inlines every call to a static helper, across classes, transitively. Helpers are built once per
 * class loader ({@link HelperTemplates}) and cloned per call site; positions in the clones record
 * the call site so that errors name the whole inlining chain. A recursive call (a method already on
 * the chain) becomes a trap naming the chain.
 */
public final class Inline implements Pass {
  /** Deepest allowed helper nesting. */
  public static final int MAX_DEPTH = 64;

  /** Largest allowed kernel after inlining, in instructions. */
  public static final int MAX_SIZE = 200_000;

  @Override
  public String name() {
    return "inline";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    ArrayDeque<Inst> work = new ArrayDeque<>();
    for (int k = 0, n = fn.blocks.size(); k < n; k++) {
      Block b = fn.blocks.get(k);
      for (int j = 0, m = b.insts.size(); j < m; j++) {
        Inst i = b.insts.get(j);
        if (i.op == Op.CALL) {
          work.add(i);
        }
      }
    }
    if (work.isEmpty()) {
      return;
    }
    Map<Inst, Value> replace = new HashMap<>();
    int size = fn.size();
    while (!work.isEmpty()) {
      Inst call = work.pop();
      if (call.block == null || call.op != Op.CALL) {
        continue; // dropped behind an earlier trap
      }
      MethodId target = (MethodId) call.aux;
      Pos at = call.pos;
      if (at.chainContains(target)) {
        trap(fn, call, "recursive call is not supported in kernels: " + chain(at, target));
        continue;
      }
      if (at.depth() >= MAX_DEPTH) {
        trap(fn, call, "helper calls nest deeper than " + MAX_DEPTH + ": " + chain(at, target));
        continue;
      }
      Function tmpl = template(ctx, target);
      if (tmpl == null) {
        trap(fn, call, "call to " + target.javaName() + " cannot be resolved to a static method");
        continue;
      }
      size += tmpl.size();
      if (size > MAX_SIZE) {
        trap(fn, call, "the kernel exceeds " + MAX_SIZE + " instructions after inlining");
        continue;
      }
      inline(fn, call, tmpl, replace, work);
    }
    fn.replaceUses(replace);
    fn.removeUnreachable();
  }

  private static String chain(Pos at, MethodId target) {
    List<String> names = new ArrayList<>();
    for (Pos p = at; p != null; p = p.caller()) {
      names.add(0, p.method().simpleClassName() + "." + p.method().name());
    }
    names.add(target.simpleClassName() + "." + target.name());
    return String.join(" -> ", names);
  }

  private static Function template(PassContext ctx, MethodId target) {
    if (ctx.templates.containsKey(target)) {
      return ctx.templates.get(target);
    }
    Function f = HelperTemplates.get(ctx.classes, target);
    ctx.templates.put(target, f);
    return f;
  }

  /** Replaces {@code call} and everything after it in its block by a trap. */
  static void trap(Function fn, Inst call, String what) {
    Block b = call.block;
    int idx = b.insts.indexOf(call);
    for (int k = idx; k < b.insts.size(); k++) {
      b.insts.get(k).block = null;
    }
    b.insts.subList(idx, b.insts.size()).clear();
    for (int j = 0, n = b.succs.size(); j < n; j++) {
      Block s = b.succs.get(j);
      s.removePred(b);
    }
    b.succs.clear();
    fn.append(b, Op.TRAP, Type.VOID, null, what, call.pos);
  }

  // inline is split into parts (the block split, the clone, the argument remapping) so that each
  // is a small unit for the JIT compilers: as one method it was the most expensive C2 compilation
  // of a cold run (over 100 KB of code, hundreds of ms of compiler time on a 2-core machine).
  private static void inline(
      Function fn, Inst call, Function tmpl, Map<Inst, Value> replace, ArrayDeque<Inst> work) {
    Block b = call.block;
    Block cont = splitAt(fn, call);
    Pos at = call.pos;
    // Template values and blocks by id (templates are never modified: they are cloned).
    Block[] bmap = new Block[tmpl.blockIdLimit()];
    for (int u = 0, len = tmpl.blocks.size(); u < len; u++) {
      Block tb = tmpl.blocks.get(u);
      bmap[tb.id] = fn.newBlockLike(tb);
    }
    Value[] vmap = new Value[tmpl.instIdLimit()];
    List<Inst> cloned = new ArrayList<>();
    List<Block> retBlocks = new ArrayList<>();
    List<Value> retValues = new ArrayList<>();
    for (int w = 0, cnt = tmpl.blocks.size(); w < cnt; w++) {
      cloneBlock(fn, call, tmpl.blocks.get(w), bmap, vmap, cloned, retBlocks, retValues, work);
    }
    remapArgs(cloned, vmap, tmpl);
    Block centry = bmap[tmpl.entry().id];
    fn.append(b, Op.BR, Type.VOID, null, null, at);
    b.succs.add(centry);
    centry.preds.add(b);
    for (int k = 0, n = retBlocks.size(); k < n; k++) {
      Block r = retBlocks.get(k);
      r.succs.add(cont);
      cont.preds.add(r);
    }
    if (call.type != Type.VOID) {
      Value result;
      if (retBlocks.isEmpty()) {
        result = Const.zero(call.type);
      } else if (retBlocks.size() == 1) {
        result = map(retValues.get(0), vmap);
      } else {
        Inst phi = fn.newPhi(cont, call.type, at);
        for (int k = 0, n = retValues.size(); k < n; k++) {
          phi.addArg(map(retValues.get(k), vmap));
        }
        result = phi;
      }
      replace.put(call, result);
    }
  }

  /**
   * Removes {@code call} from its block and moves the instructions after it, with the block's
   * successors, to a new block, which it returns.
   */
  private static Block splitAt(Function fn, Inst call) {
    Block b = call.block;
    int idx = b.insts.indexOf(call);
    Block cont = fn.newBlock();
    List<Inst> tail = b.insts.subList(idx + 1, b.insts.size());
    for (int k = 0, n = tail.size(); k < n; k++) {
      Inst i = tail.get(k);
      i.block = cont;
      cont.insts.add(i);
    }
    tail.clear();
    b.insts.remove(idx);
    call.block = null;
    for (int q = 0, m = b.succs.size(); q < m; q++) {
      Block s = b.succs.get(q);
      s.replacePred(b, cont);
      cont.succs.add(s);
    }
    b.succs.clear();
    return cont;
  }

  /**
   * Clones template block {@code tb} into {@code bmap[tb.id]} for {@code call}: parameters map to
   * the call's arguments, returns become jumps (the caller wires them), calls are queued; arguments
   * still name template values (see {@link #remapArgs}).
   */
  private static void cloneBlock(
      Function fn,
      Inst call,
      Block tb,
      Block[] bmap,
      Value[] vmap,
      List<Inst> cloned,
      List<Block> retBlocks,
      List<Value> retValues,
      ArrayDeque<Inst> work) {
    Pos at = call.pos;
    Block nb = bmap[tb.id];
    for (int z = 0, n2 = tb.phis.size(); z < n2; z++) {
      Inst p = tb.phis.get(z);
      Inst np = fn.newPhi(nb, p.type, p.pos == null ? null : p.pos.inlinedAt(at));
      np.args = p.args.clone();
      vmap[p.id] = np;
      cloned.add(np);
    }
    for (int k2 = 0, m2 = tb.insts.size(); k2 < m2; k2++) {
      Inst i = tb.insts.get(k2);
      if (i.op == Op.PARAM) {
        vmap[i.id] = call.args[(Integer) i.aux];
        continue;
      }
      if (i.op == Op.RET) {
        Inst br = fn.append(nb, Op.BR, Type.VOID, null, null, i.pos.inlinedAt(at));
        cloned.add(br);
        retBlocks.add(nb);
        retValues.add(i.args.length > 0 ? i.args[0] : null);
        continue;
      }
      Inst ni =
          fn.append(
              nb, i.op, i.type, i.args.clone(), i.aux, i.pos == null ? null : i.pos.inlinedAt(at));
      vmap[i.id] = ni;
      cloned.add(ni);
      if (ni.op == Op.CALL) {
        work.add(ni);
      }
    }
    for (int k = 0, n = tb.succs.size(); k < n; k++) {
      nb.succs.add(bmap[tb.succs.get(k).id]);
    }
    for (int j = 0, n3 = tb.preds.size(); j < n3; j++) {
      nb.preds.add(bmap[tb.preds.get(j).id]);
    }
  }

  /** Replaces template values in the clones' arguments by their clones (jumps get none). */
  private static void remapArgs(List<Inst> cloned, Value[] vmap, Function tmpl) {
    for (int q = 0, n = cloned.size(); q < n; q++) {
      Inst ni = cloned.get(q);
      if (ni.op == Op.BR) {
        ni.args = new Value[0];
        continue;
      }
      Value[] a = ni.args;
      for (int k = 0; k < a.length; k++) {
        if (a[k] instanceof Inst x) {
          Value m = vmap[x.id];
          if (m == null) {
            throw unmapped(x, tmpl);
          }
          a[k] = m;
        }
      }
    }
  }

  private static IllegalStateException unmapped(Inst x, Function tmpl) {
    return new IllegalStateException("unmapped value " + x + " inlining " + tmpl.method);
  }

  private static Value map(Value v, Value[] vmap) {
    return v instanceof Inst x ? vmap[x.id] : v;
  }
}
