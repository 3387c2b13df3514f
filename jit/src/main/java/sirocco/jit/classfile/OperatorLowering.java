package sirocco.jit.classfile;

import static sirocco.jit.classfile.BytecodeBuilder.unsupported;

import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ConstantDesc;
import java.util.List;
import sirocco.jit.ir.Cmp;
import sirocco.jit.ir.Cmp3;
import sirocco.jit.ir.Cond;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Conv;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Translation of constants, arithmetic, compare and conversion operators, and of conditional
 * branches and switches (a compare feeding a branch becomes one {@link Op#SETP}). Static helpers of
 * {@link BytecodeBuilder}, which owns the operand stack and the block being filled.
 */
final class OperatorLowering {
  private OperatorLowering() {}

  static void constant(BytecodeBuilder builder, ConstantDesc c) {
    if (c instanceof Integer i) {
      builder.push(Const.ofInt(i));
    } else if (c instanceof Float f) {
      builder.push(Const.ofFloat(f));
    } else if (c instanceof Long l) {
      builder.push(Const.ofLong(l));
    } else if (c instanceof Double d) {
      builder.push(Const.ofDouble(d));
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

  static void operator(BytecodeBuilder builder, Opcode op) {
    switch (op) {
      case ARRAYLENGTH ->
          throw unsupported(
              "array.length is not available in kernels; pass the length as a parameter");
      case INEG, LNEG, FNEG, DNEG ->
          builder.push(builder.append(Op.NEG, numType(op), null, builder.pop()));
      case LCMP, FCMPL, FCMPG, DCMPL, DCMPG -> {
        Value b = builder.pop();
        Value a = builder.pop();
        builder.push(builder.append(Op.CMP3, Type.INT, Cmp3.valueOf(op.name()), a, b));
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
        Value b = builder.pop();
        Value a = builder.pop();
        builder.push(builder.append(o, numType(op), null, a, b));
      }
    }
  }

  static void convert(BytecodeBuilder builder, Opcode op) {
    Conv c = Conv.valueOf(op.name());
    Value v = builder.pop();
    builder.push(builder.append(Op.CONV, c.to, c, v));
  }

  static void branch(BytecodeBuilder builder, BranchInstruction br) {
    Opcode op = br.opcode();
    switch (op) {
      case GOTO, GOTO_W -> builder.append(Op.BR, Type.VOID, null);
      case IFEQ, IFNE, IFLT, IFGE, IFGT, IFLE -> {
        Cond c = Cond.valueOf(op.name().substring(2));
        Value v = builder.pop();
        Value p;
        if (v instanceof Inst i && i.op == Op.CMP3) {
          Cmp3 k = (Cmp3) i.aux;
          boolean unordered = k != Cmp3.LCMP && c.test(k.nanResult());
          p = builder.append(Op.SETP, Type.PRED, new Cmp(c, unordered), i.args[0], i.args[1]);
        } else {
          p = builder.append(Op.SETP, Type.PRED, new Cmp(c, false), v, Const.ofInt(0));
        }
        builder.append(Op.CBR, Type.VOID, null, p);
      }
      case IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE -> {
        Cond c = Cond.valueOf(op.name().substring(7));
        Value b = builder.pop();
        Value a = builder.pop();
        Value p = builder.append(Op.SETP, Type.PRED, new Cmp(c, false), a, b);
        builder.append(Op.CBR, Type.VOID, null, p);
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

  static void switchOp(BytecodeBuilder builder, List<SwitchCase> cases) {
    Value key = builder.pop();
    int[] keys = new int[cases.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = cases.get(i).caseValue();
    }
    builder.append(Op.SWITCH, Type.VOID, keys, key);
  }
}
