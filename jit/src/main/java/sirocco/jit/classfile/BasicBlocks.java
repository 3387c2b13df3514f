package sirocco.jit.classfile;

import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.Type;

/**
 * The basic blocks of a method's bytecode for {@link BytecodeBuilder}: leaders (branch and switch
 * targets, and the instruction after each block end), each block's successors in the bytecode CFG,
 * an IR block per basic block with the predecessors reachable in that CFG, and the reverse
 * post-order the builder translates them in.
 */
final class BasicBlocks {
  /**
   * A basic block: its instructions {@code [start, end)}, its IR block and successors, and the
   * builder's translation state (filled, cut off, and the stack and reference locals at its exit).
   */
  static final class BBlock {
    int start;
    int end;
    Block block;
    int[] succ = new int[0];
    boolean filled;
    boolean dead;
    Object[] exitStack;
    Type[] exitRefs;
  }

  private final List<Instruction> insns;
  private final Map<Label, Integer> labels;
  private final MethodId id;

  BBlock[] bblocks;
  private int[] blockOfInsn;

  BasicBlocks(List<Instruction> insns, Map<Label, Integer> labels, MethodId id) {
    this.insns = insns;
    this.labels = labels;
    this.id = id;
  }

  private int target(Label l) {
    Integer i = labels.get(l);
    if (i == null) {
      throw new IllegalStateException("unbound label in " + id);
    }
    return i;
  }

  private static boolean endsBlock(Instruction ins) {
    return ins instanceof BranchInstruction
        || ins instanceof TableSwitchInstruction
        || ins instanceof LookupSwitchInstruction
        || ins instanceof ReturnInstruction
        || ins instanceof ThrowInstruction;
  }

  void findBlocks(Function fn, SsaVariables ssa) {
    int n = insns.size();
    boolean[] leader = new boolean[n + 1];
    leader[0] = true;
    for (int i = 0; i < n; i++) {
      Instruction ins = insns.get(i);
      if (ins instanceof BranchInstruction b) {
        leader[target(b.target())] = true;
      } else if (ins instanceof TableSwitchInstruction t) {
        leader[target(t.defaultTarget())] = true;
        for (SwitchCase c : t.cases()) {
          leader[target(c.target())] = true;
        }
      } else if (ins instanceof LookupSwitchInstruction t) {
        leader[target(t.defaultTarget())] = true;
        for (SwitchCase c : t.cases()) {
          leader[target(c.target())] = true;
        }
      }
      if (endsBlock(ins)) {
        leader[i + 1] = true;
      }
    }
    List<BBlock> list = new ArrayList<>();
    blockOfInsn = new int[n];
    for (int i = 0; i < n; ) {
      BBlock bb = new BBlock();
      bb.start = i;
      int j = i + 1;
      while (j < n && !leader[j]) {
        j++;
      }
      bb.end = j;
      for (int k = i; k < j; k++) {
        blockOfInsn[k] = list.size();
      }
      list.add(bb);
      i = j;
    }
    bblocks = list.toArray(new BBlock[0]);
    for (BBlock bb : bblocks) {
      bb.block = fn.newBlock();
      ssa.growState(bb.block);
    }
    for (int k = 0; k < bblocks.length; k++) {
      BBlock bb = bblocks[k];
      Instruction last = insns.get(bb.end - 1);
      int next = bb.end < n ? blockOfInsn[bb.end] : -1;
      int[] succ;
      if (last instanceof BranchInstruction b) {
        succ =
            b.opcode() == Opcode.GOTO || b.opcode() == Opcode.GOTO_W
                ? new int[] {blockOfInsn[target(b.target())]}
                : new int[] {blockOfInsn[target(b.target())], next};
      } else if (last instanceof TableSwitchInstruction t) {
        succ = switchSuccs(t.defaultTarget(), t.cases());
      } else if (last instanceof LookupSwitchInstruction t) {
        succ = switchSuccs(t.defaultTarget(), t.cases());
      } else if (last instanceof ReturnInstruction || last instanceof ThrowInstruction) {
        succ = new int[0];
      } else {
        succ = next < 0 ? new int[0] : new int[] {next};
      }
      for (int s : succ) {
        if (s < 0) {
          throw new IllegalStateException("control falls off the end of " + id);
        }
      }
      bb.succ = succ;
    }
    // Predecessors only from blocks reachable in the bytecode CFG.
    for (BBlock bb : reversePostOrder()) {
      for (int s : bb.succ) {
        bblocks[s].block.preds.add(bb.block);
        bb.block.succs.add(bblocks[s].block);
      }
    }
  }

  private int[] switchSuccs(Label dflt, List<SwitchCase> cases) {
    int[] s = new int[cases.size() + 1];
    s[0] = blockOfInsn[target(dflt)];
    for (int i = 0; i < cases.size(); i++) {
      s[i + 1] = blockOfInsn[target(cases.get(i).target())];
    }
    return s;
  }

  private List<BBlock> rpoCache;

  List<BBlock> reversePostOrder() {
    if (rpoCache != null) {
      return rpoCache;
    }
    int n = bblocks.length;
    int[] state = new int[n];
    List<BBlock> post = new ArrayList<>();
    int[] stackB = new int[n + 1];
    int[] stackI = new int[n + 1];
    int sp = 0;
    stackB[0] = 0;
    stackI[0] = 0;
    state[0] = 1;
    sp = 1;
    while (sp > 0) {
      int b = stackB[sp - 1];
      int i = stackI[sp - 1];
      int[] succ = bblocks[b].succ;
      if (i < succ.length) {
        stackI[sp - 1] = i + 1;
        int s = succ[i];
        if (state[s] == 0) {
          state[s] = 1;
          stackB[sp] = s;
          stackI[sp] = 0;
          sp++;
        }
      } else {
        sp--;
        post.add(bblocks[b]);
      }
    }
    List<BBlock> rpo = new ArrayList<>(post.size());
    for (int i = post.size() - 1; i >= 0; i--) {
      rpo.add(post.get(i));
    }
    rpoCache = rpo;
    return rpo;
  }
}
