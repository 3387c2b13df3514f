package sirocco.dispatch.quant;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sirocco.api.KernelContext;
import sirocco.kernels.attention.SdpaUnfused;
import sirocco.kernels.quant.AffineDequantizeKernel;
import sirocco.kernels.quant.AffineQmvAsyncKernel;
import sirocco.kernels.quant.AffineQmvKernel;
import sirocco.kernels.quant.AffineQmvPersistentKernel;
import sirocco.kernels.quant.AffineQmvRowsKernel;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.AffineQmvWarpKernel;
import sirocco.kernels.quant.AffineQuantizeKernel;
import sirocco.kernels.quant.FpDequantizeKernel;
import sirocco.kernels.quant.FpQmvKernel;
import sirocco.kernels.quant.FpQuantizeKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmMmaAsyncFpKernel;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmMmaXSharedKernel;
import sirocco.kernels.quant.QmmTiledKernel;
import sirocco.kernels.quant.QmmWgmmaKernel;
import sirocco.kernels.quant.QmmWgmmaTmaKernel;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.quant.QvmKernel;
import sirocco.kernels.util.StridedCopy;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * The kernels the quantization ops launch, found by the names their {@link LaunchPlan}s carry
 * ({@code "AffineQmvKernel.qmv"}), and the small per-device buffers launches need: a one-element
 * buffer per element type for array parameters a launch does not read, and nvfp4's "no global
 * scale" value ({@link Quant#NO_GLOBAL_SCALE}) as a one-element float32 array.
 */
final class QuantKernels {
  private QuantKernels() {}

  private static final List<Class<?>> CLASSES =
      List.of(
          AffineQuantizeKernel.class,
          AffineDequantizeKernel.class,
          FpQuantizeKernel.class,
          FpDequantizeKernel.class,
          AffineQmvKernel.class,
          AffineQmvWarpKernel.class,
          AffineQmvPersistentKernel.class,
          AffineQmvSplitKKernel.class,
          AffineQmvAsyncKernel.class,
          AffineQmvRowsKernel.class,
          FpQmvKernel.class,
          QmmMmaKernel.class,
          QmmMmaSplitKKernel.class,
          QmmMmaAsyncKernel.class,
          QmmMmaAsyncFpKernel.class,
          QmmMmaXSharedKernel.class,
          QmmTiledKernel.class,
          QmmWgmmaKernel.class,
          QmmWgmmaTmaKernel.class,
          QvmKernel.class,
          StridedCopy.class,
          SdpaUnfused.class);

  private static final Map<String, Method> METHODS = new ConcurrentHashMap<>();

  /** The kernel method called {@code "Class.method"} (simple class name), as plans name them. */
  static Method method(String name) {
    return METHODS.computeIfAbsent(name, QuantKernels::find);
  }

  private static Method find(String name) {
    int dot = name.indexOf('.');
    if (dot < 0) {
      throw new IllegalStateException("kernel name must be Class.method, got " + name);
    }
    String cls = name.substring(0, dot);
    String m = name.substring(dot + 1);
    for (Class<?> c : CLASSES) {
      if (!c.getSimpleName().equals(cls)) {
        continue;
      }
      Method found = null;
      for (Method candidate : c.getMethods()) {
        if (candidate.getName().equals(m)
            && candidate.getParameterCount() > 0
            && candidate.getParameterTypes()[0] == KernelContext.class) {
          if (found != null) {
            throw new IllegalStateException("two kernels named " + name);
          }
          found = candidate;
        }
      }
      if (found != null) {
        return found;
      }
    }
    throw new IllegalStateException("no kernel " + name);
  }

  /**
   * The launch a plan describes, with {@code runtime} arguments before its specialization values,
   * and the plan's occupancy hint.
   */
  static KernelLaunch launch(LaunchPlan plan, Object... runtime) {
    return KernelLaunch.of(
            method(plan.kernel()), plan.grid(), plan.block(), plan.arguments(runtime))
        .withMinBlocksPerSm(plan.minBlocksPerSm());
  }

  private static final Map<Device, Map<ElementType, DeviceBuffer>> DUMMIES =
      new ConcurrentHashMap<>();
  private static final Map<Device, DeviceBuffer> NO_GLOBAL_SCALE = new ConcurrentHashMap<>();

  /**
   * A one-element buffer of {@code type} on {@code device}, for array parameters a launch does not
   * read (the other mode's scales). Lives as long as the process; its content is unspecified.
   */
  static DeviceBuffer dummy(Device device, ElementType type) {
    return DUMMIES
        .computeIfAbsent(device, d -> new ConcurrentHashMap<>())
        .computeIfAbsent(type, t -> device.allocate(t, 1));
  }

  /**
   * A one-element float32 buffer holding {@link Quant#NO_GLOBAL_SCALE}: nvfp4 without a global
   * scale, and the value every other mode's kernels ignore. Uploaded once per device and waited
   * for, so every stream sees it.
   */
  static DeviceBuffer noGlobalScale(Device device) {
    return NO_GLOBAL_SCALE.computeIfAbsent(
        device,
        d -> {
          Stream s = d.defaultStream();
          DeviceBuffer b = d.allocate(ElementType.F32, 1, s);
          d.upload(new float[] {Quant.NO_GLOBAL_SCALE}, 0, b, 0, 1, s);
          s.synchronize();
          return b;
        });
  }
}
