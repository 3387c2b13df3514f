package sirocco.bench;

import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * Kernels the GPU benchmarks use around the kernels they measure: filling inputs with random data
 * on the device (timing on zeros is not allowed: it can run faster than real data), and a read-only
 * kernel that gives the floor for moving the same bytes.
 */
public final class BenchKernels {
  private BenchKernels() {}

  private static int hash(int x) {
    x ^= x >>> 16;
    x *= 0x7FEB352D;
    x ^= x >>> 15;
    x *= 0x846CA68B;
    x ^= x >>> 16;
    return x;
  }

  /** out[i] = bf16 of a hash-uniform value in [-scale, scale). */
  @Kernel
  public static void fillBf16(KernelContext ctx, short[] out, int seed, float scale, int n) { // [n]
    for (int i = ctx.globalIdx; i < n; i += ctx.globalGroupSizeX) {
      int h = hash(i * 0x9E3779B9 + seed);
      float u = (h >>> 8) * (1.0f / 16777216.0f);
      float value = (2 * u - 1) * scale;
      int bits = Float.floatToRawIntBits(value);
      out[i] = (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
  }

  /** out[i] = a hash-random 32-bit word (packed quantized codes). */
  @Kernel
  public static void fillWords(KernelContext ctx, int[] out, int seed, int n) { // [n]
    for (int i = ctx.globalIdx; i < n; i += ctx.globalGroupSizeX) {
      out[i] = hash(i * 0x9E3779B9 + seed);
    }
  }

  /**
   * Reads {@code words} 32-bit words with 16-byte loads, four independent loads in flight per
   * thread per iteration, and writes one word per thread only if the XOR of everything it read is a
   * value no random input produces in practice (so nothing is optimized away and almost nothing is
   * written). The floor for a kernel that must read the same bytes.
   */
  @Kernel
  public static void readFloor(
      KernelContext ctx, int[] data, int[] sink, int words) { // data [words]
    int stride = ctx.globalGroupSizeX * 4;
    int acc = 0;
    int i = ctx.globalIdx * 4;
    for (; i + 3 * stride < words; i += 4 * stride) {
      Int4 a = Vec.ldg4(data, i);
      Int4 b = Vec.ldg4(data, i + stride);
      Int4 c = Vec.ldg4(data, i + 2 * stride);
      Int4 d = Vec.ldg4(data, i + 3 * stride);
      acc ^= a.x() ^ a.y() ^ a.z() ^ a.w() ^ b.x() ^ b.y() ^ b.z() ^ b.w();
      acc ^= c.x() ^ c.y() ^ c.z() ^ c.w() ^ d.x() ^ d.y() ^ d.z() ^ d.w();
    }
    for (; i < words; i += stride) {
      Int4 a = Vec.ldg4(data, i);
      acc ^= a.x() ^ a.y() ^ a.z() ^ a.w();
    }
    if (acc == 0x5EC0C0DE) {
      sink[0] = acc;
    }
  }
}
