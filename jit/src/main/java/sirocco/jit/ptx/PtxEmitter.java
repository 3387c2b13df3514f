package sirocco.jit.ptx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import sirocco.jit.ir.BarrierKind;
import sirocco.jit.ir.Block;
import sirocco.jit.ir.Const;
import sirocco.jit.ir.Function;
import sirocco.jit.ir.Inst;
import sirocco.jit.ir.Op;
import sirocco.jit.ir.Pos;
import sirocco.jit.ir.SReg;
import sirocco.jit.ir.SharedSite;
import sirocco.jit.ir.ShflMode;
import sirocco.jit.ir.Space;
import sirocco.jit.ir.Type;
import sirocco.jit.ir.Value;

/**
 * Writes PTX for a kernel in SSA form. Every SSA value gets its own virtual register (ptxas
 * allocates); phis become copies at the end of predecessors, after critical edges are split.
 *
 * <p>Java semantics are kept where PTX differs: shift counts are masked, float arithmetic carries
 * an explicit rounding mode ({@code .rn}) so that ptxas never contracts a multiply and an add into
 * an FMA, division is {@code div.rn}, {@code Math.max/min(float)} use {@code .NaN}, conversions of
 * NaN to {@code long} give 0, {@code Math.abs} of floats clears the sign bit, and nothing is ever
 * {@code .ftz}.
 *
 * <p>This class owns the registers, the text, the control flow and the phis; instruction selection
 * for arithmetic, memory and intrinsics is in {@link PtxArith}, {@link PtxMemory} and {@link
 * PtxMath}, static helpers that take the emitter.
 */
public final class PtxEmitter {
  /** A kernel parameter as the emitter needs it. */
  public record Param(String ptxName, int javaIndex, String descriptor, boolean specialized) {}

  /** Register classes. */
  enum Cls {
    PRED("%p", ".pred"),
    B16("%rs", ".b16"),
    R32("%r", ".b32"),
    R64("%rd", ".b64"),
    F32("%f", ".f32"),
    F64("%fd", ".f64");

    final String prefix;
    final String decl;

    Cls(String prefix, String decl) {
      this.prefix = prefix;
      this.decl = decl;
    }
  }

  private final Function fn;
  private final StringBuilder body;
  private final int[] counters = new int[Cls.values().length];
  private final String[] names;
  final Map<Inst, String[]> tuples = new IdentityHashMap<>();
  // Reads of every value, built at the first warpgroup product (PtxWgmma); null before.
  private Map<Inst, List<PtxWgmma.Use>> uses;
  // "a" once a warpgroup product is emitted: .target sm_90a.
  private String archSuffix = "";
  private int sharedAlign = 16;
  private int waitLabels;
  private final Map<SharedSite, String> sharedNames = new LinkedHashMap<>();
  private final Map<Block, String> labels = new IdentityHashMap<>();
  private final boolean lineInfo;
  private final Map<String, Integer> files = new LinkedHashMap<>();
  private int lastLine = -1;
  private String lastFile;

  /** Whether the target has {@code griddepcontrol} (sm_90+, PTX ISA 7.8). */
  private final boolean gridDependencies;

  /** Addresses computed in the current block, by array, index base and element size. */
  final Map<PtxMemory.AddrKey, String> addresses = new HashMap<>();

  private PtxEmitter(Function fn, boolean lineInfo, boolean gridDependencies) {
    this.fn = fn;
    this.lineInfo = lineInfo;
    this.gridDependencies = gridDependencies;
    this.names = new String[fn.instIdLimit() + 1024];
    // Room for the usual text (about 36 bytes per instruction for the shipped kernels), so that
    // the body is not copied over and over as it grows (that copying was a tenth of emission).
    this.body = new StringBuilder(Math.max(4096, fn.size() * 48));
  }

