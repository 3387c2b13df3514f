package sirocco.jit.classfile;

import static sirocco.jit.classfile.BytecodeBuilder.unsupported;

import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import sirocco.jit.ir.AtomicOp;
import sirocco.jit.ir.BarrierKind;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Elem;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.MbarrierOp;
import sirocco.jit.ir.MemFlavor;
import sirocco.jit.ir.MethodId;
import sirocco.jit.ir.MmaKind;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.RecordKind;
import sirocco.jit.ir.SReg;
import sirocco.jit.ir.SharedSite;
import sirocco.jit.ir.ShflMode;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.VecAccess;
import sirocco.jit.ir.WgmmaKind;

/**
 * Field accesses and method calls: context fields and methods, {@code Vec} and {@code Intrinsics},
 * JDK methods with a PTX mapping, value-record construction and accessors; other static calls
 * become {@link Op#CALL}s for the inliner.
 */
final class CallLowering {
  private static final String CTX = "sirocco/api/KernelContext";
  private static final String INT4 = "Lsirocco/api/Int4;";
  private static final String INT2 = "Lsirocco/api/Int2;";
  private static final String FLOAT4 = "Lsirocco/api/Float4;";
  private static final String FLOAT4X16 = "Lsirocco/api/Float4x16;";

  /** JDK methods mapped one-to-one to {@link MathFn}. */
  private static final Map<String, MathFn> JDK = new HashMap<>();

  /** JDK methods simple enough to inline from their bytecode. */
  private static final Set<String> INLINABLE_JDK =
      Set.of(
          "java/lang/Float.isNaN(F)Z",
          "java/lang/Float.isInfinite(F)Z",
          "java/lang/Float.isFinite(F)Z",
          "java/lang/Float.compare(FF)I",
          "java/lang/Float.min(FF)F",
          "java/lang/Float.max(FF)F",
          "java/lang/Float.sum(FF)F",
          "java/lang/Double.isNaN(D)Z",
          "java/lang/Double.isInfinite(D)Z",
          "java/lang/Double.isFinite(D)Z",
          "java/lang/Double.compare(DD)I",
          "java/lang/Integer.compare(II)I",
          "java/lang/Integer.compareUnsigned(II)I",
          "java/lang/Integer.signum(I)I",
          "java/lang/Integer.min(II)I",
          "java/lang/Integer.max(II)I",
          "java/lang/Integer.sum(II)I",
          "java/lang/Long.compare(JJ)I",
          "java/lang/Math.floorDiv(II)I",
          "java/lang/Math.floorMod(II)I");

