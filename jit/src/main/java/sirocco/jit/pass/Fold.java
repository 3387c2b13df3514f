package sirocco.jit.pass;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.LongMap;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Users;
import sirocco.jit.ir.Value;

/**
 * Sparse conditional constant propagation (Wegman and Zadeck): folds instructions whose operands
 * are constants (after specialization), and removes branches and blocks that can never execute.
 */
public final class Fold implements Pass {
  private static final byte TOP = 0;
  private static final byte CONST = 1;
  private static final byte BOTTOM = 2;

  @Override
  public String name() {
    return "fold";
  }

  private byte[] state;
  private Const[] val;
  private boolean[] execBlock;
  private LongMap<Boolean> execEdge;
  private ArrayDeque<Block> blockWork;
  private ArrayDeque<Inst> instWork;
  private Users users;

  /** Pre-analysis only: values of specialized parameters, by JVM parameter index. */
  private Map<Integer, Const> params;

  /** Pre-analysis only: whether an executable instruction is one Peephole may rewrite. */
  private boolean sawPeepholeCandidate;

  /** An analysis done beforehand on a function this pass will see (see {@link #mayExecute}). */
  private final Analysis given;

  /** A fold that analyzes the function it runs on. */
  public Fold() {
    this(null);
  }

  /**
   * A fold that, when {@code given} is {@link Analysis#exact() exact}, uses it instead of
   * analyzing: for the function {@link #mayExecute} analyzed, after {@code SpecializeParams} with
   * the same values and {@code Peephole}, or for a copy of it (same ids) without blocks the
   * analysis found not executable.
   */
  public Fold(Analysis given) {
    this.given = given;
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    if (given != null && given.exact) {
      state = given.state;
      val = given.val;
      execBlock = given.execBlock;
    } else {
      analyze(fn, fn.users());
    }
    rewrite(fn);
  }

  /** The lattice values and executable blocks found by {@link #mayExecute}. */
  public static final class Analysis {
    private final byte[] state;
    private final Const[] val;
    private final boolean[] execBlock;
    private final boolean exact;

    private Analysis(Fold f) {
      state = f.state;
      val = f.val;
      execBlock = f.execBlock;
      exact = !f.sawPeepholeCandidate;
    }

    /** Executable blocks, by id (see {@link #mayExecute}). */
    public boolean[] executable() {
      return execBlock;
    }

    /**
     * True when no executable instruction is one Peephole may rewrite: then this is exactly the
     * analysis the pass does after specialization and peephole (the same system of values, and its
     * fixpoint does not depend on the order of visits), and a following fold may use it.
     */
    public boolean exact() {
      return exact;
    }
  }

  /**
   * The fold analysis, without rewriting, of {@code fn} as it will be after {@link
   * SpecializeParams} (with {@code specializations}) and {@link Peephole}: specialized parameters
   * are constants, and instructions the peephole pass may rewrite are unknown. Unknown values only
   * make more branches executable, so a block that is not executable here is certainly not
   * executable in the real pass; without such instructions the analysis is the real one. Reads
   * {@code fn} only ({@code users} is {@link Function#users()} of it), so several threads may
   * analyze one function.
   */
  public static Analysis mayExecute(Function fn, Users users, Map<Integer, Const> specializations) {
    Fold f = new Fold();
    f.params = specializations;
    f.analyze(fn, users);
    return new Analysis(f);
  }

  private void analyze(Function fn, Users users) {
    int n = fn.instIdLimit();
    state = new byte[n];
    val = new Const[n];
    execBlock = new boolean[fn.blockIdLimit()];
    execEdge = new LongMap<>(fn.blocks.size() * 2);
    blockWork = new ArrayDeque<>();
    instWork = new ArrayDeque<>();
    this.users = users;
    execBlock[fn.entry().id] = true;
    blockWork.add(fn.entry());
    while (!blockWork.isEmpty() || !instWork.isEmpty()) {
      while (!blockWork.isEmpty()) {
        Block b = blockWork.pop();
        for (int k = 0, m = b.phis.size(); k < m; k++) {
          Inst p = b.phis.get(k);
          visit(p);
        }
        for (int j = 0, len = b.insts.size(); j < len; j++) {
          Inst i = b.insts.get(j);
          visit(i);
        }
      }
      while (!instWork.isEmpty()) {
        Inst i = instWork.pop();
        if (i.block != null && execBlock[i.block.id]) {
          visit(i);
        }
      }
    }
  }