  /**
   * PTX text of one module holding the kernel.
   *
   * @param isa PTX ISA version ("8.0")
   * @param arch target ("sm_90")
   * @param shared shared arrays (site to bytes) in layout order
   * @param dynamicOffsets when the arrays live in dynamic shared memory, each one's byte offset in
   *     it; null for static {@code .shared} arrays
   * @param sharedAlign the arrays' alignment in bytes (16, or 1024 where tiles are copied or read
   *     swizzled)
   * @param comment lines for the header comment
   * @param directives performance-tuning directives between the parameter list and the body, one
   *     per line with its newline ({@code ".maxntid 128, 1, 1\n.minnctapersm 4\n"}); empty for none
   */
  public static String emit(
      Function fn,
      String entryName,
      List<Param> params,
      Map<SharedSite, Long> shared,
      Map<SharedSite, Long> dynamicOffsets,
      int sharedAlign,
      String isa,
      String arch,
      boolean gridDependencies,
      boolean lineInfo,
      List<String> comment,
      String directives) {
    PtxEmitter e = new PtxEmitter(fn, lineInfo, gridDependencies);
    e.sharedAlign = sharedAlign;
    return e.run(entryName, params, shared, dynamicOffsets, isa, arch, comment, directives);
  }

  /** The module's one {@code .extern .shared} array when the shared arrays are dynamic. */
  public static final String DYNAMIC_SHARED = "dsmem";

  private String run(
      String entryName,
      List<Param> params,
      Map<SharedSite, Long> shared,
      Map<SharedSite, Long> dynamicOffsets,
      String isa,
      String arch,
      List<String> comment,
      String directives) {
    splitCriticalEdges();
    int n = 0;
    for (SharedSite s : shared.keySet()) {
      if (dynamicOffsets == null) {
        sharedNames.put(s, "smem" + n++);
      } else {
        // An array's base is the window's address plus its constant offset, one mov with an
        // address expression (PTX "mov.u32 d, avar+imm"), so element addresses and their folded
        // index offsets are formed exactly as for a static array.
        long off = dynamicOffsets.get(s);
        sharedNames.put(s, off == 0 ? DYNAMIC_SHARED : DYNAMIC_SHARED + "+" + off);
      }
    }
    List<Block> order = fn.reversePostOrder();
    for (int i = 0; i < order.size(); i++) {
      labels.put(order.get(i), "$B" + i);
    }
    emitParams(params);
    for (int i = 0; i < order.size(); i++) {
      Block b = order.get(i);
      Block next = i + 1 < order.size() ? order.get(i + 1) : null;
      if (i > 0) {
        body.append(labels.get(b)).append(":\n");
      }
      addresses.clear();
      for (int k = 0, m = b.insts.size(); k < m; k++) {
        Inst inst = b.insts.get(k);
        if (inst.op != Op.PARAM) {
          emit(inst, next);
        }
      }
    }

    StringBuilder out = new StringBuilder(body.length() + 1024);
    out.append("//\n// Generated by Sirocco JIT\n");
    for (String c : comment) {
      out.append("// ").append(c).append('\n');
    }
    out.append("//\n\n");
    out.append(".version ").append(isa).append('\n');
    out.append(".target ").append(arch).append(archSuffix).append('\n');
    out.append(".address_size 64\n\n");
    for (Map.Entry<String, Integer> f : files.entrySet()) {
      out.append(".file ").append(f.getValue()).append(" \"").append(f.getKey()).append("\"\n");
    }
    if (!files.isEmpty()) {
      out.append('\n');
    }
    if (dynamicOffsets != null) {
      // Module scope, as nvcc declares extern __shared__ arrays; its size is the launch's.
      out.append(".extern .shared .align ")
          .append(sharedAlign)
          .append(" .b8 ")
          .append(DYNAMIC_SHARED)
          .append("[];\n\n");
    }
    out.append(".visible .entry ").append(entryName).append("(");
    boolean first = true;
    for (Param p : params) {
      if (p.specialized) {
        continue;
      }
      out.append(first ? "\n" : ",\n");
      first = false;
      out.append("\t.param ").append(paramType(p.descriptor)).append(' ').append(p.ptxName);
    }
    out.append("\n)\n").append(directives).append("{\n");
    for (Cls c : Cls.values()) {
      int count = counters[c.ordinal()];
      if (count > 0) {
        out.append("\t.reg ")
            .append(c.decl)
            .append(' ')
            .append(c.prefix)
            .append('<')
            .append(count + 1)
            .append(">;\n");
      }
    }
    if (dynamicOffsets == null) {
      for (Map.Entry<SharedSite, Long> s : shared.entrySet()) {
        out.append("\t.shared .align ")
            .append(sharedAlign)
            .append(" .b8 ")
            .append(sharedNames.get(s.getKey()))
            .append('[')
            .append(s.getValue())
            .append("];\n");
      }
    }
    out.append('\n');
    out.append(body);
    out.append("}\n");
    return out.toString();
  }

