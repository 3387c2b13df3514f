package sirocco.dispatch.quant;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import sirocco.DType;
import sirocco.Quantized;
import sirocco.Sirocco;
import sirocco.Tensor;
import sirocco.dispatch.Decision;
import sirocco.dispatch.Explain;
import sirocco.dispatch.Ladder;
import sirocco.dispatch.OccupancyHints;
import sirocco.kernels.quant.AffineQmvAsyncKernel;
import sirocco.kernels.quant.AffineQmvKernel;
import sirocco.kernels.quant.AffineQmvPersistentKernel;
import sirocco.kernels.quant.AffineQmvRowsKernel;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.AffineQmvWarpKernel;
import sirocco.kernels.quant.FpQmvKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmMmaAsyncFpKernel;
import sirocco.kernels.quant.QmmMmaAsyncKernel;
import sirocco.kernels.quant.QmmMmaKernel;
import sirocco.kernels.quant.QmmMmaSplitKKernel;
import sirocco.kernels.quant.QmmMmaXSharedKernel;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.QmmTiledKernel;
import sirocco.kernels.quant.QmmWgmmaKernel;
import sirocco.kernels.quant.QmmWgmmaTmaKernel;
import sirocco.kernels.quant.Quant;
import sirocco.kernels.quant.QvmKernel;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.KernelLaunch;
import sirocco.runtime.Stream;

