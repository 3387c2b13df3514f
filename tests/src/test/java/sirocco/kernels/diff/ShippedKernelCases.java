package sirocco.kernels.diff;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import sirocco.jit.KernelCompiler;

/**
 * The differential cases of every shipped kernel: the one table that says how each {@code @Kernel}
 * method of {@code sirocco.kernels} is launched with valid inputs. A shipped kernel without an
 * entry here fails {@code ShippedKernelsCoverageTest} (in every build) and the GPU differential
 * test, so a new kernel cannot go unchecked.
 *
 * <p>Every entry runs for <em>each</em> of the kernel's {@code validateWith} specialization sets (a
 * kernel without sets runs once): the sets are small (at most 9), so no subset is chosen. The
 * builder derives the problem shape from the set and takes the launch geometry from the plan the
 * dispatch layer uses; where that plan never picks a set (a bench-only variant, e.g. 16 warps or
 * another tiling), from the kernel's explicit plan call, which the case names. {@link
 * Prepared#checkAgainst} then proves the plan really selects the set under test.
 */
final class ShippedKernelCases {
  private ShippedKernelCases() {}

  /** Builds one case: a kernel method and one of its specialization sets. */
  @FunctionalInterface
  interface Builder {
    Prepared build(Method kernel, Prepared.Spec spec);
  }

  /** Kernel ({@code "SimpleClass.method"}) to builder. */
  static final Map<String, Builder> TABLE = table();

  private static Map<String, Builder> table() {
    Map<String, Builder> t = new TreeMap<>();
    // quantization
    t.put("AffineQuantizeKernel.quantize", QuantCases::affineQuantize);
    t.put("AffineQuantizeKernel.quantizeF32", QuantCases::affineQuantize);
    t.put("AffineDequantizeKernel.dequantize", QuantCases::affineDequantize);
    t.put("AffineDequantizeKernel.dequantizeF32", QuantCases::affineDequantize);
    t.put("FpQuantizeKernel.quantize", QuantCases::fpQuantize);
    t.put("FpQuantizeKernel.quantizeF32", QuantCases::fpQuantize);
    t.put("FpDequantizeKernel.dequantize", QuantCases::fpDequantize);
    t.put("FpDequantizeKernel.dequantizeF32", QuantCases::fpDequantize);
    // quantized matmul
    t.put("AffineQmvKernel.qmv", QuantCases::affineQmv);
    t.put("AffineQmvKernel.qmvF32", QuantCases::affineQmv);
    t.put("AffineQmvRowsKernel.qmv", QuantCases::affineQmvRows);
    t.put("AffineQmvWarpKernel.qmv", QuantCases::affineQmvWarp);
    t.put("AffineQmvPersistentKernel.qmv", QuantCases::affineQmvPersistent);
    t.put("AffineQmvSplitKKernel.qmv", QuantCases::affineQmvSplitK);
    t.put("AffineQmvAsyncKernel.qmv", QuantCases::affineQmvAsync);
    t.put("QmmMmaAsyncKernel.qmm", QuantCases::qmmMmaAsync);
    t.put("QmmMmaAsyncFpKernel.qmm", QuantCases::qmmMmaAsyncFp);
    t.put("FpQmvKernel.qmv", QuantCases::fpQmv);
    t.put("FpQmvKernel.qmvF32", QuantCases::fpQmv);
    t.put("QvmKernel.qvm", QuantCases::qvm);
    t.put("QvmKernel.qvmF32", QuantCases::qvm);
    t.put("QmmMmaKernel.qmm", QuantCases::qmm);
    t.put("QmmMmaSplitKKernel.qmm", QuantCases::qmmSplitK);
    t.put("QmmTiledKernel.qmm", QuantCases::qmmTiled);
    t.put("QmmWgmmaKernel.qmm", QuantCases::qmmWgmma);
    t.put("QmmWgmmaTmaKernel.qmm", QuantCases::qmmWgmmaTma);
    t.put("QmmMmaXSharedKernel.qmm", QuantCases::qmmMmaXShared);
    // attention
    t.put("SdpaUnfused.scores16", AttentionCases::scores);
    t.put("SdpaUnfused.scores32", AttentionCases::scores);
    t.put("SdpaUnfused.softmax", AttentionCases::softmax);
    t.put("SdpaUnfused.pv16", AttentionCases::pv);
    t.put("SdpaUnfused.pv32", AttentionCases::pv);
    t.put("SdpaUnfused.widen", AttentionCases::widen);
    t.put("SdpaVector.decode", AttentionCases::decode);
    t.put("SdpaVectorMma.decode", AttentionCases::decodeMma);
    t.put("SdpaVectorStaged.decode", AttentionCases::decodeStaged);
    t.put("SdpaSplitK.combine", AttentionCases::combine);
    t.put("MaskToBias.fromBool", UtilCases::maskToBias);
    t.put("MaskToBias.fromF32", UtilCases::maskToBias);
    t.put("MaskToBias.fromHalf", UtilCases::maskToBias);
    // data movement
    t.put("StridedCopy.copy8", UtilCases::stridedCopy);
    t.put("StridedCopy.copy16", UtilCases::stridedCopy);
    t.put("StridedCopy.copy32", UtilCases::stridedCopy);
    t.put("StridedCopy.copyF32", UtilCases::stridedCopy);
    return t;
  }

  /** One kernel under one specialization set. */
  record Case(Method kernel, Map<String, Object> specs, Builder builder) {
    String label() {
      return ShippedKernels.key(kernel) + (specs.isEmpty() ? "" : specs.toString());
    }

    /**
     * The launch, with inputs from {@code seed}, planned for {@code smCount} SMs of compute
     * capability {@code arch} (90: sm_90); fails when the plan misses the set.
     */
    Prepared prepare(long seed, int smCount, int arch) {
      Prepared p = builder.build(kernel, new Prepared.Spec(specs, new Random(seed), smCount, arch));
      String bad = p.checkAgainst(specs);
      if (bad != null) {
        throw new IllegalStateException(label() + ": " + bad);
      }
      return p;
    }
  }

  /** Shipped kernels that have no entry in {@link #TABLE}. */
  static List<String> missing(List<Method> shipped) {
    List<String> out = new ArrayList<>();
    for (Method m : shipped) {
      if (!TABLE.containsKey(ShippedKernels.key(m))) {
        out.add(ShippedKernels.key(m));
      }
    }
    return out;
  }

  /** Entries of {@link #TABLE} that name no shipped kernel (renamed or removed). */
  static List<String> stale(List<Method> shipped) {
    List<String> keys = new ArrayList<>(TABLE.keySet());
    for (Method m : shipped) {
      keys.remove(ShippedKernels.key(m));
    }
    return keys;
  }

  /** Every case: each shipped kernel with a table entry, under each of its validation sets. */
  static List<Case> cases(List<Method> shipped) {
    List<Case> out = new ArrayList<>();
    for (Method m : shipped) {
      Builder b = TABLE.get(ShippedKernels.key(m));
      if (b == null) {
        continue;
      }
      for (Map<String, Object> specs : KernelCompiler.validationSets(m)) {
        out.add(new Case(m, specs, b));
      }
    }
    return out;
  }
}
