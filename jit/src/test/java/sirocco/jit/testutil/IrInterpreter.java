package sirocco.jit.testutil;

import java.util.HashMap;
import java.util.Map;
import sirocco.api.Intrinsics;
import sirocco.jit.ir.AtomicOp;
import sirocco.jit.ir.BarrierKind;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Elem;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.MathFn;
import sirocco.jit.ir.SReg;
import sirocco.jit.ir.SharedSite;
import sirocco.jit.ir.Value;
import sirocco.jit.ir.VecAccess;
import sirocco.jit.pass.Evaluator;
import sirocco.jit.ptx.ExpF32;

/**
 * Runs the compiler's final IR on the CPU, one thread at a time, with the semantics the PTX emitter
 * implements (Java semantics, and the GPU's exp sequence for {@code (float) Math.exp}). Comparing
 * its results with the Java kernel tests the front end and every pass by execution. Threads must
 * not communicate (barriers, fences, shuffles and mma are refused); asynchronous copies complete
 * when issued, as on the Java backend.
 */
public final class IrInterpreter {
  private final Function fn;
  private final Map<SharedSite, Object> shared = new HashMap<>();

  public IrInterpreter(Function fn) {
    this.fn = fn;
  }

  public void newBlock() {
    shared.clear();
  }

  /** Runs one thread; {@code args} are the kernel's Java arguments (index 0 = context, unused). */
  public void run(Object[] args, int block, int tid, int blockSize, int blocks) {
    run(args, new Geometry(blockSize, 1, 1, blocks, 1, 1), block, tid);
  }

  /** Runs linear thread {@code tid} of linear block {@code block} of a launch {@code g}. */
  public void run(Object[] args, Geometry g, int block, int tid) {
    Map<Inst, Object> v = new HashMap<>();
    Block b = fn.entry();
    Block from = null;
    long steps = 0;
    while (true) {
      if (from != null && !b.phis.isEmpty()) {
        int k = b.preds.indexOf(from);
        Object[] vals = new Object[b.phis.size()];
        for (int p = 0; p < vals.length; p++) {
          vals[p] = get(b.phis.get(p).args[k], v);
        }
        for (int p = 0; p < vals.length; p++) {
          v.put(b.phis.get(p), vals[p]);
        }
      }
      Block next = null;
      for (Inst i : b.insts) {
        if (++steps > 50_000_000) {
          throw new IllegalStateException("runaway interpretation");
        }
        switch (i.op) {
          case BR -> next = b.succs.get(0);
          case CBR -> next = b.succs.get(((Const) get(i.args[0], v)).asPred() ? 0 : 1);
          case SWITCH -> {
            int key = ((Const) get(i.args[0], v)).asInt();
            int[] keys = (int[]) i.aux;
            int t = 0;
            for (int j = 0; j < keys.length; j++) {
              if (keys[j] == key) {
                t = j + 1;
                break;
              }
            }
            next = b.succs.get(t);
          }
          case RET -> {
            return;
          }
          case TRAP -> throw new IllegalStateException("trap: " + i.aux);
          default -> {
            Object r = exec(i, v, args, g, g.block(block), g.thread(tid));
            if (r != null) {
              v.put(i, r);
            }
          }
        }
      }
      from = b;
      b = next;
    }
  }

  private static Object get(Value a, Map<Inst, Object> v) {
    if (a instanceof Const c) {
      return c;
    }
    Object o = v.get((Inst) a);
    if (o == null) {
      throw new IllegalStateException("undefined value " + a);
    }
    return o;
  }

  private static Const c(Value a, Map<Inst, Object> v) {
    return (Const) get(a, v);
  }