  static {
    String m = "java/lang/Math.";
    JDK.put(m + "fma(FFF)F", MathFn.FMA_F);
    JDK.put(m + "fma(DDD)D", MathFn.FMA_D);
    JDK.put(m + "max(II)I", MathFn.MAX_I);
    JDK.put(m + "min(II)I", MathFn.MIN_I);
    JDK.put(m + "max(JJ)J", MathFn.MAX_L);
    JDK.put(m + "min(JJ)J", MathFn.MIN_L);
    JDK.put(m + "max(FF)F", MathFn.MAX_F);
    JDK.put(m + "min(FF)F", MathFn.MIN_F);
    JDK.put(m + "max(DD)D", MathFn.MAX_D);
    JDK.put(m + "min(DD)D", MathFn.MIN_D);
    JDK.put(m + "abs(I)I", MathFn.ABS_I);
    JDK.put(m + "abs(J)J", MathFn.ABS_L);
    JDK.put(m + "abs(F)F", MathFn.ABS_F);
    JDK.put(m + "abs(D)D", MathFn.ABS_D);
    JDK.put(m + "sqrt(D)D", MathFn.SQRT_D);
    JDK.put("java/lang/StrictMath.sqrt(D)D", MathFn.SQRT_D);
    JDK.put(m + "exp(D)D", MathFn.EXP_D);
    JDK.put(m + "floor(D)D", MathFn.FLOOR_D);
    JDK.put(m + "ceil(D)D", MathFn.CEIL_D);
    JDK.put(m + "rint(D)D", MathFn.RINT_D);
    String f = "java/lang/Float.";
    JDK.put(f + "floatToRawIntBits(F)I", MathFn.FLOAT_TO_RAW_INT_BITS);
    JDK.put(f + "floatToIntBits(F)I", MathFn.FLOAT_TO_INT_BITS);
    JDK.put(f + "intBitsToFloat(I)F", MathFn.INT_BITS_TO_FLOAT);
    JDK.put(f + "float16ToFloat(S)F", MathFn.HALF_TO_FLOAT);
    JDK.put(f + "floatToFloat16(F)S", MathFn.FLOAT_TO_HALF);
    String d = "java/lang/Double.";
    JDK.put(d + "doubleToRawLongBits(D)J", MathFn.DOUBLE_TO_RAW_LONG_BITS);
    JDK.put(d + "doubleToLongBits(D)J", MathFn.DOUBLE_TO_LONG_BITS);
    JDK.put(d + "longBitsToDouble(J)D", MathFn.LONG_BITS_TO_DOUBLE);
    String i = "java/lang/Integer.";
    JDK.put(i + "bitCount(I)I", MathFn.POPC_I);
    JDK.put(i + "numberOfLeadingZeros(I)I", MathFn.CLZ_I);
    JDK.put(i + "numberOfTrailingZeros(I)I", MathFn.CTZ_I);
    JDK.put(i + "reverse(I)I", MathFn.BREV_I);
    JDK.put(i + "rotateLeft(II)I", MathFn.ROTL_I);
    JDK.put(i + "rotateRight(II)I", MathFn.ROTR_I);
    JDK.put(i + "toUnsignedLong(I)J", MathFn.TO_UNSIGNED_LONG);
    JDK.put(i + "divideUnsigned(II)I", MathFn.DIVU_I);
    JDK.put(i + "remainderUnsigned(II)I", MathFn.REMU_I);
    String l = "java/lang/Long.";
    JDK.put(l + "bitCount(J)I", MathFn.POPC_L);
    JDK.put(l + "numberOfLeadingZeros(J)I", MathFn.CLZ_L);
    JDK.put(l + "numberOfTrailingZeros(J)I", MathFn.CTZ_L);
    String x = "sirocco/api/Intrinsics.";
    JDK.put(x + "exp2(F)F", MathFn.EX2_APPROX);
    JDK.put(x + "log2(F)F", MathFn.LG2_APPROX);
    JDK.put(x + "rsqrt(F)F", MathFn.RSQRT_APPROX);
    JDK.put(x + "fastDivide(FF)F", MathFn.DIV_APPROX);
    JDK.put(x + "fma(FFF)F", MathFn.FMA_F);
    JDK.put(x + "bytePermute(III)I", MathFn.BYTE_PERM);
    JDK.put("sirocco/api/Bf16.fma2(III)I", MathFn.FMA_BF16X2);
    JDK.put("sirocco/api/F16.fma2(III)I", MathFn.FMA_F16X2);
  }

  private final BytecodeBuilder b;
  private final ClassFiles classes;

  CallLowering(BytecodeBuilder b, ClassFiles classes) {
    this.b = b;
    this.classes = classes;
  }

  // ---------------------------------------------------------------- fields

  void field(FieldInstruction fi) {
    String owner = fi.owner().asInternalName();
    String name = fi.name().stringValue();
    String what = owner.replace('/', '.') + "." + name;
    switch (fi.opcode()) {
      case GETFIELD -> {
        Value recv = b.pop();
        if (recv.type() == Type.CONTEXT) {
          b.push(contextField(name));
        } else {
          throw unsupported(
              "read of instance field "
                  + what
                  + " is not supported in kernels (only KernelContext fields can be read)");
        }
      }
      case PUTFIELD -> {
        b.pop();
        Value recv = b.pop();
        if (recv.type() == Type.CONTEXT) {
          throw unsupported(
              "assignment to ctx." + name + ": KernelContext fields are read-only in kernels");
        }
        throw unsupported("assignment to instance field " + what + " is not supported in kernels");
      }
      case GETSTATIC -> b.push(staticConstant(owner, name, fi.type().stringValue()));
      case PUTSTATIC ->
          throw unsupported("assignment to static field " + what + " is not supported in kernels");
      default -> throw unsupported("bytecode " + fi.opcode());
    }
  }

  private Value sreg(SReg r) {
    return b.append(Op.SREG, Type.INT, r);
  }

