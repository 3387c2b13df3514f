package sirocco.jit.ir;

import java.util.ArrayList;
import java.util.List;

/**
 * A basic block: phis, then instructions ending in exactly one terminator. Phi arguments are
 * aligned with {@link #preds}; a predecessor may appear more than once (a branch whose two targets
 * coincide), in which case the matching phi arguments are equal.
 */
public final class Block {
  /**
   * Unique within its function (indexes per-block tables); changed only by {@link
   * Function#renumber()}.
   */
  public int id;

  public final List<Inst> phis;
  public final List<Inst> insts;
  public final List<Block> preds;
  public final List<Block> succs;

  /** Free for passes (visited marks, orders). */
  public int mark;

  Block(int id) {
    this.id = id;
    phis = new ArrayList<>();
    insts = new ArrayList<>();
    preds = new ArrayList<>();
    succs = new ArrayList<>();
  }

  /** Block {@code id} with room for the phis, instructions and edges of {@code like} (clones). */
  Block(int id, Block like) {
    this.id = id;
    phis = new ArrayList<>(like.phis.size());
    insts = new ArrayList<>(like.insts.size());
    preds = new ArrayList<>(like.preds.size());
    succs = new ArrayList<>(like.succs.size());
  }

  /** A block with room for the phis, instructions and edges of {@code like} (for copies). */
  Block(Block like) {
    this.id = like.id;
    this.mark = like.mark;
    phis = new ArrayList<>(like.phis.size());
    insts = new ArrayList<>(like.insts.size());
    preds = new ArrayList<>(like.preds.size());
    succs = new ArrayList<>(like.succs.size());
  }

  public Inst terminator() {
    return insts.isEmpty() ? null : insts.get(insts.size() - 1);
  }

  /** Removes every occurrence of {@code p} from the predecessors, with the phi arguments. */
  public void removePred(Block p) {
    for (int i = preds.size() - 1; i >= 0; i--) {
      if (preds.get(i) == p) {
        removePredAt(i);
      }
    }
  }

  /** Removes predecessor slot {@code i} and the phi arguments for it. */
  public void removePredAt(int i) {
    preds.remove(i);
    for (int k = 0, n = phis.size(); k < n; k++) {
      phis.get(k).removeArg(i);
    }
  }

  /** Replaces predecessor {@code from} by {@code to} everywhere (phi arguments unchanged). */
  public void replacePred(Block from, Block to) {
    for (int i = 0; i < preds.size(); i++) {
      if (preds.get(i) == from) {
        preds.set(i, to);
      }
    }
  }

  /** Replaces successor {@code from} by {@code to} everywhere in this block's successor list. */
  public void replaceSucc(Block from, Block to) {
    for (int i = 0; i < succs.size(); i++) {
      if (succs.get(i) == from) {
        succs.set(i, to);
      }
    }
  }

  @Override
  public String toString() {
    return "B" + id;
  }
}