  private static long edge(Block p, Block s) {
    return ((long) p.id << 32) | s.id;
  }

  private void markEdge(Block p, Block s) {
    if (execEdge.put(edge(p, s), Boolean.TRUE) != null) {
      return;
    }
    if (!execBlock[s.id]) {
      execBlock[s.id] = true;
      blockWork.add(s);
    } else {
      // Not ArrayDeque.addAll: it walks the list with a method reference (a lambda bootstrap).
      List<Inst> phis = s.phis;
      for (int k = 0, n = phis.size(); k < n; k++) {
        instWork.add(phis.get(k));
      }
    }
  }

  private byte stateOf(Value v) {
    return v instanceof Inst x ? state[x.id] : CONST;
  }

  private Const constOf(Value v) {
    return v instanceof Inst x ? val[x.id] : (Const) v;
  }

  private void set(Inst i, byte s, Const c) {
    if (state[i.id] == BOTTOM) {
      return;
    }
    if (state[i.id] == s && (s != CONST || val[i.id].equals(c))) {
      return;
    }
    if (state[i.id] == CONST && s == CONST) {
      s = BOTTOM; // a value may only move down the lattice
      c = null;
    }
    state[i.id] = s;
    val[i.id] = c;
    Users us = users;
    for (int k = us.from(i.id), e = us.to(i.id); k < e; k++) {
      Inst u = us.get(k);
      // A user in a block not executable yet is visited with the whole block if it becomes so.
      if (u.block != null && execBlock[u.block.id]) {
        instWork.add(u);
      }
    }
  }

  private void visit(Inst i) {
    if (params != null) {
      if (i.op == Op.PARAM && params.get((Integer) i.aux) instanceof Const c) {
        set(i, CONST, c);
        return;
      }
      if (Peephole.mayRewrite(i)) {
        sawPeepholeCandidate = true;
        set(i, BOTTOM, null);
        return;
      }
    }
    switch (i.op) {
      case PHI -> visitPhi(i);
      case BR -> markEdge(i.block, i.block.succs.get(0));
      case CBR -> {
        Value c = i.args[0];
        byte s = stateOf(c);
        if (s == CONST) {
          markEdge(i.block, i.block.succs.get(constOf(c).asPred() ? 0 : 1));
        } else if (s == BOTTOM) {
          markEdge(i.block, i.block.succs.get(0));
          markEdge(i.block, i.block.succs.get(1));
        }
      }
      case SWITCH -> {
        Value c = i.args[0];
        byte s = stateOf(c);
        List<Block> succs = i.block.succs;
        if (s == CONST) {
          markEdge(i.block, succs.get(switchTarget((int[]) i.aux, constOf(c).asInt())));
        } else if (s == BOTTOM) {
          for (Block t : succs) {
            markEdge(i.block, t);
          }
        }
      }
      case RET, TRAP -> {}
      default -> {
        if (i.type == Type.VOID) {
          return;
        }
        if (!Evaluator.foldable(i.op)) {
          set(i, BOTTOM, null);
          return;
        }
        if (i.op == Op.SELECT && stateOf(i.args[0]) == CONST) {
          Value chosen = i.args[constOf(i.args[0]).asPred() ? 1 : 2];
          byte s = stateOf(chosen);
          if (s != TOP) {
            set(i, s, s == CONST ? constOf(chosen) : null);
          }
          return;
        }
        boolean bottom = false;
        for (int k = 0; k < i.args.length; k++) {
          byte s = stateOf(i.args[k]);
          if (s == TOP) {
            return;
          }
          if (s == BOTTOM) {
            bottom = true;
          }
        }
        if (bottom) {
          set(i, BOTTOM, null);
          return;
        }
        // Only now the arguments' constants: most visits end above, and this array was 5 % of the
        // bytes a cold compilation of the shipped kernels allocated.
        Const[] a = new Const[i.args.length];
        for (int k = 0; k < a.length; k++) {
          a[k] = constOf(i.args[k]);
        }
        Const r = Evaluator.eval(i.op, i.type, i.aux, a);
        set(i, r == null ? BOTTOM : CONST, r);
      }
    }
  }

