package sirocco.jit.classfile;

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
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Cmp;
import sirocco.jit.ir.Cmp3;
import sirocco.jit.ir.Cond;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Conv;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.LongMap;
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
 */
public final class BytecodeBuilder {
  private static final long STACK_VAR = 1L << 40;

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

  private static final class BBlock {
    int start;
    int end;
    Block block;
    int[] succ = new int[0];
    boolean filled;
    boolean dead;
    Object[] exitStack;
    Type[] exitRefs;
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

  private BBlock[] bblocks;
  private int[] blockOfInsn;

  // SSA construction state, indexed by IR block id.
  private final List<LongMap<Value>> defs = new ArrayList<>();
  private final List<Map<Long, Inst>> incomplete = new ArrayList<>();
  private boolean[] sealed = new boolean[16];

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
    growState(entry);
    sealed[entry.id] = true;
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
      write(localKey(slot, t), t, entry, p);
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
    findBlocks();
    Block first = bblocks[0].block;
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
    for (BBlock bb : bblocks) {
      byBlockId[bb.block.id] = bb;
    }
    trySeal(first);
    for (BBlock bb : reversePostOrder()) {
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

  private void findBlocks() {
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
      growState(bb.block);
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

  private List<BBlock> reversePostOrder() {
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
        stack.add(read(stackKey(d, t), t, b));
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
        write(stackKey(d, v.type()), v.type(), b, v);
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
      trySeal(bblocks[s].block);
    }
  }

  private void trySeal(Block b) {
    if (sealed[b.id]) {
      return;
    }
    for (Block p : b.preds) {
      if (!bb(p).filled) {
        return;
      }
    }
    seal(b);
  }

  // ---------------------------------------------------------------- SSA variables

  private static long localKey(int slot, Type t) {
    return ((long) slot << 8) | t.code;
  }

  private static long stackKey(int depth, Type t) {
    return STACK_VAR | ((long) depth << 8) | t.code;
  }

  private void growState(Block b) {
    while (defs.size() <= b.id) {
      defs.add(new LongMap<>());
      incomplete.add(new HashMap<>());
    }
    if (sealed.length <= b.id) {
      sealed = Arrays.copyOf(sealed, Math.max(b.id + 1, sealed.length * 2));
    }
  }

  private void write(long key, Type t, Block b, Value v) {
    defs.get(b.id).put(key, v);
  }

  private Value read(long key, Type t, Block b) {
    Value v = defs.get(b.id).get(key);
    if (v != null) {
      return v;
    }
    return readRecursive(key, t, b);
  }

  private Value readRecursive(long key, Type t, Block b) {
    Value v;
    if (!sealed[b.id]) {
      Inst phi = fn.newPhi(b, t, null);
      incomplete.get(b.id).put(key, phi);
      v = phi;
    } else if (b.preds.size() == 1) {
      v = read(key, t, b.preds.get(0));
    } else if (b.preds.isEmpty()) {
      v = Const.zero(t);
    } else {
      Inst phi = fn.newPhi(b, t, null);
      defs.get(b.id).put(key, phi);
      addPhiOperands(key, t, phi);
      v = phi;
    }
    defs.get(b.id).put(key, v);
    return v;
  }

  private void addPhiOperands(long key, Type t, Inst phi) {
    for (Block p : phi.block.preds) {
      phi.addArg(read(key, t, p));
    }
  }

  private void seal(Block b) {
    sealed[b.id] = true;
    for (Map.Entry<Long, Inst> e : incomplete.get(b.id).entrySet()) {
      addPhiOperands(e.getKey(), e.getValue().type, e.getValue());
    }
    incomplete.get(b.id).clear();
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
      constant(ci.constantValue());
    } else if (ins instanceof OperatorInstruction oi) {
      operator(oi.opcode());
    } else if (ins instanceof ArrayLoadInstruction al) {
      arrayLoad(al.typeKind());
    } else if (ins instanceof ArrayStoreInstruction as) {
      arrayStore(as.typeKind());
    } else if (ins instanceof IncrementInstruction ii) {
      Value v = read(localKey(ii.slot(), Type.INT), Type.INT, cur);
      Value r = append(Op.ADD, Type.INT, null, v, Const.ofInt(ii.constant()));
      write(localKey(ii.slot(), Type.INT), Type.INT, cur, r);
    } else if (ins instanceof ConvertInstruction cv) {
      convert(cv.opcode());
    } else if (ins instanceof StackInstruction st) {
      stackOp(st.opcode());
    } else if (ins instanceof FieldInstruction fi) {
      calls.field(fi);
    } else if (ins instanceof InvokeInstruction inv) {
      calls.invoke(inv);
    } else if (ins instanceof BranchInstruction br) {
      branch(br);
      return true;
    } else if (ins instanceof TableSwitchInstruction ts) {
      switchOp(ts.cases());
      return true;
    } else if (ins instanceof LookupSwitchInstruction ls) {
      switchOp(ls.cases());
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
      newObject(no);
    } else if (ins instanceof NewPrimitiveArrayInstruction na) {
      newPrimitiveArray(na);
    } else if (ins instanceof NewReferenceArrayInstruction na) {
      throw unsupported(
          "allocation of new "
              + na.componentType().asSymbol().displayName()
              + "[] is not supported in kernels");
    } else if (ins instanceof NewMultiArrayInstruction) {
      throw unsupported("allocation of a multi-dimensional array is not supported in kernels");
    } else if (ins instanceof TypeCheckInstruction tc) {
      typeCheck(tc);
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

  private void newObject(NewObjectInstruction no) {
    String name = no.className().asInternalName();
    RecordKind rk = RecordKind.ofInternalName(name);
    if (name.equals("java/lang/StringBuilder") || name.equals("java/lang/StringBuffer")) {
      throw unsupported(
          "string concatenation (new " + name.replace('/', '.') + ") is not supported in kernels");
    }
    if (rk == null && isThrowable(name)) {
      throw unsupported(
          "throw new "
              + name.replace('/', '.')
              + "(...) is not supported in kernels (the GPU cannot raise exceptions); it is"
              + " only allowed where specialization makes it unreachable");
    }
    if (rk == null) {
      throw unsupported(
          "allocation of new "
              + name.replace('/', '.')
              + " is not supported in kernels; objects cannot be created on the GPU (only the"
              + " value records Int4, Int2 and Float4, which live in registers)");
    }
    stack.add(new Uninit(rk));
  }

  private void newPrimitiveArray(NewPrimitiveArrayInstruction na) {
    Value len = pop();
    String t = na.typeKind().upperBound().displayName();
    String n = len instanceof Const c ? Integer.toString(c.asInt()) : "n";
    String cap = Character.toUpperCase(t.charAt(0)) + t.substring(1);
    String alloc =
        switch (t) {
          case "float", "int", "short", "byte" ->
              "ctx.allocate" + cap + "LocalArray(n) for shared memory";
          default -> "a shared int/float/short/byte array";
        };
    throw unsupported(
        "allocation of new "
            + t
            + "["
            + n
            + "] is not supported in kernels; use "
            + alloc
            + " or scalar locals / Float4 for registers");
  }

  private boolean isThrowable(String internalName) {
    Class<?> c = classes.load(internalName);
    return c != null && Throwable.class.isAssignableFrom(c);
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
    push(read(localKey(slot, t), t, cur));
  }

  private void store(StoreInstruction si) {
    int slot = si.slot();
    Object o = popAny();
    if (!(o instanceof Value v)) {
      throw unsupported("storing an object under construction in a local is not supported");
    }
    Type t = v.type();
    write(localKey(slot, t), t, cur, v);
    refLocals[slot] = t.isNumeric() ? null : t;
    if (t.isWide() && slot + 1 < refLocals.length) {
      refLocals[slot + 1] = null;
    }
  }

  private void constant(ConstantDesc c) {
    if (c instanceof Integer i) {
      push(Const.ofInt(i));
    } else if (c instanceof Float f) {
      push(Const.ofFloat(f));
    } else if (c instanceof Long l) {
      push(Const.ofLong(l));
    } else if (c instanceof Double d) {
      push(Const.ofDouble(d));
    } else if (c instanceof String str) {
      throw unsupported("string constant \"" + str + "\": strings are not supported in kernels");
    } else {
      throw unsupported("constant " + c + " is not supported in kernels");
    }
  }

  private static Type numType(Opcode op) {
    String n = op.name();
    return switch (n.charAt(0)) {
      case 'I' -> Type.INT;
      case 'L' -> Type.LONG;
      case 'F' -> Type.FLOAT;
      case 'D' -> Type.DOUBLE;
      default -> throw new IllegalStateException(n);
    };
  }

  private void operator(Opcode op) {
    switch (op) {
      case ARRAYLENGTH ->
          throw unsupported(
              "array.length is not available in kernels; pass the length as a parameter");
      case INEG, LNEG, FNEG, DNEG -> push(append(Op.NEG, numType(op), null, pop()));
      case LCMP, FCMPL, FCMPG, DCMPL, DCMPG -> {
        Value b = pop();
        Value a = pop();
        push(append(Op.CMP3, Type.INT, Cmp3.valueOf(op.name()), a, b));
      }
      case FREM, DREM ->
          throw unsupported(
              (op == Opcode.FREM ? "float" : "double")
                  + " remainder (%) is not supported in kernels; compute it explicitly, e.g. x -"
                  + " y * (int) (x / y) with the precision your kernel needs");
      default -> {
        Op o =
            switch (op) {
              case IADD, LADD, FADD, DADD -> Op.ADD;
              case ISUB, LSUB, FSUB, DSUB -> Op.SUB;
              case IMUL, LMUL, FMUL, DMUL -> Op.MUL;
              case IDIV, LDIV, FDIV, DDIV -> Op.DIV;
              case IREM, LREM -> Op.REM;
              case ISHL, LSHL -> Op.SHL;
              case ISHR, LSHR -> Op.SHR;
              case IUSHR, LUSHR -> Op.USHR;
              case IAND, LAND -> Op.AND;
              case IOR, LOR -> Op.OR;
              case IXOR, LXOR -> Op.XOR;
              default -> throw unsupported("bytecode " + op + " is not supported in kernels");
            };
        Value b = pop();
        Value a = pop();
        push(append(o, numType(op), null, a, b));
      }
    }
  }

  private void convert(Opcode op) {
    Conv c = Conv.valueOf(op.name());
    Value v = pop();
    push(append(Op.CONV, c.to, c, v));
  }

  private static int cat(Object o) {
    return o instanceof Value v && v.type().isWide() ? 2 : 1;
  }

  private Object top(int i) {
    return stack.get(stack.size() - 1 - i);
  }

  private void stackOp(Opcode op) {
    ArrayList<Object> s = stack;
    switch (op) {
      case POP -> popAny();
      case POP2 -> {
        if (cat(popAny()) == 1) {
          popAny();
        }
      }
      case DUP -> s.add(top(0));
      case DUP_X1 -> {
        Object v1 = popAny();
        Object v2 = popAny();
        s.add(v1);
        s.add(v2);
        s.add(v1);
      }
      case DUP_X2 -> {
        Object v1 = popAny();
        if (cat(top(0)) == 2) {
          Object v2 = popAny();
          s.add(v1);
          s.add(v2);
          s.add(v1);
        } else {
          Object v2 = popAny();
          Object v3 = popAny();
          s.add(v1);
          s.add(v3);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2 -> {
        if (cat(top(0)) == 2) {
          s.add(top(0));
        } else {
          Object v1 = top(0);
          Object v2 = top(1);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2_X1 -> {
        if (cat(top(0)) == 2) {
          Object v1 = popAny();
          Object v2 = popAny();
          s.add(v1);
          s.add(v2);
          s.add(v1);
        } else {
          Object v1 = popAny();
          Object v2 = popAny();
          Object v3 = popAny();
          s.add(v2);
          s.add(v1);
          s.add(v3);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2_X2 -> {
        Object v1 = popAny();
        if (cat(v1) == 2) {
          Object v2 = popAny();
          if (cat(v2) == 2) {
            s.add(v1);
            s.add(v2);
            s.add(v1);
          } else {
            Object v3 = popAny();
            s.add(v1);
            s.add(v3);
            s.add(v2);
            s.add(v1);
          }
        } else {
          Object v2 = popAny();
          Object v3 = popAny();
          if (cat(v3) == 2) {
            s.add(v2);
            s.add(v1);
            s.add(v3);
            s.add(v2);
            s.add(v1);
          } else {
            Object v4 = popAny();
            s.add(v2);
            s.add(v1);
            s.add(v4);
            s.add(v3);
            s.add(v2);
            s.add(v1);
          }
        }
      }
      case SWAP -> {
        Object v1 = popAny();
        Object v2 = popAny();
        s.add(v1);
        s.add(v2);
      }
      default -> throw unsupported("bytecode " + op);
    }
  }

  private void branch(BranchInstruction br) {
    Opcode op = br.opcode();
    switch (op) {
      case GOTO, GOTO_W -> append(Op.BR, Type.VOID, null);
      case IFEQ, IFNE, IFLT, IFGE, IFGT, IFLE -> {
        Cond c = Cond.valueOf(op.name().substring(2));
        Value v = pop();
        Value p;
        if (v instanceof Inst i && i.op == Op.CMP3) {
          Cmp3 k = (Cmp3) i.aux;
          boolean unordered = k != Cmp3.LCMP && c.test(k.nanResult());
          p = append(Op.SETP, Type.PRED, new Cmp(c, unordered), i.args[0], i.args[1]);
        } else {
          p = append(Op.SETP, Type.PRED, new Cmp(c, false), v, Const.ofInt(0));
        }
        append(Op.CBR, Type.VOID, null, p);
      }
      case IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE -> {
        Cond c = Cond.valueOf(op.name().substring(7));
        Value b = pop();
        Value a = pop();
        Value p = append(Op.SETP, Type.PRED, new Cmp(c, false), a, b);
        append(Op.CBR, Type.VOID, null, p);
      }
      case IF_ACMPEQ, IF_ACMPNE ->
          throw unsupported(
              "reference comparison (== or != on arrays or records) is not supported in kernels");
      case IFNULL, IFNONNULL ->
          throw unsupported(
              "null check is not supported in kernels (kernel arrays are never null on the GPU)");
      default -> throw unsupported("bytecode " + op);
    }
  }

  private void switchOp(List<SwitchCase> cases) {
    Value key = pop();
    int[] keys = new int[cases.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = cases.get(i).caseValue();
    }
    append(Op.SWITCH, Type.VOID, keys, key);
  }

  private void arrayLoad(TypeKind k) {
    Value idx = pop();
    Value arr = pop();
    if (k == TypeKind.REFERENCE) {
      throw unsupported("arrays of references are not supported in kernels");
    }
    if (!arr.type().isArray()) {
      throw unsupported("array load from a value of type " + arr.type());
    }
    push(append(Op.LOAD, arr.type().elem.valueType(), sirocco.jit.ir.MemFlavor.PLAIN, arr, idx));
  }

  private void arrayStore(TypeKind k) {
    Value val = pop();
    Value idx = pop();
    Value arr = pop();
    if (k == TypeKind.REFERENCE) {
      throw unsupported(
          "storing references (records or arrays) into arrays is not supported in kernels; store"
              + " the components or use Vec.store4");
    }
    if (!arr.type().isArray()) {
      throw unsupported("array store to a value of type " + arr.type());
    }
    append(Op.STORE, Type.VOID, sirocco.jit.ir.MemFlavor.PLAIN, arr, idx, val);
  }

  private void typeCheck(TypeCheckInstruction tc) {
    if (tc.opcode() == Opcode.CHECKCAST) {
      Object o = top(0);
      Type want = Type.ofDescriptor(tc.type().asSymbol().descriptorString());
      if (o instanceof Value v && want != null && v.type() == want) {
        return;
      }
      throw unsupported(
          "cast to " + tc.type().asSymbol().displayName() + " is not supported in kernels");
    }
    throw unsupported("instanceof is not supported in kernels");
  }
}
