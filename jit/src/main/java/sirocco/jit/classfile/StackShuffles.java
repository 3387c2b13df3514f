package sirocco.jit.classfile;

import static sirocco.jit.classfile.BytecodeBuilder.unsupported;

import java.lang.classfile.Opcode;
import java.util.ArrayList;
import sirocco.jit.ir.Value;

/**
 * Translation of the operand-stack instructions ({@code pop}, {@code dup} and its forms, {@code
 * swap}): they only rearrange the builder's stack, by the computational category of each entry
 * (long and double take two slots). Static helpers of {@link BytecodeBuilder}.
 */
final class StackShuffles {
  private StackShuffles() {}

  private static int cat(Object o) {
    return o instanceof Value v && v.type().isWide() ? 2 : 1;
  }

  static void stackOp(BytecodeBuilder builder, Opcode op) {
    ArrayList<Object> s = builder.stack();
    switch (op) {
      case POP -> builder.popAny();
      case POP2 -> {
        if (cat(builder.popAny()) == 1) {
          builder.popAny();
        }
      }
      case DUP -> s.add(builder.top(0));
      case DUP_X1 -> {
        Object v1 = builder.popAny();
        Object v2 = builder.popAny();
        s.add(v1);
        s.add(v2);
        s.add(v1);
      }
      case DUP_X2 -> {
        Object v1 = builder.popAny();
        if (cat(builder.top(0)) == 2) {
          Object v2 = builder.popAny();
          s.add(v1);
          s.add(v2);
          s.add(v1);
        } else {
          Object v2 = builder.popAny();
          Object v3 = builder.popAny();
          s.add(v1);
          s.add(v3);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2 -> {
        if (cat(builder.top(0)) == 2) {
          s.add(builder.top(0));
        } else {
          Object v1 = builder.top(0);
          Object v2 = builder.top(1);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2_X1 -> {
        if (cat(builder.top(0)) == 2) {
          Object v1 = builder.popAny();
          Object v2 = builder.popAny();
          s.add(v1);
          s.add(v2);
          s.add(v1);
        } else {
          Object v1 = builder.popAny();
          Object v2 = builder.popAny();
          Object v3 = builder.popAny();
          s.add(v2);
          s.add(v1);
          s.add(v3);
          s.add(v2);
          s.add(v1);
        }
      }
      case DUP2_X2 -> {
        Object v1 = builder.popAny();
        if (cat(v1) == 2) {
          Object v2 = builder.popAny();
          if (cat(v2) == 2) {
            s.add(v1);
            s.add(v2);
            s.add(v1);
          } else {
            Object v3 = builder.popAny();
            s.add(v1);
            s.add(v3);
            s.add(v2);
            s.add(v1);
          }
        } else {
          Object v2 = builder.popAny();
          Object v3 = builder.popAny();
          if (cat(v3) == 2) {
            s.add(v2);
            s.add(v1);
            s.add(v3);
            s.add(v2);
            s.add(v1);
          } else {
            Object v4 = builder.popAny();
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
        Object v1 = builder.popAny();
        Object v2 = builder.popAny();
        s.add(v1);
        s.add(v2);
      }
      default -> throw unsupported("bytecode " + op);
    }
  }
}