  private Object exec(
      Inst i, Map<Inst, Object> v, Object[] args, Geometry g, int[] block, int[] tid) {
    switch (i.op) {
      case PARAM:
        {
          Object a = args[(Integer) i.aux];
          return switch (a) {
            case null -> null;
            case Integer x -> Const.ofInt(x);
            case Long x -> Const.ofLong(x);
            case Float x -> Const.ofFloat(x);
            case Double x -> Const.ofDouble(x);
            case Boolean x -> Const.ofInt(x ? 1 : 0);
            case Byte x -> Const.ofInt(x);
            case Short x -> Const.ofInt(x);
            case Character x -> Const.ofInt(x);
            default -> a.getClass().isArray() ? a : null;
          };
        }
      case SREG:
        if (i.aux == SReg.GLOBALTIMER) {
          return Const.ofLong(System.nanoTime());
        }
        return Const.ofInt(
            switch ((SReg) i.aux) {
              case TID_X -> tid[0];
              case TID_Y -> tid[1];
              case TID_Z -> tid[2];
              case NTID_X -> g.blockX();
              case NTID_Y -> g.blockY();
              case NTID_Z -> g.blockZ();
              case CTAID_X -> block[0];
              case CTAID_Y -> block[1];
              case CTAID_Z -> block[2];
              case NCTAID_X -> g.gridX();
              case NCTAID_Y -> g.gridY();
              case NCTAID_Z -> g.gridZ();
              case GLOBALTIMER -> throw new IllegalStateException("handled above");
            });
      case SHARED_ALLOC:
        {
          SharedSite s = (SharedSite) i.aux;
          int n = c(i.args[0], v).asInt();
          return shared.computeIfAbsent(
              s,
              k ->
                  switch (s.elem()) {
                    case FLOAT -> new float[n];
                    case INT -> new int[n];
                    case SHORT -> new short[n];
                    default -> new byte[n];
                  });
        }
      case LOAD:
        return load(get(i.args[0], v), c(i.args[1], v).asInt(), i.args[0].type().elem);
      case STORE:
        store(get(i.args[0], v), c(i.args[1], v).asInt(), i.args[0].type().elem, c(i.args[2], v));
        return null;
      case LOAD_VEC:
        return loadVec(
            (VecAccess) i.aux, get(i.args[0], v), c(i.args[1], v).asInt(), i.args[0].type().elem);
      case STORE_VEC:
        {
          Const[] comps = new Const[i.args.length - 2];
          for (int k = 0; k < comps.length; k++) {
            comps[k] = c(i.args[k + 2], v);
          }
          storeVec(get(i.args[0], v), c(i.args[1], v).asInt(), i.args[0].type().elem, comps);
          return null;
        }
      case EXTRACT:
        return ((Const[]) get(i.args[0], v))[(Integer) i.aux];
      case ATOMIC:
        return atomic((AtomicOp) i.aux, get(i.args[0], v), c(i.args[1], v).asInt(), i, v);
      case MATH:
        {
          Const[] a = new Const[i.args.length];
          for (int k = 0; k < a.length; k++) {
            a[k] = c(i.args[k], v);
          }
          return math((MathFn) i.aux, a);
        }
      case COPY_ASYNC:
        {
          // The copy happens at once (as Vec's Java body); commit and wait are then no-ops.
          Object dst = get(i.args[0], v);
          int n = c(i.args[4], v).asInt() / i.args[0].type().elem.size;
          System.arraycopy(
              get(i.args[2], v), c(i.args[3], v).asInt(), dst, c(i.args[1], v).asInt(), n);
          return null;
        }
      case BARRIER:
        if (i.aux == BarrierKind.ASYNC_COMMIT
            || i.aux == BarrierKind.ASYNC_WAIT
            || i.aux == BarrierKind.GRID_WAIT
            || i.aux == BarrierKind.GRID_RELEASE) {
          // One launch at a time: no grid to wait for or release.
          return null;
        }
        throw new UnsupportedOperationException(i.aux + " barrier in the IR interpreter");
      case SHFL, MMA, CALL, PHI, NEW_RECORD, GET_FIELD:
        throw new UnsupportedOperationException(i.op + " in the IR interpreter");
      default:
        {
          Const[] a = new Const[i.args.length];
          for (int k = 0; k < a.length; k++) {
            a[k] = c(i.args[k], v);
          }
          Const r = Evaluator.eval(i.op, i.type, i.aux, a);
          if (r == null) {
            // Integer division by zero: undefined on the GPU; Java throws.
            throw new ArithmeticException(i.op + " by zero");
          }
          return r;
        }
    }
  }

  private static Const math(MathFn f, Const[] a) {
    return switch (f) {
      case EXP_F -> Const.ofFloat(ExpF32.exp(a[0].asFloat()));
      case EX2_APPROX -> Const.ofFloat(Intrinsics.exp2(a[0].asFloat()));
      case LG2_APPROX -> Const.ofFloat(Intrinsics.log2(a[0].asFloat()));
      case RSQRT_APPROX -> Const.ofFloat(Intrinsics.rsqrt(a[0].asFloat()));
      case DIV_APPROX -> Const.ofFloat(Intrinsics.fastDivide(a[0].asFloat(), a[1].asFloat()));
      default -> {
        Const r = Evaluator.eval(sirocco.jit.ir.Op.MATH, f.result, f, a);
        if (r == null) {
          throw new ArithmeticException(f + " by zero");
        }
        yield r;
      }
    };
  }

