package sirocco.jit.ir;

import java.util.Arrays;

/** Text dump of a function, for {@code sirocco.jit.dump} and tests. */
public final class IrPrinter {
  private IrPrinter() {}

  public static String print(Function f) {
    StringBuilder sb = new StringBuilder();
    sb.append("function ").append(f.method).append('\n');
    for (Block b : f.blocks) {
      sb.append(b).append(": preds ").append(b.preds).append(" succs ").append(b.succs);
      sb.append('\n');
      for (Inst p : b.phis) {
        sb.append("  ").append(print(p)).append('\n');
      }
      for (Inst i : b.insts) {
        sb.append("  ").append(print(i)).append('\n');
      }
    }
    return sb.toString();
  }

  public static String print(Inst i) {
    StringBuilder sb = new StringBuilder();
    if (i.type != Type.VOID) {
      sb.append(i).append(" = ");
    }
    sb.append(i.op.name().toLowerCase(java.util.Locale.ROOT));
    Object aux = i.aux;
    if (aux != null) {
      String a =
          switch (aux) {
            case int[] keys -> Arrays.toString(keys);
            case String s -> '"' + s + '"';
            case MethodId m -> m.simpleClassName() + "." + m.name() + m.descriptor();
            case SharedSite s -> s.elem().javaName() + "@" + s.method().name() + ":" + s.bci();
            default -> aux.toString();
          };
      sb.append('.').append(a);
    }
    for (int k = 0; k < i.args.length; k++) {
      sb.append(k == 0 ? " " : ", ");
      Value v = i.args[k];
      sb.append(v);
      if (i.op == Op.PHI && i.block != null && k < i.block.preds.size()) {
        sb.append(" <- ").append(i.block.preds.get(k));
      }
    }
    if (i.type != Type.VOID) {
      sb.append(" : ").append(i.type);
    }
    if (i.space != null) {
      sb.append(" @").append(i.space);
    }
    if (i.pos != null) {
      sb.append("    ; ").append(i.pos);
    }
    return sb.toString();
  }
}