/**
 * {@link Sirocco#quantizedMatmul}: MLX's {@code quantized_matmul} — validation, batch folding and
 * broadcasting, and one dispatch ladder over the kernels of {@code sirocco.kernels.quant}.
 *
 * <h2>Ladder (first accepting rung runs; every rejection is reported with its reason)</h2>
 *
 * <ol>
 *   <li>{@value #QMM_WGMMA}: {@link QmmWgmmaKernel} (Hopper warpgroup tensor cores, x and the
 *       dequantized weights both in shared memory) — transposed affine 4-bit, bf16/f16; the policy
 *       ({@link QmmPolicy#wgmmaRejects}) comes first: not used by default, from {@code
 *       -Dsirocco.qmm.wgmmaMinRows=N} rows when asked for; then the device: sm_90 only (the ladder
 *       decides per device, {@link #decide(QmmShape, int)}, so elsewhere it falls through).
 *   <li>{@value #QMM_WGMMA_TMA}: {@link QmmWgmmaTmaKernel} ({@value #QMM_WGMMA} with each step's x
 *       tile brought in by one tile copy, {@link #xTileMap}) — what {@value #QMM_WGMMA} takes; the
 *       policy ({@link QmmPolicy#wgmmaTmaRejects}) first: not used by default, from {@code
 *       -Dsirocco.qmm.wgmmaTmaMinRows=N} rows when asked for; then the device: sm_90 only.
 *   <li>{@value #QMM_MMA_XSHARED}: {@link QmmMmaXSharedKernel} (tensor cores, weights from global
 *       memory straight into the lanes' registers, only x staged in shared memory) — transposed
 *       affine 4-bit, bf16/f16, k a multiple of 128; the policy ({@link QmmPolicy#xsharedRejects})
 *       comes first: not used by default (run 100: no faster than the op's choice), from {@code
 *       -Dsirocco.qmm.xsharedMinRows=N} rows when asked for.
 *   <li>{@value #QMM_TILED}: {@link QmmTiledKernel} (tensor cores, shared-memory tiles) — 64+ rows,
 *       transposed affine 4/8-bit, bf16/f16; then the policy ({@link QmmPolicy#tiledRejects}): from
 *       64 rows with n a multiple of 96, from 96 with n a multiple of 128 (run 60), and above
 *       {@link QmmPolicy#MMA_SPLITK_MAX_ROWS_TWO_TILES} (72) rows where a split-K kernel in force
 *       holds two row tiles per warp (runs 76–77, 102).
 *   <li>{@value #QMM_MMA_ASYNC}: {@link QmmMmaAsyncKernel} (the split-K tensor-core kernel with its
 *       weights streamed through a cp.async pipeline in shared memory) — the shapes {@value
 *       #QMM_MMA_SPLITK} takes with 2, 4 or 8 groups per warp slice, and 2-, 3-, 5- and 6-bit codes
 *       with groups of 64 or 128 (run 106: at every row count, {@link
 *       QmmPolicy#MMA_ASYNC_MAX_ROWS_2_6_BIT}; 6-bit where {@link QmmPolicy#ASYNC_6BIT}; 3- and
 *       5-bit where {@link QmmPolicy#ASYNC_3_5_BIT}, run 108, from 1 row since run 109); then the
 *       policy: the default tensor-core variant up to {@link QmmPolicy#MMA_ASYNC_MAX_ROWS} (8) rows
 *       (run 89), up to {@link QmmPolicy#MMA_ASYNC_TWO_TILES_MAX_ROWS} (72) where its plan holds
 *       two row tiles per warp (g32/g64/g128, runs 100, 102 and 103), from {@link
 *       QmmPolicy#AFFINE_ASYNC_MIN_ROWS} (1) row with groups of 64 or 128 (run 98), else the row
 *       threshold of {@value #QMM_MMA}.
 *   <li>{@value #QMM_MMA_SPLITK}: {@link QmmMmaSplitKKernel} (tensor cores, k split across a
 *       block's warps with x held in registers, persistent blocks) — transposed affine 4-bit,
 *       bf16/f16, k splitting evenly into slices of at most 256; then the policy: the tensor-core
 *       variant in force ({@link QmmPolicy#mmaVariant}: this one above the rows of {@value
 *       #QMM_MMA_ASYNC} and where it cannot take the shape), at most {@link
 *       QmmPolicy#MMA_SPLITK_MAX_ROWS} (16) rows with one 8-row tile per warp, {@link
 *       QmmPolicy#MMA_SPLITK_MAX_ROWS_TWO_TILES} (72) with two (g64/g128, the default above 8 rows,
 *       where the async kernel cannot take the shape), or {@link
 *       QmmPolicy#MMA_SPLITK_MAX_ROWS_FEW_TILED_BLOCKS} (256) with two where the tiled grid would
 *       be too small, and from {@link QmmPolicy#AFFINE_MMA_MIN_ROWS} rows as {@value #QMM_MMA}.
 *       Shapes it does not take fall through to {@value #QMM_MMA}.
 *   <li>{@value #QMM_MMA_FP_ASYNC}: {@link QmmMmaAsyncFpKernel} (the pipelined split-K kernel's
 *       mapping for fp codes, fragments built in place) — transposed mxfp4/nvfp4/mxfp8, bf16/f16, k
 *       splitting as affine 4-bit g32 does; then the policy ({@link QmmPolicy#fpAsyncRejects}):
 *       {@link QmmPolicy#FP_ASYNC_MIN_ROWS} (1) to {@link QmmPolicy#fpAsyncMaxRows} (16; mxfp4 32)
 *       rows (run 105), unless {@code -Dsirocco.qmm.mmaVariant} names another variant.
 *   <li>{@value #QMM_MMA}: {@link QmmMmaKernel} (tensor cores) — transposed weights, bf16/f16,
 *       affine 4/8-bit or any fp mode (nvfp4: k a multiple of 32); then the {@link QmmPolicy}:
 *       affine from {@link QmmPolicy#AFFINE_MMA_MIN_ROWS} (2) rows, fp modes from {@link
 *       QmmPolicy#FP_MMA_MIN_ROWS} (2) rows.
 *   <li>{@value #QMV_WARP}, {@value #QMV_PERSISTENT}, {@value #QMV_SPLITK}, {@value #QMV_ASYNC}:
 *       the faster vector-path variants ({@link AffineQmvWarpKernel}, {@link
 *       AffineQmvPersistentKernel}, {@link AffineQmvSplitKKernel}, {@link AffineQmvAsyncKernel}:
 *       transposed affine 2/4/8-bit (split-K and async: 4/8), bf16/f16) — then the policy, which
 *       uses one of them, {@link QmmPolicy#QMV_VARIANT} ({@value #QMV_SPLITK} by default, the
 *       fastest measured at 1 row on the H200); widths and dtypes it does not take fall through.
 *   <li>{@value #QMV_ROWS}: {@link AffineQmvRowsKernel} — transposed affine weights, any width,
 *       group and dtype, up to 8 rows of x per pass over the weights (CUDA cores); then the policy:
 *       from 1 row for 2/3/5/6 bits with bf16/f16 x ({@link QmmPolicy#QMV_ROWS_MIN_ROWS_HALF}),
 *       from {@link QmmPolicy#QMV_ROWS_MIN_ROWS} (2) rows otherwise. It takes the shapes the rungs
 *       above leave to {@value #QMV}: affine 2/3/5/6-bit, and float32 x at every width.
 *   <li>{@value #QMV}: {@link AffineQmvKernel} — transposed affine weights, any width, group and
 *       dtype (CUDA cores, one pass over the weights per row of x); what 1 row of f32 x (and the
 *       widths and dtypes no variant takes) falls to.
 *   <li>{@value #FP_QMV}: {@link FpQmvKernel} — transposed fp-mode weights, any dtype.
 *   <li>{@value #QVM}: {@link QvmKernel} — {@code transpose=false}, every mode, width and dtype.
 * </ol>
 *
 * Every validated call has an accepting rung; the rungs' row limits (grid.y) and 32-bit indexing
 * are met by launching at most {@link #rowLimit} rows at a time.
 *
 * <h2>Shapes</h2>
 *
 * x {@code [..., K]} (floating), w a {@link Quantized} {@code [..wb, N, K*bits/32]} ({@code
 * transpose=true}) or {@code [..wb, K, N*bits/32]}. With a 2-D w every leading axis of x folds into
 * rows: one matrix {@code [rows, K]}, output {@code [..., N]}. With batched w, the batch axes of x
 * ({@code x.shape[:-2]}) and w broadcast as MLX/numpy do, output {@code [..batch, M, N]} (a 1-D x
 * is one row, output {@code [..batch, N]}); one launch per output batch entry, each reading its
 * slab of w (copied to a buffer of its own unless it is the first). The output dtype is x's for fp
 * modes, and MLX's promotion of x and the scales for affine (equal: that dtype; different: F32, the
 * inputs widened). Empty outputs are returned before anything is launched; K = 0 gives zeros. Views
 * of x, or of w's tensors, are made dense first (device copy or strided gather).
 */