  private Value contextField(String name) {
    return switch (name) {
      case "globalIdx" -> global(SReg.CTAID_X, SReg.NTID_X, SReg.TID_X);
      case "globalIdy" -> global(SReg.CTAID_Y, SReg.NTID_Y, SReg.TID_Y);
      case "globalIdz" -> global(SReg.CTAID_Z, SReg.NTID_Z, SReg.TID_Z);
      case "localIdx" -> sreg(SReg.TID_X);
      case "localIdy" -> sreg(SReg.TID_Y);
      case "localIdz" -> sreg(SReg.TID_Z);
      case "groupIdx" -> sreg(SReg.CTAID_X);
      case "groupIdy" -> sreg(SReg.CTAID_Y);
      case "groupIdz" -> sreg(SReg.CTAID_Z);
      case "localGroupSizeX" -> sreg(SReg.NTID_X);
      case "localGroupSizeY" -> sreg(SReg.NTID_Y);
      case "localGroupSizeZ" -> sreg(SReg.NTID_Z);
      case "groupCountX" -> sreg(SReg.NCTAID_X);
      case "groupCountY" -> sreg(SReg.NCTAID_Y);
      case "groupCountZ" -> sreg(SReg.NCTAID_Z);
      case "globalGroupSizeX" ->
          b.append(Op.MUL, Type.INT, null, sreg(SReg.NTID_X), sreg(SReg.NCTAID_X));
      case "globalGroupSizeY" ->
          b.append(Op.MUL, Type.INT, null, sreg(SReg.NTID_Y), sreg(SReg.NCTAID_Y));
      case "globalGroupSizeZ" ->
          b.append(Op.MUL, Type.INT, null, sreg(SReg.NTID_Z), sreg(SReg.NCTAID_Z));
      default -> throw unsupported("KernelContext field " + name + " is not supported in kernels");
    };
  }

  private Value global(SReg ctaid, SReg ntid, SReg tid) {
    Value m = b.append(Op.MUL, Type.INT, null, sreg(ctaid), sreg(ntid));
    return b.append(Op.ADD, Type.INT, null, m, sreg(tid));
  }

