package sirocco.jit.classfile;

import static sirocco.jit.classfile.BytecodeBuilder.unsupported;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import sirocco.jit.classfile.BytecodeBuilder.Uninit;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.RecordKind;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Translation of object and array instructions: {@code new} (only the value records, whose
 * placeholder waits on the stack for their constructor call in {@link CallLowering}), array element
 * loads and stores, and {@code checkcast} of a value to its own type; allocations of anything else,
 * {@code newarray} and {@code instanceof} are unsupported, each with a message that says what to
 * use instead. Static helpers of {@link BytecodeBuilder}, which owns the operand stack and the
 * block being filled.
 */
final class ObjectLowering {
  private ObjectLowering() {}

  static void newObject(BytecodeBuilder builder, NewObjectInstruction no) {
    String name = no.className().asInternalName();
    RecordKind rk = RecordKind.ofInternalName(name);
    if (name.equals("java/lang/StringBuilder") || name.equals("java/lang/StringBuffer")) {
      throw unsupported(
          "string concatenation (new " + name.replace('/', '.') + ") is not supported in kernels");
    }
    if (rk == null && isThrowable(builder, name)) {
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
    builder.stack().add(new Uninit(rk));
  }

  static void newPrimitiveArray(BytecodeBuilder builder, NewPrimitiveArrayInstruction na) {
    Value len = builder.pop();
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

  private static boolean isThrowable(BytecodeBuilder builder, String internalName) {
    Class<?> c = builder.classes().load(internalName);
    return c != null && Throwable.class.isAssignableFrom(c);
  }

  static void arrayLoad(BytecodeBuilder builder, TypeKind k) {
    Value idx = builder.pop();
    Value arr = builder.pop();
    if (k == TypeKind.REFERENCE) {
      throw unsupported("arrays of references are not supported in kernels");
    }
    if (!arr.type().isArray()) {
      throw unsupported("array load from a value of type " + arr.type());
    }
    builder.push(
        builder.append(
            Op.LOAD, arr.type().elem.valueType(), sirocco.jit.ir.MemFlavor.PLAIN, arr, idx));
  }

  static void arrayStore(BytecodeBuilder builder, TypeKind k) {
    Value val = builder.pop();
    Value idx = builder.pop();
    Value arr = builder.pop();
    if (k == TypeKind.REFERENCE) {
      throw unsupported(
          "storing references (records or arrays) into arrays is not supported in kernels; store"
              + " the components or use Vec.store4");
    }
    if (!arr.type().isArray()) {
      throw unsupported("array store to a value of type " + arr.type());
    }
    builder.append(Op.STORE, Type.VOID, sirocco.jit.ir.MemFlavor.PLAIN, arr, idx, val);
  }

  static void typeCheck(BytecodeBuilder builder, TypeCheckInstruction tc) {
    if (tc.opcode() == Opcode.CHECKCAST) {
      Object o = builder.top(0);
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
