package sirocco.jit.classfile;

import static sirocco.jit.classfile.SsaVariables.localKey;
import static sirocco.jit.classfile.SsaVariables.stackKey;

import java.lang.classfile.Attributes;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.LineNumberTableAttribute;
import java.lang.classfile.instruction.ArrayLoadInstruction;
import java.lang.classfile.instruction.ArrayStoreInstruction;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.ConvertInstruction;
import java.lang.classfile.instruction.DiscontinuedInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LineNumber;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.MonitorInstruction;
import java.lang.classfile.instruction.NewMultiArrayInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.NewReferenceArrayInstruction;
import java.lang.classfile.instruction.NopInstruction;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.classfile.BasicBlocks.BBlock;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Pos;
import sirocco.jit.ir.RecordKind;
import sirocco.jit.ir.SsaCleanup;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Translates one static method's bytecode into an SSA {@link Function}.
 *
 * <p>Blocks are found from branch targets first; they are then translated in reverse post-order,
 * building SSA on the fly (Braun et al., "Simple and Efficient Construction of Static Single
 * Assignment Form", 2013). JVM locals are SSA variables keyed by (slot, type), so a slot that javac
 * reuses for an {@code int} and later a {@code float} gives two unrelated variables; operand-stack
 * entries live at a block boundary (after {@code ?:}, or {@code &&} feeding a value) are variables
 * keyed by (depth, type), which gives them a phi wherever paths merge.
 *
 * <p>Unsupported constructs do not fail the build at once: the rest of the block is replaced by a
 * {@link Op#TRAP}, which fails the compilation only if it is still reachable after specialization
 * and dead-branch elimination (so that, for example, {@code if (bits != 4) throw ...} with a
 * specialized {@code bits} compiles).
 *
 * <p>This class owns the driver, the per-block state, the operand stack and the locals; the
 * instructions are translated by groups in {@link OperatorLowering}, {@link ObjectLowering}, {@link
 * StackShuffles} and {@link CallLowering}; the basic blocks are found by {@link BasicBlocks}, and
 * the SSA variables live in {@link SsaVariables}.
 */
public final class BytecodeBuilder {
  /** The placeholder for an uninitialised {@code new Int4} on the operand stack. */
  static final class Uninit {
    final RecordKind kind;

    Uninit(RecordKind kind) {
      this.kind = kind;
    }
  }

  /** An unsupported construct at the current instruction. */
  static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unsupported(String message) {
      super(message, null, false, false);
    }
  }

  private final ClassFiles classes;
  private final MethodId id;
  private final MethodModel method;
  private final Function fn;
  private final CallLowering calls;

  private final List<Instruction> insns = new ArrayList<>();
  private int[] bcis;
  private int[] lines;
  private final Map<Label, Integer> labels = new IdentityHashMap<>();

  private BasicBlocks blocks;

  /** SSA construction state of locals and live stack entries, indexed by IR block id. */
  private final SsaVariables ssa;

  // Per-block translation state.
  private Block cur;
  private final ArrayList<Object> stack = new ArrayList<>();
  private Type[] refLocals;
  private int curIndex;
  private Pos curPos;

  private BytecodeBuilder(ClassFiles classes, ClassFiles.Found found) {
    this.classes = classes;
    this.id = found.id();
    this.method = found.method();
    MethodTypeDesc mt = method.methodTypeSymbol();
    List<Type> ptypes = new ArrayList<>();
    List<String> pdescs = new ArrayList<>();
    for (ClassDesc p : mt.parameterList()) {
      Type t = Type.ofDescriptor(p.descriptorString());
      ptypes.add(t);
      pdescs.add(p.descriptorString());
    }
    Type ret = Type.ofDescriptor(mt.returnType().descriptorString());
    this.fn = new Function(id, new Pos(id, 0, firstLine(method), null), ptypes, pdescs, ret);
    this.ssa = new SsaVariables(fn);
    this.calls = new CallLowering(this, classes);
  }

  /**
   * Builds the SSA function of a static method. Never throws for unsupported constructs inside the
   * body (they become traps); throws {@link IllegalStateException} for malformed input.
   */
  public static Function build(ClassFiles classes, ClassFiles.Found found) {
    BytecodeBuilder b = new BytecodeBuilder(classes, found);
    b.run();
    return b.fn;
  }

  MethodId methodId() {
    return id;
  }

  Function function() {
    return fn;
  }

  Pos pos() {
    return curPos;
  }

  ClassFiles classes() {
    return classes;
  }

  // No lambdas, streams or pattern switches on the compile path: each such call site costs about
  // a millisecond (its bootstrap) the first time it runs in a JVM.
  private static int firstLine(MethodModel m) {
    CodeModel code = m.code().orElse(null);
    LineNumberTableAttribute t =
        code == null ? null : code.findAttribute(Attributes.lineNumberTable()).orElse(null);
    return t == null || t.lineNumbers().isEmpty() ? -1 : t.lineNumbers().get(0).lineNumber();
  }

  // ---------------------------------------------------------------- driver

  private void run() {
    Block entry = fn.newBlock();
    ssa.growState(entry);
    ssa.markSealed(entry);
    CodeModel code = method.code().orElse(null);
    if (code == null) {
      trapWhole(entry, "method " + id.javaName() + " has no bytecode (abstract or native)");
      return;
    }
    List<Type> ptypes = fn.paramTypes;
    int slot = 0;
    refLocals =
        new Type
            [(code instanceof java.lang.classfile.attribute.CodeAttribute ca ? ca.maxLocals() : 256)
                + 2];
    for (int i = 0; i < ptypes.size(); i++) {
      Type t = ptypes.get(i);
      if (t == null) {
        trapWhole(
            entry,
            "parameter "
                + (i + 1)
                + " of "
                + id.javaName()
                + " has type "
                + fn.paramDescriptors.get(i)
                + ", which kernels cannot use (only primitives, primitive arrays, KernelContext and"
                + " Int4/Int2/Float4)");
        return;
      }
    }
    for (int i = 0; i < ptypes.size(); i++) {
      Type t = ptypes.get(i);
      Inst p = fn.append(entry, Op.PARAM, t, null, i, fn.pos);
      ssa.write(localKey(slot, t), t, entry, p);
      if (!t.isNumeric()) {
        refLocals[slot] = t;
      }
      slot += t.isWide() ? 2 : 1;
    }
    decode(code);
    for (int i = 0; i < insns.size(); i++) {
      if (insns.get(i) instanceof MonitorInstruction) {
        fn.append(
            entry,
            Op.TRAP,
            Type.VOID,
            null,
            "synchronized is not supported in kernels; use ctx atomics or barriers",
            new Pos(id, bcis[i], lines[i], null));
        return;
      }
    }
    if (!code.exceptionHandlers().isEmpty()) {
      Integer at = labels.get(code.exceptionHandlers().get(0).tryStart());
      Pos where = at == null || at >= bcis.length ? fn.pos : new Pos(id, bcis[at], lines[at], null);
      fn.append(
          entry,
          Op.TRAP,
          Type.VOID,
          null,
          "exception handlers (try/catch/finally, synchronized) are not supported in kernels; the"
              + " GPU raises no exceptions: remove the try block",
          where);
      return;
    }
    blocks = new BasicBlocks(insns, labels, id);
    blocks.findBlocks(fn, ssa);
    Block first = blocks.bblocks[0].block;
    fn.append(entry, Op.BR, Type.VOID, null, null, fn.pos);
    entry.succs.add(first);
    first.preds.add(entry);
    entryExit = new BBlock();
    entryExit.block = entry;
    entryExit.filled = true;
    entryExit.exitStack = new Object[0];
    entryExit.exitRefs = refLocals.clone();
    byBlockId = new BBlock[fn.blockIdLimit()];
    byBlockId[entry.id] = entryExit;
    for (BBlock bb : blocks.bblocks) {
      byBlockId[bb.block.id] = bb;
    }
    trySeal(first);
    for (BBlock bb : blocks.reversePostOrder()) {
      translateBlock(bb);
    }
    // Blocks never reached (dead code javac kept, or cut off by traps).
    fn.removeUnreachable();
    SsaCleanup.removeTrivialPhis(fn);
  }

  private BBlock entryExit;

  private void trapWhole(Block entry, String what) {
    fn.append(entry, Op.TRAP, Type.VOID, null, what, fn.pos);
  }

  private void decode(CodeModel code) {
    int[] bciList = new int[64];
    int[] lineList = new int[64];
    int bci = 0;
    int line = fn.pos.line();
    // if/instanceof rather than a pattern switch: the switch bootstrap is slow on first use.
    for (CodeElement e : code) {
      if (e instanceof Instruction ins) {
        int n = insns.size();
        if (n == bciList.length) {
          bciList = Arrays.copyOf(bciList, n * 2);
          lineList = Arrays.copyOf(lineList, n * 2);
        }
        insns.add(ins);
        bciList[n] = bci;
        lineList[n] = line;
        bci += ins.sizeInBytes();
      } else if (e instanceof LabelTarget lt) {
        labels.put(lt.label(), insns.size());
      } else if (e instanceof LineNumber ln) {
        line = ln.line();
      }
    }
    bcis = Arrays.copyOf(bciList, insns.size());
    lines = Arrays.copyOf(lineList, insns.size());
  }

  private BBlock[] byBlockId;

  private BBlock bb(Block b) {
    return byBlockId[b.id];
  }

  private void translateBlock(BBlock bb) {
    Block b = bb.block;
    BBlock from = null;
    for (Block p : b.preds) {
      BBlock pb = bb(p);
      if (pb.filled && !pb.dead) {
        from = pb;
        break;
      }
    }
    if (from == null) {
      // Every way in was cut off (by a trap) or is a back edge from code it dominates.
      bb.dead = true;
      bb.filled = true;
      for (Block s : new ArrayList<>(b.succs)) {
        s.removePred(b);
      }
      b.succs.clear();
      afterFill(bb);
      return;
    }
    cur = b;
    stack.clear();
    refLocals = from.exitRefs.clone();
    for (int d = 0; d < from.exitStack.length; d++) {
      Object o = from.exitStack[d];
      if (o instanceof Type t) {
        stack.add(ssa.read(stackKey(d, t), t, b));
      } else {
        stack.add(o);
      }
    }
    boolean terminated = false;
    try {
      for (int i = bb.start; i < bb.end; i++) {
        curIndex = i;
        curPos = new Pos(id, bcis[i], lines[i], null);
        terminated = translate(insns.get(i), bb);
      }
      if (!terminated) {
        append(Op.BR, Type.VOID, null);
      }
    } catch (Unsupported u) {
      fn.append(b, Op.TRAP, Type.VOID, null, u.getMessage(), curPos);
      for (Block s : new ArrayList<>(b.succs)) {
        s.removePred(b);
      }
      b.succs.clear();
      stack.clear();
    }
    // Values left on the stack flow to the successors.
    Object[] shape = new Object[stack.size()];
    for (int d = 0; d < stack.size(); d++) {
      Object o = stack.get(d);
      if (o instanceof Value v) {
        shape[d] = v.type();
        ssa.write(stackKey(d, v.type()), v.type(), b, v);
      } else {
        shape[d] = o;
      }
    }
    bb.exitStack = shape;
    bb.exitRefs = refLocals.clone();
    bb.filled = true;
    afterFill(bb);
  }

  /** Seals every successor whose predecessors are now all filled. */
  private void afterFill(BBlock bb) {
    for (int s : bb.succ) {
      trySeal(blocks.bblocks[s].block);
    }
  }

  private void trySeal(Block b) {
    if (ssa.isSealed(b)) {
      return;
    }
    for (Block p : b.preds) {
      if (!bb(p).filled) {
        return;
      }
    }
    ssa.seal(b);
  }

  // ---------------------------------------------------------------- emission helpers

  Inst append(Op op, Type type, Object aux, Value... args) {
    return fn.append(cur, op, type, args, aux, curPos);
  }

  Value pop() {
    if (stack.isEmpty()) {
      throw new IllegalStateException("operand stack underflow in " + id);
    }
    Object o = stack.remove(stack.size() - 1);
    if (o instanceof Value v) {
      return v;
    }
    throw new Unsupported("use of an object under construction is not supported in kernels");
  }

  Object popAny() {
    return stack.remove(stack.size() - 1);
  }

  Object top(int i) {
    return stack.get(stack.size() - 1 - i);
  }

  void push(Value v) {
    stack.add(v);
  }

  ArrayList<Object> stack() {
    return stack;
  }

  static Unsupported unsupported(String message) {
    return new Unsupported(message);
  }

  // ---------------------------------------------------------------- instructions

  /** Translates one instruction; returns true when it terminated the block. */
  private boolean translate(Instruction ins, BBlock bb) {
    // An if/instanceof chain ordered by frequency; a pattern switch would bootstrap slowly cold.
    if (ins instanceof LoadInstruction li) {
      load(li);
    } else if (ins instanceof StoreInstruction si) {
      store(si);
    } else if (ins instanceof ConstantInstruction ci) {
      if (ci.opcode() == Opcode.ACONST_NULL) {
        throw unsupported(
            "null is not supported in kernels (references cannot be null or compared to null)");
      }
      OperatorLowering.constant(this, ci.constantValue());
    } else if (ins instanceof OperatorInstruction oi) {
      OperatorLowering.operator(this, oi.opcode());
    } else if (ins instanceof ArrayLoadInstruction al) {
      ObjectLowering.arrayLoad(this, al.typeKind());
    } else if (ins instanceof ArrayStoreInstruction as) {
      ObjectLowering.arrayStore(this, as.typeKind());
    } else if (ins instanceof IncrementInstruction ii) {
      Value v = ssa.read(localKey(ii.slot(), Type.INT), Type.INT, cur);
      Value r = append(Op.ADD, Type.INT, null, v, Const.ofInt(ii.constant()));
      ssa.write(localKey(ii.slot(), Type.INT), Type.INT, cur, r);
    } else if (ins instanceof ConvertInstruction cv) {
      OperatorLowering.convert(this, cv.opcode());
    } else if (ins instanceof StackInstruction st) {
      StackShuffles.stackOp(this, st.opcode());
    } else if (ins instanceof FieldInstruction fi) {
      calls.field(fi);
    } else if (ins instanceof InvokeInstruction inv) {
      calls.invoke(inv);
    } else if (ins instanceof BranchInstruction br) {
      OperatorLowering.branch(this, br);
      return true;
    } else if (ins instanceof TableSwitchInstruction ts) {
      OperatorLowering.switchOp(this, ts.cases());
      return true;
    } else if (ins instanceof LookupSwitchInstruction ls) {
      OperatorLowering.switchOp(this, ls.cases());
      return true;
    } else if (ins instanceof ReturnInstruction ri) {
      if (ri.typeKind() == TypeKind.VOID) {
        append(Op.RET, Type.VOID, null);
      } else {
        append(Op.RET, Type.VOID, null, pop());
      }
      return true;
    } else if (ins instanceof ThrowInstruction) {
      throw unsupported(
          "throw is not supported in kernels (the GPU cannot raise exceptions); it is only"
              + " allowed where specialization makes it unreachable");
    } else if (ins instanceof InvokeDynamicInstruction indy) {
      throw unsupported(
          "invokedynamic ("
              + (indy.name().stringValue().startsWith("makeConcat")
                  ? "string concatenation"
                  : "lambda or method reference " + indy.name().stringValue())
              + ") is not supported in kernels");
    } else if (ins instanceof NewObjectInstruction no) {
      ObjectLowering.newObject(this, no);
    } else if (ins instanceof NewPrimitiveArrayInstruction na) {
      ObjectLowering.newPrimitiveArray(this, na);
    } else if (ins instanceof NewReferenceArrayInstruction na) {
      throw unsupported(
          "allocation of new "
              + na.componentType().asSymbol().displayName()
              + "[] is not supported in kernels");
    } else if (ins instanceof NewMultiArrayInstruction) {
      throw unsupported("allocation of a multi-dimensional array is not supported in kernels");
    } else if (ins instanceof TypeCheckInstruction tc) {
      ObjectLowering.typeCheck(this, tc);
    } else if (ins instanceof MonitorInstruction) {
      throw unsupported("synchronized is not supported in kernels; use ctx atomics or barriers");
    } else if (ins instanceof NopInstruction) {
      return false;
    } else if (ins instanceof DiscontinuedInstruction d) {
      throw unsupported("bytecode " + d.opcode() + " (jsr/ret)");
    } else {
      throw unsupported("bytecode " + ins.opcode() + " is not supported in kernels");
    }
    return false;
  }

  private void load(LoadInstruction li) {
    int slot = li.slot();
    Type t =
        switch (li.typeKind()) {
          case INT -> Type.INT;
          case LONG -> Type.LONG;
          case FLOAT -> Type.FLOAT;
          case DOUBLE -> Type.DOUBLE;
          default -> refLocals[slot];
        };
    if (t == null) {
      throw unsupported("read of local variable slot " + slot + " whose type is not supported");
    }
    push(ssa.read(localKey(slot, t), t, cur));
  }

  private void store(StoreInstruction si) {
    int slot = si.slot();
    Object o = popAny();
    if (!(o instanceof Value v)) {
      throw unsupported("storing an object under construction in a local is not supported");
    }
    Type t = v.type();
    ssa.write(localKey(slot, t), t, cur, v);
    refLocals[slot] = t.isNumeric() ? null : t;
    if (t.isWide() && slot + 1 < refLocals.length) {
      refLocals[slot + 1] = null;
    }
  }
}