  /** Successor index of a switch for a key: 0 for the default, else 1 + case index. */
  static int switchTarget(int[] keys, int k) {
    for (int j = 0; j < keys.length; j++) {
      if (keys[j] == k) {
        return j + 1;
      }
    }
    return 0;
  }

  private void visitPhi(Inst phi) {
    Block b = phi.block;
    Const c = null;
    for (int k = 0; k < phi.args.length; k++) {
      if (execEdge.get(edge(b.preds.get(k), b)) == null) {
        continue;
      }
      Value a = phi.args[k];
      byte s = stateOf(a);
      if (s == TOP) {
        continue;
      }
      if (s == BOTTOM) {
        set(phi, BOTTOM, null);
        return;
      }
      Const ac = constOf(a);
      if (c == null) {
        c = ac;
      } else if (!c.equals(ac)) {
        set(phi, BOTTOM, null);
        return;
      }
    }
    if (c != null) {
      set(phi, CONST, c);
    }
  }

  private void rewrite(Function fn) {
    Value[] replace = new Value[fn.instIdLimit()];
    for (int q = 0, n = fn.blocks.size(); q < n; q++) {
      Block b = fn.blocks.get(q);
      if (!execBlock[b.id]) {
        continue;
      }
      for (int u = 0, m = b.phis.size(); u < m; u++) {
        Inst p = b.phis.get(u);
        if (state[p.id] == CONST) {
          replace[p.id] = val[p.id];
        }
      }
      Inst.removeReplaced(b.phis, replace);
      for (int w = 0, len = b.insts.size(); w < len; w++) {
        Inst i = b.insts.get(w);
        if (state[i.id] == CONST && !i.hasSideEffects()) {
          replace[i.id] = val[i.id];
        }
      }
      Inst.removeReplaced(b.insts, replace);
      Inst t = b.terminator();
      if ((t.op == Op.CBR || t.op == Op.SWITCH) && stateOf(t.args[0]) == TOP) {
        throw new IllegalStateException("branch on an undefined value at " + t.pos);
      }
      if ((t.op == Op.CBR || t.op == Op.SWITCH) && stateOf(t.args[0]) == CONST) {
        int keep =
            t.op == Op.CBR
                ? (constOf(t.args[0]).asPred() ? 0 : 1)
                : switchTarget((int[]) t.aux, constOf(t.args[0]).asInt());
        Block target = b.succs.get(keep);
        for (int k = 0; k < b.succs.size(); k++) {
          if (k != keep) {
            removeOnePred(b.succs.get(k), b);
          }
        }
        b.succs.clear();
        b.succs.add(target);
        t.op = Op.BR;
        t.args = new Value[0];
        t.aux = null;
      }
    }
    for (int j = 0, cnt = fn.blocks.size(); j < cnt; j++) {
      Block b = fn.blocks.get(j);
      if (!execBlock[b.id]) {
        for (int z = 0, n2 = b.succs.size(); z < n2; z++) {
          Block s = b.succs.get(z);
          if (execBlock[s.id]) {
            s.removePred(b);
          }
        }
      }
    }
    fn.retainBlocks(execBlock);
    fn.replaceUses(replace);
  }

  /** Removes one occurrence of predecessor {@code p} from {@code s}. */
  static void removeOnePred(Block s, Block p) {
    int i = s.preds.indexOf(p);
    if (i >= 0) {
      s.removePredAt(i);
    }
  }
}