  private static String paramType(String d) {
    return switch (d.charAt(0)) {
      case '[' -> ".u64";
      case 'J' -> ".s64";
      case 'F' -> ".f32";
      case 'D' -> ".f64";
      case 'C', 'Z' -> ".u32";
      default -> ".s32";
    };
  }

  // ---------------------------------------------------------------- CFG preparation

  /** Gives every edge into a block with phis from a block with several successors its own block. */
  private void splitCriticalEdges() {
    List<Block> snapshot = new ArrayList<>(fn.blocks);
    for (Block s : snapshot) {
      if (s.phis.isEmpty()) {
        continue;
      }
      List<Block> preds = new ArrayList<>(s.preds);
      for (Block p : preds) {
        if (p.succs.size() <= 1 || !s.preds.contains(p)) {
          continue;
        }
        Block e = fn.newBlock();
        fn.append(e, Op.BR, Type.VOID, null, null, p.terminator().pos);
        int count = 0;
        for (int k = 0; k < p.succs.size(); k++) {
          if (p.succs.get(k) == s) {
            p.succs.set(k, e);
            e.preds.add(p);
            count++;
          }
        }
        // Keep one predecessor slot for the edge block, drop duplicates of p.
        int first = s.preds.indexOf(p);
        s.preds.set(first, e);
        for (int k = 1; k < count; k++) {
          s.removePredAt(s.preds.indexOf(p));
        }
        e.succs.add(s);
      }
    }
  }

  // ---------------------------------------------------------------- registers and operands

  /** Places {@code label} before the next line. */
  void label(String label) {
    body.append(label).append(":\n");
  }

  /** A fresh label for the loop of a barrier wait (block labels are {@code $B<n>}). */
  String waitLabel() {
    return "$W" + waitLabels++;
  }

  String fresh(Cls c) {
    return regName(c, ++counters[c.ordinal()]);
  }

  /**
   * Register names by class and number ("%r12"), built once per JVM and shared by all compilations:
   * building one per register was 3 % of a cold compilation of the shipped kernels. Unsynchronized:
   * a name another thread has not published yet is built again, and a name is a String (safe to
   * publish through a race).
   */
  private static final String[][] REG_NAMES = new String[Cls.values().length][];

  private static String regName(Cls c, int n) {
    String[] names = REG_NAMES[c.ordinal()];
    if (names == null || n >= names.length) {
      String[] bigger = new String[Math.max(n + 1, names == null ? 256 : names.length * 2)];
      if (names != null) {
        System.arraycopy(names, 0, bigger, 0, names.length);
      }
      names = bigger;
      REG_NAMES[c.ordinal()] = names;
    }
    String s = names[n];
    if (s == null) {
      s = c.prefix + n;
      names[n] = s;
    }
    return s;
  }

  private static Cls cls(Type t, Space s) {
    return switch (t.kind) {
      case INT -> Cls.R32;
      case LONG -> Cls.R64;
      case FLOAT -> Cls.F32;
      case DOUBLE -> Cls.F64;
      case PRED -> Cls.PRED;
      case ARRAY -> s == Space.SHARED ? Cls.R32 : Cls.R64;
      default -> throw new IllegalStateException("no register class for " + t);
    };
  }

