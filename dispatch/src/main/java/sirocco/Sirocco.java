package sirocco;

import java.util.Arrays;
import sirocco.api.Bf16;
import sirocco.dispatch.Internal;
import sirocco.dispatch.attention.SdpaOp;
import sirocco.dispatch.quant.QmmOp;
import sirocco.dispatch.quant.QuantizeOp;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * The entry point: a device (a CUDA GPU, or the Java backend), tensors on it, and the ops.
 *
 * <pre>{@code
 * try (Sirocco rt = Sirocco.open()) {
 *   Tensor x = rt.fromFloats(data, 2, 512);
 *   Quantized q = rt.quantize(w, 64, 4, QuantMode.AFFINE);
 *   Tensor y = rt.quantizedMatmul(x, q, true);
 *   float[] out = rt.toFloats(y);
 * }
 * }</pre>
 *
 * <p>Ops queue work on the instance's stream and return at once; reading a result ({@link
 * #toFloats}) waits for it. Bad arguments throw {@link IllegalArgumentException} naming the
 * argument and the expected form, and change nothing. Instances are thread-safe.
 */
public final class Sirocco implements AutoCloseable {
  static {
    Internal.install(new Bridge());
  }

  private final Device device;
  private final Stream stream;
  private final Backend backend;
  private final String reason;
  private volatile boolean closed;

  private Sirocco(Device device, String reason) {
    this.device = device;
    this.stream = device.defaultStream();
    this.backend = device.kind() == Device.Kind.CUDA ? Backend.CUDA : Backend.JAVA;
    this.reason = reason;
  }

  /**
   * CUDA when a driver and a GPU are present, else the Java backend; {@link #backendReason()} says
   * why.
   */
  public static Sirocco open() {
    Devices.Choice c = Devices.best();
    return new Sirocco(c.device(), c.reason());
  }

  /**
   * The given backend. {@link Backend#CUDA} throws {@link IllegalStateException} with the reason
   * when no GPU can be used.
   */
  public static Sirocco open(Backend backend) {
    if (backend == null) {
      throw new IllegalArgumentException("backend must be JAVA or CUDA, not null");
    }
    return switch (backend) {
      case JAVA -> new Sirocco(Devices.java(), "Java backend requested");
      case CUDA -> new Sirocco(Devices.cuda(0), "CUDA requested");
    };
  }

  public Backend backend() {
    return backend;
  }

  /** Why this backend was chosen. */
  public String backendReason() {
    return reason;
  }

  /** The device's name, e.g. "NVIDIA H200" or "Java backend (2 cores)". */
  public String deviceName() {
    return device.info().name();
  }