public final class QmmOp {
  private QmmOp() {}

  /** The op's name in decisions. */
  public static final String OP = "quantizedMatmul";

  public static final String QMM_MMA_SPLITK = "qmm-mma-splitk";
  public static final String QMM_MMA_ASYNC = "qmm-mma-async";
  public static final String QMM_MMA_FP_ASYNC = "qmm-mma-fp-async";
  public static final String QMM_MMA_XSHARED = "qmm-mma-xshared";
  public static final String QMM_TILED = "qmm-tiled";
  public static final String QMM_WGMMA = "qmm-wgmma";
  public static final String QMM_WGMMA_TMA = "qmm-wgmma-tma";
  public static final String QMM_MMA = "qmm-mma";
  public static final String QMV_WARP = "qmv-warp";
  public static final String QMV_PERSISTENT = "qmv-persistent";
  public static final String QMV_SPLITK = "qmv-splitk";
  public static final String QMV_ASYNC = "qmv-async";
  public static final String QMV_ROWS = "qmv-rows";
  public static final String QMV = "qmv";
  public static final String FP_QMV = "fp-qmv";
  public static final String QVM = "qvm";

  /**
   * What the ladder decides on: the launch's shape and the device's compute capability ({@code 10 *
   * major + minor}, e.g. 90), or {@link #ANY_DEVICE} for the Java backend, which runs every kernel.
   */
  private record Target(QmmShape shape, int sm) {
    Target {
      if (shape == null) {
        throw new IllegalArgumentException("shape must be a QmmShape, got null");
      }
      if (sm != ANY_DEVICE && sm < 10) {
        throw new IllegalArgumentException(
            "sm must be a compute capability as 10 * major + minor (e.g. 90) or ANY_DEVICE ("
                + ANY_DEVICE
                + "), got "
                + sm);
      }
    }
  }

  /**
   * The compute capability {@link #decide(QmmShape, int)} takes for a device that runs every
   * kernel: the Java backend.
   */
  public static final int ANY_DEVICE = 0;

  private static final Ladder<Target> LADDER =
      new Ladder<>(
          OP,
          List.of(
              new Ladder.Rung<>(
                  QMM_WGMMA,
                  t -> {
                    // The policy first: while it is off by default its one reason stands for
                    // every shape. Then the device: wgmma is sm_90a only, so an opt-in on another
                    // device falls through to the rungs below instead of failing at launch.
                    String why = QmmPolicy.wgmmaRejects(t.shape());
                    why = why != null ? why : wgmmaDeviceRejects(t.sm());
                    return why != null ? why : QmmWgmmaKernel.supports(t.shape(), true);
                  }),
              new Ladder.Rung<>(
                  QMM_WGMMA_TMA,
                  t -> {
                    // As qmm-wgmma: the policy, the device, then the shape.
                    String why = QmmPolicy.wgmmaTmaRejects(t.shape());
                    why = why != null ? why : wgmmaDeviceRejects(t.sm());
                    return why != null ? why : QmmWgmmaTmaKernel.supports(t.shape(), true);
                  }),
              rung(
                  QMM_MMA_XSHARED,
                  s -> {
                    // The policy first: while it is off by default its one reason stands for
                    // every shape.
                    String why = QmmPolicy.xsharedRejects(s);
                    return why != null ? why : QmmMmaXSharedKernel.supports(s);
                  }),
              rung(
                  QMM_TILED,
                  s -> {
                    String why = QmmTiledKernel.supports(s);
                    return why != null ? why : QmmPolicy.tiledRejects(s);
                  }),
              rung(
                  QMM_MMA_ASYNC,
                  s -> {
                    String why = QmmPolicy.mmaVariantRejects(QMM_MMA_ASYNC, s);
                    why = why != null ? why : QmmMmaAsyncKernel.supports(s);
                    return why != null ? why : QmmPolicy.mmaRejects(s, QMM_MMA_ASYNC);
                  }),
              rung(
                  QMM_MMA_SPLITK,
                  s -> {
                    String why = QmmPolicy.mmaVariantRejects(QMM_MMA_SPLITK, s);
                    why = why != null ? why : QmmMmaSplitKKernel.supports(s);
                    return why != null ? why : QmmPolicy.mmaRejects(s, QMM_MMA_SPLITK);
                  }),
              rung(
                  QMM_MMA_FP_ASYNC,
                  s -> {
                    String why = QmmMmaAsyncFpKernel.supports(s);
                    return why != null ? why : QmmPolicy.fpAsyncRejects(s);
                  }),
              rung(
                  QMM_MMA,
                  s -> {
                    String why = QmmMmaKernel.supports(s);
                    return why != null ? why : QmmPolicy.mmaRejects(s, QMM_MMA);
                  }),
              rung(QMV_WARP, s -> variant(QMV_WARP, s)),
              rung(QMV_PERSISTENT, s -> variant(QMV_PERSISTENT, s)),
              rung(QMV_SPLITK, s -> variant(QMV_SPLITK, s)),
              rung(QMV_ASYNC, s -> variant(QMV_ASYNC, s)),
              rung(
                  QMV_ROWS,
                  s -> {
                    String why = AffineQmvRowsKernel.supports(s);
                    return why != null ? why : QmmPolicy.qmvRowsRejects(s);
                  }),
              rung(QMV, AffineQmvKernel::supports),
              rung(FP_QMV, FpQmvKernel::supports),
              rung(QVM, QvmKernel::supports)));

