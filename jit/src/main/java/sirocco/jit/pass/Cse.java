package sirocco.jit.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Dominators;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.SReg;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Integer identities ({@code x + 0}, {@code x * 1}, {@code x & -1}, {@code x << 0}, {@code x * 0}
 * ...; never for floats, where {@code x + 0} is not {@code x} for {@code -0.0}) and common
 * subexpression elimination of pure instructions over the dominator tree. ptxas would do both, but
 * doing them here keeps the PTX small (unrolled code repeats its index arithmetic).
 */
public final class Cse implements Pass {
  @Override
  public String name() {
    return "cse";
  }

  /** Value-numbering key (a plain class: records' generated equals bootstraps slowly when cold). */
  private static final class Key {
    final Op op;
    final Type type;
    final Object aux;
    final Value[] args;
    final int hash;

    Key(Inst i) {
      op = i.op;
      type = i.type;
      aux = i.aux;
      args = i.args.clone();
      int h = op.ordinal() * 31 + type.code;
      h = h * 31 + (aux == null ? 0 : aux.hashCode());
      for (Value a : args) {
        h = h * 31 + (a instanceof Inst x ? x.id : a.hashCode());
      }
      hash = h;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Key k) || k.hash != hash || k.op != op || k.type != type) {
        return false;
      }
      if (!java.util.Objects.equals(aux, k.aux) || k.args.length != args.length) {
        return false;
      }
      for (int i = 0; i < args.length; i++) {
        Value a = args[i];
        Value b = k.args[i];
        if (a != b && !(a instanceof sirocco.jit.ir.Const && a.equals(b))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  @Override
  public void run(Function fn, PassContext ctx) {
    Dominators dom = new Dominators(fn);
    // Dominator-tree children by block id, in reverse post-order.
    List<Block> rpo = dom.reversePostOrder();
    int[] count = new int[fn.blockIdLimit()];
    for (Block b : rpo) {
      Block up = dom.idom(b);
      if (up != b) {
        count[up.id]++;
      }
    }
    Block[][] children = new Block[count.length][];
    for (Block b : rpo) {
      Block up = dom.idom(b);
      if (up != b) {
        if (children[up.id] == null) {
          children[up.id] = new Block[count[up.id]];
          count[up.id] = 0;
        }
        children[up.id][count[up.id]++] = b;
      }
    }
    Value[] replace = new Value[fn.instIdLimit()];
    Map<Key, Inst> table = new HashMap<>();
    walk(fn.entry(), children, table, replace);
    fn.replaceUses(replace);
    for (int j = 0, n = fn.blocks.size(); j < n; j++) {
      Block b = fn.blocks.get(j);
      Inst.removeReplaced(b.insts, replace);
    }
  }

  private static void walk(Block b, Block[][] children, Map<Key, Inst> table, Value[] replace) {
    List<Key> added = new ArrayList<>();
    for (int q = 0, m = b.insts.size(); q < m; q++) {
      Inst i = b.insts.get(q);
      for (int k = 0; k < i.args.length; k++) {
        if (i.args[k] instanceof Inst x && replace[x.id] != null) {
          i.args[k] = Function.resolve(x, replace);
        }
      }
      Value same = identity(i);
      if (same != null) {
        replace[i.id] = same;
        continue;
      }
      if (!pure(i)) {
        continue;
      }
      Key key = new Key(i);
      Inst prev = table.get(key);
      if (prev != null) {
        replace[i.id] = prev;
      } else {
        table.put(key, i);
        added.add(key);
      }
    }
    Block[] cs = children[b.id];
    if (cs != null) {
      for (Block c : cs) {
        walk(c, children, table, replace);
      }
    }
    for (int k = 0, n = added.size(); k < n; k++) {
      table.remove(added.get(k));
    }
  }

  private static boolean pure(Inst i) {
    if (i.op == Op.SREG && i.aux == SReg.GLOBALTIMER) {
      return false; // a clock: two reads are two different values
    }
    return switch (i.op) {
      case ADD,
          SUB,
          MUL,
          DIV,
          REM,
          NEG,
          AND,
          OR,
          XOR,
          SHL,
          SHR,
          USHR,
          CONV,
          CMP3,
          SETP,
          SELECT,
          MATH,
          SREG ->
          true;
      default -> false;
    };
  }

  /** The value {@code i} always equals by an integer identity, or null. */
  private static Value identity(Inst i) {
    if (i.type != Type.INT && i.type != Type.LONG) {
      return null;
    }
    if (!i.op.isBinaryArith() || i.args.length != 2) {
      return null;
    }
    Value a = i.args[0];
    Value b = i.args[1];
    long cb =
        b instanceof Const c ? c.type() == Type.LONG ? c.asLong() : c.asInt() : Long.MIN_VALUE;
    long ca =
        a instanceof Const c ? c.type() == Type.LONG ? c.asLong() : c.asInt() : Long.MIN_VALUE;
    boolean bc = b instanceof Const;
    boolean ac = a instanceof Const;
    int mask = i.type == Type.LONG ? 63 : 31;
    return switch (i.op) {
      case ADD -> bc && cb == 0 ? a : ac && ca == 0 ? b : null;
      case SUB -> bc && cb == 0 ? a : null;
      case MUL ->
          bc && cb == 1
              ? a
              : ac && ca == 1 ? b : (bc && cb == 0) || (ac && ca == 0) ? Const.zero(i.type) : null;
      case DIV -> bc && cb == 1 ? a : null;
      case OR, XOR -> bc && cb == 0 ? a : ac && ca == 0 ? b : null;
      case AND ->
          bc && cb == -1
              ? a
              : ac && ca == -1 ? b : (bc && cb == 0) || (ac && ca == 0) ? Const.zero(i.type) : null;
      case SHL, SHR, USHR -> bc && (cb & mask) == 0 ? a : null;
      default -> null;
    };
  }
}
