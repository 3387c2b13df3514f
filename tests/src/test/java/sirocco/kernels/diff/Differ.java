package sirocco.kernels.diff;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import sirocco.api.Bf16;
import sirocco.api.F16;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;

/**
 * Runs a {@link Prepared} launch on a device and compares two backends' results element by element.
 * Shared by the GPU differential test and the Java-backend check of the inputs.
 */
final class Differ {
  private Differ() {}

  /** Problems reported per array before the rest are only counted. */
  private static final int REPORT = 6;

  /**
   * Uploads copies of the arrays, launches, downloads every array and returns them (scalars are
   * left null). The prepared arrays themselves are not touched, so both backends start from the
   * same bits.
   */
  static Object[] run(Device d, Prepared p) {
    Object[] in = p.args();
    Object[] args = new Object[in.length];
    DeviceBuffer[] buffers = new DeviceBuffer[in.length];
    // The sources of tile-map arguments: uploaded, mapped, never compared (the kernel only reads
    // them through the map).
    List<DeviceBuffer> mapped = new ArrayList<>();
    try {
      for (int i = 0; i < in.length; i++) {
        Object v = in[i];
        if (v != null && v.getClass().isArray()) {
          buffers[i] = upload(d, v);
          args[i] = buffers[i];
        } else if (v instanceof Prepared.TileMapArg t) {
          DeviceBuffer src = upload(d, t.source());
          mapped.add(src);
          DeviceBuffer map =
              d.tileMap(
                  src,
                  0,
                  t.cols(),
                  t.rows(),
                  t.rowStride(),
                  t.boxCols(),
                  t.boxRows(),
                  t.swizzleBytes());
          mapped.add(map);
          args[i] = map;
        } else {
          args[i] = v;
        }
      }
      d.launch(
          KernelLaunch.of(p.kernel(), p.grid(), p.block(), args)
              .withMinBlocksPerSm(p.minBlocksPerSm()));
      Object[] out = new Object[in.length];
      for (int i = 0; i < in.length; i++) {
        if (buffers[i] != null) {
          int n = Array.getLength(in[i]);
          out[i] = buffers[i].type().newArray(n);
          d.download(buffers[i], 0, out[i], 0, n, d.defaultStream());
        }
      }
      d.synchronize();
      return out;
    } finally {
      for (DeviceBuffer b : buffers) {
        if (b != null) {
          b.close();
        }
      }
      for (DeviceBuffer b : mapped) {
        b.close();
      }
    }
  }

  private static DeviceBuffer upload(Device d, Object array) {
    int n = Array.getLength(array);
    DeviceBuffer b = d.allocate(ElementType.ofArray(array.getClass()), n);
    d.upload(array, 0, b, 0, n, d.defaultStream());
    return b;
  }

  /** The outcome of one comparison. */
  record Result(double maxAbs, double maxRel, long compared, List<String> problems) {
    boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * Checks one backend's results alone: no must-write element left holding the poison, nothing
   * written outside the must-write range of a poisoned output, inputs unchanged, and each output's
   * extra check. {@code who} names the backend in messages.
   */
  static List<String> checkAlone(Prepared p, Object[] got, String who) {
    List<String> problems = new ArrayList<>();
    Object[] in = p.args();
    boolean[] isOut = new boolean[in.length];
    for (Prepared.Out o : p.outs()) {
      isOut[o.arg()] = true;
      Object a = got[o.arg()];
      String name = paramName(p, o.arg());
      if (o.poisoned()) {
        int missed = 0;
        int stray = 0;
        int firstMissed = -1;
        int firstStray = -1;
        int n = Array.getLength(a);
        for (int i = 0; i < n; i++) {
          boolean must = o.mustWrite() == null || o.mustWrite().test(i);
          boolean poison = Gen.isPoison(a, i);
          if (must && poison) {
            if (missed++ == 0) {
              firstMissed = i;
            }
          } else if (!must && !poison) {
            if (stray++ == 0) {
              firstStray = i;
            }
          }
        }
        if (missed > 0) {
          problems.add(
              who
                  + " left "
                  + missed
                  + " element(s) of "
                  + name
                  + " unwritten (still poison), first at "
                  + firstMissed);
        }
        if (stray > 0) {
          problems.add(
              who
                  + " wrote "
                  + stray
                  + " element(s) of "
                  + name
                  + " outside the range it must write, first at "
                  + firstStray);
        }
      }
      if (o.check() != null) {
        String why = o.check().check(a);
        if (why != null) {
          problems.add(who + ": " + name + ": " + why);
        }
      }
    }
    for (int i = 0; i < in.length; i++) {
      if (!isOut[i] && got[i] != null) {
        int diff = firstBitDifference(in[i], got[i]);
        if (diff >= 0) {
          problems.add(
              who + " changed input " + paramName(p, i) + " (first difference at " + diff + ")");
        }
      }
    }
    return problems;
  }