  /** A rung whose kernels run on every device the op runs on: it looks at the shape only. */
  private static Ladder.Rung<Target> rung(String name, Function<QmmShape, String> rejects) {
    return new Ladder.Rung<>(name, t -> rejects.apply(t.shape()));
  }

  /** Why a device of compute capability {@code sm} cannot run {@value #QMM_WGMMA}, or null. */
  static String wgmmaDeviceRejects(int sm) {
    return sm == ANY_DEVICE || sm == 90
        ? null
        : "needs an sm_90 (Hopper) device (wgmma); this one is sm_" + sm;
  }

  /** The compute capability {@link #decide(QmmShape, int)} takes for {@code device}. */
  public static int sm(Device device) {
    if (device == null) {
      throw new IllegalArgumentException("device must be a Device, got null");
    }
    return device.kind() == Device.Kind.JAVA
        ? ANY_DEVICE
        : 10 * device.info().computeMajor() + device.info().computeMinor();
  }

  /** A vector-path variant rung: its kernel's support, then the policy's choice of variant. */
  private static String variant(String rung, QmmShape s) {
    String why = kernelRejects(rung, s);
    return why != null ? why : QmmPolicy.qmvVariantRejects(rung);
  }

  /** The rung names in order of preference. */
  public static List<String> rungs() {
    return LADDER.names();
  }

  /**
   * The ladder's decision for one launch's shape (policy included) on a device that runs every
   * kernel (the Java backend); {@link #decide(QmmShape, int)} for a GPU.
   */
  public static Decision decide(QmmShape s) {
    return decide(s, ANY_DEVICE);
  }

  /**
   * The ladder's decision for one launch's shape on a device of compute capability {@code sm}
   * ({@link #sm(Device)}).
   */
  public static Decision decide(QmmShape s, int sm) {
    return LADDER.choose(new Target(s, sm));
  }

  /**
   * Why rung {@code rung}'s kernel cannot compute {@code s} at all (the policy left out), or null.
   */
  public static String kernelRejects(String rung, QmmShape s) {
    return switch (rung) {
      case QMM_MMA_SPLITK -> QmmMmaSplitKKernel.supports(s);
      case QMM_MMA_ASYNC -> QmmMmaAsyncKernel.supports(s);
      case QMM_MMA_FP_ASYNC -> QmmMmaAsyncFpKernel.supports(s);
      case QMM_MMA_XSHARED -> QmmMmaXSharedKernel.supports(s);
      case QMM_TILED -> QmmTiledKernel.supports(s);
      // The device is checked at launch: shapes do not carry it.
      case QMM_WGMMA -> QmmWgmmaKernel.supports(s, true);
      case QMM_WGMMA_TMA -> QmmWgmmaTmaKernel.supports(s, true);
      case QMM_MMA -> QmmMmaKernel.supports(s);
      case QMV_WARP -> AffineQmvWarpKernel.supports(s);
      case QMV_PERSISTENT -> AffineQmvPersistentKernel.supports(s);
      case QMV_SPLITK -> AffineQmvSplitKKernel.supports(s);
      case QMV_ASYNC -> AffineQmvAsyncKernel.supports(s);
      case QMV_ROWS -> AffineQmvRowsKernel.supports(s);
      case QMV -> AffineQmvKernel.supports(s);
      case FP_QMV -> FpQmvKernel.supports(s);
      case QVM -> QvmKernel.supports(s);
      default ->
          throw new IllegalArgumentException(
              "kernel must be one of " + rungs() + ", got '" + rung + "'");
    };
  }

