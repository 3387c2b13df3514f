package sirocco.dispatch.cudnn;

import java.lang.reflect.Method;
import sirocco.DType;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.Event;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.sync.WaitKernels;

/**
 * Opt-in plan tuning for {@link CudnnSdpa} ({@link CudnnSdpa#AUTOTUNE_PROPERTY}): the candidate
 * count the property asks for, and the timing of each candidate on the first call of a shape.
 */
final class CudnnSdpaTuning {
  private CudnnSdpaTuning() {}

  static final int DEFAULT_CANDIDATES = 8;
  static final int WARMUP = 2;
  static final int TIMED = 6;

  /** {@link CudnnSdpa#AUTOTUNE_PROPERTY}'s candidate count, or 0 when tuning is off. */
  static int candidates() {
    String v = System.getProperty(CudnnSdpa.AUTOTUNE_PROPERTY);
    if (v == null || v.isBlank() || v.strip().equalsIgnoreCase("false")) {
      return 0;
    }
    if (v.strip().equalsIgnoreCase("true")) {
      return DEFAULT_CANDIDATES;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 1) {
        return n == 1 ? 0 : n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "system property "
            + CudnnSdpa.AUTOTUNE_PROPERTY
            + " must be true, false or a candidate count >= 1, got '"
            + v
            + "'");
  }

  /**
   * A plan for {@code key} chosen by timing up to {@code max} candidates on this call's buffers
   * ({@link CudnnSdpa#AUTOTUNE_PROPERTY}). Blocks until the timing events complete. The output is
   * written by every candidate; the call's own execution afterwards writes the final result.
   */
  static CudnnSdpaPlan plan(
      CudnnDeviceState state,
      CudnnSdpa.Call c,
      DType dtype,
      float scale,
      CudnnSdpaKey key,
      int max) {
    DeviceBuffer bias = CudnnSdpa.materializedBias(c, dtype);
    DeviceBuffer sink = c.device.allocate(ElementType.I32, 1, c.stream);
    try {
      long biasPointer = CudnnSdpa.biasPointer(c, bias);
      return CudnnSdpaPlan.tuned(
          Cudnn.api(),
          state.handle,
          key,
          max,
          candidate -> {
            Event a;
            Event b;
            state.lock.lock();
            try {
              long ws =
                  candidate.workspaceBytes > 0
                      ? state.workspace(c.stream, candidate.workspaceBytes)
                      : 0;
              state.bind(c.stream);
              for (int i = 0; i < WARMUP; i++) {
                candidate.execute(state.handle, c.q, c.k, c.v, c.o, biasPointer, scale, ws);
              }
              // Hold the stream while the timed executions are queued: a cuDNN execution costs
              // the host about as long as a short attention runs, and ungated events would time
              // the host (measured: the first candidates of a 10 µs shape read 15-22 µs).
              c.device.launch(
                  KernelLaunch.of(GATE, Dim3.of(1), Dim3.of(1), sink, GATE_NANOS), c.stream);
              a = c.stream.record();
              for (int i = 0; i < TIMED; i++) {
                candidate.execute(state.handle, c.q, c.k, c.v, c.o, biasPointer, scale, ws);
              }
              b = c.stream.record();
            } finally {
              state.lock.unlock();
            }
            b.synchronize();
            return b.elapsedMillisSince(a) * 1000.0 / TIMED;
          });
    } finally {
      sink.close();
      if (bias != null) {
        bias.close();
      }
    }
  }

  /** How long the gate holds the stream while a candidate's timed executions are queued. */
  static final long GATE_NANOS = 2_000_000L;

  private static final Method GATE = gateKernel();

  private static Method gateKernel() {
    try {
      return WaitKernels.class.getMethod(
          "busyWait", sirocco.api.KernelContext.class, int[].class, long.class);
    } catch (NoSuchMethodException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
