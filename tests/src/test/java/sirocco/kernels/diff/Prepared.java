package sirocco.kernels.diff;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;
import sirocco.api.Specialize;
import sirocco.runtime.Dim3;

/**
 * One shipped-kernel launch ready to run on any device: the kernel, the grid and block the dispatch
 * layer (or the kernel's own plan) gives, the arguments after the context as Java arrays and boxed
 * scalars (specialization values included, in parameter order), and which arrays are outputs and
 * how they are compared. Every array not listed in {@link #outs} is an input and must come back
 * unchanged from both backends.
 *
 * @param plan how the geometry was obtained: {@code "dispatch"} when it is the plan the dispatch
 *     layer would make for this shape, else a short note naming the explicit plan call
 * @param shape the problem, for the report
 * @param minBlocksPerSm the occupancy hint of the plan ({@code KernelLaunch.minBlocksPerSm}, 0 =
 *     none): on the GPU the hinted variant is the one compiled and compared
 */
record Prepared(
    Method kernel,
    Dim3 grid,
    Dim3 block,
    Object[] args,
    List<Out> outs,
    String plan,
    String shape,
    int minBlocksPerSm) {

  Prepared {
    args = args.clone();
    outs = List.copyOf(outs);
  }

  /** A launch without an occupancy hint. */
  Prepared(
      Method kernel,
      Dim3 grid,
      Dim3 block,
      Object[] args,
      List<Out> outs,
      String plan,
      String shape) {
    this(kernel, grid, block, args, outs, plan, shape, 0);
  }

  /**
   * An argument that is a tile map ({@code Device.tileMap}) of {@code source}, an input array that
   * is not itself a kernel argument: the device it runs on uploads the array and builds the map
   * there (on the GPU the map holds the uploaded buffer's address). The arguments as {@code
   * Device.tileMap}'s.
   */
  record TileMapArg(
      Object source,
      long cols,
      long rows,
      long rowStride,
      int boxCols,
      int boxRows,
      int swizzleBytes) {}

  /** How an output array's elements are compared. */
  enum Kind {
    /** Bits, exactly: packed codes, integer results, raw copies. */
    BITS,
    /** float32 values. */
    F32,
    /** bfloat16 bits in a {@code short[]}, compared as values. */
    BF16,
    /** IEEE binary16 bits in a {@code short[]}, compared as values. */
    F16
  }

  /**
   * Allowed difference between the Java backend's value {@code a} and the GPU's {@code b}: {@code
   * |a - b| <= rel * max(|a|, |b|) + absOfScale * scale}, where {@code scale} is the largest
   * magnitude in the Java backend's output array. {@link #EXACT} demands identical bits (any NaN
   * equals any NaN that is not the poison).
   *
   * @param why the reason the kernel may differ at all, printed with the case
   */
  record Tolerance(double rel, double absOfScale, String why) {
    static final Tolerance EXACT =
        new Tolerance(
            0,
            0,
            "bit-exact: the JIT keeps Java's float semantics (.rn, no contraction, div.rn) and the"
                + " Java backend runs the same reduction order (shuffle butterflies, shared-memory"
                + " sums)");

    boolean exact() {
      return rel == 0 && absOfScale == 0;
    }
  }

  /**
   * An output array.
   *
   * @param arg index of the array among the arguments after the context
   * @param kind how its elements are read
   * @param tolerance the allowed difference (ignored for {@link Kind#BITS}: always exact)
   * @param poisoned whether it was filled with {@link Gen poison} before the launch (false for
   *     arrays updated in place, whose contents are inputs)
   * @param mustWrite the elements the kernel must write (null: all); a poisoned element outside it
   *     must still hold the poison on both backends
   * @param check an extra property of the result, checked on each backend's array (null: none);
   *     returns a problem or null. In-place outputs use it to detect elements left unwritten
   */
  record Out(
      int arg,
      Kind kind,
      Tolerance tolerance,
      boolean poisoned,
      IntPredicate mustWrite,
      ResultCheck check) {
    static Out of(int arg, Kind kind, Tolerance t) {
      return new Out(arg, kind, t, true, null, null);
    }

    static Out bits(int arg) {
      return of(arg, Kind.BITS, Tolerance.EXACT);
    }
  }

  /** A property of one backend's output array. */
  @FunctionalInterface
  interface ResultCheck {
    String check(Object array);
  }

  /**
   * What a case builder gets: the specialization set, a seeded generator, the SM count and the
   * compute capability ({@code 10 * major + minor}: 90 for the H200) the plans are made for.
   */
  record Spec(Map<String, Object> values, Random rnd, int smCount, int arch) {
    int i(String name) {
      Object v = values.get(name);
      if (!(v instanceof Integer x)) {
        throw new IllegalArgumentException("specialization set " + values + " has no int " + name);
      }
      return x;
    }

    boolean b(String name) {
      Object v = values.get(name);
      if (!(v instanceof Boolean x)) {
        throw new IllegalArgumentException(
            "specialization set " + values + " has no boolean " + name);
      }
      return x;
    }
  }

  /**
   * Checks that the arguments are the kernel's (count and types), and that each {@code @Specialize}
   * parameter's value is the one in {@code specs}: the plan the case used really selects the
   * variant under test. Returns a problem or null.
   */
  String checkAgainst(Map<String, Object> specs) {
    Parameter[] ps = kernel.getParameters();
    if (args.length != ps.length - 1) {
      return "the case passes " + args.length + " arguments, the kernel takes " + (ps.length - 1);
    }
    for (int i = 1; i < ps.length; i++) {
      Class<?> type = ps[i].getType();
      Object a = args[i - 1];
      boolean fits =
          type.isArray()
              ? a != null
                  && (a.getClass() == type || (type == long[].class && a instanceof TileMapArg))
              : a != null && MethodType.methodType(type).wrap().returnType() == a.getClass();
      if (!fits) {
        return "argument "
            + ps[i].getName()
            + " must be "
            + type.getSimpleName()
            + ", the case passes "
            + (a == null ? "null" : a.getClass().getSimpleName());
      }
      if (!ps[i].isAnnotationPresent(Specialize.class)) {
        continue;
      }
      Object want = specs.get(ps[i].getName());
      if (want != null && !want.equals(args[i - 1])) {
        return "the plan sets "
            + ps[i].getName()
            + "="
            + args[i - 1]
            + " but the specialization set under test has "
            + want;
      }
      if (want == null && !specs.isEmpty()) {
        return "specialization set " + specs + " does not name " + ps[i].getName();
      }
    }
    return null;
  }

  /**
   * Fails the case when the kernel rejects its shape: dispatch never launches a kernel on a shape
   * its {@code supports} refuses, so neither may a case.
   */
  static void supported(String why) {
    if (why != null) {
      throw new IllegalStateException("the case's shape is one the kernel rejects: " + why);
    }
  }
}