  /** Compares the Java backend's outputs {@code cpu} with the GPU's {@code gpu}. */
  static Result compare(Prepared p, Object[] cpu, Object[] gpu) {
    List<String> problems = new ArrayList<>();
    double maxAbs = 0;
    double maxRel = 0;
    long compared = 0;
    for (Prepared.Out o : p.outs()) {
      Object a = cpu[o.arg()];
      Object b = gpu[o.arg()];
      String name = paramName(p, o.arg());
      int n = Array.getLength(a);
      double scale = o.kind() == Prepared.Kind.BITS ? 0 : maxMagnitude(a, o.kind());
      Prepared.Tolerance t = o.tolerance();
      int bad = 0;
      for (int i = 0; i < n; i++) {
        compared++;
        if (o.kind() == Prepared.Kind.BITS) {
          long x = bits(a, i);
          long y = bits(b, i);
          if (x != y && bad++ < REPORT) {
            problems.add(
                String.format(
                    "%s[%d]: Java backend 0x%s, GPU 0x%s",
                    name, i, Long.toHexString(x), Long.toHexString(y)));
          }
          continue;
        }
        double x = value(a, i, o.kind());
        double y = value(b, i, o.kind());
        if (Double.isNaN(x) || Double.isNaN(y)) {
          // Poison is reported by checkAlone; any other NaN must be NaN on both sides.
          if (Double.isNaN(x) != Double.isNaN(y) && bad++ < REPORT) {
            problems.add(name + "[" + i + "]: Java backend " + x + ", GPU " + y);
          }
          continue;
        }
        if (Double.isInfinite(x) || Double.isInfinite(y)) {
          if (x != y && bad++ < REPORT) {
            problems.add(name + "[" + i + "]: Java backend " + x + ", GPU " + y);
          }
          continue;
        }
        double diff = Math.abs(x - y);
        double mag = Math.max(Math.abs(x), Math.abs(y));
        maxAbs = Math.max(maxAbs, diff);
        if (mag > 0) {
          maxRel = Math.max(maxRel, diff / mag);
        }
        boolean same =
            t.exact() ? bits(a, i) == bits(b, i) : diff <= t.rel() * mag + t.absOfScale() * scale;
        if (!same && bad++ < REPORT) {
          problems.add(
              String.format(
                  "%s[%d]: Java backend %s, GPU %s (|diff| %.3g, allowed %.3g)",
                  name, i, x, y, diff, t.rel() * mag + t.absOfScale() * scale));
        }
      }
      if (bad > REPORT) {
        problems.add(name + ": " + (bad - REPORT) + " more mismatches");
      }
    }
    return new Result(maxAbs, maxRel, compared, problems);
  }

  static String paramName(Prepared p, int arg) {
    return p.kernel().getParameters()[arg + 1].getName();
  }

  private static double maxMagnitude(Object a, Prepared.Kind kind) {
    double m = 0;
    int n = Array.getLength(a);
    for (int i = 0; i < n; i++) {
      double v = Math.abs(value(a, i, kind));
      if (Double.isFinite(v)) {
        m = Math.max(m, v);
      }
    }
    return m;
  }

  private static double value(Object a, int i, Prepared.Kind kind) {
    return switch (kind) {
      case F32 -> ((float[]) a)[i];
      case BF16 -> Bf16.toFloat(((short[]) a)[i]);
      case F16 -> F16.toFloat(((short[]) a)[i]);
      case BITS -> throw new IllegalArgumentException("BITS outputs have no value");
    };
  }

  private static long bits(Object a, int i) {
    return switch (a) {
      case float[] x -> Float.floatToRawIntBits(x[i]) & 0xFFFFFFFFL;
      case int[] x -> x[i] & 0xFFFFFFFFL;
      case short[] x -> x[i] & 0xFFFFL;
      case byte[] x -> x[i] & 0xFFL;
      default -> throw new IllegalArgumentException(a.getClass().getSimpleName());
    };
  }

  /** Index of the first element whose bits differ, or -1. */
  private static int firstBitDifference(Object a, Object b) {
    int n = Array.getLength(a);
    for (int i = 0; i < n; i++) {
      if (bits(a, i) != bits(b, i)) {
        return i;
      }
    }
    return -1;
  }
}