  private Value staticConstant(String owner, String name, String desc) {
    String what = owner.replace('/', '.') + "." + name;
    Class<?> c = classes.load(owner);
    Field f = c == null ? null : findField(c, name);
    if (f == null) {
      throw unsupported("static field " + what + " cannot be resolved");
    }
    int mod = f.getModifiers();
    if (!Modifier.isStatic(mod) || !Modifier.isFinal(mod)) {
      throw unsupported(
          "read of static field "
              + what
              + " is not supported in kernels: only static final primitive constants are; pass"
              + " other values as kernel parameters");
    }
    Class<?> t = f.getType();
    if (!t.isPrimitive()) {
      throw unsupported(
          "read of static final "
              + (t.isArray() ? "array " : "field ")
              + what
              + " is not supported in kernels: the GPU cannot see Java heap objects; "
              + (t.isArray()
                  ? "pass the array as a kernel parameter"
                  : "make helper methods static and pass values as kernel parameters"));
    }
    Object v;
    try {
      f.setAccessible(true);
      v = f.get(null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      throw unsupported("static final field " + what + " could not be read: " + e);
    }
    Const k = Const.ofBoxed(v);
    if (k == null) {
      throw unsupported("static field " + what + " has an unsupported type");
    }
    return k;
  }

  private static Field findField(Class<?> c, String name) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        if (f.getName().equals(name)) {
          return f;
        }
      }
      for (Class<?> i : k.getInterfaces()) {
        Field f = findField(i, name);
        if (f != null) {
          return f;
        }
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- calls

  static String javaSignature(String owner, String name, MethodTypeDesc mt) {
    StringJoiner j = new StringJoiner(", ", owner.replace('/', '.') + "." + name + "(", ")");
    for (ClassDesc p : mt.parameterList()) {
      j.add(p.displayName());
    }
    return j.toString();
  }

  void invoke(InvokeInstruction inv) {
    String owner = inv.owner().asInternalName();
    String name = inv.name().stringValue();
    String desc = inv.type().stringValue();
    MethodTypeDesc mt = inv.typeSymbol();
    Opcode op = inv.opcode();
    int n = mt.parameterCount();
    Value[] args = new Value[n];
    for (int i = n - 1; i >= 0; i--) {
      args[i] = b.pop();
    }
    Object recv = op == Opcode.INVOKESTATIC ? null : b.popAny();
    switch (op) {
      case INVOKESTATIC -> invokeStatic(owner, name, desc, mt, args);
      case INVOKEVIRTUAL, INVOKEINTERFACE -> {
        if (!(recv instanceof Value r)) {
          throw unsupported("call on an object under construction is not supported in kernels");
        }
        virtual(owner, name, desc, mt, r, args);
      }
      case INVOKESPECIAL -> special(owner, name, desc, mt, recv, args);
      default -> throw unsupported("bytecode " + op);
    }
  }

  private void pushResult(Value v) {
    if (v.type() != Type.VOID) {
      b.push(v);
    }
  }

  private void invokeStatic(
      String owner, String name, String desc, MethodTypeDesc mt, Value[] args) {
    String key = owner + "." + name + desc;
    MathFn fn = JDK.get(key);
    if (fn != null) {
      b.push(b.append(Op.MATH, fn.result, fn, args));
      return;
    }
    if (owner.equals("sirocco/api/Vec")) {
      vec(name, desc, args, key);
      return;
    }
    if (owner.equals("sirocco/api/Mbarrier")) {
      mbarrier(name, args);
      return;
    }
    if (key.equals("sirocco/api/Float4x16.zero()" + FLOAT4X16)) {
      Value[] zeros = new Value[RecordKind.FLOAT4X16.count];
      Arrays.fill(zeros, Const.ofFloat(0f));
      b.push(b.append(Op.NEW_RECORD, Type.record(RecordKind.FLOAT4X16), null, zeros));
      return;
    }
    if (owner.equals("sirocco/api/Float4x16")) {
      throw unsupported(
          "Float4x16." + name + " is not supported in kernels; only zero() and quad(constant) are");
    }
    if (key.equals("sirocco/api/Intrinsics.globalTimerNanos()J")) {
      b.push(b.append(Op.SREG, Type.LONG, SReg.GLOBALTIMER));
      return;
    }
    boolean jdk =
        owner.startsWith("java/")
            || owner.startsWith("javax/")
            || owner.startsWith("jdk/")
            || owner.startsWith("sun/")
            || owner.startsWith("com/sun/");
    if ((jdk && !INLINABLE_JDK.contains(key)) || owner.equals("sirocco/api/Intrinsics")) {
      throw unsupported(
          "call to " + javaSignature(owner, name, mt) + " is not supported in kernels");
    }
    Type ret = Type.ofDescriptor(mt.returnType().descriptorString());
    if (ret == null) {
      throw unsupported(
          "call to "
              + javaSignature(owner, name, mt)
              + ": its return type "
              + mt.returnType().displayName()
              + " is not supported in kernels");
    }
    MethodId target = new MethodId(owner.replace('/', '.'), name, desc, null);
    pushResult(b.append(Op.CALL, ret, target, args));
  }

  private void virtual(
      String owner, String name, String desc, MethodTypeDesc mt, Value recv, Value[] args) {
    Type rt = recv.type();
    if (rt == Type.CONTEXT) {
      contextMethod(name, desc, args);
      return;
    }
    if (rt.isRecord() && rt.record == RecordKind.FLOAT4X16) {
      quad(name, desc, recv, args);
      return;
    }
    if (rt.isRecord()) {
      RecordKind k = rt.record;
      int idx = k.componentIndex(name);
      if (idx >= 0 && args.length == 0) {
        b.push(b.append(Op.GET_FIELD, k.componentType, idx, recv));
        return;
      }
      throw unsupported(
          k.simpleName()
              + "."
              + name
              + "() is not supported on value records in kernels; only the constructor and the"
              + " accessors x(), y(), z(), w() are");
    }
    throw unsupported(
        "virtual call to "
            + javaSignature(owner, name, mt)
            + " is not supported in kernels; call static helper methods (they are inlined)");
  }

  /** {@code Float4x16.quad(i)} at a constant i: the four components as a Float4. */
  private void quad(String name, String desc, Value recv, Value[] args) {
    if (!(name + desc).equals("quad(I)" + FLOAT4) || !(args[0] instanceof Const c)) {
      throw unsupported(
          "Float4x16."
              + name
              + " is not supported in kernels; only quad(i) with a constant i (a literal, or a"
              + " static final) is");
    }
    int q = c.asInt();
    if (q < 0 || q >= RecordKind.FLOAT4X16.count / 4) {
      throw unsupported("Float4x16.quad(" + q + "): the quad must be 0..15");
    }
    Value[] parts = new Value[4];
    for (int e = 0; e < 4; e++) {
      parts[e] = b.append(Op.GET_FIELD, Type.FLOAT, 4 * q + e, recv);
    }
    b.push(b.append(Op.NEW_RECORD, Type.record(RecordKind.FLOAT4), null, parts));
  }

  private void special(
      String owner, String name, String desc, MethodTypeDesc mt, Object recv, Value[] args) {
    if (name.equals("<init>") && recv instanceof BytecodeBuilder.Uninit u) {
      if (owner.equals(u.kind.internalName) && desc.equals(u.kind.constructorDescriptor())) {
        Value v = b.append(Op.NEW_RECORD, Type.record(u.kind), null, args);
        List<Object> s = b.stack();
        for (int i = 0; i < s.size(); i++) {
          if (s.get(i) == u) {
            s.set(i, v);
          }
        }
        return;
      }
      throw unsupported(
          "constructor " + javaSignature(owner, name, mt) + " is not supported in kernels");
    }
    throw unsupported(
        "call to instance method "
            + javaSignature(owner, name, mt)
            + " is not supported in kernels; make the helper static");
  }

  private SharedSite site(Elem e) {
    return new SharedSite(b.methodId(), b.pos().bci(), e);
  }

  private void contextMethod(String name, String desc, Value[] a) {
    String key = name + desc;
    Value r =
        switch (key) {
          case "localBarrier()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.BLOCK);
          case "warpBarrier()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.WARP);
          case "threadFence()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.FENCE_GPU);
          case "waitForPriorGrids()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.GRID_WAIT);
          case "releaseDependentGrids()V" ->
              b.append(Op.BARRIER, Type.VOID, BarrierKind.GRID_RELEASE);
          case "allocateFloatLocalArray(I)[F" -> shared(Elem.FLOAT, a[0]);
          case "allocateIntLocalArray(I)[I" -> shared(Elem.INT, a[0]);
          case "allocateShortLocalArray(I)[S" -> shared(Elem.SHORT, a[0]);
          case "allocateByteLocalArray(I)[B" -> shared(Elem.BYTE, a[0]);
          case "allocateLongLocalArray(I)[J" -> shared(Elem.LONG, a[0]);
          case "shuffleXor(FI)F", "shuffleXor(II)I" -> shfl(ShflMode.BFLY, a);
          case "shuffleDown(FI)F", "shuffleDown(II)I" -> shfl(ShflMode.DOWN, a);
          case "shuffleUp(FI)F", "shuffleUp(II)I" -> shfl(ShflMode.UP, a);
          case "shuffleIdx(FI)F", "shuffleIdx(II)I" -> shfl(ShflMode.IDX, a);
          case "atomicAdd([III)I" -> b.append(Op.ATOMIC, Type.INT, AtomicOp.ADD_I, a);
          case "atomicAdd([FIF)F" -> b.append(Op.ATOMIC, Type.FLOAT, AtomicOp.ADD_F, a);
          case "atomicMax([III)I" -> b.append(Op.ATOMIC, Type.INT, AtomicOp.MAX_I, a);
          case "atomicMin([III)I" -> b.append(Op.ATOMIC, Type.INT, AtomicOp.MIN_I, a);
          case "atomicCas([IIII)I" -> b.append(Op.ATOMIC, Type.INT, AtomicOp.CAS, a);
          case "atomicExchange([III)I" -> b.append(Op.ATOMIC, Type.INT, AtomicOp.EXCH, a);
          case "loadVolatile([II)I" -> b.append(Op.LOAD, Type.INT, MemFlavor.VOLATILE, a);
          case "mmaBf16(" + INT4 + INT2 + FLOAT4 + ")" + FLOAT4 ->
              b.append(Op.MMA, Type.record(RecordKind.FLOAT4), MmaKind.BF16, a);
          case "mmaF16(" + INT4 + INT2 + FLOAT4 + ")" + FLOAT4 ->
              b.append(Op.MMA, Type.record(RecordKind.FLOAT4), MmaKind.F16, a);
          case "warpgroupMmaBf16(" + INT4 + "[SIII" + FLOAT4X16 + ")" + FLOAT4X16 ->
              b.append(Op.WGMMA, Type.record(RecordKind.FLOAT4X16), CORE_BF16, a);
          case "warpgroupMmaF16(" + INT4 + "[SIII" + FLOAT4X16 + ")" + FLOAT4X16 ->
              b.append(Op.WGMMA, Type.record(RecordKind.FLOAT4X16), CORE_F16, a);
          case "warpgroupMmaBf16Swizzled(" + INT4 + "[SII" + FLOAT4X16 + ")" + FLOAT4X16 ->
              swizzledProduct(MmaKind.BF16, a);
          case "warpgroupMmaF16Swizzled(" + INT4 + "[SII" + FLOAT4X16 + ")" + FLOAT4X16 ->
              swizzledProduct(MmaKind.F16, a);
          case "warpgroupFence()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.WG_FENCE);
          case "warpgroupCommit()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.WG_COMMIT);
          case "warpgroupWait(I)V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.WG_WAIT, a);
          case "fenceSharedAsync()V" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.PROXY_ASYNC);
          case "loadMatrixX4([II)" + INT4, "loadMatrixX4([SI)" + INT4 ->
              b.append(
                  Op.LOAD_VEC,
                  Type.record(RecordKind.INT4),
                  new VecAccess(4, false, false, true),
                  a);
          case "laneId()I" -> b.append(Op.AND, Type.INT, null, sreg(SReg.TID_X), Const.ofInt(31));
          case "warpId()I" -> b.append(Op.SHR, Type.INT, null, sreg(SReg.TID_X), Const.ofInt(5));
          default ->
              throw unsupported(
                  "KernelContext." + name + " is not supported by the kernel compiler");
        };
    pushResult(r);
  }

