package sirocco.dispatch.quant;

import java.util.ArrayList;
import java.util.List;
import sirocco.DType;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Internal;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * Launches on one {@link Sirocco} instance's stream for one op call, and owns the call's
 * temporaries: they are closed (freed in stream order, after the launches queued before) when the
 * call ends; the output is closed too when the call fails before {@link #done}.
 *
 * <p>Kernels take whole buffers from element 0, so every input a kernel reads is first made
 * <em>dense</em> ({@link #dense}): contiguous at offset 0 as is, contiguous at an offset by a
 * device copy, strided by a {@link StridedCopy} gather.
 */
final class OpLauncher implements AutoCloseable {
  final Internal.Bridge bridge;
  final Sirocco rt;
  final Device device;
  final Stream stream;
  private final List<DeviceBuffer> temps = new ArrayList<>();
  private final List<Tensor> pendingOut = new ArrayList<>();

  OpLauncher(Sirocco rt) {
    this.rt = rt;
    this.bridge = Internal.bridge();
    this.device = bridge.device(rt);
    this.stream = bridge.stream(rt);
  }

  DeviceBuffer temp(ElementType type, long length) {
    DeviceBuffer b = device.allocate(type, Math.max(1, length), stream);
    temps.add(b);
    return b;
  }

  /** {@code b}, made elsewhere for this call, owned from now on as a temporary. */
  DeviceBuffer keep(DeviceBuffer b) {
    temps.add(b);
    return b;
  }

  /** How many temporaries exist now (for {@link #releaseSince}). */
  int mark() {
    return temps.size();
  }

  /**
   * Closes the temporaries made since {@code mark}: freed in stream order, after the work queued so
   * far that uses them.
   */
  void releaseSince(int mark) {
    while (temps.size() > mark) {
      temps.remove(temps.size() - 1).close();
    }
  }

  /** A new output tensor, closed again if the call fails. */
  Tensor output(DType dtype, long[] shape) {
    Tensor t = bridge.empty(rt, dtype, shape);
    pendingOut.add(t);
    return t;
  }

  /** Marks the outputs as handed to the caller. */
  <T> T done(T result) {
    pendingOut.clear();
    return result;
  }

  void launch(KernelLaunch l) {
    device.launch(l, stream);
  }

  DeviceBuffer buffer(Tensor t) {
    return bridge.buffer(t);
  }

  /** True when a kernel can read {@code t}'s buffer as is. */
  static boolean isDense(Tensor t) {
    return t.isContiguous() && t.offset() == 0;
  }

  /** {@code t}'s elements, row-major from element 0 of the returned buffer. */
  DeviceBuffer dense(Tensor t) {
    DeviceBuffer src = bridge.buffer(t);
    if (isDense(t)) {
      return src;
    }
    long n = t.size();
    DeviceBuffer dst = temp(src.type(), n);
    if (t.isContiguous()) {
      device.copy(src, t.offset(), dst, 0, n, stream);
    } else {
      gather(src, dst, t.shape(), t.strides(), t.offset());
    }
    return dst;
  }

  /**
   * A dense copy of a strided view: axes of size 1 dropped, neighbours that are contiguous with
   * each other merged, then one {@link StridedCopy} launch per combination of the axes beyond the
   * four a copy describes.
   */
  private void gather(DeviceBuffer src, DeviceBuffer dst, long[] shape, long[] strides, long off) {
    long[][] c = coalesce(shape, strides);
    long[] sh = c[0];
    long[] st = c[1];
    int outer = Math.max(0, sh.length - StridedCopy.MAX_RANK);
    long[] innerShape = java.util.Arrays.copyOfRange(sh, outer, sh.length);
    long[] innerStrides = java.util.Arrays.copyOfRange(st, outer, st.length);
    long innerSize = 1;
    for (long d : innerShape) {
      innerSize *= d;
    }
    long[] index = new long[outer];
    long written = 0;
    while (true) {
      long srcOff = off;
      for (int i = 0; i < outer; i++) {
        srcOff += index[i] * st[i];
      }
      launch(
          KernelLaunch.of(
              QuantKernels.method("StridedCopy." + StridedCopy.kernelName(src.type().arrayType())),
              StridedCopy.grid(innerSize),
              StridedCopy.block(),
              StridedCopy.args(src, dst, innerShape, innerStrides, srcOff, written)));
      written += innerSize;
      int a = outer - 1;
      while (a >= 0 && ++index[a] == sh[a]) {
        index[a] = 0;
        a--;
      }
      if (a < 0) {
        return;
      }
    }
  }

  /** Shape and strides with size-1 axes dropped and mergeable neighbours merged. */
  static long[][] coalesce(long[] shape, long[] strides) {
    List<long[]> axes = new ArrayList<>();
    for (int i = 0; i < shape.length; i++) {
      if (shape[i] == 1) {
        continue;
      }
      if (!axes.isEmpty()) {
        long[] last = axes.get(axes.size() - 1);
        if (last[1] == strides[i] * shape[i]) {
          last[0] *= shape[i];
          last[1] = strides[i];
          continue;
        }
      }
      axes.add(new long[] {shape[i], strides[i]});
    }
    long[] sh = new long[axes.size()];
    long[] st = new long[axes.size()];
    for (int i = 0; i < sh.length; i++) {
      sh[i] = axes.get(i)[0];
      st[i] = axes.get(i)[1];
    }
    return new long[][] {sh, st};
  }

  /** {@code n} bf16/f16 values as a new float32 buffer. */
  DeviceBuffer widen(DeviceBuffer bits, long n, DType from) {
    DeviceBuffer f = temp(ElementType.F32, n);
    widenInto(bits, n, from, f);
    return f;
  }

  /** {@code n} bf16/f16 values widened into the float32 buffer {@code f}. */
  void widenInto(DeviceBuffer bits, long n, DType from, DeviceBuffer f) {
    launch(
        KernelLaunch.of(
            QuantKernels.method("SdpaUnfused.widen"),
            Dim3.of((int) Math.max(1, (n + SdpaUnfused.THREADS - 1) / SdpaUnfused.THREADS)),
            Dim3.of(SdpaUnfused.THREADS),
            bits,
            f,
            (int) n,
            from == DType.F16 ? Sdpa.F16 : Sdpa.BF16));
  }

  /** {@code t} dense, widened to float32 when {@code to} is F32 and {@code t} is 16-bit. */
  DeviceBuffer denseAs(Tensor t, DType to) {
    DeviceBuffer d = dense(t);
    if (t.dtype() == to) {
      return d;
    }
    if (to != DType.F32 || (t.dtype() != DType.BF16 && t.dtype() != DType.F16)) {
      throw new IllegalStateException("cannot convert " + t.dtype() + " to " + to);
    }
    return widen(d, t.size(), t.dtype());
  }

  /**
   * {@code length} elements of {@code src} from {@code offset} as a buffer starting at element 0:
   * {@code src} itself when {@code offset} is 0, else a device copy.
   */
  DeviceBuffer from(DeviceBuffer src, long offset, long length) {
    if (offset == 0) {
      return src;
    }
    DeviceBuffer dst = temp(src.type(), length);
    device.copy(src, offset, dst, 0, length, stream);
    return dst;
  }

  DeviceBuffer dummy(ElementType type) {
    return QuantKernels.dummy(device, type);
  }

  @Override
  public void close() {
    for (Tensor t : pendingOut) {
      t.close();
    }
    for (DeviceBuffer b : temps) {
      b.close();
    }
  }
}
