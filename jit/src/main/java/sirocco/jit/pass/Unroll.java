package sirocco.jit.pass;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Cmp;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Fully unrolls innermost counted loops whose trip count is a compile-time constant (typically a
 * {@code for (int k = 0; k < TILE; k++)} with {@code TILE} specialized), when the trip count is at
 * most {@link #MAX_TRIPS} and the unrolled body at most {@link #MAX_UNROLLED} instructions. ptxas
 * unrolls little by itself, and unrolled code lets the folder turn index arithmetic into constants
 * (shared-memory offsets, register-resident accumulators).
 *
 * <p>Shape handled (what javac emits for {@code for} and {@code while}): a header with phis that
 * ends in a branch on {@code setp(i, constant)} (either order), one edge leaving the loop from the
 * header, one latch jumping back, one predecessor outside; {@code i} is a header phi starting at a
 * constant and stepped by a constant add or subtract. The trip count is found by running the
 * induction with Java semantics (so overflow behaves as in Java). Each copy of the header is
 * replaced by a jump, so the unrolled code is straight-line.
 */
public final class Unroll implements Pass {
  /** Largest trip count unrolled. */
  public static final int MAX_TRIPS = 64;

  /** Largest size (instructions) of the unrolled loop. */
  public static final int MAX_UNROLLED = 3000;

  @Override
  public String name() {
    return "unroll";
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    if (!ctx.unroll) {
      return;
    }
    Maps maps = new Maps();
    for (int round = 0; round < 3; round++) {
      boolean changed = false;
      for (Loop l : findLoops(fn)) {
        if (l.innermost) {
          changed |= tryUnroll(fn, l, maps);
        }
      }
      if (!changed) {
        return;
      }
      // Later rounds see loops whose inner loops are gone; their bounds need folding first.
      new Fold().run(fn, ctx);
      new SimplifyCfg().run(fn, ctx);
    }
  }

  private static final class Loop {
    Block header;
    Block latch;

    /** The loop's blocks: the header, the latch, then the others as found. */
    List<Block> blocks;

    /** The ids of {@link #blocks}. */
    BitSet in;

    boolean innermost = true;

    boolean contains(Block b) {
      return in.get(b.id);
    }
  }

  private static List<Loop> findLoops(Function fn) {
    List<Block> rpo = fn.reversePostOrder();
    int[] order = new int[fn.blockIdLimit()];
    for (int i = 0; i < rpo.size(); i++) {
      order[rpo.get(i).id] = i;
    }
    List<Loop> loops = new ArrayList<>();
    int[] backEdges = new int[order.length];
    for (Block b : rpo) {
      for (int k = 0, n = b.succs.size(); k < n; k++) {
        Block s = b.succs.get(k);
        if (order[s.id] <= order[b.id]) {
          backEdges[s.id]++;
        }
      }
    }
    for (Block b : rpo) {
      for (int j = 0, m = b.succs.size(); j < m; j++) {
        Block h = b.succs.get(j);
        if (order[h.id] > order[b.id] || backEdges[h.id] != 1) {
          continue;
        }
        List<Block> body = new ArrayList<>();
        BitSet in = new BitSet(order.length);
        body.add(h);
        in.set(h.id);
        ArrayDeque<Block> work = new ArrayDeque<>();
        if (!in.get(b.id)) {
          in.set(b.id);
          body.add(b);
          work.add(b);
        }
        boolean natural = true;
        while (!work.isEmpty()) {
          Block x = work.pop();
          if (x == fn.entry()) {
            natural = false;
            break;
          }
          for (int q = 0, len = x.preds.size(); q < len; q++) {
            Block p = x.preds.get(q);
            if (!in.get(p.id)) {
              in.set(p.id);
              body.add(p);
              work.add(p);
            }
          }
        }
        if (!natural) {
          continue;
        }
        Loop l = new Loop();
        l.header = h;
        l.latch = b;
        l.blocks = body;
        l.in = in;
        loops.add(l);
      }
    }
    for (Loop outer : loops) {
      for (Loop inner : loops) {
        if (inner != outer && outer.contains(inner.header)) {
          outer.innermost = false;
        }
      }
    }
    return loops;
  }

  /**
   * The value maps and the block map of {@link #unroll}, reused by every loop of one pass: each is
   * indexed by instruction (block) id, as large as the function's whole id space (which after
   * specialization is mostly that of the generic kernel), and allocating three or four of them per
   * loop was 4 % of a cold compilation of the shipped kernels. All entries are null between loops.
   */
  private static final class Maps {
    private final Value[][] values = new Value[4][];
    private Block[] blocks = new Block[0];

    Value[] values(int k, int limit) {
      Value[] m = values[k];
      if (m == null || m.length < limit) {
        m = new Value[grown(m == null ? 0 : m.length, limit)];
        values[k] = m;
      }
      return m;
    }

    Block[] blocks(int limit) {
      if (blocks.length < limit) {
        blocks = new Block[grown(blocks.length, limit)];
      }
      return blocks;
    }

    /**
     * The new length of a map that must hold ids below {@code limit}: half as large again as before
     * at least, since every unrolled loop adds ids (growing to the exact limit each time was 16 %
     * of the bytes a cold compilation of the shipped kernels allocated).
     */
    private static int grown(int length, int limit) {
      return Math.max(limit, length + (length >> 1));
    }
  }

  private static boolean tryUnroll(Function fn, Loop l, Maps maps) {
    Block h = l.header;
    Block latch = l.latch;
    if (latch == h || h.preds.size() != 2 || latch.succs.size() != 1) {
      return false;
    }
    int li = h.preds.indexOf(latch);
    int pi = 1 - li;
    Block pre = h.preds.get(pi);
    if (l.contains(pre)) {
      return false;
    }
    Inst t = h.terminator();
    if (t.op != Op.CBR) {
      return false;
    }
    int inIdx = l.contains(h.succs.get(0)) ? 0 : 1;
    Block inSucc = h.succs.get(inIdx);
    Block exit = h.succs.get(1 - inIdx);
    if (!l.contains(inSucc) || l.contains(exit) || inSucc == h) {
      return false;
    }
    for (int k = 0, n = l.blocks.size(); k < n; k++) {
      Block b = l.blocks.get(k);
      if (b == h) {
        continue;
      }
      for (int j = 0, m = b.succs.size(); j < m; j++) {
        Block s = b.succs.get(j);
        if (!l.contains(s)) {
          return false; // another exit (break, labelled continue out of the loop)
        }
      }
    }
    int trips = tripCount(h, t, inIdx, pi, li);
    if (trips < 0) {
      return false;
    }
    int size = 0;
    for (int q = 0, len = l.blocks.size(); q < len; q++) {
      Block b = l.blocks.get(q);
      size += b.insts.size() + b.phis.size();
    }
    if ((long) size * trips > MAX_UNROLLED) {
      return false;
    }
    unroll(fn, l, pre, pi, li, inSucc, exit, trips, maps);
    return true;
  }

  /** The number of times the body runs, or -1 when not a constant of at most MAX_TRIPS. */
  private static int tripCount(Block h, Inst cbr, int inIdx, int pi, int li) {
    if (!(cbr.args[0] instanceof Inst c) || c.op != Op.SETP || c.block != h) {
      return -1;
    }
    int ivPos;
    if (c.args[0] instanceof Inst x
        && x.op == Op.PHI
        && x.block == h
        && c.args[1] instanceof Const) {
      ivPos = 0;
    } else if (c.args[1] instanceof Inst x
        && x.op == Op.PHI
        && x.block == h
        && c.args[0] instanceof Const) {
      ivPos = 1;
    } else {
      return -1;
    }
    Inst iv = (Inst) c.args[ivPos];
    if (iv.type != Type.INT && iv.type != Type.LONG) {
      return -1;
    }
    if (!(iv.args[pi] instanceof Const init) || !(iv.args[li] instanceof Inst step)) {
      return -1;
    }
    if ((step.op != Op.ADD && step.op != Op.SUB)
        || step.args[0] != iv
        || !(step.args[1] instanceof Const delta)) {
      return -1;
    }
    Const bound = (Const) c.args[1 - ivPos];
    Const cur = init;
    for (int n = 0; n <= MAX_TRIPS; n++) {
      Const[] operands = ivPos == 0 ? new Const[] {cur, bound} : new Const[] {bound, cur};
      Const cond = Evaluator.eval(Op.SETP, Type.PRED, (Cmp) c.aux, operands);
      boolean stays = cond.asPred() == (inIdx == 0);
      if (!stays) {
        return n;
      }
      cur = Evaluator.eval(step.op, step.type, null, new Const[] {cur, delta});
    }
    return -1;
  }

  private static void unroll(
      Function fn,
      Loop l,
      Block pre,
      int pi,
      int li,
      Block inSucc,
      Block exit,
      int trips,
      Maps maps) {
    Block h = l.header;
    List<Block> loopBlocks = l.blocks;
    Block[] headers = new Block[trips + 1];
    Block[] latches = new Block[trips];
    // Value maps of the current and the previous copy, by instruction id (only instructions of
    // the loop are keys; all existed before this call), and the current copy's blocks by id.
    int limit = fn.instIdLimit();
    Value[] vm = maps.values(0, limit);
    int used = 1;
    Value[] prev = null;
    Value[] spare = null;
    Block[] bm = maps.blocks(fn.blockIdLimit());
    List<Inst> cloned = new ArrayList<>();
    List<Block> onlyHeader = List.of(h);
    for (int k = 0; k <= trips; k++) {
      for (int j = 0, m = h.phis.size(); j < m; j++) {
        Inst phi = h.phis.get(j);
        vm[phi.id] = k == 0 ? phi.args[pi] : map(phi.args[li], prev);
      }
      List<Block> toCopy = k < trips ? loopBlocks : onlyHeader;
      for (Block b : toCopy) {
        bm[b.id] = fn.newBlockLike(b);
      }
      cloned.clear();
      for (Block b : toCopy) {
        Block nb = bm[b.id];
        if (b != h) {
          for (int q = 0, len = b.phis.size(); q < len; q++) {
            Inst p = b.phis.get(q);
            Inst np = fn.newPhi(nb, p.type, p.pos);
            np.args = p.args.clone();
            vm[p.id] = np;
            cloned.add(np);
          }
        }
        for (int u = 0, cnt = b.insts.size(); u < cnt; u++) {
          Inst i = b.insts.get(u);
          Inst ni = fn.append(nb, i.op, i.type, i.args.clone(), i.aux, i.pos);
          ni.space = i.space;
          vm[i.id] = ni;
          cloned.add(ni);
        }
      }
      for (Inst ni : cloned) {
        for (int a = 0; a < ni.args.length; a++) {
          ni.args[a] = map(ni.args[a], vm);
        }
      }
      for (Block b : toCopy) {
        Block nb = bm[b.id];
        if (b == h) {
          Inst term = nb.terminator();
          term.op = Op.BR;
          term.args = new Value[0];
          term.aux = null;
          // The in-loop successor's copy lists this header among its mapped predecessors.
          nb.succs.add(k < trips ? bm[inSucc.id] : exit);
          continue;
        }
        for (Block s : b.succs) {
          if (s == h) {
            latches[k] = nb;
            nb.succs.add(null); // wired to the next header below
          } else {
            nb.succs.add(bm[s.id]);
          }
        }
        for (Block p : b.preds) {
          nb.preds.add(bm[p.id]);
        }
      }
      headers[k] = bm[h.id];
      for (Block b : toCopy) {
        bm[b.id] = null;
      }
      // This copy's map becomes the previous one; the one before is cleared for reuse.
      Value[] next = spare != null ? spare : maps.values(used++, limit);
      if (spare != null) {
        clearLoopKeys(next, loopBlocks);
      }
      spare = prev;
      prev = vm;
      vm = next;
    }
    // Wire: preheader -> first header, latch k -> header k+1, last header -> exit.
    pre.replaceSucc(h, headers[0]);
    headers[0].preds.add(pre);
    for (int k = 0; k < trips; k++) {
      Block lk = latches[k];
      lk.succs.set(lk.succs.indexOf(null), headers[k + 1]);
      headers[k + 1].preds.add(lk);
    }
    exit.replacePred(h, headers[trips]);
    // Uses after the loop of values defined in the header take the last copy's values.
    Value[] outside = maps.values(3, limit);
    for (int j = 0, n = h.phis.size(); j < n; j++) {
      Inst phi = h.phis.get(j);
      outside[phi.id] = prev[phi.id];
    }
    for (int q = 0, m = h.insts.size(); q < m; q++) {
      Inst i = h.insts.get(q);
      outside[i.id] = prev[i.id];
    }
    for (Block b : loopBlocks) {
      b.mark = -2; // reverse post-order left 0 or 1 on all others
    }
    fn.removeBlocksMarked(-2);
    for (Block b : loopBlocks) {
      for (int u = 0, len = b.insts.size(); u < len; u++) {
        Inst i = b.insts.get(u);
        i.block = null;
      }
      b.preds.clear();
      b.succs.clear();
    }
    fn.replaceUses(outside);
    // Leave the maps empty for the next loop: they hold only this loop's instructions.
    for (int k = 0; k < used; k++) {
      clearLoopKeys(maps.values[k], loopBlocks);
    }
    clearLoopKeys(outside, loopBlocks);
  }

  /** Clears the entries of the loop's phis and instructions in a value map. */
  private static void clearLoopKeys(Value[] m, List<Block> loopBlocks) {
    for (Block b : loopBlocks) {
      for (int w = 0, cnt = b.phis.size(); w < cnt; w++) {
        Inst p = b.phis.get(w);
        m[p.id] = null;
      }
      for (int z = 0, n2 = b.insts.size(); z < n2; z++) {
        Inst i = b.insts.get(z);
        m[i.id] = null;
      }
    }
  }

  private static Value map(Value v, Value[] m) {
    if (v instanceof Inst x && m != null && x.id < m.length) {
      Value r = m[x.id];
      return r != null ? r : v;
    }
    return v;
  }
}