  /**
   * The rungs whose kernel can compute {@code s}, in ladder order (policy left out), on a device
   * that runs every kernel.
   */
  public static List<String> candidates(QmmShape s) {
    return candidates(s, ANY_DEVICE);
  }

  /** As {@link #candidates(QmmShape)}, on a device of compute capability {@code sm}. */
  public static List<String> candidates(QmmShape s, int sm) {
    Target t = new Target(s, sm);
    boolean wgmmaHere = wgmmaDeviceRejects(t.sm()) == null;
    List<String> out = new ArrayList<>();
    for (String r : rungs()) {
      if ((wgmmaHere || !isWgmma(r)) && kernelRejects(r, t.shape()) == null) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * The launch plan of rung {@code rung} for {@code s} (which the rung's kernel must support) on a
   * device of {@code smCount} multiprocessors (the persistent variants size their grids by it).
   */
  public static LaunchPlan plan(String rung, QmmShape s, int smCount) {
    return switch (rung) {
      case QMM_MMA_SPLITK -> QmmMmaSplitKKernel.plan(s, smCount);
      case QMM_MMA_ASYNC -> QmmMmaAsyncKernel.plan(s, smCount);
      case QMM_MMA_FP_ASYNC -> QmmMmaAsyncFpKernel.plan(s, smCount);
      case QMM_MMA_XSHARED -> QmmMmaXSharedKernel.plan(s);
      case QMM_TILED -> QmmTiledKernel.plan(s);
      case QMM_WGMMA -> QmmWgmmaKernel.plan(s);
      case QMM_WGMMA_TMA -> QmmWgmmaTmaKernel.plan(s);
      case QMM_MMA -> QmmMmaKernel.plan(s);
      case QMV_WARP -> AffineQmvWarpKernel.plan(s, smCount);
      case QMV_PERSISTENT -> AffineQmvPersistentKernel.plan(s, smCount);
      case QMV_SPLITK -> AffineQmvSplitKKernel.plan(s, smCount, OccupancyHints.enabled());
      case QMV_ASYNC -> AffineQmvAsyncKernel.plan(s, smCount);
      case QMV_ROWS -> AffineQmvRowsKernel.plan(s);
      case QMV -> AffineQmvKernel.plan(s);
      case FP_QMV -> FpQmvKernel.plan(s);
      case QVM -> QvmKernel.plan(s);
      default ->
          throw new IllegalArgumentException(
              "kernel must be one of " + rungs() + ", got '" + rung + "'");
    };
  }

  /**
   * One launch's buffers, all dense from element 0: {@code wq} (I32), {@code scales} (affine: the
   * dtype's storage; fp: I8 codes), {@code biases} (affine; null for fp), {@code globalScale} (one
   * float; null = none), {@code x} {@code [rows, k]} and {@code out} {@code [rows, n]}; {@code
   * xMap}, a tile map of {@code x} ({@link #xTileMap}), for {@value #QMM_WGMMA_TMA} only (null for
   * every other rung).
   */
  public record Operands(
      DeviceBuffer wq,
      DeviceBuffer scales,
      DeviceBuffer biases,
      DeviceBuffer globalScale,
      DeviceBuffer x,
      DeviceBuffer out,
      DeviceBuffer xMap) {
    /** Operands without a tile map of x: every rung but {@value #QMM_WGMMA_TMA}. */
    public Operands(
        DeviceBuffer wq,
        DeviceBuffer scales,
        DeviceBuffer biases,
        DeviceBuffer globalScale,
        DeviceBuffer x,
        DeviceBuffer out) {
      this(wq, scales, biases, globalScale, x, out, null);
    }
  }

  /**
   * The tile map of x that {@value #QMM_WGMMA_TMA} reads x through ({@link Operands#xMap}): {@code
   * x} as {@code s.rows()} rows of {@code s.k()} halves, boxes of one 64-k step by one 128-row
   * block, 128-byte swizzle. Built on {@code stream} ({@code Device.tileMap}); the caller closes it
   * once the launches using it have been queued (stream order frees it after them), and keeps
   * {@code x} open until then.
   */
  public static DeviceBuffer xTileMap(Device device, QmmShape s, DeviceBuffer x, Stream stream) {
    if (device == null || s == null || x == null || stream == null) {
      throw new IllegalArgumentException(
          "device, s, x and stream must not be null (x: the [rows, k] activations the map reads)");
    }
    int[] box = QmmWgmmaTmaKernel.xMapBox();
    return device.tileMap(x, 0, s.k(), s.rows(), s.k(), box[0], box[1], 128, stream);
  }

  private static boolean isWgmma(String rung) {
    return rung.equals(QMM_WGMMA) || rung.equals(QMM_WGMMA_TMA);
  }

  /**
   * The kernel launch rung {@code rung} makes for {@code s} on {@code o}: what the op queues, and
   * what {@code tornado bench qmm} times.
   */
  public static KernelLaunch launch(Device device, String rung, QmmShape s, Operands o) {
    String why = kernelRejects(rung, s);
    if (why != null) {
      throw new IllegalArgumentException(rung + " cannot compute " + s + ": " + why);
    }
    return launchPlanned(device, rung, plan(rung, s, device.info().multiprocessors()), s, o);
  }

  /**
   * The launch of rung {@code rung} with an explicit plan {@code p} of that rung's kernel (tiling
   * experiments: {@code tornado bench qmm --kernel qmm-mma@MTxNTxWNxKS}); the op itself always uses
   * {@link #plan}.
   */
  public static KernelLaunch launch(
      Device device, String rung, LaunchPlan p, QmmShape s, Operands o) {
    if (p == null) {
      throw new IllegalArgumentException(
          "p must be a plan of rung "
              + rung
              + "'s kernel, got null (use launch(device, rung, s,"
              + " o) for the op's own plan)");
    }
    String why = kernelRejects(rung, s);
    if (why != null) {
      throw new IllegalArgumentException(rung + " cannot compute " + s + ": " + why);
    }
    String expected = plan(rung, s, device.info().multiprocessors()).kernel();
    if (!p.kernel().equals(expected)) {
      throw new IllegalArgumentException(
          "plan runs " + p.kernel() + " but rung " + rung + " runs " + expected);
    }
    return launchPlanned(device, rung, p, s, o);
  }

  private static KernelLaunch launchPlanned(
      Device device, String rung, LaunchPlan p, QmmShape s, Operands o) {
    String noDevice = isWgmma(rung) ? wgmmaDeviceRejects(sm(device)) : null;
    if (noDevice != null) {
      throw new IllegalArgumentException(rung + " " + noDevice);
    }
    if (rung.equals(QMM_WGMMA_TMA) != (o.xMap() != null)) {
      throw new IllegalArgumentException(
          rung.equals(QMM_WGMMA_TMA)
              ? QMM_WGMMA_TMA + " reads x through a tile map: o.xMap must be QmmOp.xTileMap(...)"
              : "o.xMap is for " + QMM_WGMMA_TMA + " only; rung " + rung + " reads x itself");
    }
    boolean affine = s.mode() == Quant.AFFINE;
    DeviceBuffer gs =
        o.globalScale() != null ? o.globalScale() : QuantKernels.noGlobalScale(device);
    int n = s.n();
    int k = s.k();
    KernelLaunch l = launchArgs(device, rung, p, s, o, affine, gs, n, k);
    return QmmPolicy.earlyStart(rung) ? l.withEarlyStart(true) : l;
  }

  private static KernelLaunch launchArgs(
      Device device,
      String rung,
      LaunchPlan p,
      QmmShape s,
      Operands o,
      boolean affine,
      DeviceBuffer gs,
      int n,
      int k) {
    return switch (rung) {
      case QMM_TILED, QMM_MMA_XSHARED, QMM_WGMMA ->
          QuantKernels.launch(p, o.wq(), o.scales(), o.biases(), o.x(), o.out(), s.rows(), n, k);
      case QMM_WGMMA_TMA ->
          QuantKernels.launch(p, o.wq(), o.scales(), o.biases(), o.xMap(), o.out(), s.rows(), n, k);
      case QMV -> QuantKernels.launch(p, o.wq(), o.scales(), o.biases(), o.x(), o.out(), n, k);
      case QMV_WARP, QMV_PERSISTENT, QMV_SPLITK, QMV_ASYNC, QMM_MMA_SPLITK, QMM_MMA_ASYNC ->
          QuantKernels.launch(p, o.wq(), o.scales(), o.biases(), o.x(), o.out(), s.rows(), n, k);
      case QMV_ROWS ->
          QuantKernels.launch(
              p,
              AffineQmvRowsKernel.arguments(
                  s,
                  o.wq(),
                  o.scales(),
                  o.biases(),
                  o.x(),
                  o.out(),
                  QuantKernels.dummy(device, ElementType.I16),
                  QuantKernels.dummy(device, ElementType.F32)));
      case FP_QMV -> QuantKernels.launch(p, o.wq(), o.scales(), gs, o.x(), o.out(), n, k);
      case QMM_MMA_FP_ASYNC ->
          QuantKernels.launch(p, o.wq(), o.scales(), gs, o.x(), o.out(), s.rows(), n, k);
      default -> {
        // qmm-mma and qvm share a parameter list: both modes' scale arrays, the unused ones
        // dummies.
        ElementType half = s.dtype() == Quant.F32 ? ElementType.F32 : ElementType.I16;
        DeviceBuffer sc = affine ? o.scales() : QuantKernels.dummy(device, half);
        DeviceBuffer bi = affine ? o.biases() : QuantKernels.dummy(device, half);
        DeviceBuffer fs = affine ? QuantKernels.dummy(device, ElementType.I8) : o.scales();
        yield QuantKernels.launch(p, o.wq(), sc, bi, fs, gs, o.x(), o.out(), s.rows(), n, k);
      }
    };
  }

  // ---- validation ----

  /** A validated call. */
  record Call(
      Tensor x,
      QuantArgs.Weights w,
      boolean transpose,
      DType outType,
      long k,
      long n,
      long m,
      long[] outShape,
      long[] batch,
      long[] xBatchStrides,
      long[] wBatchStrides,
      boolean folded) {
    int kernelDtype() {
      return QuantArgs.dtype(outType);
    }

    QmmShape shape(long rows) {
      return new QmmShape(
          w.mode(),
          w.bits(),
          w.groupSize(),
          kernelDtype(),
          (int) rows,
          (int) n,
          (int) k,
          transpose);
    }
  }

  /**
   * MLX's checks, each failure an {@link IllegalArgumentException} naming the argument. The tensors
   * have been checked to be {@code rt}'s and open.
   */
  static Call validate(Tensor x, Quantized wq, boolean transpose) {
    QuantArgs.Weights w = QuantArgs.weights(wq, "w");
    QuantArgs.checkFloating(x, "x", "");
    if (x.rank() < 1) {
      throw new IllegalArgumentException("x must have at least 1 dimension [..., K], got a scalar");
    }
    long k = transpose ? w.cols() : w.rows();
    long n = transpose ? w.rows() : w.cols();
    if (x.shape(-1) != k) {
      throw new IllegalArgumentException(
          "x's last dimension ("
              + x.shape(-1)
              + ") must match the expanded quantized matrix ("
              + k
              + ", "
              + n
              + ") computed from w.wq "
              + QuantArgs.shape(w.wq())
              + " with groupSize="
              + w.groupSize()
              + ", bits="
              + w.bits()
              + " and transpose="
              + transpose);
    }
    DType out;
    if (w.affine()) {
      DType s = w.scales().dtype();
      out = x.dtype() == s ? s : DType.F32;
    } else {
      out = x.dtype();
    }
    long[] xs = x.shape();
    if (w.batch().length == 0) {
      long[] outShape = xs.clone();
      outShape[outShape.length - 1] = n;
      long m = 1;
      for (int i = 0; i < xs.length - 1; i++) {
        m *= xs[i];
      }
      return new Call(
          x, w, transpose, out, k, n, m, outShape, new long[0], new long[0], new long[0], true);
    }
    boolean vector = x.rank() == 1;
    long[] xb = vector ? new long[0] : Arrays.copyOfRange(xs, 0, xs.length - 2);
    long m = vector ? 1 : xs[xs.length - 2];
    long[] wb = w.batch();
    int r = Math.max(xb.length, wb.length);
    long[] batch = new long[r];
    long[] xStr = new long[r];
    long[] wStr = new long[r];
    long xAcc = 1;
    long wAcc = 1;
    for (int i = r - 1; i >= 0; i--) {
      int xi = i - (r - xb.length);
      int wi = i - (r - wb.length);
      long xd = xi >= 0 ? xb[xi] : 1;
      long wd = wi >= 0 ? wb[wi] : 1;
      if (xd != wd && xd != 1 && wd != 1) {
        throw new IllegalArgumentException(
            "x's batch shape "
                + Arrays.toString(xb)
                + " (x "
                + QuantArgs.shape(x)
                + ") and w's batch shape "
                + Arrays.toString(wb)
                + " (w.wq "
                + QuantArgs.shape(w.wq())
                + ") cannot be broadcast together: each axis must be equal or 1");
      }
      batch[i] = Math.max(xd, wd);
      if (xd == 0 || wd == 0) {
        batch[i] = 0;
      }
      xStr[i] = xd == 1 ? 0 : xAcc;
      wStr[i] = wd == 1 ? 0 : wAcc;
      xAcc *= xd;
      wAcc *= wd;
    }
    long[] outShape = Arrays.copyOf(batch, r + (vector ? 1 : 2));
    if (!vector) {
      outShape[r] = m;
    }
    outShape[outShape.length - 1] = n;
    boolean folded = w.batchSize() == 1;
    return new Call(x, w, transpose, out, k, n, m, outShape, batch, xStr, wStr, folded);
  }

  // ---- rows per launch ----

  private static volatile int rowLimitOverride;

  /** For tests: launch at most {@code rows} rows at a time (0 restores the default). */
  static void setRowLimitForTests(int rows) {
    rowLimitOverride = rows;
  }

  /**
   * Rows of x one launch takes: at most 65535 (the vector kernels' grid.y) and few enough that
   * {@code rows * n} and {@code rows * k} stay below 2^31.
   */
  static int rowLimit(long n, long k) {
    long limit = Math.min(65535, (Integer.MAX_VALUE - 1L) / Math.max(1, Math.max(n, k)));
    int o = rowLimitOverride;
    return (int) (o > 0 ? Math.min(limit, o) : limit);
  }

  // ---- entry ----

  /**
   * Validates, chooses, reports and launches; returns {@code x · wᵀ} ({@code transpose}) or {@code
   * x · w}. The work is queued on {@code rt}'s stream. The tensors are {@code rt}'s and open (the
   * caller checks).
   *
   * @throws IllegalArgumentException naming the argument, before anything is allocated or launched
   * @throws UnsupportedOperationException when {@code n * k} (one weight matrix) reaches 2^31
   *     elements, beyond the kernels' 32-bit indexing
   */
  public static Tensor run(Sirocco rt, Tensor x, Quantized wq, boolean transpose) {
    Call c = validate(x, wq, transpose);
    long size = 1;
    for (long d : c.outShape()) {
      size *= d;
    }
    boolean compute = size > 0 && c.k() > 0;
    if (compute && c.n() * c.k() >= Integer.MAX_VALUE) {
      throw new UnsupportedOperationException(
          "w holds "
              + c.n()
              + " x "
              + c.k()
              + " elements per matrix; the quantized-matmul kernels index with 32-bit ints (< 2^31)");
    }
    try (OpLauncher l = new OpLauncher(rt)) {
      Tensor out = l.output(c.outType(), c.outShape());
      if (size == 0) {
        return l.done(out); // empty: nothing to compute, nothing launched
      }
      if (!compute) {
        l.device.zero(l.buffer(out), l.stream); // K = 0: every output is an empty sum
        return l.done(out);
      }
      QuantArgs.Weights w = c.w();
      DType t = c.outType();
      DeviceBuffer xb = l.denseAs(c.x(), t);
      DeviceBuffer wqb = l.dense(w.wq());
      DeviceBuffer sb = w.affine() ? l.denseAs(w.scales(), t) : l.dense(w.scales());
      DeviceBuffer bb = w.affine() ? l.denseAs(w.biases(), t) : null;
      DeviceBuffer gs = w.globalScale() == null ? null : l.dense(w.globalScale());
      DeviceBuffer ob = l.buffer(out);
      Set<String> reported = new LinkedHashSet<>();
      if (c.folded()) {
        long rows = size / c.n();
        matrix(l, c, reported, new Operands(wqb, sb, bb, gs, xb, ob), 0, rows, 0);
        return l.done(out);
      }
      long wSlab = w.rows() * w.packed();
      long sSlab = w.rows() * w.groups();
      long xSlab = c.m() * c.k();
      long oSlab = c.m() * c.n();
      long batches = size / oSlab;
      long[] index = new long[c.batch().length];
      for (long b = 0; b < batches; b++) {
        int mark = l.mark();
        long xi = 0;
        long wi = 0;
        for (int i = 0; i < index.length; i++) {
          xi += index[i] * c.xBatchStrides()[i];
          wi += index[i] * c.wBatchStrides()[i];
        }
        Operands o =
            new Operands(
                l.from(wqb, wi * wSlab, wSlab),
                l.from(sb, wi * sSlab, sSlab),
                bb == null ? null : l.from(bb, wi * sSlab, sSlab),
                gs,
                xb,
                ob);
        matrix(l, c, reported, o, xi * xSlab, c.m(), b * oSlab);
        l.releaseSince(mark); // this entry's slabs: freed in stream order, after its launches
        for (int i = index.length - 1; i >= 0; i--) {
          if (++index[i] < c.batch()[i]) {
            break;
          }
          index[i] = 0;
        }
      }
      return l.done(out);
    }
  }

  /**
   * One matrix product {@code [rows, k] x w -> [rows, n]} with x read from element {@code xOff} of
   * {@code o.x()} and the output written from element {@code outOff} of {@code o.out()}, in
   * launches of at most {@link #rowLimit} rows.
   */
  private static void matrix(
      OpLauncher l, Call c, Set<String> reported, Operands o, long xOff, long rows, long outOff) {
    int limit = rowLimit(c.n(), c.k());
    int sm = sm(l.device);
    for (long r0 = 0; r0 < rows; r0 += limit) {
      long r = Math.min(limit, rows - r0);
      QmmShape s = c.shape(r);
      Decision d = decide(s, sm);
      if (reported.add(d.explain())) {
        Explain.report(d);
      }
      long xAt = xOff + r0 * c.k();
      long oAt = outOff + r0 * c.n();
      DeviceBuffer xs = l.from(o.x(), xAt, r * c.k());
      DeviceBuffer os = oAt == 0 ? o.out() : l.temp(o.out().type(), r * c.n());
      DeviceBuffer xm =
          d.chosen().equals(QMM_WGMMA_TMA) ? l.keep(xTileMap(l.device, s, xs, l.stream)) : null;
      l.launch(
          launch(
              l.device,
              d.chosen(),
              s,
              new Operands(o.wq(), o.scales(), o.biases(), o.globalScale(), xs, os, xm)));
      if (os != o.out()) {
        l.device.copy(os, 0, o.out(), oAt, r * c.n(), l.stream);
      }
    }
  }
}