  private static Cls cls(Inst i) {
    return cls(i.type, i.space);
  }

  /** The register holding instruction {@code i}'s value (allocated on first use). */
  String name(Inst i) {
    String n = names[i.id];
    if (n == null) {
      n = fresh(cls(i));
      names[i.id] = n;
    }
    return n;
  }

  /** An operand: a register, or an immediate for constants. */
  String op(Value v) {
    if (v instanceof Inst i) {
      return name(i);
    }
    return imm((Const) v);
  }

  private static String imm(Const c) {
    return switch (c.type().kind) {
      case INT -> Integer.toString(c.asInt());
      case LONG -> c.asLong() == Long.MIN_VALUE ? "0x8000000000000000" : Long.toString(c.asLong());
      case FLOAT -> "0f" + hex(c.asInt() & 0xFFFFFFFFL, 8);
      case DOUBLE -> "0d" + hex(c.asLong(), 16);
      default -> "0";
    };
  }

  /** Upper-case hexadecimal of {@code v}, zero-padded to {@code digits}. */
  static String hex(long v, int digits) {
    // What "0".repeat(digits - h.length()) + Long.toHexString(v).toUpperCase() gives, built in
    // one array.
    int significant = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 3) / 4);
    char[] c = new char[Math.max(significant, digits)];
    for (int k = c.length - 1; k >= 0; k--) {
      c[k] = HEX_DIGITS[(int) (v & 15)];
      v >>>= 4;
    }
    return new String(c);
  }

  private static final char[] HEX_DIGITS = "0123456789ABCDEF".toCharArray();

  /** PTX opcodes of the bitwise operations, by {@link Op} ordinal (lower case names). */
  private static final String[] LOWER_CASE_OPS = new String[Op.values().length];

  static {
    for (Op o : Op.values()) {
      LOWER_CASE_OPS[o.ordinal()] = o.name().toLowerCase(Locale.ROOT);
    }
  }

  /** A register holding {@code v} (constants are moved into a fresh one). */
  String reg(Value v) {
    if (v instanceof Inst i) {
      return name(i);
    }
    Const c = (Const) v;
    Type t = c.type();
    if (t == Type.PRED) {
      String p = fresh(Cls.PRED);
      line("setp.ne.s32 ", p, ", ", (c.asPred() ? 1 : 0), ", 0");
      return p;
    }
    Cls k = t.isArray() ? Cls.R64 : cls(t, null);
    String r = fresh(k);
    line("mov", movType(k), " ", r, ", ", imm(c));
    return r;
  }

  private static String movType(Cls c) {
    return switch (c) {
      case PRED -> ".pred";
      case B16 -> ".b16";
      case R32 -> ".b32";
      case R64 -> ".b64";
      case F32 -> ".f32";
      case F64 -> ".f64";
    };
  }

  void line(String s) {
    body.append('\t').append(s).append(";\n");
  }

  /**
   * A line from parts, appended in order (what {@code line(a + b + ...)} would append, without
   * building the string first; the parts are evaluated before anything is appended, as before).
   */
  void line(Object... parts) {
    StringBuilder b = body;
    b.append('\t');
    for (Object p : parts) {
      // The same text as append(Object), without its String.valueOf and toString calls
      // (interpreted, those are a good part of emitting) or a String for each int.
      if (p instanceof String s) {
        b.append(s);
      } else if (p instanceof Integer i) {
        b.append(i.intValue());
      } else {
        b.append(p);
      }
    }
    b.append(";\n");
  }

  private void loc(Pos p) {
    if (!lineInfo || p == null || p.line() < 0) {
      return;
    }
    String file = p.method().sourceFile();
    if (file == null) {
      file = p.method().simpleClassName() + ".java";
    }
    String pkg = p.method().className();
    int dot = pkg.lastIndexOf('.');
    String path = dot < 0 ? file : pkg.substring(0, dot).replace('.', '/') + "/" + file;
    Integer idx = files.get(path);
    if (idx == null) {
      idx = files.size() + 1;
      files.put(path, idx);
    }
    if (p.line() != lastLine || !path.equals(lastFile)) {
      body.append("\t.loc ").append(idx).append(' ').append(p.line()).append(" 0\n");
      lastLine = p.line();
      lastFile = path;
    }
  }

  // ---------------------------------------------------------------- parameters

  private void emitParams(List<Param> params) {
    Map<Integer, Inst> byIndex = new HashMap<>();
    for (Inst i : fn.entry().insts) {
      if (i.op == Op.PARAM) {
        byIndex.put((Integer) i.aux, i);
      }
    }
    for (Param p : params) {
      Inst i = byIndex.get(p.javaIndex);
      if (p.specialized || i == null) {
        continue;
      }
      String d = p.descriptor;
      String n = name(i);
      switch (d.charAt(0)) {
        case '[' -> {
          String raw = fresh(Cls.R64);
          line("ld.param.u64 ", raw, ", [", p.ptxName, "]");
          line("cvta.to.global.u64 ", n, ", ", raw);
        }
        case 'J' -> line("ld.param.s64 ", n, ", [", p.ptxName, "]");
        case 'F' -> line("ld.param.f32 ", n, ", [", p.ptxName, "]");
        case 'D' -> line("ld.param.f64 ", n, ", [", p.ptxName, "]");
        case 'I' -> line("ld.param.s32 ", n, ", [", p.ptxName, "]");
        case 'B' -> {
          String raw = fresh(Cls.R32);
          line("ld.param.s32 ", raw, ", [", p.ptxName, "]");
          line("cvt.s32.s8 ", n, ", ", raw);
        }
        case 'S' -> {
          String raw = fresh(Cls.R32);
          line("ld.param.s32 ", raw, ", [", p.ptxName, "]");
          line("cvt.s32.s16 ", n, ", ", raw);
        }
        case 'C' -> {
          String raw = fresh(Cls.R32);
          line("ld.param.u32 ", raw, ", [", p.ptxName, "]");
          line("and.b32 ", n, ", ", raw, ", 65535");
        }
        case 'Z' -> {
          String raw = fresh(Cls.R32);
          String pr = fresh(Cls.PRED);
          line("ld.param.u32 ", raw, ", [", p.ptxName, "]");
          line("setp.ne.s32 ", pr, ", ", raw, ", 0");
          line("selp.b32 ", n, ", 1, 0, ", pr);
        }
        default -> throw new IllegalStateException("parameter descriptor " + d);
      }
    }
  }

  // ---------------------------------------------------------------- instructions

  private void emit(Inst i, Block next) {
    loc(i.pos);
    switch (i.op) {
      case ADD, SUB, MUL, DIV, REM -> PtxArith.arith(this, i);
      case AND, OR, XOR ->
          line(
              LOWER_CASE_OPS[i.op.ordinal()],
              ".",
              PtxArith.bitType(i.type),
              " ",
              name(i),
              ", ",
              op(i.args[0]),
              ", ",
              op(i.args[1]));
      case SHL, SHR, USHR -> PtxArith.shift(this, i);
      case NEG ->
          line(
              "neg.",
              (i.type.isFloating() ? PtxArith.fType(i.type) : PtxArith.intType(i.type)),
              " ",
              name(i),
              ", ",
              op(i.args[0]));
      case CONV -> PtxArith.conv(this, i);
      case CMP3 -> PtxArith.cmp3(this, i);
      case SETP -> PtxArith.setp(this, i);
      case SELECT ->
          line(
              "selp.",
              selType(i.type),
              " ",
              name(i),
              ", ",
              op(i.args[1]),
              ", ",
              op(i.args[2]),
              ", ",
              reg(i.args[0]));
      case MATH -> PtxMath.math(this, i);
      case SREG -> {
        SReg r = (SReg) i.aux;
        line((r.wide ? "mov.u64 " : "mov.u32 "), name(i), ", ", r.ptx);
      }
      case SHARED_ALLOC -> line("mov.u32 ", name(i), ", ", sharedNames.get((SharedSite) i.aux));
      case LOAD -> PtxMemory.load(this, i);
      case STORE -> PtxMemory.store(this, i);
      case LOAD_VEC -> PtxMemory.loadVec(this, i);
      case STORE_VEC -> PtxMemory.storeVec(this, i);
      case ATOMIC -> PtxMemory.atomic(this, i);
      case EXTRACT -> names[i.id] = tuples.get((Inst) i.args[0])[i.auxInt()];
      case COPY_ASYNC -> PtxMemory.copyAsync(this, i);
      case TILE_COPY -> PtxMemory.tileCopy(this, i);
      case MBARRIER -> PtxMemory.mbarrier(this, i);
      case BARRIER -> {
        BarrierKind kind = (BarrierKind) i.aux;
        if (kind == BarrierKind.WG_FENCE
            || kind == BarrierKind.WG_COMMIT
            || kind == BarrierKind.WG_WAIT) {
          archSuffix = "a"; // even where specialization removed every product they order
        }
        // Before sm_90 no launch starts early: nothing to wait for or release.
        boolean skip =
            (kind == BarrierKind.GRID_WAIT || kind == BarrierKind.GRID_RELEASE)
                && !gridDependencies;
        if (!skip) {
          line(
              switch (kind) {
                case BLOCK -> "bar.sync 0";
                case WARP -> "bar.warp.sync -1";
                case FENCE_GPU ->
                    "fence.acq_rel.gpu"; // PTX ISA 6.0, sm_70+; the JIT targets >= 8.0
                // cp.async*: PTX ISA 7.0, sm_80+, which every Target is
                case ASYNC_COMMIT -> "cp.async.commit_group";
                case ASYNC_WAIT -> "cp.async.wait_group " + ((Const) i.args[0]).asInt();
                case GRID_WAIT -> "griddepcontrol.wait"; // PTX ISA 7.8, sm_90+
                case GRID_RELEASE -> "griddepcontrol.launch_dependents";
                case WG_FENCE -> "wgmma.fence.sync.aligned";
                case WG_COMMIT -> "wgmma.commit_group.sync.aligned";
                case WG_WAIT -> "wgmma.wait_group.sync.aligned " + ((Const) i.args[0]).asInt();
                case PROXY_ASYNC -> "fence.proxy.async.shared::cta";
                case MBARRIER_INIT -> "fence.mbarrier_init.release.cluster"; // sm_90+
              });
        }
      }
      case SHFL -> {
        ShflMode m = (ShflMode) i.aux;
        line(
            "shfl.sync.",
            m.ptx,
            ".b32 ",
            name(i),
            ", ",
            reg(i.args[0]),
            ", ",
            op(i.args[1]),
            ", ",
            m.clamp,
            ", 0xffffffff");
      }
      case MMA -> PtxMath.mma(this, i);
      case WGMMA -> {
        if (uses == null) {
          uses = PtxWgmma.uses(fn);
        }
        PtxWgmma.emit(this, i, uses);
        archSuffix = "a"; // wgmma exists only on sm_90a, the sm_90 features not carried forward
      }
      case BR -> {
        phiCopies(i.block);
        Block t = i.block.succs.get(0);
        if (t != next) {
          line("bra ", labels.get(t));
        }
      }
      case CBR -> {
        Block t = i.block.succs.get(0);
        Block f = i.block.succs.get(1);
        String p = reg(i.args[0]);
        if (t == next) {
          line("@!", p, " bra ", labels.get(f));
        } else {
          line("@", p, " bra ", labels.get(t));
          if (f != next) {
            line("bra ", labels.get(f));
          }
        }
      }
      case SWITCH -> {
        int[] keys = (int[]) i.aux;
        String k = reg(i.args[0]);
        for (int j = 0; j < keys.length; j++) {
          String p = fresh(Cls.PRED);
          line("setp.eq.s32 ", p, ", ", k, ", ", keys[j]);
          line("@", p, " bra ", labels.get(i.block.succs.get(j + 1)));
        }
        Block d = i.block.succs.get(0);
        if (d != next) {
          line("bra ", labels.get(d));
        }
      }
      case RET -> line("ret");
      case TRAP -> line("trap");
      case PARAM, PHI, GET_FIELD, NEW_RECORD, CALL ->
          throw new IllegalStateException("unexpected " + i.op + " at emission");
    }
  }

  private static String selType(Type t) {
    return switch (t.kind) {
      case INT -> "b32";
      case LONG -> "b64";
      case FLOAT -> "f32";
      case DOUBLE -> "f64";
      default -> throw new IllegalStateException("select of " + t);
    };
  }

  // ---------------------------------------------------------------- phis

  /** Copies for the phis of this block's only successor (critical edges are split). */
  private void phiCopies(Block b) {
    if (b.succs.size() != 1) {
      return;
    }
    Block s = b.succs.get(0);
    if (s.phis.isEmpty()) {
      return;
    }
    int k = s.preds.indexOf(b);
    // Sources that are phis of the target block, or that share another such phi's registers (a
    // warpgroup product accumulates in place, PtxWgmma), are read before any phi is written.
    Map<Inst, String> saved = new IdentityHashMap<>();
    Set<String> targets = new HashSet<>();
    for (int q = 0, n = s.phis.size(); q < n; q++) {
      targets.add(name(s.phis.get(q)));
    }
    for (int q = 0, n = s.phis.size(); q < n; q++) {
      Inst phi = s.phis.get(q);
      Value src = phi.args[k];
      if (src instanceof Inst x
          && x != phi
          && !saved.containsKey(x)
          && ((x.op == Op.PHI && x.block == s)
              || (names[x.id] != null
                  && targets.contains(names[x.id])
                  && !names[x.id].equals(name(phi))))) {
        String t = fresh(cls(x));
        line("mov", movType(cls(x)), " ", t, ", ", name(x));
        saved.put(x, t);
      }
    }
    for (int u = 0, m = s.phis.size(); u < m; u++) {
      Inst phi = s.phis.get(u);
      Value src = phi.args[k];
      if (src == phi) {
        continue;
      }
      String from = src instanceof Inst x && saved.containsKey(x) ? saved.get(x) : null;
      copy(phi, src, from);
    }
  }

  private void copy(Inst phi, Value src, String savedReg) {
    String dst = name(phi);
    Cls c = cls(phi);
    if (phi.type.isArray()) {
      Space to = phi.space;
      if (src instanceof Const) {
        line("mov", movType(c), " ", dst, ", 0"); // undefined on this path
        return;
      }
      Space from = PtxMemory.space(src);
      String s = savedReg != null ? savedReg : reg(src);
      if (to == Space.GENERIC && from == Space.GLOBAL) {
        line("cvta.global.u64 ", dst, ", ", s);
        return;
      }
      if (to == Space.GENERIC && from == Space.SHARED) {
        String w = fresh(Cls.R64);
        line("cvt.u64.u32 ", w, ", ", s);
        line("cvta.shared.u64 ", dst, ", ", w);
        return;
      }
      line("mov", movType(c), " ", dst, ", ", s);
      return;
    }
    if (src instanceof Inst x && savedReg == null && dst.equals(names[x.id])) {
      return; // a warpgroup product accumulated in the phi's own registers
    }
    if (savedReg != null) {
      line("mov", movType(c), " ", dst, ", ", savedReg);
    } else if (src instanceof Const k && k.type() == Type.PRED) {
      line("setp.ne.s32 ", dst, ", ", (k.asPred() ? 1 : 0), ", 0");
    } else {
      line("mov", movType(c), " ", dst, ", ", op(src));
    }
  }
}