  /** One line: backend, device, compute capability, memory. */
  public String describe() {
    var i = device.info();
    return backend
        + " "
        + i.name()
        + (i.computeMajor() > 0
            ? " (sm_"
                + i.computeMajor()
                + i.computeMinor()
                + ", "
                + i.multiprocessors()
                + " SMs, "
                + (i.totalMemoryBytes() >> 20)
                + " MiB)"
            : "");
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this Sirocco instance is closed");
    }
  }

  // ---- tensors in ----

  private static long[] shapeOr1d(long[] shape, int length) {
    return shape == null || shape.length == 0 ? new long[] {length} : shape.clone();
  }

  private Tensor upload(Object data, int length, DType dtype, long[] shape, String name) {
    checkOpen();
    if (data == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    long[] s = shapeOr1d(shape, length);
    Tensor.checkShape(s, "shape");
    long n = Tensor.size(s);
    if (n != length) {
      throw new IllegalArgumentException(
          name + " has " + length + " elements but shape " + Arrays.toString(s) + " needs " + n);
    }
    DeviceBuffer b = device.allocate(dtype.storage(), n, stream);
    device.upload(data, 0, b, 0, length, stream);
    return new Tensor(this, new Tensor.Storage(b), dtype, s, Tensor.contiguousStrides(s), 0);
  }

  /** An F32 tensor holding {@code data} in row-major order; no shape means one dimension. */
  public Tensor fromFloats(float[] data, long... shape) {
    return upload(data, data == null ? 0 : data.length, DType.F32, shape, "data");
  }

  /** A BF16 tensor from bfloat16 bit patterns. */
  public Tensor fromBf16(short[] bits, long... shape) {
    return upload(bits, bits == null ? 0 : bits.length, DType.BF16, shape, "bits");
  }

  /** An F16 tensor from IEEE binary16 bit patterns. */
  public Tensor fromF16(short[] bits, long... shape) {
    return upload(bits, bits == null ? 0 : bits.length, DType.F16, shape, "bits");
  }

  /** An I32 tensor. */
  public Tensor fromInts(int[] data, long... shape) {
    return upload(data, data == null ? 0 : data.length, DType.I32, shape, "data");
  }

  /** A U32 tensor (e.g. packed quantized weights) from the words' bit patterns. */
  public Tensor fromU32(int[] words, long... shape) {
    return upload(words, words == null ? 0 : words.length, DType.U32, shape, "words");
  }

  /** A U8 tensor (boolean masks, fp-mode scales). */
  public Tensor fromU8(byte[] data, long... shape) {
    return upload(data, data == null ? 0 : data.length, DType.U8, shape, "data");
  }

  /** A tensor of zeros. */
  public Tensor zeros(DType dtype, long... shape) {
    checkOpen();
    if (dtype == null) {
      throw new IllegalArgumentException("dtype must not be null");
    }
    Tensor.checkShape(shape, "shape");
    long[] s = shape.clone();
    DeviceBuffer b = device.allocate(dtype.storage(), Tensor.size(s), stream);
    device.zero(b, stream);
    return new Tensor(this, new Tensor.Storage(b), dtype, s, Tensor.contiguousStrides(s), 0);
  }

  // ---- tensors out ----

  private void checkMine(Tensor t, String name) {
    if (t == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (t.owner() != this) {
      throw new IllegalArgumentException(name + " belongs to another Sirocco instance");
    }
    if (t.isClosed()) {
      throw new IllegalArgumentException(name + " is closed");
    }
  }

  /** The raw storage elements of {@code t} in row-major order (gathered from strided views). */
  private Object elements(Tensor t) {
    checkOpen();
    checkMine(t, "tensor");
    long n = t.size();
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "tensor has " + n + " elements; at most 2^31 - 9 can be copied to an array");
    }
    long[] shape = t.shape();
    long[] strides = t.strides();
    if (n == 0) {
      return t.dtype().storage().newArray(0);
    }
    long lo = t.offset();
    long hi = t.offset();
    for (int i = 0; i < shape.length; i++) {
      long span = (shape[i] - 1) * strides[i];
      if (span < 0) {
        lo += span;
      } else {
        hi += span;
      }
    }
    int spanLength = (int) (hi - lo + 1);
    Object span = t.dtype().storage().newArray(spanLength);
    device.download(t.buffer(), lo, span, 0, spanLength, stream);
    if (t.isContiguous() && spanLength == n) {
      return span;
    }
    Object out = t.dtype().storage().newArray((int) n);
    long[] index = new long[shape.length];
    for (int k = 0; k < n; k++) {
      long at = t.offset() - lo;
      for (int i = 0; i < shape.length; i++) {
        at += index[i] * strides[i];
      }
      System.arraycopy(span, (int) at, out, k, 1);
      for (int i = shape.length - 1; i >= 0; i--) {
        if (++index[i] < shape[i]) {
          break;
        }
        index[i] = 0;
      }
    }
    return out;
  }

  /**
   * The elements as floats (16-bit floats widened, integers converted; U32 as unsigned). Waits for
   * pending work.
   */
  public float[] toFloats(Tensor t) {
    Object e = elements(t);
    return switch (t.dtype()) {
      case F32 -> (float[]) e;
      case BF16 -> {
        short[] s = (short[]) e;
        float[] f = new float[s.length];
        for (int i = 0; i < s.length; i++) {
          f[i] = Bf16.toFloat(s[i]);
        }
        yield f;
      }
      case F16 -> {
        short[] s = (short[]) e;
        float[] f = new float[s.length];
        for (int i = 0; i < s.length; i++) {
          f[i] = Float.float16ToFloat(s[i]);
        }
        yield f;
      }
      case I32 -> {
        int[] s = (int[]) e;
        float[] f = new float[s.length];
        for (int i = 0; i < s.length; i++) {
          f[i] = s[i];
        }
        yield f;
      }
      case U32 -> {
        int[] s = (int[]) e;
        float[] f = new float[s.length];
        for (int i = 0; i < s.length; i++) {
          f[i] = (float) Integer.toUnsignedLong(s[i]);
        }
        yield f;
      }
      case U8 -> {
        byte[] s = (byte[]) e;
        float[] f = new float[s.length];
        for (int i = 0; i < s.length; i++) {
          f[i] = s[i] & 0xFF;
        }
        yield f;
      }
    };
  }

  /** The raw 16-bit patterns of a BF16 or F16 tensor. */
  public short[] toShorts(Tensor t) {
    if (t != null && t.dtype() != DType.BF16 && t.dtype() != DType.F16) {
      throw new IllegalArgumentException(
          "tensor must be BF16 or F16 for toShorts, got " + t.dtype());
    }
    return (short[]) elements(t);
  }

  /** The words of a U32 or I32 tensor. */
  public int[] toInts(Tensor t) {
    if (t != null && t.dtype() != DType.U32 && t.dtype() != DType.I32) {
      throw new IllegalArgumentException("tensor must be U32 or I32 for toInts, got " + t.dtype());
    }
    return (int[]) elements(t);
  }

  /** The bytes of a U8 tensor. */
  public byte[] toBytes(Tensor t) {
    if (t != null && t.dtype() != DType.U8) {
      throw new IllegalArgumentException("tensor must be U8 for toBytes, got " + t.dtype());
    }
    return (byte[]) elements(t);
  }

  // ---- ops ----

  /**
   * Quantizes {@code w} ({@code [..., rows, K]}, F32, F16 or BF16) in groups of {@code groupSize}
   * along its last axis, as MLX's {@code quantize} does, bit for bit: {@code wq} U32 {@code [...,
   * K*bits/32]}, {@code scales} {@code [..., K/groupSize]} (affine: w's dtype, with {@code biases}
   * alike; fp modes: U8 scale codes, no biases). Affine: bits 2, 3, 4, 5, 6, 8 and groups 32, 64,
   * 128; MXFP4 and MXFP8 take group 32 (bits 4, 8), NVFP4 group 16 (bits 4).
   *
   * @throws IllegalArgumentException naming the argument and the expected form, before any work is
   *     queued
   */
  public Quantized quantize(Tensor w, int groupSize, int bits, QuantMode mode) {
    return quantize(w, groupSize, bits, mode, null);
  }

  /**
   * {@link #quantize(Tensor, int, int, QuantMode)} with nvfp4's optional global scale: one F32
   * element (e.g. {@code max|w|}), kept in the result (null: none; other modes take none).
   */
  public Quantized quantize(Tensor w, int groupSize, int bits, QuantMode mode, Tensor globalScale) {
    checkOpen();
    checkMine(w, "w");
    if (globalScale != null) {
      checkMine(globalScale, "globalScale");
    }
    return QuantizeOp.quantize(this, w, groupSize, bits, mode, globalScale);
  }

  /**
   * The floating-point matrix a quantized one stands for, {@code [..., rows, K]}: in the scales'
   * dtype for affine, BF16 for fp modes (MLX's defaults).
   *
   * @throws IllegalArgumentException naming the component of {@code q} that is malformed
   */
  public Tensor dequantize(Quantized q) {
    return dequantize(q, null);
  }

  /**
   * {@link #dequantize(Quantized)} in {@code dtype}: any floating dtype for fp modes; the scales'
   * dtype or F32 for affine. {@code null} means the default.
   */
  public Tensor dequantize(Quantized q, DType dtype) {
    checkOpen();
    checkQuantized(q, "q");
    return QuantizeOp.dequantize(this, q, dtype);
  }

  /**
   * {@code x · wᵀ} ({@code transpose=true}, w stored {@code [N, K]}) or {@code x · w} (w stored
   * {@code [K, N]}) with a quantized {@code w}, as MLX's {@code quantized_matmul}.
   *
   * <p>x {@code [..., K]} (F32, F16 or BF16). With a 2-D w, every leading axis of x is a row: the
   * output is {@code [..., N]}. With batched w ({@code [..., N, K*bits/32]}), x's batch axes
   * ({@code x.shape[:-2]}) and w's broadcast as MLX does and the output is {@code [..batch, M, N]}.
   * Output dtype: x's for fp modes; for affine, x's when it equals the scales' dtype, else F32
   * (MLX's promotion). Views of x are made contiguous first. An empty output returns at once; the
   * kernel is chosen by a dispatch ladder ({@code qmm-mma}, {@code qmv}, {@code fp-qmv}, {@code
   * qvm}; see docs/QUANT.md) and the decision reported through the dispatch explain hook ({@code
   * -Dsirocco.threadInfo=true} prints it).
   *
   * @throws IllegalArgumentException naming the argument and the expected form, before any work is
   *     queued
   */
  public Tensor quantizedMatmul(Tensor x, Quantized w, boolean transpose) {
    checkOpen();
    checkMine(x, "x");
    checkQuantized(w, "w");
    return QmmOp.run(this, x, w, transpose);
  }

  private void checkQuantized(Quantized q, String name) {
    if (q == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    checkMine(q.wq(), name + ".wq");
    checkMine(q.scales(), name + ".scales");
    if (q.biases() != null) {
      checkMine(q.biases(), name + ".biases");
    }
    if (q.globalScale() != null) {
      checkMine(q.globalScale(), name + ".globalScale");
    }
  }

  /**
   * {@code softmax(scale·q·kᵀ + mask)·v}, as MLX's {@code fast.scaled_dot_product_attention}, with
   * {@link SdpaOptions#defaults()}; see {@link #scaledDotProductAttention(Tensor, Tensor, Tensor,
   * float, Mask, SdpaOptions)}.
   */
  public Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, float scale, Mask mask) {
    return scaledDotProductAttention(q, k, v, scale, mask, SdpaOptions.defaults());
  }

  /**
   * {@code softmax(scale·q·kᵀ + mask)·v}, as MLX's {@code fast.scaled_dot_product_attention}.
   *
   * <p>q {@code [B, Hq, Lq, D]}, k {@code [B, Hkv, Lkv, D]}, v {@code [B, Hkv, Lkv, Dv]}, all of
   * one dtype (F32, F16 or BF16), {@code Hq} a multiple of {@code Hkv} (q head {@code h} reads kv
   * head {@code h / (Hq/Hkv)}). Returns {@code [B, Hq, Lq, Dv]} in q's dtype. Masks ({@code null} =
   * none): causal aligned bottom-right (query {@code i} sees keys {@code j <= i + Lkv - Lq}),
   * additive (floating, broadcastable to {@code [B, Hq, Lq, Lkv]}), boolean (U8, nonzero = keep,
   * same broadcasting). A row whose every key is masked is 0. Views (slices of a longer KV cache,
   * transposes) are read in place. The kernel is chosen by a dispatch ladder (cuDNN, vector,
   * fallback; see docs/ATTENTION.md) and the decision reported through the dispatch explain hook
   * ({@code -Dsirocco.threadInfo=true} prints it).
   *
   * @throws IllegalArgumentException naming the argument and the expected form, before any work is
   *     queued
   * @throws UnsupportedOperationException with {@code options.forceFused()} when no fused kernel
   *     can run the call, listing each one's reason
   */
  public Tensor scaledDotProductAttention(
      Tensor q, Tensor k, Tensor v, float scale, Mask mask, SdpaOptions options) {
    checkOpen();
    checkMine(q, "q");
    checkMine(k, "k");
    checkMine(v, "v");
    if (options == null) {
      throw new IllegalArgumentException(
          "options must not be null; use SdpaOptions.defaults() for none");
    }
    if (mask != null && mask.tensor() != null) {
      checkMine(mask.tensor(), "mask");
    }
    if (options.sinks() != null) {
      checkMine(options.sinks(), "sinks");
    }
    return SdpaOp.run(this, q, k, v, scale, mask, options.sinks(), options.forceFused());
  }

  // ---- user kernels ----

  /** Queues a user-written kernel launch on this instance's stream. */
  public void run(Launch launch) {
    checkOpen();
    if (launch == null) {
      throw new IllegalArgumentException("launch must not be null");
    }
    Object[] args = launch.args.clone();
    for (int i = 0; i < args.length; i++) {
      if (args[i] instanceof Tensor t) {
        checkMine(t, "argument " + (i + 1));
        args[i] = t.buffer();
      }
    }
    device.launch(
        new KernelLaunch(
            launch.kernel,
            new Dim3(launch.grid[0], launch.grid[1], launch.grid[2]),
            new Dim3(launch.block[0], launch.block[1], launch.block[2]),
            launch.sharedBytes,
            args,
            0,
            launch.earlyStart),
        stream);
  }

  // ---- lifetime ----

  /**
   * Waits for all queued work and rethrows the first failure. From a virtual thread the wait does
   * not hold the carrier for long (see {@link SyncOptions}).
   */
  public void synchronize() {
    checkOpen();
    device.synchronize();
  }

  /**
   * {@link #synchronize()} with options: spinning, a spin duration, cancellation by interrupt.
   *
   * @throws java.util.concurrent.CancellationException when {@code options} are cancellable and the
   *     thread was interrupted before the work completed
   */
  public void synchronize(SyncOptions options) {
    checkOpen();
    if (options == null) {
      throw new IllegalArgumentException("options must not be null (use SyncOptions.defaults())");
    }
    device.synchronize(
        new sirocco.runtime.sync.WaitOptions(options.spin, options.spinNanos, options.cancellable));
  }

  /** Returns cached device memory to the device (see the runtime's pool trimming). */
  public void clearCache() {
    checkOpen();
    device.clearCache();
  }

  /** Bytes held in live buffers and reserved by the allocator. */
  public long[] memoryBytes() {
    var m = device.memoryStats();
    return new long[] {m.usedBytes(), m.reservedBytes()};
  }

  /** Waits for queued work; the device itself stays open for other instances. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      try {
        device.synchronize();
      } finally {
        closed = true;
      }
    }
  }

  @Override
  public String toString() {
    return "Sirocco[" + describe() + "]";
  }

  private static final class Bridge implements Internal.Bridge {
    @Override
    public DeviceBuffer buffer(Tensor t) {
      return t.buffer();
    }

    @Override
    public Device device(Sirocco rt) {
      return rt.device;
    }

    @Override
    public Stream stream(Sirocco rt) {
      return rt.stream;
    }

    @Override
    public Tensor wrap(Sirocco rt, DeviceBuffer buffer, DType dtype, long[] shape) {
      return new Tensor(
          rt, new Tensor.Storage(buffer), dtype, shape.clone(), Tensor.contiguousStrides(shape), 0);
    }

    @Override
    public Tensor empty(Sirocco rt, DType dtype, long[] shape) {
      Tensor.checkShape(shape, "shape");
      return wrap(
          rt, rt.device.allocate(dtype.storage(), Tensor.size(shape), rt.stream), dtype, shape);
    }
  }
}
