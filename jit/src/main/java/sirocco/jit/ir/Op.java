package sirocco.jit.ir;

/**
 * IR opcodes. Arithmetic has Java semantics (shift counts masked, float operations individually
 * rounded, integer division truncating); the PTX emitter is responsible for reproducing them.
 */
public enum Op {
  /** Kernel or helper parameter; aux = Integer index (JVM parameter order, context included). */
  PARAM,
  /** SSA phi; args aligned with the block's predecessors. */
  PHI,
  ADD,
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
  /** Conversion; aux = {@link Conv}. */
  CONV,
  /** Three-way comparison giving -1/0/1 (lcmp, fcmpl, ...); aux = {@link Cmp3}. */
  CMP3,
  /** Comparison giving a predicate; aux = {@link Cmp}. */
  SETP,
  /** pred ? a : b. */
  SELECT,
  /** Math and bit functions; aux = {@link MathFn}. */
  MATH,
  /** Special register read (%tid.x...); aux = {@link SReg}. */
  SREG,
  /** ctx.allocate*LocalArray(length); aux = {@link SharedSite}; args = [length]. */
  SHARED_ALLOC,
  /** array[index]; aux = {@link MemFlavor}. */
  LOAD,
  /** array[index] = value; aux = {@link MemFlavor}. */
  STORE,
  /** 8- or 16-byte load into a record tuple; aux = {@link VecAccess}. */
  LOAD_VEC,
  /** 16-byte store; args = [array, index, component...]; aux = {@link VecAccess}. */
  STORE_VEC,
  /** Atomic read-modify-write; aux = {@link AtomicOp}; args = [array, index, value(s)]. */
  ATOMIC,
  /**
   * {@code Vec.copyAsync}: asynchronous global-to-shared copy ({@code cp.async}); args = [dst,
   * dstIndex, src, srcIndex, bytes]. A side effect writing {@code dst} and reading {@code src},
   * ordered like a store; {@code bytes} must be a constant 4, 8 or 16 by {@code legalize}.
   */
  COPY_ASYNC,
  /**
   * {@code Vec.copyTileAsync}: a tensor-map box copy global to shared completing on a transaction
   * barrier ({@code cp.async.bulk.tensor.2d}); args = [dst, dstIndex, map, col, row, bars, bar]. A
   * side effect writing {@code dst}, ordered like a store.
   */
  TILE_COPY,
  /**
   * Transaction-barrier operation ({@code Mbarrier}); aux = {@link MbarrierOp}; args = [bars,
   * index] and the count, bytes or parity. A side effect, never moved, merged or removed.
   */
  MBARRIER,
  /** new Int4(...) etc.; args = components. */
  NEW_RECORD,
  /** Record accessor; aux = Integer component index. */
  GET_FIELD,
  /** Component of a tuple-producing instruction (LOAD_VEC, MMA); aux = Integer index. */
  EXTRACT,
  /**
   * Barrier, fence or asynchronous-copy group operation; aux = {@link BarrierKind}; args = [] or,
   * for {@link BarrierKind#ASYNC_WAIT}, [pendingGroups].
   */
  BARRIER,
  /** Warp shuffle; aux = {@link ShflMode}; args = [value, lane/delta/mask]. */
  SHFL,
  /** Tensor-core m16n8k16 product; aux = {@link MmaKind}; args = [a, b, c] or their components. */
  MMA,
  /**
   * Warpgroup tensor-core product m64n128k16 ({@code wgmma.mma_async}); aux = {@link MmaKind}; args
   * = [a, b, bIndex, lbo, sbo, c] or their components ({@code lbo}, {@code sbo} constants by {@code
   * legalize}). Asynchronous and reading shared memory, so it has side effects: never moved, merged
   * or removed.
   */
  WGMMA,
  /** Call to a helper, removed by inlining; aux = {@link MethodId}. */
  CALL,
  /** Unconditional branch to succs[0]. */
  BR,
  /** Conditional branch on a predicate: succs[0] when true, succs[1] when false. */
  CBR,
  /** Switch on an int; aux = int[] keys; succs[0] = default, succs[i+1] = target of keys[i]. */
  SWITCH,
  /** Return (a value from helpers, nothing from kernels). */
  RET,
  /**
   * An unsupported construct: compiling fails if this instruction is still reachable after
   * specialization and dead-code elimination; aux = String description.
   */
  TRAP;

  public boolean isTerminator() {
    return this == BR || this == CBR || this == SWITCH || this == RET || this == TRAP;
  }

  /** Binary arithmetic with Java semantics. */
  public boolean isBinaryArith() {
    return switch (this) {
      case ADD, SUB, MUL, DIV, REM, AND, OR, XOR, SHL, SHR, USHR -> true;
      default -> false;
    };
  }

  /** Java operator spelling for dumps. */
  public String symbol() {
    return switch (this) {
      case ADD -> "+";
      case SUB -> "-";
      case MUL -> "*";
      case DIV -> "/";
      case REM -> "%";
      case AND -> "&";
      case OR -> "|";
      case XOR -> "^";
      case SHL -> "<<";
      case SHR -> ">>";
      case USHR -> ">>>";
      default -> name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