  private static Const load(Object arr, int i, Elem e) {
    return switch (e) {
      case BOOLEAN -> Const.ofInt(((boolean[]) arr)[i] ? 1 : 0);
      case BYTE -> Const.ofInt(((byte[]) arr)[i]);
      case CHAR -> Const.ofInt(((char[]) arr)[i]);
      case SHORT -> Const.ofInt(((short[]) arr)[i]);
      case INT -> Const.ofInt(((int[]) arr)[i]);
      case LONG -> Const.ofLong(((long[]) arr)[i]);
      case FLOAT -> Const.ofFloat(((float[]) arr)[i]);
      case DOUBLE -> Const.ofDouble(((double[]) arr)[i]);
    };
  }

  private static void store(Object arr, int i, Elem e, Const x) {
    switch (e) {
      case BOOLEAN -> ((boolean[]) arr)[i] = (x.asInt() & 1) != 0;
      case BYTE -> ((byte[]) arr)[i] = (byte) x.asInt();
      case CHAR -> ((char[]) arr)[i] = (char) x.asInt();
      case SHORT -> ((short[]) arr)[i] = (short) x.asInt();
      case INT -> ((int[]) arr)[i] = x.asInt();
      case LONG -> ((long[]) arr)[i] = x.asLong();
      case FLOAT -> ((float[]) arr)[i] = x.asFloat();
      case DOUBLE -> ((double[]) arr)[i] = x.asDouble();
    }
  }

  private static Const[] loadVec(VecAccess va, Object arr, int i, Elem e) {
    if (va.matrix()) {
      throw new IllegalStateException("ldmatrix is warp-collective: not interpreted per thread");
    }
    Const[] r = new Const[va.words()];
    for (int w = 0; w < r.length; w++) {
      r[w] =
          switch (e) {
            case INT -> Const.ofInt(((int[]) arr)[i + w]);
            case FLOAT -> Const.ofFloat(((float[]) arr)[i + w]);
            case SHORT -> {
              short[] s = (short[]) arr;
              yield Const.ofInt((s[i + 2 * w] & 0xFFFF) | (s[i + 2 * w + 1] << 16));
            }
            case BYTE -> {
              byte[] b = (byte[]) arr;
              int o = i + 4 * w;
              yield Const.ofInt(
                  (b[o] & 0xFF)
                      | (b[o + 1] & 0xFF) << 8
                      | (b[o + 2] & 0xFF) << 16
                      | (b[o + 3] & 0xFF) << 24);
            }
            default -> throw new IllegalStateException("vector load of " + e);
          };
    }
    return r;
  }

  private static void storeVec(Object arr, int i, Elem e, Const[] c) {
    for (int w = 0; w < c.length; w++) {
      switch (e) {
        case INT -> ((int[]) arr)[i + w] = c[w].asInt();
        case FLOAT -> ((float[]) arr)[i + w] = c[w].asFloat();
        case SHORT -> {
          short[] s = (short[]) arr;
          s[i + 2 * w] = (short) c[w].asInt();
          s[i + 2 * w + 1] = (short) (c[w].asInt() >>> 16);
        }
        default -> throw new IllegalStateException("vector store of " + e);
      }
    }
  }

  private static Const atomic(AtomicOp op, Object arr, int idx, Inst i, Map<Inst, Object> v) {
    if (op == AtomicOp.ADD_F) {
      float[] f = (float[]) arr;
      float old = f[idx];
      f[idx] = old + c(i.args[2], v).asFloat();
      return Const.ofFloat(old);
    }
    int[] a = (int[]) arr;
    int old = a[idx];
    int x = c(i.args[2], v).asInt();
    a[idx] =
        switch (op) {
          case ADD_I -> old + x;
          case MAX_I -> Math.max(old, x);
          case MIN_I -> Math.min(old, x);
          case CAS -> old == x ? c(i.args[3], v).asInt() : old;
          case EXCH -> x;
          default -> throw new IllegalStateException();
        };
    return Const.ofInt(old);
  }
}