  private static final WgmmaKind CORE_BF16 = new WgmmaKind(MmaKind.BF16, false);
  private static final WgmmaKind CORE_F16 = new WgmmaKind(MmaKind.F16, false);

  /** A swizzled product in the core-matrix product's argument layout (see {@link WgmmaKind}). */
  private Value swizzledProduct(MmaKind kind, Value[] a) {
    Value[] args = {a[0], a[1], a[2], a[3], Const.ofInt(0), a[4]};
    return b.append(Op.WGMMA, Type.record(RecordKind.FLOAT4X16), new WgmmaKind(kind, true), args);
  }

  private Value shared(Elem e, Value length) {
    return b.append(Op.SHARED_ALLOC, Type.array(e), site(e), length);
  }

  private Value shfl(ShflMode m, Value[] a) {
    return b.append(Op.SHFL, a[0].type(), m, a);
  }

  private void vec(String name, String desc, Value[] a, String key) {
    Elem e = a.length == 0 || !a[0].type().isArray() ? null : a[0].type().elem;
    Value r =
        switch (name) {
          case "ldg" -> b.append(Op.LOAD, e.valueType(), MemFlavor.NC, a);
          case "ldg4" -> vload(4, true, e, a);
          case "ldg2" -> vload(2, true, e, a);
          case "load4" -> vload(4, false, e, a);
          case "load2" -> vload(2, false, e, a);
          case "store4" ->
              b.append(Op.STORE_VEC, Type.VOID, new VecAccess(4, false, e == Elem.FLOAT), a);
          // Checked by legalize once specialization and folding have run: constant bytes and
          // group counts, a shared dst and a global src.
          case "copyAsync" -> b.append(Op.COPY_ASYNC, Type.VOID, null, a);
          case "commitAsync" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.ASYNC_COMMIT);
          case "waitAsync" -> b.append(Op.BARRIER, Type.VOID, BarrierKind.ASYNC_WAIT, a);
          // Spaces and the target checked by legalize, as for copyAsync.
          case "copyTileAsync" -> b.append(Op.TILE_COPY, Type.VOID, null, a);
          default -> throw unsupported("Vec." + name + " is not supported by the kernel compiler");
        };
    pushResult(r);
  }

  private void mbarrier(String name, Value[] a) {
    Value r;
    if (name.equals("fenceInit")) {
      r = b.append(Op.BARRIER, Type.VOID, BarrierKind.MBARRIER_INIT);
    } else {
      MbarrierOp op = MbarrierOp.of(name);
      if (op == null) {
        throw unsupported("Mbarrier." + name + " is not supported by the kernel compiler");
      }
      r = b.append(Op.MBARRIER, Type.VOID, op, a);
    }
    pushResult(r);
  }

  private Value vload(int words, boolean nc, Elem e, Value[] a) {
    boolean floats = e == Elem.FLOAT;
    RecordKind k = floats ? RecordKind.FLOAT4 : words == 4 ? RecordKind.INT4 : RecordKind.INT2;
    return b.append(Op.LOAD_VEC, Type.record(k), new VecAccess(words, nc, floats), a);
  }
}
